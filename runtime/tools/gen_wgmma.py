#!/usr/bin/env python3
"""Generates runtime/include/croq/device/wgmma_instructions.h.

One specialization per wgmma.mma_async variant croqc lowers to, read from the
dense Primary WGMMA rows of compiler/target/MmaAtoms.def (their operand and
accumulator types, N set and K) for the operand types below:
  shape  m64nNk16 (16-bit inputs), m64nNk32 (8-bit floats), N = 8, 16, ..., 256
  types  f16 x f16 -> f32, f16 x f16 -> f16, bf16 x bf16 -> f32,
         e4m3 x e4m3 and e5m2 x e5m2 -> f32 or f16
  modes  SS (A and B from shared-memory descriptors), RS (A from registers;
         16-bit inputs only)
  sparse wgmma.mma_async.sp (2:4 sparse A, from the Sparse Primary rows):
         m64nNk32 (16-bit inputs), m64nNk64 (8-bit floats), SS, sparsity
         selector 0

Each specialization is a struct `ss<N, AccT, InT>` / `rs<N, AccT, InT>` /
`sp_ss<N, AccT, InT>` in croq::wgmma::detail with a static `run<...>()`;
croq/device/wgmma.h wraps them in mma_ss / mma_rs / mma_sp_ss. Run from anywhere:

    python3 runtime/tools/gen_wgmma.py            # rewrite the header
    python3 runtime/tools/gen_wgmma.py --check    # exit 1 if it is stale
"""

import argparse
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
OUT = ROOT / "runtime" / "include" / "croq" / "device" / "wgmma_instructions.h"
# The MMA atom table the compiler reads (compiler/target/MmaAtoms.def): the
# shapes, operand types and accumulator types of the specializations come
# from its rows, so the runtime has an instruction for every WGMMA croqc lowers.
ATOMS = ROOT / "compiler" / "target" / "MmaAtoms.def"

Input = collections.namedtuple("Input", "cxx ptx bytes")
Accumulator = collections.namedtuple("Accumulator", "cxx ptx reg cons regs_of")
Variant = collections.namedtuple("Variant", "acc input k modes ns sparse")

# How the runtime spells each operand type it has a C++ type for: the table's
# type -> (C++ type, PTX type, bytes). Rows of other operand types (tf32,
# integers, b1) have no lowering pattern and are left out.
INPUTS = {
    "ty_f16": Input("f16", "f16", 2),
    "ty_bf16": Input("bf16", "bf16", 2),
    "ty_f8_e4m3": Input("f8_e4m3", "e4m3", 1),
    "ty_f8_e5m2": Input("f8_e5m2", "e5m2", 1),
}
# Accumulator type -> (C++ type, PTX dtype, register C++ type, asm constraint,
# registers per N), in the order the header lists them.
ACCUMULATORS = {
    "ty_f32": Accumulator("float", "f32", "float", "f", lambda n: n // 2),
    "ty_f16": Accumulator("f16", "f16", "std::uint32_t", "r", lambda n: n // 4),
}
# RS mode (A from registers) for 16-bit inputs only: croqc reads 8-bit A
# operands from shared memory (SS); only 16-bit operands may be MN-major
# (the transpose immediates).
RS_INPUT_BYTES = 2


def split_args(text):
    """The top-level comma-separated arguments of a macro call's body."""
    args, depth, current = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        depth += c == "("
        depth -= c == ")"
        current += c
    args.append(current.strip())
    return args


def n_values(expr):
    """The N extents of an N_FIXED / N_RANGE union, sorted."""
    values = set()
    for kind, body in re.findall(r"(N_FIXED|N_RANGE)\(([^)]*)\)", expr):
        nums = [int(x) for x in body.split(",")]
        if kind == "N_FIXED":
            values.add(nums[0])
        else:
            values.update(range(nums[0], nums[1] + 1, nums[2]))
    return sorted(values)


def read_atoms(path=ATOMS):
    """Every MMA_ATOM row of the table as a dict of its columns."""
    text = re.sub(r"//[^\n]*", "", path.read_text())
    text = re.sub(r"#ifndef MMA_ATOM.*?#endif", "", text, flags=re.S)
    columns = ("name scope instr a b acc m n k min_sm sparsity a_sources b_sources layouts pick").split()
    rows = []
    for match in re.finditer(r"^MMA_ATOM\(", text, flags=re.M):
        depth, i = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        args = split_args(text[match.end():i - 1])
        if len(args) != len(columns):
            raise SystemExit(f"{path}: a row with {len(args)} columns: {args[0]}")
        row = dict(zip(columns, args))
        for key in ("a", "b", "acc"):
            row[key] = re.findall(r"ty_\w+", row[key])
        row["m"], row["k"], row["min_sm"] = int(row["m"]), int(row["k"]), int(row["min_sm"])
        row["n"] = n_values(row["n"])
        rows.append(row)
    return rows


def variants(rows):
    """One Variant per (input, accumulator) of the Primary WGMMA rows, dense
    ones first, each group in table order."""
    out = []
    ordered = [r for r in rows if r["sparsity"] == "Dense"] + [r for r in rows if r["sparsity"] == "Sparse"]
    for row in ordered:
        if (row["instr"], row["scope"], row["pick"]) != ("Wgmma", "Warpgroup", "Primary"):
            continue
        sparse = row["sparsity"] == "Sparse"
        if row["m"] != 64:
            raise SystemExit(f"{row['name']} has M {row['m']}; a WGMMA's M is 64")
        for a in row["a"]:
            if a not in INPUTS or a not in row["b"]:
                continue
            rs = INPUTS[a].bytes == RS_INPUT_BYTES and "Regs" in row["a_sources"] and not sparse
            modes = ("sp_ss",) if sparse else ("ss", "rs") if rs else ("ss",)
            for acc in ACCUMULATORS:
                if acc in row["acc"]:
                    out.append(Variant(ACCUMULATORS[acc], INPUTS[a], row["k"], modes, row["n"], sparse))
    return out

HEADER = """\
// croq/device/wgmma_instructions.h: GENERATED by runtime/tools/gen_wgmma.py.
// Do not edit by hand; change the script and run it again.
//
// One specialization per wgmma.mma_async.sync.aligned variant: m64nNk16
// (N = 8..256 step 8; f16*f16->f32, f16*f16->f16, bf16*bf16->f32; SS and RS)
// and m64nNk32 (e4m3*e4m3 and e5m2*e5m2 -> f32 or f16; SS, K-major); and per
// wgmma.mma_async.sp variant (2:4 sparse A: m64nNk32 for the 16-bit types,
// m64nNk64 for e4m3 and e5m2; SS; sparsity selector 0).
// Include croq/device/wgmma.h instead of this file: it documents the operands
// and provides the entry points croq::wgmma::mma_ss / mma_rs.
//
// Operand order of every asm statement: the accumulator registers (read and
// written), then desc_a (SS) or the four A registers (RS), desc_b, scale_d
// (a register turned into the predicate p: 0 means D = A*B, ignoring the
// accumulator's old value), then the immediates imm-scale-a, imm-scale-b
// (1 or -1), imm-trans-a (SS only) and imm-trans-b (0 = K-major, 1 = MN-major;
// 16-bit inputs only: an 8-bit variant takes TransA = TransB = 0). A sparse
// variant takes the thread's metadata register and the sparsity selector
// (0) after desc_b.
#pragma once

#include <cstdint>

#include "croq/device/arch.h"
#include "croq/types.h"

namespace croq {
namespace wgmma {
namespace detail {

template <int N, typename AccT, typename InT>
struct ss;
template <int N, typename AccT, typename InT>
struct rs;
template <int N, typename AccT, typename InT>
struct sp_ss;
"""

FOOTER = """
}  // namespace detail
}  // namespace wgmma
}  // namespace croq
"""


def reg_list(first, count, per_line=8, indent='      "'):
    """The PTX operand list {%first, ..., %(first+count-1)} as C string lines."""
    names = [f"%{first + i}" for i in range(count)]
    lines = []
    for i in range(0, count, per_line):
        chunk = ", ".join(names[i:i + per_line])
        opening = "{" if i == 0 else ""
        closing = "}, " if i + per_line >= count else ", "
        lines.append(f'{indent}{opening}{chunk}{closing}"')
    return "\n".join(lines)


def constraint_list(constraint, name, count, per_line=8, indent="        "):
    items = [f'"+{constraint}"({name}[{i}])' for i in range(count)]
    lines = []
    for i in range(0, count, per_line):
        lines.append(indent + ", ".join(items[i:i + per_line]))
    return ",\n".join(lines)


def emit(mode, n, variant):
    acc, inp, k = variant.acc, variant.input, variant.k
    acc_t, dtype, reg_t, cons, in_t, itype = acc.cxx, acc.ptx, acc.reg, acc.cons, inp.cxx, inp.ptx
    regs = acc.regs_of(n)
    sp = ".sp" if mode == "sp_ss" else ""
    ptx = f"wgmma.mma_async{sp}.sync.aligned.m64n{n}k{k}.{dtype}.{itype}.{itype}"
    transposable = inp.bytes == 2
    if mode in ("ss", "sp_ss"):
        a_param = "std::uint64_t desc_a"
        a_ops = f"%{regs}"
        a_inputs = '"l"(desc_a)'
        first_after_a = regs + 1
        tmpl = "template <int TransA, int TransB, int ScaleA, int ScaleB>"
        imms = ['"n"(ScaleA)', '"n"(ScaleB)']
        if transposable:
            imms += ['"n"(TransA)', '"n"(TransB)']
    else:
        a_param = "const std::uint32_t (&a)[4]"
        a_ops = f"{{%{regs}, %{regs + 1}, %{regs + 2}, %{regs + 3}}}"
        a_inputs = '"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])'
        first_after_a = regs + 4
        tmpl = "template <int TransB, int ScaleA, int ScaleB>"
        imms = ['"n"(ScaleA)', '"n"(ScaleB)', '"n"(TransB)']
    b_op = first_after_a
    meta_ops, meta_param, meta_inputs = "", "", ""
    if mode == "sp_ss":
        meta_ops = f", %{b_op + 1}, %{b_op + 2}"
        meta_param = ", std::uint32_t meta"
        meta_inputs = ', "r"(meta), "n"(0)'
    scale_op = first_after_a + (3 if mode == "sp_ss" else 1)
    imm_ops = ", ".join(f"%{scale_op + 1 + i}" for i in range(len(imms)))
    out = []
    out.append(f"\n// {ptx} ({mode.upper()})")
    out.append("template <>")
    out.append(f"struct {mode}<{n}, {acc_t}, {in_t}> {{")
    out.append(f"  {tmpl}")
    out.append(f"  static CROQ_DEVICE void run({reg_t} (&d)[{regs}], {a_param}, "
               f"std::uint64_t desc_b{meta_param}, int scale_d) {{")
    if not transposable:
        out.append('    static_assert(TransA == 0 && TransB == 0, "8-bit operands are K-major");')
    out.append("#if CROQ_SM90A_ENABLED")
    out.append("    asm volatile(")
    out.append('      "{\\n"')
    out.append('      ".reg .pred p;\\n"')
    out.append(f'      "setp.ne.b32 p, %{scale_op}, 0;\\n"')
    out.append(f'      "{ptx} "')
    out.append(reg_list(0, regs))
    out.append(f'      "{a_ops}, %{b_op}{meta_ops}, p, {imm_ops};\\n"')
    out.append('      "}\\n"')
    out.append("      :")
    out.append(constraint_list(cons, "d", regs))
    out.append(f"      : {a_inputs}, \"l\"(desc_b){meta_inputs}, \"r\"(scale_d), {', '.join(imms)});")
    out.append("#else")
    out.append("    CROQ_UNSUPPORTED_ARCH();")
    out.append("#endif")
    out.append("  }")
    out.append("};")
    return "\n".join(out)


def generate(atoms=ATOMS):
    parts = [HEADER]
    for variant in variants(read_atoms(atoms)):
        for mode in variant.modes:
            for n in variant.ns:
                parts.append(emit(mode, n, variant))
    parts.append(FOOTER)
    return "\n".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the header differs from the output")
    parser.add_argument("--output", type=pathlib.Path, default=OUT)
    parser.add_argument("--atoms", type=pathlib.Path, default=ATOMS,
                        help="the MMA atom table to read (default: compiler/target/MmaAtoms.def)")
    args = parser.parse_args()
    text = generate(args.atoms)
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale; run {pathlib.Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
