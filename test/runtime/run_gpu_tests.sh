#!/usr/bin/env bash
# run_gpu_tests.sh: builds and runs the runtime's GPU tests on an sm_90a GPU
# (H100/H200): gpu_mma_sync, gpu_wgmma, gpu_tma, gpu_sync, and the seed HGEMM
# baseline's self-test. Each prints PASS/FAIL lines with its errors; this
# script exits 1 if any of them fails.
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# CROQ_RUNTIME_BUILD_DIR (default: build-runtime-tests/ at the repository
# root), CROQ_SEED (reproduce a failing run's random inputs).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${CROQ_RUNTIME_BUILD_DIR:-$repo/build-runtime-tests}"
mkdir -p "$out"

nvcc="${NVCC:-}"
if [[ -z "$nvcc" ]]; then
  if command -v nvcc >/dev/null 2>&1; then nvcc="$(command -v nvcc)"
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [[ -z "$nvcc" || ! -x "$nvcc" ]]; then
  echo "SKIP: the runtime GPU tests need nvcc; none found"
  exit 77
fi

flags=(-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I"$repo/runtime/include")
failed=0
build_and_run() {
  local name="$1" src="$2"
  shift 2
  echo "== $name"
  if ! "$nvcc" "${flags[@]}" "$@" "$src" -o "$out/$name"; then
    echo "FAIL: $name does not compile"
    failed=1
    return
  fi
  "$out/$name" || failed=1
}

build_and_run gpu_mma_sync "$here/gpu_mma_sync.cu"
build_and_run gpu_wgmma "$here/gpu_wgmma.cu"
build_and_run gpu_tma "$here/gpu_tma.cu"
build_and_run gpu_sync "$here/gpu_sync.cu"
build_and_run seed_hgemm_selftest "$repo/bench/baselines/seed_hgemm_naive.cu" -DSEED_HGEMM_SELF_TEST

if [[ $failed -ne 0 ]]; then
  echo "FAIL: runtime GPU tests"
  exit 1
fi
echo "PASS: runtime GPU tests"
