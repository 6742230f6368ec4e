#!/usr/bin/env python3
"""Writes a `.co` file whose macros blow one of the preprocessor's limits.

  gen-macros.py deep|large|file-large OUT.co

deep:       a chain of 300 object-like macros, each expanding to the previous
            one (deeper than the 256 levels of expansion allowed);
large:      A19, where each A<i> is `A<i-1> A<i-1>` (2^19 tokens, more than
            one invocation may produce);
file-large: 40 uses of A16 (each within the per-invocation limit, together
            more than the per-file limit).
The macro uses start on line 303, column 17 (the definitions are padded
with blank lines), so the tests can pin the diagnosed use.
"""
import sys

mode, out = sys.argv[1], sys.argv[2]
lines = []
if mode == "deep":
    lines.append("#define M0 1.0f")
    lines += ["#define M%d M%d" % (i, i - 1) for i in range(1, 300)]
    use = ["    out.at(p) = M299;"]
else:
    levels = 19 if mode == "large" else 16
    lines.append("#define A0 x")
    lines += ["#define A%d A%d A%d" % (i, i - 1, i - 1) for i in range(1, levels + 1)]
    count = 1 if mode == "large" else 40
    use = ["    out.at(p) = A%d;" % levels] * count
head = ["__co__ void kernel(global f32 [16] out) {", "  parallel p by 16 : thread {"]
lines += [""] * (300 - len(lines))
lines += head + use + ["  }", "}"]
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
