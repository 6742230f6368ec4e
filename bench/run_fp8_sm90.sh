#!/usr/bin/env bash
# bench/run_fp8_sm90.sh: build and run the sm_90a FP8 GEMM benchmark
# (bench/gemm_fp8_sm90.co): croqc's FP8 and block-scaled FP8 kernels against
# cuBLASLt's FP8 GEMM, in one process.
#
#   bench/run_fp8_sm90.sh                 # 8192^3, 4096x7168x16384, 4000x3000x4000
#   bench/run_fp8_sm90.sh 1000 2000 512   # M N K (K a multiple of 16)
#   CROQC_FLAGS="-D FP8_BN=128" bench/run_fp8_sm90.sh   # another tile for croq_fp8_ws
#
# Environment: CROQC (default build/tools/croqc/croqc), BENCH_BUILD_DIR
# (default build-bench), CROQC_FLAGS (extra croqc arguments, split on
# blanks). Exits 77 when there is no GPU or it is not an sm_90 one, 1 when
# the build or a correctness check fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

croqc="${CROQC:-build/tools/croqc/croqc}"
out_dir="${BENCH_BUILD_DIR:-build-bench}"
read -r -a extra_flags <<< "${CROQC_FLAGS:-}"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU (nvidia-smi is missing or fails); the benchmark needs one"
  exit 77
fi
cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' ')"
if [[ -n "$cap" && "$cap" != 9.0 ]]; then
  echo "SKIP: the GPU is compute capability $cap; the sm_90a benchmark needs 9.0 (Hopper)"
  exit 77
fi
if [[ ! -x "$croqc" ]]; then
  echo "error: croqc not found at '$croqc' (build it or set CROQC)" >&2
  exit 1
fi

mkdir -p "$out_dir"
echo "+ $croqc bench/gemm_fp8_sm90.co -o $out_dir/gemm_fp8_sm90 -lcublasLt --arch=sm_90a ${extra_flags[*]:-}"
"$croqc" bench/gemm_fp8_sm90.co -o "$out_dir/gemm_fp8_sm90" -lcublasLt --arch=sm_90a ${extra_flags[@]+"${extra_flags[@]}"}

echo "+ $out_dir/gemm_fp8_sm90 $*"
exec "$out_dir/gemm_fp8_sm90" "$@"
