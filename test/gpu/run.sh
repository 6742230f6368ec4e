#!/usr/bin/env bash
# test/gpu/run.sh: build and run every end-to-end program on the GPU.
#
# Programs: every .co file under examples/ except examples/errors/, plus
# test/gpu/*.co. Each one is built with `croqc FILE.co -o EXE --arch=ARCH`
# (ARCH from a `// GPU-ARCH: sm_90a` line in the file, else sm_86) and run
# with a timeout (a `// CROQC-FLAGS: ...` line adds options to the build);
# it passes when it exits 0 and prints a line starting with
# PASS. With --sanitize it is also run under `compute-sanitizer --tool
# memcheck` (and `--tool racecheck` with --racecheck), each of which must
# report `ERROR SUMMARY: 0 errors` (racecheck: or `RACECHECK SUMMARY: 0
# hazards`) and let the program pass. Under a sanitizer the environment has
# CROQ_TEST_SANITIZER=memcheck|racecheck, so a program may skip its largest
# sizes there.
#
# Output: one line per program, `PASS name`, `FAIL name (reason)` or `SKIP
# name (reason)`, then `N passed, M failed` as the last line. The name is the
# path without `.co` (examples/sm86/ele_add_1d). Logs and executables go to
# the build directory (NAME.build.log, NAME.run.log, NAME.memcheck.log,
# NAME.racecheck.log).
#
# Exit status: 0 when nothing failed, 1 when something failed (or no program
# matched the filters), 2 on a usage error, 77 when there is no GPU.
#
# Usage: test/gpu/run.sh [options] [NAME-SUBSTRING...]
#   -j N, --jobs=N        build and run N programs at a time (default 1)
#   --sanitize            also run compute-sanitizer memcheck
#   --racecheck           also run compute-sanitizer racecheck (implies --sanitize)
#   --build-dir=DIR       scratch directory (default build-gpu-tests/ in the repository)
#   --timeout=SECONDS     limit for each build and each plain run (default 300);
#                         sanitizer runs get 10 times as long
#   --default-arch=ARCH   arch for files without a GPU-ARCH line (default sm_86)
#   -v, --verbose         print the tail of the log under each failure
#   -h, --help            print this help
# Environment: CROQC (default build/tools/croqc/croqc), COMPUTE_SANITIZER
# (default: compute-sanitizer on PATH, else /usr/local/cuda/bin/compute-sanitizer).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
invocation_dir="$PWD"

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

absolute() {  # absolute PATH relative to the directory the script was started in
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$invocation_dir/$1" ;;
  esac
}

jobs=1
sanitize=0
racecheck=0
verbose=0
timeout_s=300
default_arch=sm_86
build_dir="$root/build-gpu-tests"
filters=()

need_value() {
  if [[ $# -lt 2 || -z "$2" ]]; then
    echo "test/gpu/run.sh: option $1 needs a value" >&2
    exit 2
  fi
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    -j) need_value "$@"; jobs="$2"; shift ;;
    -j*) jobs="${1#-j}" ;;
    --jobs) need_value "$@"; jobs="$2"; shift ;;
    --jobs=*) jobs="${1#--jobs=}" ;;
    --sanitize) sanitize=1 ;;
    --racecheck) sanitize=1; racecheck=1 ;;
    --build-dir) need_value "$@"; build_dir="$(absolute "$2")"; shift ;;
    --build-dir=*) build_dir="$(absolute "${1#--build-dir=}")" ;;
    --timeout) need_value "$@"; timeout_s="$2"; shift ;;
    --timeout=*) timeout_s="${1#--timeout=}" ;;
    --default-arch) need_value "$@"; default_arch="$2"; shift ;;
    --default-arch=*) default_arch="${1#--default-arch=}" ;;
    -v | --verbose) verbose=1 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; filters+=("$@"); break ;;
    -*) echo "test/gpu/run.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done

if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "test/gpu/run.sh: -j needs a positive integer, got '$jobs'" >&2
  exit 2
fi
if ! [[ "$timeout_s" =~ ^[1-9][0-9]*$ ]]; then
  echo "test/gpu/run.sh: --timeout needs a positive number of seconds, got '$timeout_s'" >&2
  exit 2
fi

# No GPU: nothing here can run.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 77
fi

croqc="${CROQC:-build/tools/croqc/croqc}"
case "$croqc" in
  /*) ;;
  build/*) croqc="$root/$croqc" ;;
  *) croqc="$(absolute "$croqc")" ;;
esac
if [[ ! -x "$croqc" ]]; then
  echo "test/gpu/run.sh: croqc not found at '$croqc' (build it or set CROQC)" >&2
  exit 2
fi

sanitizer=""
if [[ $sanitize -eq 1 ]]; then
  sanitizer="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
  if [[ ! -x "$sanitizer" ]]; then
    echo "test/gpu/run.sh: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
    exit 2
  fi
fi

# Compute capability of GPU 0 as a number (86, 90, ...); empty if unknown.
gpu_sm="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')"
[[ "$gpu_sm" =~ ^[0-9]+$ ]] || gpu_sm=""

cd "$root" || exit 2

programs=()
while IFS= read -r file; do
  name="${file%.co}"
  if [[ ${#filters[@]} -gt 0 ]]; then
    match=0
    for f in "${filters[@]}"; do
      [[ "$name" == *"$f"* ]] && match=1
    done
    [[ $match -eq 1 ]] || continue
  fi
  programs+=("$file")
done < <({
  find examples -name '*.co' -not -path 'examples/errors/*' 2>/dev/null
  find test/gpu -maxdepth 1 -name '*.co' 2>/dev/null
} | LC_ALL=C sort)

if [[ ${#programs[@]} -eq 0 ]]; then
  echo "no program matches${filters[*]:+ '${filters[*]}'}"
  echo "0 passed, 0 failed"
  exit 1
fi

mkdir -p "$build_dir" || exit 2
results_dir="$(mktemp -d "$build_dir/.results.XXXXXX")" || exit 2
trap 'rm -rf "$results_dir"' EXIT
# Ctrl-C: stop the programs started here (by job id), then exit.
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM

# The arch a file asks for: its `// GPU-ARCH: sm_XX` line, else the default.
arch_of() {
  local arch
  arch="$(sed -n 's|^[[:space:]]*//[[:space:]]*GPU-ARCH:[[:space:]]*\([A-Za-z0-9_]*\).*|\1|p' "$1" | head -n 1)"
  printf '%s\n' "${arch:-$default_arch}"
}

# The extra croqc options a file asks for: its `// CROQC-FLAGS: ...` line.
flags_of() {
  sed -n 's|^[[:space:]]*//[[:space:]]*CROQC-FLAGS:[[:space:]]*||p' "$1" | head -n 1
}

# Prints the result line (and, with -v, the log tail) and records it.
report() {  # report INDEX STATUS NAME [REASON] [LOG]
  local index="$1" status="$2" name="$3" reason="${4:-}" log="${5:-}"
  local line="$status $name"
  [[ -n "$reason" ]] && line+=" ($reason)"
  if [[ $verbose -eq 1 && -n "$log" && -f "$log" ]]; then
    line+=$'\n'"$(tail -n 20 "$log" | sed 's/^/    /')"
  fi
  printf '%s\n' "$line"
  printf '%s\n' "$status" >"$results_dir/$index"
}

# Summary line a sanitizer run must contain, and one it must not.
sanitizer_clean() {  # sanitizer_clean TOOL LOG
  local tool="$1" log="$2"
  if grep -Eq 'ERROR SUMMARY: [1-9]' "$log"; then return 1; fi
  if grep -q 'ERROR SUMMARY: 0 errors' "$log"; then return 0; fi
  if [[ "$tool" == racecheck ]] && grep -q 'RACECHECK SUMMARY: 0 hazards' "$log"; then return 0; fi
  return 1
}

run_one() {  # run_one INDEX FILE
  local index="$1" file="$2"
  local name="${file%.co}"
  local exe="$build_dir/$name"
  local arch need flags
  arch="$(arch_of "$file")"
  read -r -a flags <<<"$(flags_of "$file")"
  mkdir -p "$(dirname "$exe")"

  need="$(printf '%s' "$arch" | sed -n 's/^sm_\([0-9]*\).*/\1/p')"
  if [[ -n "$gpu_sm" && -n "$need" ]]; then
    if [[ "$arch" == *a && "$gpu_sm" != "$need" ]] || [[ "$gpu_sm" -lt "$need" ]]; then
      report "$index" SKIP "$name" "needs $arch, the GPU is sm_$gpu_sm"
      return
    fi
  fi

  local build_log="$exe.build.log"
  {
    echo "+ $croqc $file -o $exe --arch=$arch ${flags[*]}"
    timeout --kill-after=10 "$timeout_s" "$croqc" "$file" -o "$exe" --arch="$arch" "${flags[@]}"
  } >"$build_log" 2>&1
  local status=$?
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    report "$index" FAIL "$name" "build timed out after ${timeout_s}s, see $build_log" "$build_log"
    return
  elif [[ $status -ne 0 || ! -x "$exe" ]]; then
    report "$index" FAIL "$name" "build failed (exit $status), see $build_log" "$build_log"
    return
  fi

  local run_log="$exe.run.log"
  timeout --kill-after=10 "$timeout_s" "$exe" >"$run_log" 2>&1
  status=$?
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    report "$index" FAIL "$name" "timed out after ${timeout_s}s, see $run_log" "$run_log"
    return
  elif [[ $status -ne 0 ]]; then
    report "$index" FAIL "$name" "exit $status, see $run_log" "$run_log"
    return
  elif ! grep -q '^PASS' "$run_log"; then
    report "$index" FAIL "$name" "exit 0 but no PASS line, see $run_log" "$run_log"
    return
  fi

  if [[ $sanitize -eq 1 ]]; then
    local tools=(memcheck)
    [[ $racecheck -eq 1 ]] && tools+=(racecheck)
    local tool log limit=$((timeout_s * 10))
    for tool in "${tools[@]}"; do
      log="$exe.$tool.log"
      CROQ_TEST_SANITIZER="$tool" timeout --kill-after=10 "$limit" \
        "$sanitizer" --tool "$tool" --error-exitcode 99 "$exe" >"$log" 2>&1
      status=$?
      if [[ $status -eq 124 || $status -eq 137 ]]; then
        report "$index" FAIL "$name" "$tool timed out after ${limit}s, see $log" "$log"
        return
      elif ! sanitizer_clean "$tool" "$log"; then
        report "$index" FAIL "$name" "$tool reported errors (exit $status), see $log" "$log"
        return
      elif [[ $status -ne 0 ]] || ! grep -q '^PASS' "$log"; then
        report "$index" FAIL "$name" "failed under $tool (exit $status), see $log" "$log"
        return
      fi
    done
  fi
  report "$index" PASS "$name"
}

running=0
for i in "${!programs[@]}"; do
  if [[ $jobs -eq 1 ]]; then
    run_one "$i" "${programs[$i]}"
  else
    run_one "$i" "${programs[$i]}" &
    running=$((running + 1))
    if [[ $running -ge $jobs ]]; then
      wait -n
      running=$((running - 1))
    fi
  fi
done
wait

passed=0
failed=0
skipped=0
for i in "${!programs[@]}"; do
  case "$(cat "$results_dir/$i" 2>/dev/null)" in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
[[ $skipped -gt 0 ]] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
