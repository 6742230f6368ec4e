#!/usr/bin/env python3
"""Runs croqc on inputs that must never crash or hang it.

  no_crash.py [--timeout S] [--expect-exit N] [--quiet] -- COMMAND [ARGS...]
  no_crash.py [--timeout S] --each DIR_OR_FILE... -- COMMAND [ARGS...]

The first form runs COMMAND once and passes its stdout and stderr through
(both to stdout, so FileCheck sees the diagnostics). The second runs
COMMAND once per file (every regular file of each DIR but a README.md,
sorted), with the file appended as the last argument, and prints one
summary line.

A run fails, and this script exits 1 naming the input, if it:
  * does not finish within S seconds (default 60);
  * exits with a status >= 128 or is killed by a signal;
  * prints a crash report (`PLEASE submit a bug report`, `Stack dump:`,
    `internal compiler error`) or a sanitizer report;
  * exits with another status than N, when --expect-exit is given (with
    --each, the status must be 0 or 1).
Only the Python 3 standard library is used.
"""
import argparse
import os
import subprocess
import sys

CRASH_MARKERS = ("PLEASE submit a bug report", "PLEASE report", "Stack dump:", "internal compiler error",
                 "ERROR: AddressSanitizer", "runtime error:", "ERROR: libFuzzer")


def run(command, timeout):
    """Returns (status, output) or raises SystemExit with a failure message."""
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"no-crash: {' '.join(command)!r} did not finish within {timeout} s")
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def check(command, status, output, allowed):
    where = " ".join(command)
    if status < 0 or status >= 128:
        sys.exit(f"no-crash: {where!r} crashed (exit status {status})\n{output[-4000:]}")
    for marker in CRASH_MARKERS:
        if marker in output:
            sys.exit(f"no-crash: {where!r} printed a crash report ({marker!r})\n{output[-4000:]}")
    if status not in allowed:
        sys.exit(f"no-crash: {where!r} exited with {status}, expected {' or '.join(map(str, sorted(allowed)))}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--expect-exit", type=int)
    parser.add_argument("--each", nargs="+", metavar="PATH")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")

    if args.each is None:
        status, output = run(command, args.timeout)
        sys.stdout.write(output)
        allowed = {args.expect_exit} if args.expect_exit is not None else set(range(128))
        check(command, status, output, allowed)
        return

    files = []
    for path in args.each:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, name) for name in os.listdir(path)
                            if os.path.isfile(os.path.join(path, name)) and name != "README.md")
        else:
            files.append(path)
    counts = {}
    for path in files:
        status, output = run(command + [path], args.timeout)
        check(command + [path], status, output, {0, 1})
        counts[status] = counts.get(status, 0) + 1
    print(f"no-crash: {len(files)} inputs, exit 0: {counts.get(0, 0)}, exit 1: {counts.get(1, 0)}, crashes: 0")


if __name__ == "__main__":
    main()
