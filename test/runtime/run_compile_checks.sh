#!/usr/bin/env bash
# run_compile_checks.sh: checks the croq runtime headers without a GPU.
#
#   (that the generated wgmma header is up to date is a lit test:
#   test/lit/runtime/wgmma-instructions-generated.test, which needs no nvcc)
#   1. compile_check.cu (every device wrapper instantiated in kernels) compiles
#      for sm_86 and for sm_90a with warnings as errors
#   2. the GPU tests and the seed HGEMM baseline compile (they run elsewhere:
#      run_gpu_tests.sh)
#   3. host_api_test builds with the host compiler and passes, and two runs
#      without CROQ_SEED use different random seeds
#
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# CXX (default: g++), CROQ_RUNTIME_BUILD_DIR (default: build-runtime-tests/ at
# the repository root). Exits 77 (ctest SKIP_RETURN_CODE) when nvcc is absent,
# 1 on the first failure, 0 when everything passes.
set -euo pipefail

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
  echo "SKIP: runtime compile checks need nvcc (set NVCC=/path/to/nvcc); none found"
  exit 77
fi
# nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc), so
# ask nvcc itself where the toolkit's headers are.
cuda_include="$("$nvcc" -dryrun -c -x cu /dev/null -o /dev/null 2>&1 |
  sed -n 's/^#\$ INCLUDES="-I\([^"]*\)".*/\1/p' | head -n1 | sed 's/ *$//')"
if [[ -z "$cuda_include" || ! -f "$cuda_include/cuda_runtime.h" ]]; then
  cuda_include="$(cd "$(dirname "$(readlink -f "$nvcc")")/../include" && pwd)"
fi
cxx="${CXX:-g++}"

inc=(-I"$repo/runtime/include")
warn=(-Werror all-warnings -Xcompiler=-Wall,-Wextra,-Werror)
sm86=(-arch=sm_86)
sm90a=(-gencode=arch=compute_90a,code=sm_90a)

step() { printf '== %s\n' "$*"; }
run() {
  if ! "$@"; then
    printf 'FAIL: %s\n' "$*"
    exit 1
  fi
}

step "compile_check.cu for sm_86"
run "$nvcc" -std=c++17 "${sm86[@]}" "${warn[@]}" "${inc[@]}" -c "$here/compile_check.cu" -o "$out/compile_check_sm86.o"
step "compile_check.cu for sm_90a"
run "$nvcc" -std=c++17 "${sm90a[@]}" "${warn[@]}" "${inc[@]}" -c "$here/compile_check.cu" -o "$out/compile_check_sm90a.o"

step "GPU tests compile (sm_90a; gpu_mma_sync also sm_86)"
run "$nvcc" -std=c++17 "${sm86[@]}" "${warn[@]}" "${inc[@]}" "$here/gpu_mma_sync.cu" -o "$out/gpu_mma_sync_sm86"
for t in gpu_mma_sync gpu_wgmma gpu_tma gpu_sync; do
  run "$nvcc" -std=c++17 "${sm90a[@]}" "${warn[@]}" "${inc[@]}" "$here/$t.cu" -o "$out/$t"
done

step "seed HGEMM baseline compiles (sm_86, sm_90)"
run "$nvcc" -std=c++17 "${sm86[@]}" "${warn[@]}" -c "$repo/bench/baselines/seed_hgemm_naive.cu" -o "$out/seed_hgemm_naive_sm86.o"
run "$nvcc" -std=c++17 -arch=sm_90 "${warn[@]}" -DSEED_HGEMM_SELF_TEST "$repo/bench/baselines/seed_hgemm_naive.cu" -o "$out/seed_hgemm_selftest"

step "host_api_test ($cxx, then nvcc)"
run "$cxx" -std=c++17 -Wall -Wextra -Werror "${inc[@]}" -I"$cuda_include" "$here/host_api_test.cpp" -o "$out/host_api_test"
run "$nvcc" -std=c++17 "${warn[@]}" "${inc[@]}" "$here/host_api_test.cpp" -o "$out/host_api_test_nvcc"
run "$out/host_api_test"
run "$out/host_api_test_nvcc"
seed1="$(env -u CROQ_SEED "$out/host_api_test" --seed)"
seed2="$(env -u CROQ_SEED "$out/host_api_test" --seed)"
seed3="$(CROQ_SEED=77 "$out/host_api_test" --seed)"
if [[ "$seed1" == "$seed2" || "$seed3" != 77 ]]; then
  echo "FAIL: random seeds: two fresh runs gave $seed1 and $seed2; CROQ_SEED=77 gave $seed3"
  exit 1
fi
echo "PASS: fresh runs use different seeds ($seed1, $seed2); CROQ_SEED is honoured"

echo "PASS: runtime compile checks"
