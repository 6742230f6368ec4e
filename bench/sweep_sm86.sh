#!/usr/bin/env bash
# bench/sweep_sm86.sh: the multi-warp mma.sync GEMM of bench/gemm_sm86.co
# at several tile configurations (BM BN BK WM WN, set with croqc -D), each
# built once and run at the given sizes against cuBLAS in the same process.
#
#   bench/sweep_sm86.sh [SIZE...]          # default: 4096
# Environment: CROQC (default build/tools/croqc/croqc), ARCH (default sm_90a:
# the mma.sync kernels compiled for the H200; sm_86 limits shared memory to
# 99 KB, which the larger tiles exceed), BENCH_BUILD_DIR (default
# build-bench), CONFIGS ("BM BN BK WM WN;..." to replace the default list).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
croqc="${CROQC:-build/tools/croqc/croqc}"
arch="${ARCH:-sm_90a}"
out="${BENCH_BUILD_DIR:-build-bench}"
sizes=("$@")
[[ ${#sizes[@]} -eq 0 ]] && sizes=(4096)
IFS=';' read -r -a configs <<< "${CONFIGS:-128 128 32 64 32;128 128 64 64 32;128 256 32 64 64;256 128 32 64 64;128 128 32 64 64;128 128 64 64 64}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 77
fi
mkdir -p "$out"
pids=()
for cfg in "${configs[@]}"; do
  read -r bm bn bk wm wn <<< "$cfg"
  exe="$out/gemm_sm86_${bm}x${bn}x${bk}_${wm}x${wn}"
  "$croqc" bench/gemm_sm86.co bench/baselines/seed_hgemm_naive.cu -o "$exe" -lcublas --arch="$arch" \
    -D BM="$bm" -D BN="$bn" -D BK="$bk" -D WM="$wm" -D WN="$wn" > "$exe.build.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
for cfg in "${configs[@]}"; do
  read -r bm bn bk wm wn <<< "$cfg"
  exe="$out/gemm_sm86_${bm}x${bn}x${bk}_${wm}x${wn}"
  if [[ ! -x "$exe" ]]; then
    echo "== BM=$bm BN=$bn BK=$bk WM=$wm WN=$wn: build failed"; cat "$exe.build.log"; status=1; continue
  fi
  for s in "${sizes[@]}"; do
    echo "== BM=$bm BN=$bn BK=$bk WM=$wm WN=$wn size $s"
    "$exe" "$s" | grep -E "^(cublas|croq_multiwarp)" || status=1
  done
done
exit $status
