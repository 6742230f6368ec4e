#!/usr/bin/env python3
"""Runs a command and succeeds only if it exits with the expected status.

  expect-exit.py STATUS COMMAND [ARGS...]

lit's `not` only tells zero from non-zero; croqc's statuses (0, 1, 70) are
part of its interface, so tests pin them with this (`%expect-exit` in lit).
The command's stdout and stderr pass through unchanged.
"""
import subprocess
import sys

expected = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
if status != expected:
    print(f"expect-exit: {' '.join(sys.argv[2:])!r} exited with {status}, expected {expected}", file=sys.stderr)
    sys.exit(1)
