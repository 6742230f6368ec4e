#!/usr/bin/env bash
# bench/run_fp8_sm90.sh: build and run the sm_90a FP8 GEMM benchmark
# (bench/gemm_fp8_sm90.co): croqc's FP8 and block-scaled FP8 kernels against
# cuBLASLt's FP8 GEMM, in one process; bench/run_sm90.sh with that source.
#
#   bench/run_fp8_sm90.sh                 # 8192^3, 4096x7168x16384, 4000x3000x4000
#   bench/run_fp8_sm90.sh 1000 2000 512   # M N K (K a multiple of 16)
#   CROQC_FLAGS="-D FP8_BN=128" bench/run_fp8_sm90.sh   # another tile for croq_fp8_ws
#
# Environment and exit status as bench/run_sm90.sh.
set -euo pipefail
exec env BENCH_SOURCE=bench/gemm_fp8_sm90.co BENCH_LIBS=-lcublasLt "$(dirname "${BASH_SOURCE[0]}")/run_sm90.sh" "$@"
