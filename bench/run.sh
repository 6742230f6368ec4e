#!/usr/bin/env bash
# bench/run.sh: build and run the sm_86 f16 GEMM benchmark (bench/gemm_sm86.co):
# croqc-generated kernels against cuBLAS and the hand-written seed kernel.
#
#   bench/run.sh                 # 4096^3 and 4095^3
#   bench/run.sh 2048            # one cube
#   bench/run.sh 1000 2000 512   # M N K
#
# Environment: CROQC (default build/tools/croqc/croqc), BENCH_BUILD_DIR
# (default build-bench). Exits 77 when there is no GPU, 1 when the build or
# a correctness check fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

croqc="${CROQC:-build/tools/croqc/croqc}"
out_dir="${BENCH_BUILD_DIR:-build-bench}"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU (nvidia-smi is missing or fails); the benchmark needs one"
  exit 77
fi
if [[ ! -x "$croqc" ]]; then
  echo "error: croqc not found at '$croqc' (build it or set CROQC)" >&2
  exit 1
fi

mkdir -p "$out_dir"
echo "+ $croqc bench/gemm_sm86.co bench/baselines/seed_hgemm_naive.cu -o $out_dir/gemm_sm86 -lcublas --arch=sm_86"
"$croqc" bench/gemm_sm86.co bench/baselines/seed_hgemm_naive.cu -o "$out_dir/gemm_sm86" -lcublas --arch=sm_86

echo "+ $out_dir/gemm_sm86 $*"
exec "$out_dir/gemm_sm86" "$@"
