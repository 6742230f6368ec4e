#!/usr/bin/env python3
"""Calls a croqc kernel on torch tensors and compares it with torch.matmul.

  python3 examples/torch/run_gemm.py [--croqc PATH] [--arch sm_86|sm_90a] [--work DIR]

1. `croqc --lib` compiles examples/sm86/hgemm_multiwarp_f32acc.co (its `main`
   suppressed) into the shared library libhgemm.so and the header hgemm.h
   (the extern "C" entry `croq_hgemm_f32acc`).
2. torch.utils.cpp_extension.load builds croq_gemm_ext.cpp, linked against
   libhgemm.so, as the module `croq_gemm`.
3. For several shapes (tile multiples and ragged ones), `croq_gemm.hgemm(a, b)`
   is compared with `torch.matmul(a.float(), b.float().T)`: the largest
   error must stay within 0.01 + 0.004 * |reference| (f16 output rounding and
   f32 accumulation).

Needs torch with CUDA, nvcc and a GPU; no network. Exit status 0 when every
shape matches. Not part of `make test` (torch is not installed on CI).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
KERNEL = os.path.join(REPO, "examples", "sm86", "hgemm_multiwarp_f32acc.co")
SHAPES = [(128, 128, 32), (256, 512, 256), (1000, 777, 300), (4096, 4096, 4096), (33, 65, 17)]
ABS_TOL, REL_TOL = 0.01, 0.004


def build_library(croqc, arch, work):
    library = os.path.join(work, "libhgemm.so")
    header = os.path.join(work, "hgemm.h")
    command = [croqc, "--lib", KERNEL, f"--arch={arch}", "-o", library, f"--header={header}"]
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True)
    return library


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--croqc", default=os.path.join(REPO, "build", "tools", "croqc", "croqc"))
    parser.add_argument("--arch", default="sm_86", help="sm_86 (SASS + PTX, runs on newer GPUs) or sm_90a")
    parser.add_argument("--work", help="build directory (default: a temporary one)")
    args = parser.parse_args()

    import torch
    from torch.utils.cpp_extension import load

    if not torch.cuda.is_available():
        print("run_gemm.py: torch sees no CUDA device", file=sys.stderr)
        return 1
    work = args.work or tempfile.mkdtemp(prefix="croqc-torch-")
    os.makedirs(work, exist_ok=True)
    library = build_library(args.croqc, args.arch, work)
    # with_cuda: the extension includes ATen's CUDA headers, so it needs
    # the toolkit's include directory and cudart (the source is C++, so
    # load() would not add them by itself).
    ext = load(name="croq_gemm", sources=[os.path.join(HERE, "croq_gemm_ext.cpp")],
               extra_include_paths=[work], extra_ldflags=[f"-L{work}", "-lhgemm", f"-Wl,-rpath,{work}"],
               build_directory=work, with_cuda=True, verbose=False)
    print(f"device: {torch.cuda.get_device_name()}; library: {library}")

    failures = 0
    torch.manual_seed(0)
    for m, n, k in SHAPES:
        a = torch.empty(m, k, device="cuda", dtype=torch.float16).uniform_(-1, 1)
        b = torch.empty(n, k, device="cuda", dtype=torch.float16).uniform_(-1, 1)
        got = ext.hgemm(a, b).float()
        ref = torch.matmul(a.float(), b.float().T)
        err = (got - ref).abs()
        bound = ABS_TOL + REL_TOL * ref.abs()
        bad = int((err > bound).sum())
        ok = bad == 0 and bool(torch.isfinite(got).all())
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'}  M={m:5d} N={n:5d} K={k:5d}  max |croqc - torch.matmul| = "
              f"{err.max().item():.3e}  (max |ref| {ref.abs().max().item():.2f}, {bad} beyond tolerance)")
    # A side stream: the entry orders itself after the work queued on it.
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.ones(256, 64, device="cuda", dtype=torch.float16)
        b = torch.full((128, 64), 0.5, device="cuda", dtype=torch.float16)
        got = ext.hgemm(a, b)
    side.synchronize()
    stream_ok = bool((got.float() == 32.0).all())
    failures += not stream_ok
    print(f"{'PASS' if stream_ok else 'FAIL'}  on a side stream (256 x 128, every element 32)")
    print("run_gemm.py:", "all shapes match torch.matmul" if failures == 0 else f"{failures} failed")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
