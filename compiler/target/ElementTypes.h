// Properties of the element types of spec 4.2 (`f16`, `s8`, `f8_e4m3`, ...),
// which are the `TokenKind::ty_*` values of lex/TokenKinds.def: storage width,
// float or integer, signedness, and the PTX spelling used in instruction
// names. Every query accepts any TokenKind; a kind that is not an element type
// has 0 bits and is neither float nor integer.
#pragma once

#include <llvm/ADT/StringRef.h>

#include "lex/Token.h"

namespace croqc::target {

/// Storage width in bits: `tf32` is 32 (it is stored as f32), `f8` 8,
/// `f6_e3m2` 6, `u1`/`bin1` 1. 0 for a kind that is not an element type.
unsigned elementBits(TokenKind type);

/// Storage size in whole bytes, rounded up (`|T|`; `s4` is 1, `u1` is 1).
unsigned elementBytes(TokenKind type);

/// The K of one tensor-core instruction (mma.sync atom or wgmma) whose
/// operands are `type`: 32 bytes of an operand row (16 for 16-bit types, 32
/// for 8-bit ones). 0 for a kind that is not an element type.
inline unsigned mmaInstructionK(TokenKind type) {
  unsigned bytes = elementBytes(type);
  return bytes == 0 ? 0 : 32 / bytes;
}

/// Floating-point formats, including `tf32`, the fp8/fp6/fp4 formats and the
/// unsigned scale formats `f8_ue4m3` / `f8_ue8m0`.
bool isFloatType(TokenKind type);

/// Integer formats: `u1`, `bin1`, `s2` ... `u64`.
bool isIntegerType(TokenKind type);

/// True for the signed integers (`s2` ... `s64`) and for the floating-point
/// formats that carry a sign bit (all of them except `f8_ue4m3`, `f8_ue8m0`).
bool isSigned(TokenKind type);

/// The 8-bit float formats `f8`, `f8_e4m3`, `f8_e5m2` (not the scale formats).
bool isFp8Type(TokenKind type);

/// Resolves spelling aliases: `f8` is `f8_e4m3`. Every other kind is returned
/// unchanged.
TokenKind canonicalElementType(TokenKind type);

/// The type an MMA operand computes in: `f32` operands are `tf32` (spec 4.2,
/// 13.11), and aliases are resolved as in canonicalElementType.
TokenKind canonicalMmaOperandType(TokenKind type);

/// The PTX type suffix of an element type in MMA / conversion instructions
/// (`f16`, `bf16`, `tf32`, `e4m3`, `e5m2`, `s8`, `u8`, `b1`, `s32`, ...), or ""
/// when PTX has no such operand type.
llvm::StringRef ptxTypeName(TokenKind type);

}  // namespace croqc::target
