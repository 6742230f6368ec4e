// The table of element-type properties behind ElementTypes.h. It has one row
// per ELEMTYPE of lex/TokenKinds.def; a static_assert keeps the two in step,
// so adding an element type to the lexer breaks the build here until its
// properties are written down.
#include "target/ElementTypes.h"

#include <iterator>

namespace croqc::target {

namespace {

enum class Format : std::uint8_t { Integer, Float };

struct ElementInfo {
  TokenKind kind;
  unsigned bits;
  Format format;
  bool isSigned;
  const char* ptx;  // "" when PTX has no operand type of this name
};

using enum TokenKind;

constexpr ElementInfo kElementInfo[] = {
    {ty_u1, 1, Format::Integer, false, "b1"},
    {ty_bin1, 1, Format::Integer, false, "b1"},
    {ty_s2, 2, Format::Integer, true, ""},
    {ty_u2, 2, Format::Integer, false, ""},
    {ty_s4, 4, Format::Integer, true, "s4"},
    {ty_u4, 4, Format::Integer, false, "u4"},
    {ty_s6, 6, Format::Integer, true, ""},
    {ty_u6, 6, Format::Integer, false, ""},
    {ty_u8, 8, Format::Integer, false, "u8"},
    {ty_s8, 8, Format::Integer, true, "s8"},
    {ty_u16, 16, Format::Integer, false, "u16"},
    {ty_s16, 16, Format::Integer, true, "s16"},
    {ty_u32, 32, Format::Integer, false, "u32"},
    {ty_s32, 32, Format::Integer, true, "s32"},
    {ty_u64, 64, Format::Integer, false, "u64"},
    {ty_s64, 64, Format::Integer, true, "s64"},
    {ty_f16, 16, Format::Float, true, "f16"},
    {ty_bf16, 16, Format::Float, true, "bf16"},
    {ty_tf32, 32, Format::Float, true, "tf32"},
    {ty_f32, 32, Format::Float, true, "f32"},
    {ty_f64, 64, Format::Float, true, "f64"},
    {ty_f8, 8, Format::Float, true, "e4m3"},
    {ty_f8_e4m3, 8, Format::Float, true, "e4m3"},
    {ty_f8_e5m2, 8, Format::Float, true, "e5m2"},
    {ty_f8_ue4m3, 8, Format::Float, false, "ue4m3"},
    {ty_f8_ue8m0, 8, Format::Float, false, "ue8m0"},
    {ty_f6_e3m2, 6, Format::Float, true, "e3m2"},
    {ty_f6_e2m3, 6, Format::Float, true, "e2m3"},
    {ty_f4_e2m1, 4, Format::Float, true, "e2m1"},
};

constexpr unsigned kNumElementTypes = 0
#define TOKEN(Name, Desc)
#define KEYWORD(Name, Spelling)
#define ELEMTYPE(Name, Spelling) +1
#define MEMBER(Name, Spelling)
#define PUNCT(Name, Spelling)
#include "lex/TokenKinds.def"
    ;

static_assert(std::size(kElementInfo) == kNumElementTypes,
              "every ELEMTYPE of lex/TokenKinds.def needs a row in kElementInfo");

const ElementInfo* find(TokenKind type) {
  for (const ElementInfo& info : kElementInfo)
    if (info.kind == type) return &info;
  return nullptr;
}

}  // namespace

unsigned elementBits(TokenKind type) {
  const ElementInfo* info = find(type);
  return info ? info->bits : 0;
}

unsigned elementBytes(TokenKind type) { return (elementBits(type) + 7) / 8; }

bool isFloatType(TokenKind type) {
  const ElementInfo* info = find(type);
  return info && info->format == Format::Float;
}

bool isIntegerType(TokenKind type) {
  const ElementInfo* info = find(type);
  return info && info->format == Format::Integer;
}

bool isSigned(TokenKind type) {
  const ElementInfo* info = find(type);
  return info && info->isSigned;
}

bool isFp8Type(TokenKind type) { return type == ty_f8 || type == ty_f8_e4m3 || type == ty_f8_e5m2; }

TokenKind canonicalElementType(TokenKind type) { return type == ty_f8 ? ty_f8_e4m3 : type; }

TokenKind canonicalMmaOperandType(TokenKind type) {
  return type == ty_f32 ? ty_tf32 : canonicalElementType(type);
}

llvm::StringRef ptxTypeName(TokenKind type) {
  const ElementInfo* info = find(type);
  return info ? info->ptx : "";
}

}  // namespace croqc::target
