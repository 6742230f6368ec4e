#!/usr/bin/env python3
# Stands in for nvidia-smi in the tests of `--arch=native`: answers the
# `--query-gpu=compute_cap,name --format=csv,noheader` query with
#   FAKE_SMI_GPUS=LINES  printed as they are (`;` separates lines; empty: no GPU)
#   FAKE_SMI_EXIT=STATUS exit with STATUS after printing
import os
import sys

if sys.argv[1:] != ["--query-gpu=compute_cap,name", "--format=csv,noheader"]:
    sys.stderr.write("fake-nvidia-smi: unexpected arguments %r\n" % sys.argv[1:])
    sys.exit(2)
for line in os.environ.get("FAKE_SMI_GPUS", "").split(";"):
    if line:
        print(line)
sys.exit(int(os.environ.get("FAKE_SMI_EXIT", "0")))
