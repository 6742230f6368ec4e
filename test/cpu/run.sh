#!/usr/bin/env bash
# test/cpu/run.sh: build and run every end-to-end program on the CPU, with
# `croqc --target=cpu` (no GPU needed).
#
# Programs: every .co file under examples/ except examples/errors/, plus
# test/gpu/*.co, the same list as test/gpu/run.sh. Each one is built with
# `croqc FILE.co --target=cpu -o EXE` (plus the options of a `// CROQC-FLAGS:`
# line in the file) and run with a timeout; it passes when
# it exits 0 and prints a line starting with PASS. A program that uses what
# the CPU target cannot emulate (croqc reports "cannot run on the CPU
# target": inline PTX) is skipped, with croqc's message as
# the reason. While a program runs, the environment has CROQ_TEST_TARGET=cpu.
#
# Output: one line per program, `PASS name (T s)`, `FAIL name (reason)` or
# `SKIP name (reason)`, then `N passed, M failed` as the last line (after
# `K skipped` when some were). The name is the path without `.co`
# (examples/sm86/ele_add_1d). Logs and executables go to the build
# directory (NAME.build.log, NAME.run.log).
#
# Exit status: 0 when nothing failed, 1 when something failed (or no program
# matched the filters), 2 on a usage error.
#
# Usage: test/cpu/run.sh [options] [NAME-SUBSTRING...]
#   -j N, --jobs=N        build and run N programs at a time (default 1)
#   --build-dir=DIR       scratch directory (default build-cpu-tests/ in the repository)
#   --timeout=SECONDS     limit for each build and each run (default 300)
#   --junit=FILE          also write the results as JUnit XML (for `make test`)
#   --emit-only           only generate each program's C++ (`--emit=cuda`); it
#                         passes when croqc exits 0 (`make sanitize` checks a
#                         sanitized croqc this way: the host compiler and the
#                         programs are the same as in the full run)
#   --reference=CROQC     with --emit-only: the output must also be byte for
#                         byte what this croqc generates
#   -v, --verbose         print the tail of the log under each failure
#   -h, --help            print this help
# Environment: CROQC (default build/tools/croqc/croqc), CXX (the host
# compiler croqc runs; default g++), OMP_NUM_THREADS (cores per program).
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
verbose=0
timeout_s=300
build_dir="$root/build-cpu-tests"
junit=""
emit_only=0
reference=""
filters=()

need_value() {
  if [[ $# -lt 2 || -z "$2" ]]; then
    echo "test/cpu/run.sh: option $1 needs a value" >&2
    exit 2
  fi
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    -j) need_value "$@"; jobs="$2"; shift ;;
    -j*) jobs="${1#-j}" ;;
    --jobs) need_value "$@"; jobs="$2"; shift ;;
    --jobs=*) jobs="${1#--jobs=}" ;;
    --build-dir) need_value "$@"; build_dir="$(absolute "$2")"; shift ;;
    --build-dir=*) build_dir="$(absolute "${1#--build-dir=}")" ;;
    --timeout) need_value "$@"; timeout_s="$2"; shift ;;
    --timeout=*) timeout_s="${1#--timeout=}" ;;
    --junit) need_value "$@"; junit="$(absolute "$2")"; shift ;;
    --junit=*) junit="$(absolute "${1#--junit=}")" ;;
    --emit-only) emit_only=1 ;;
    --reference) need_value "$@"; reference="$(absolute "$2")"; shift ;;
    --reference=*) reference="$(absolute "${1#--reference=}")" ;;
    -v | --verbose) verbose=1 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; filters+=("$@"); break ;;
    -*) echo "test/cpu/run.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done

if ! [[ "$jobs" =~ ^[1-9][0-9]*$ ]]; then
  echo "test/cpu/run.sh: -j needs a positive integer, got '$jobs'" >&2
  exit 2
fi
if ! [[ "$timeout_s" =~ ^[1-9][0-9]*$ ]]; then
  echo "test/cpu/run.sh: --timeout needs a positive number of seconds, got '$timeout_s'" >&2
  exit 2
fi

croqc="${CROQC:-build/tools/croqc/croqc}"
case "$croqc" in
  /*) ;;
  build/*) croqc="$root/$croqc" ;;
  *) croqc="$(absolute "$croqc")" ;;
esac
if [[ ! -x "$croqc" ]]; then
  echo "test/cpu/run.sh: croqc not found at '$croqc' (build it or set CROQC)" >&2
  exit 2
fi

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

now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Prints the result line (and, with -v, the log tail) and records it as
# STATUS, seconds and reason on three lines.
report() {  # report INDEX STATUS NAME SECONDS [REASON] [LOG]
  local index="$1" status="$2" name="$3" seconds="$4" reason="${5:-}" log="${6:-}"
  local line="$status $name"
  if [[ -n "$reason" ]]; then
    line+=" ($reason)"
  elif [[ "$status" == PASS ]]; then
    line+=" (${seconds} s)"
  fi
  if [[ $verbose -eq 1 && -n "$log" && -f "$log" && "$status" == FAIL ]]; then
    line+=$'\n'"$(tail -n 20 "$log" | sed 's/^/    /')"
  fi
  printf '%s\n' "$line"
  printf '%s\n%s\n%s\n' "$status" "$seconds" "$reason" >"$results_dir/$index"
}

# --emit-only: generate the program's C++, and compare it with the reference
# croqc's when there is one.
emit_one() {  # emit_one INDEX FILE NAME EXE START [FLAGS...]
  local index="$1" file="$2" name="$3" exe="$4" start="$5"
  shift 5
  local log="$exe.emit.log"
  {
    echo "+ $croqc $file --target=cpu --emit=cuda -o - $* > $exe.cpp"
    timeout --kill-after=10 "$timeout_s" "$croqc" "$file" --target=cpu --emit=cuda -o - "$@" 2>&1 >"$exe.cpp"
  } >"$log" 2>&1
  local status=$?
  if [[ $status -ne 0 ]] && grep -q 'cannot run on the CPU target' "$log"; then
    report "$index" SKIP "$name" "$(seconds_since "$start")" "cannot run on the CPU target"
  elif [[ $status -ne 0 ]]; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "emit failed (exit $status), see $log" "$log"
  elif [[ -n "$reference" ]] &&
    ! { "$reference" "$file" --target=cpu --emit=cuda -o - "$@" 2>>"$log" >"$exe.reference.cpp" &&
      cmp -s "$exe.cpp" "$exe.reference.cpp"; }; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "differs from $reference's output, see $exe.cpp" "$log"
  else
    report "$index" PASS "$name" "$(seconds_since "$start")"
  fi
}

run_one() {  # run_one INDEX FILE
  local index="$1" file="$2"
  local name="${file%.co}"
  local exe="$build_dir/$name"
  local start
  start="$(now)"
  mkdir -p "$(dirname "$exe")"

  local build_log="$exe.build.log"
  local flags
  read -r -a flags <<<"$(sed -n 's|^[[:space:]]*//[[:space:]]*CROQC-FLAGS:[[:space:]]*||p' "$file" | head -n 1)"
  if [[ $emit_only -eq 1 ]]; then
    emit_one "$index" "$file" "$name" "$exe" "$start" "${flags[@]}"
    return
  fi
  {
    echo "+ $croqc $file --target=cpu -o $exe ${flags[*]}"
    timeout --kill-after=10 "$timeout_s" "$croqc" "$file" --target=cpu -o "$exe" "${flags[@]}"
  } >"$build_log" 2>&1
  local status=$?
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "build timed out after ${timeout_s}s, see $build_log" \
      "$build_log"
    return
  elif [[ $status -ne 0 ]] && grep -q 'cannot run on the CPU target' "$build_log"; then
    local why
    why="$(grep -m 1 'cannot run on the CPU target' "$build_log" | sed 's/^.*error: //; s/ cannot run on the CPU target.*//')"
    report "$index" SKIP "$name" "$(seconds_since "$start")" "uses $why, which the CPU target cannot emulate"
    return
  elif [[ $status -ne 0 || ! -x "$exe" ]]; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "build failed (exit $status), see $build_log" \
      "$build_log"
    return
  fi

  local run_log="$exe.run.log"
  CROQ_TEST_TARGET=cpu timeout --kill-after=10 "$timeout_s" "$exe" >"$run_log" 2>&1
  status=$?
  if [[ $status -eq 124 || $status -eq 137 ]]; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "timed out after ${timeout_s}s, see $run_log" "$run_log"
  elif [[ $status -ne 0 ]]; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "exit $status, see $run_log" "$run_log"
  elif ! grep -q '^PASS' "$run_log"; then
    report "$index" FAIL "$name" "$(seconds_since "$start")" "exit 0 but no PASS line, see $run_log" "$run_log"
  else
    report "$index" PASS "$name" "$(seconds_since "$start")"
  fi
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

xml_escape() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g'; }

passed=0
failed=0
skipped=0
cases=""
for i in "${!programs[@]}"; do
  name="${programs[$i]%.co}"
  status="" seconds=0 reason=""
  if [[ -f "$results_dir/$i" ]]; then
    { read -r status; read -r seconds; read -r reason; } <"$results_dir/$i"
  fi
  case "$status" in
    PASS) passed=$((passed + 1)); child="" ;;
    SKIP) skipped=$((skipped + 1)); child="<skipped message=\"$(printf '%s' "$reason" | xml_escape)\"/>" ;;
    *)
      failed=$((failed + 1))
      child="<failure message=\"$(printf '%s' "${reason:-no result}" | xml_escape)\"/>"
      ;;
  esac
  cases+="  <testcase classname=\"cpu\" name=\"$(printf '%s' "$name" | xml_escape)\" time=\"$seconds\">$child</testcase>"$'\n'
done
if [[ -n "$junit" ]]; then
  mkdir -p "$(dirname "$junit")"
  {
    printf '<testsuite name="cpu" tests="%d" failures="%d" skipped="%d">\n' \
      "${#programs[@]}" "$failed" "$skipped"
    printf '%s' "$cases"
    printf '</testsuite>\n'
  } >"$junit"
fi
[[ $skipped -gt 0 ]] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
