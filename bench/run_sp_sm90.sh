#!/usr/bin/env bash
# bench/run_sp_sm90.sh: build and run the sm_90a 2:4 sparse GEMM benchmark
# (bench/gemm_sp_sm90.co): croqc's sparse f16 and FP8 kernels against the
# dense cuBLAS and cuBLASLt GEMMs, in one process; bench/run_sm90.sh with
# that source.
#
#   bench/run_sp_sm90.sh                 # 4096x8192x8192, 8192^3, 4000x3000x4096
#   bench/run_sp_sm90.sh 1000 2000 512   # M N K (K a multiple of 128)
#   CROQC_FLAGS="-D SPT_BN=256 -D SPT_STAGES=2" bench/run_sp_sm90.sh   # another tile for croq_sp_f16_tma
#
# Environment and exit status as bench/run_sm90.sh.
set -euo pipefail
exec env BENCH_SOURCE=bench/gemm_sp_sm90.co BENCH_LIBS="-lcublas -lcublasLt" "$(dirname "${BASH_SOURCE[0]}")/run_sm90.sh" "$@"
