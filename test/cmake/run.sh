#!/usr/bin/env bash
# The CMake package, tested as its users meet it: install croqc from BUILD_DIR
# into a fresh prefix, configure test/cmake/consumer against it with
# find_package(croqc), build it (croqc_add_kernels, CPU target), run it, build
# again (nothing to do), then touch a header that a `.co` file includes and
# check that exactly that kernel is recompiled. A second configuration adds
# croqc's source tree with add_subdirectory() instead (-DCROQC_SOURCE_DIR),
# with CROQC_EXECUTABLE naming BUILD_DIR's croqc so that the compiler is not
# built twice, and builds and runs the same consumer. --subdir-compiler adds a
# third configuration that leaves CROQC_EXECUTABLE unset, so that the
# consumer's build compiles croqc itself before its kernels (minutes: the
# whole compiler).
#
#   test/cmake/run.sh [--build-dir=DIR] [--junit=FILE] [--keep] [--subdir-compiler]
#
# Each step is a test case of the JUnit file; the exit status is 0 when all
# pass. The consumer is copied to a temporary directory, so the source tree
# is never touched; --keep leaves that directory for inspection.
set -uo pipefail

build_dir=build
junit=""
keep=0
subdir_compiler=0
for arg in "$@"; do
  case "$arg" in
    --build-dir=*) build_dir=${arg#--build-dir=} ;;
    --junit=*) junit=${arg#--junit=} ;;
    --keep) keep=1 ;;
    --subdir-compiler) subdir_compiler=1 ;;
    *) echo "run.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
croqc=$(cd "$build_dir" && pwd)/tools/croqc/croqc
work=$(mktemp -d "${TMPDIR:-/tmp}/croqc-cmake-XXXXXX")
if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; else echo "run.sh: keeping $work"; fi

cases=""
failures=0
# step NAME COMMAND...: runs the command, its output in $work/NAME.log.
step() {
  local name=$1; shift
  local start=$SECONDS
  if "$@" >"$work/$name.log" 2>&1; then
    echo "PASS: cmake :: $name"
    cases+="<testcase classname=\"cmake\" name=\"$name\" time=\"$((SECONDS - start))\"/>"
  else
    echo "FAIL: cmake :: $name"
    sed 's/^/  | /' "$work/$name.log" | tail -n 40
    failures=$((failures + 1))
    cases+="<testcase classname=\"cmake\" name=\"$name\"><failure message=\"see the log\"/></testcase>"
  fi
}

consumer="$work/consumer-src"
out="$work/consumer-build"
cp -r "$here/consumer" "$consumer"

step install cmake --install "$build_dir" --prefix "$work/prefix"
step configure cmake -S "$consumer" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DKERNEL_KIND=cpu
step build cmake --build "$out"
step run bash -c "'$out/consumer' | grep -x 'PASS (saxpy 1000 elements, row_sum 7 rows, scale.h version 1)'"
step up-to-date bash -c "cmake --build '$out' | grep -q 'no work to do'"
# A newer included header: saxpy.co is recompiled (its depfile names
# scale.h), row_sum.co is not, and the program sees the new value.
touch_and_rebuild() {
  sleep 1
  sed -i 's/#define SAXPY_VERSION 1/#define SAXPY_VERSION 2/' "$consumer/kernels/scale.h"
  cmake --build "$out" | tee "$work/rebuild.out"
  grep -q 'croqc saxpy.co' "$work/rebuild.out" && ! grep -q 'croqc row_sum.co' "$work/rebuild.out"
}
step header-rebuild touch_and_rebuild
step run-after-edit bash -c "'$out/consumer' | grep -q 'scale.h version 2'"

# The same consumer with croqc's source tree added by add_subdirectory().
cp -r "$here/consumer" "$work/subdir-src"
step subdir-configure cmake -S "$work/subdir-src" -B "$work/subdir-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCROQC_SOURCE_DIR="$root" -DCROQC_EXECUTABLE="$croqc" -DKERNEL_KIND=cpu
step subdir-build cmake --build "$work/subdir-build"
step subdir-run bash -c "'$work/subdir-build/consumer' | grep -x 'PASS (saxpy 1000 elements, row_sum 7 rows, scale.h version 1)'"

tests=10
if [ "$subdir_compiler" = 1 ]; then
  # The compiler built by the consumer's build: croqc's sources are compiled,
  # then croqc generates the kernels.
  cp -r "$here/consumer" "$work/full-src"
  step full-configure cmake -S "$work/full-src" -B "$work/full-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCROQC_SOURCE_DIR="$root" -DKERNEL_KIND=cpu
  full_build() {
    cmake --build "$work/full-build" | tee "$work/full-build.out"
    grep -q 'Linking CXX executable croqc/tools/croqc/croqc' "$work/full-build.out"
  }
  step full-build full_build
  step full-run bash -c "'$work/full-build/consumer' | grep -x 'PASS (saxpy 1000 elements, row_sum 7 rows, scale.h version 1)'"
  tests=$((tests + 3))
fi
if [ -n "$junit" ]; then
  printf '<testsuite name="cmake" tests="%d" failures="%d">%s</testsuite>\n' "$tests" "$failures" "$cases" > "$junit"
fi
echo "cmake: $((tests - failures)) passed, $failures failed"
[ "$failures" = 0 ]
