#!/usr/bin/env bash
# Times croqc's front end on a generated 2,000-line `.co` file.
#
#   bench/frontend/run.sh [CROQC] [RUNS]
#
# CROQC defaults to build/tools/croqc/croqc, RUNS to 30. Generates the input
# with bench/frontend/gen.py (into a scratch directory), checks that it
# passes sema, then times two commands:
#   croqc --emit=ast FILE              (preprocess, lex, parse, print the AST)
#   croqc --stop-after=sema FILE       (preprocess, lex, parse, sema)
# with hyperfine if it is installed, otherwise with a loop of RUNS runs that
# prints the median and the minimum, in ms per run, of the wall-clock time
# and of the CPU time (user + system; on a busy machine the wall-clock time
# includes waiting for a core, the CPU time does not). `-v` adds croqc's own
# time per pass, from one run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
croqc=${1:-$repo/build/tools/croqc/croqc}
runs=${2:-30}
arch=--arch=sm_90a
[[ -x $croqc ]] || { echo "run.sh: croqc not found at $croqc (build it, or pass its path)" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
input=$scratch/frontend-2000.co
python3 "$here/gen.py" "$input"
"$croqc" --stop-after=sema $arch "$input" || { echo "run.sh: the generated file does not pass sema" >&2; exit 1; }
echo "input: $(wc -l <"$input") lines, $(grep -c '^__co__' "$input") __co__ functions, $(wc -c <"$input") bytes"

if command -v hyperfine >/dev/null; then
  hyperfine --warmup 3 --runs "$runs" -N \
    "$croqc --emit=ast $arch $input" \
    "$croqc --stop-after=sema $arch $input"
else
  python3 - "$runs" "$croqc" "$arch" "$input" <<'PY'
import resource, statistics, subprocess, sys, time

runs, croqc, arch, path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
for label, args in (("--emit=ast", ["--emit=ast"]), ("--stop-after=sema", ["--stop-after=sema"])):
    command = [croqc] + args + [arch, path]
    for _ in range(3):  # warm the page cache
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        wall.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000)
    print(f"croqc {label:<18} wall: median {statistics.median(wall):6.1f} ms, min {min(wall):6.1f} ms;"
          f"  cpu: median {statistics.median(cpu):6.1f} ms, min {min(cpu):6.1f} ms  ({runs} runs)")
PY
fi
echo "per pass (one run, croqc -v):"
"$croqc" -v --stop-after=sema $arch "$input" 2>&1 >/dev/null | grep 'pass' | sed 's/^/  /'
