#!/usr/bin/env bash
# bench/run_sm90.sh: build and run the sm_90a warpgroup (WGMMA) f16 GEMM
# benchmark (bench/gemm_sm90.co): the pipelined WGMMA kernel and the seed
# chapter's warpgroup kernels against cuBLAS, in one process.
#
#   bench/run_sm90.sh                 # 4096^3, 8192^3, 16384^3, 2048x2048x16384, 128x8192x8192, 4095^3, 16416^3
#   bench/run_sm90.sh 2048            # one cube
#   bench/run_sm90.sh 1000 2000 512   # M N K
#   CROQC_FLAGS="-D BN=256" bench/run_sm90.sh   # another tile for croq_wgmma_f32acc
#
# Environment: CROQC (default build/tools/croqc/croqc), BENCH_BUILD_DIR
# (default build-bench), CROQC_FLAGS (extra croqc arguments, split on
# blanks; e.g. -D BM=.. -D BN=.. -D BK=..), BENCH_SOURCE (the benchmark,
# default bench/gemm_sm90.co; bench/run_fp8_sm90.sh sets it) and BENCH_LIBS
# (its libraries, default -lcublas). Exits 77 when there is no GPU or it is
# not an sm_90 one, 1 when the build or a correctness check fails.
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

source="${BENCH_SOURCE:-bench/gemm_sm90.co}"
libs="${BENCH_LIBS:--lcublas}"
exe="$out_dir/$(basename "$source" .co)"
mkdir -p "$out_dir"
echo "+ $croqc $source -o $exe $libs --arch=sm_90a ${extra_flags[*]:-}"
"$croqc" "$source" -o "$exe" $libs --arch=sm_90a ${extra_flags[@]+"${extra_flags[@]}"}

echo "+ $exe $*"
exec "$exe" "$@"
