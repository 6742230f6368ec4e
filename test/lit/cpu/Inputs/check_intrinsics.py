"""Fails when the CPU runtime defines a CUDA device function that
compiler/target/CudaIntrinsics.def lists as missing from it (croqc would then
reject code the CPU target can run), and prints how many were checked."""
import pathlib
import re
import sys

def_file, runtime_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
names = re.findall(r"^CUDA_INTRINSIC\((\w+),", def_file.read_text(), flags=re.M)
sources = {p: p.read_text() for p in runtime_dir.rglob("*.h")}
defined = []
for name in names:
    pattern = re.compile(r"\b" + re.escape(name) + r"\s*\(")
    defined += [f"{name} in {p}" for p, text in sources.items() if pattern.search(text)]
if not names:
    print("no intrinsics found in", def_file)
    sys.exit(1)
if defined:
    print("listed as missing but defined by the CPU runtime:", *defined, sep="\n  ")
    sys.exit(1)
print(f"{len(names)} intrinsics absent from {len(sources)} CPU runtime headers")
