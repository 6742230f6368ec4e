// Tokens of the `__co__` language and the opaque host-mode regions.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>

namespace croqc {

enum class TokenKind : std::uint16_t {
#define TOKEN(Name, Desc) Name,
#define KEYWORD(Name, Spelling) Name,
#define MEMBER(Name, Spelling) Name,
#define PUNCT(Name, Spelling) Name,
#include "lex/TokenKinds.def"
};

/// The enumerator name, e.g. "kw_parallel" (used by `--emit=tokens`).
llvm::StringRef tokenKindName(TokenKind kind);
/// How the token is written ("parallel", "=>", ".span"), or a description for
/// kinds without a fixed spelling ("identifier"). Used in diagnostics.
llvm::StringRef tokenKindSpelling(TokenKind kind);
bool isKeyword(TokenKind kind);
bool isElementType(TokenKind kind);
bool isMemberToken(TokenKind kind);
bool isHostRegion(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::eof;
  /// The token's text in the preprocessed source (literals keep quotes and
  /// suffixes; host regions are their whole verbatim text).
  llvm::StringRef text;
  /// Where the token starts and ends (one past its last character) in the
  /// original source; inside a macro expansion both are the macro's use.
  llvm::SMLoc loc;
  llvm::SMLoc endLoc;
  /// True if whitespace or a comment precedes the token on its line or the
  /// token starts a line; `group-4` and `print!` rely on adjacency.
  bool leadingSpace = false;

  bool is(TokenKind k) const { return kind == k; }
  bool isNot(TokenKind k) const { return kind != k; }
  template <typename... Ks>
  bool isOneOf(TokenKind k, Ks... ks) const {
    return kind == k || (... || (kind == ks));
  }
  llvm::SMRange range() const { return {loc, endLoc}; }
};

/// The decoded value of an integer literal (spec 1.2).
struct IntLiteralValue {
  std::uint64_t value = 0;
  bool isUnsigned = false;  // `u`/`U` suffix
  unsigned longCount = 0;   // number of `l`/`L`
  bool overflow = false;    // does not fit in 64 bits
};
IntLiteralValue decodeIntLiteral(llvm::StringRef text);

/// The value of a floating literal such as `1.5f`, `-2.0`, `inf` or `-inf`.
struct FloatLiteralValue {
  double value = 0;
  bool isF32 = false;  // `f`/`F` suffix
};
FloatLiteralValue decodeFloatLiteral(llvm::StringRef text);

/// The contents of a string literal token (quotes removed, escapes decoded;
/// raw strings verbatim).
std::string decodeStringLiteral(const Token& tok);

}  // namespace croqc
