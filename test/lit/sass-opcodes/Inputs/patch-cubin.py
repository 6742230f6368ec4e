#!/usr/bin/env python3
"""Writes a copy of a cubin with its ELF header or one instruction changed.

  patch-cubin.py IN OUT [--abi-version N] [--sm N] [--replace-word OLD NEW]

For the sass-opcodes tests, which need cubins that nvcc does not make:
--abi-version sets e_ident[EI_ABIVERSION]; --sm writes the SM into e_flags
where that ABI version keeps it (7: the low byte, with the flags and the
virtual SM around it as CUDA 12 writes them; 8: bits 8-15); --replace-word
replaces the one occurrence of the little-endian 64-bit word OLD (hex) with
NEW, e.g. to give an instruction an opcode that is not in the table.
"""
import argparse
import struct
import sys

parser = argparse.ArgumentParser()
parser.add_argument("input")
parser.add_argument("output")
parser.add_argument("--abi-version", type=int)
parser.add_argument("--sm", type=int)
parser.add_argument("--replace-word", nargs=2, metavar=("OLD", "NEW"))
args = parser.parse_args()

with open(args.input, "rb") as f:
    data = bytearray(f.read())
if args.abi_version is not None:
    data[8] = args.abi_version
if args.sm is not None:
    if data[8] == 7:
        flags = (args.sm << 16) | 0x500 | args.sm
    else:
        flags = (struct.unpack_from("<I", data, 48)[0] & ~0xFF00) | (args.sm << 8)
    struct.pack_into("<I", data, 48, flags)
if args.replace_word:
    old, new = (struct.pack("<Q", int(word, 16)) for word in args.replace_word)
    if data.count(old) != 1:
        sys.exit(f"patch-cubin: {args.replace_word[0]} occurs {data.count(old)} times, not once")
    at = data.index(old)
    data[at:at + 8] = new
with open(args.output, "wb") as f:
    f.write(data)
