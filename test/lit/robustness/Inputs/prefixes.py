#!/usr/bin/env python3
"""Runs croqc on every prefix of a file: a truncated file never crashes it.

  prefixes.py [--timeout S] [--step N] FILE -- COMMAND [ARGS...]

Writes the first 0, N, 2N, ... bytes of FILE (N = 1 by default, so every
prefix; the whole file is always included) to scratch files and runs
COMMAND with each appended as the last argument, several at a time. Every
run must exit 0 or 1 within S seconds, without a crash report (the checks of
no_crash.py). Prints one summary line; exits 1 at the first failure.
"""
import argparse
import concurrent.futures
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import no_crash  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("file")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    data = open(args.file, "rb").read()
    sizes = sorted(set(range(0, len(data), args.step)) | {len(data)})

    with tempfile.TemporaryDirectory() as scratch:
        def run(size):
            path = os.path.join(scratch, f"prefix-{size}.co")
            with open(path, "wb") as f:
                f.write(data[:size])
            status, output = no_crash.run(command + [path], args.timeout)
            no_crash.check(command + [path], status, output, {0, 1})
            os.remove(path)
            return status

        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            statuses = list(pool.map(run, sizes))
    print(f"prefixes: {len(sizes)} prefixes of {len(data)} bytes, exit 0: {statuses.count(0)}, "
          f"exit 1: {statuses.count(1)}, crashes: 0")


if __name__ == "__main__":
    main()
