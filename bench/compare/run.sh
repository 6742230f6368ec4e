#!/usr/bin/env bash
# bench/compare/run.sh: the same GEMM program (bench/compare/gemm_dump.co)
# built for the GPU (--arch=sm_90a, an H100/H200) and for the CPU
# (--target=cpu), run with the same random seed, outputs compared element by
# element: |gpu - cpu| <= 0.02 + 0.008 |cpu| (two f16 roundings of f32 sums
# taken in different orders). Two kernels: `mma` (warp mma.sync, cp.async
# ring) and `ws` (warp-specialized: TMA producer, WGMMA consumers, events).
# Needs a GPU.
#   bench/compare/run.sh [M N K]     (default 509 771 300)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
croqc="${CROQC:-build/tools/croqc/croqc}"
out="${BENCH_BUILD_DIR:-build-bench}/compare"
M="${1:-509}" N="${2:-771}" K="${3:-300}"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no GPU"
  exit 77
fi
mkdir -p "$out"
"$croqc" bench/compare/gemm_dump.co --arch=sm_90a -o "$out/gpu"
"$croqc" bench/compare/gemm_dump.co --target=cpu -o "$out/cpu"
export CROQ_SEED="${CROQ_SEED:-20261130}"
for kernel in mma ws; do
echo "== $kernel"
"$out/gpu" "$out/gpu.bin" "$M" "$N" "$K" "$kernel"
"$out/cpu" "$out/cpu.bin" "$M" "$N" "$K" "$kernel"
python3 - "$out/gpu.bin" "$out/cpu.bin" <<'PY'
import struct, sys
def load(p):
    data = open(p, "rb").read()
    return struct.unpack("<%de" % (len(data) // 2), data)
g, c = load(sys.argv[1]), load(sys.argv[2])
assert len(g) == len(c), "sizes differ"
bad = [i for i, (x, y) in enumerate(zip(g, c)) if not abs(x - y) <= 0.02 + 0.008 * abs(y)]
worst = max(abs(x - y) for x, y in zip(g, c))
print(f"{len(g)} elements, max |gpu - cpu| = {worst:.4g}, {len(bad)} outside tolerance")
sys.exit(1 if bad else 0)
PY
done
echo "PASS: GPU and CPU results agree"
