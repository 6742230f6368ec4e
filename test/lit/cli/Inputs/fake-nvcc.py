#!/usr/bin/env python3
# Stands in for nvcc (or the host compiler) in the driver's tests: writes a
# small "binary" to the path after `-o`.
#   FAKE_NVCC_STARTED=FILE  create FILE first (the test knows nvcc runs now)
#   FAKE_NVCC_SLEEP=SECONDS wait that long before writing
#   FAKE_NVCC_EXIT=STATUS   exit with STATUS instead, writing nothing
import os
import sys
import time

args = sys.argv[1:]
output = args[args.index("-o") + 1]
started = os.environ.get("FAKE_NVCC_STARTED")
if started:
    open(started, "w").close()
time.sleep(float(os.environ.get("FAKE_NVCC_SLEEP", "0")))
status = int(os.environ.get("FAKE_NVCC_EXIT", "0"))
if status == 0:
    with open(output, "w") as f:
        f.write("fake binary\n")
sys.exit(status)
