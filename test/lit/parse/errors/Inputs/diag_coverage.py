#!/usr/bin/env python3
"""Fails if a diagnostic kind of the front end has no test.

  diag_coverage.py DIAG_DIR TEST_DIR

Reads the kinds declared with DIAG(name, ...) in DIAG_DIR/{Lex,Parse,
Preprocess}.def and the kinds that the tests under TEST_DIR name in their
`Kind:` comment lines (`// Kind: err_octal_literal, note_...`, continued on
the following comment lines while they end with a comma). Prints each kind
without a test and exits 1 if there is one, except the kinds in UNREACHABLE
below, which no input can produce (each with the reason).
"""
import os
import re
import sys

FILES = ("Lex.def", "Parse.def", "Preprocess.def")
UNREACHABLE = set()
DIAG_RE = re.compile(r"^DIAG\((\w+),", re.M)
KIND_RE = re.compile(r"(?://|#)\s*Kind:\s*(.*)$")
CONT_RE = re.compile(r"^\s*(?://|#)\s+(.*)$")


def declared(diag_dir):
    kinds = []
    for name in FILES:
        with open(os.path.join(diag_dir, name)) as f:
            kinds += DIAG_RE.findall(f.read())
    return kinds


def tested(test_dir):
    kinds = set()
    for root, _, files in os.walk(test_dir):
        for name in files:
            if not name.endswith((".co", ".test")):
                continue
            with open(os.path.join(root, name), errors="replace") as f:
                lines = f.read().splitlines()
            for i, line in enumerate(lines):
                m = KIND_RE.search(line)
                if not m:
                    continue
                text = m.group(1)
                while text.rstrip().endswith(",") and i + 1 < len(lines) and CONT_RE.match(lines[i + 1]):
                    i += 1
                    text += " " + CONT_RE.match(lines[i]).group(1)
                kinds.update(re.findall(r"\b(?:err|warn|note)_\w+", text))
    return kinds


def main():
    diag_dir, test_dir = sys.argv[1], sys.argv[2]
    kinds = declared(diag_dir)
    have = tested(test_dir)
    missing = [k for k in kinds if k not in have and k not in UNREACHABLE]
    stale = sorted(k for k in UNREACHABLE if k not in kinds)
    for k in missing:
        print(f"diag_coverage: no test names diagnostic kind `{k}` in a `Kind:` line")
    for k in stale:
        print(f"diag_coverage: `{k}` is listed as unreachable but no longer declared")
    print(f"diag_coverage: {len(kinds)} kinds, {len(kinds) - len(missing) - len(UNREACHABLE)} tested, "
          f"{len(UNREACHABLE)} unreachable, {len(missing)} without a test")
    sys.exit(1 if missing or stale else 0)


if __name__ == "__main__":
    main()
