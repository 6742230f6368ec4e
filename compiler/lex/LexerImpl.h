// The lexer's state and the steps it is made of (Lexer.cpp: locations,
// host C++ and `__co__` tokens; LexLiterals.cpp: numbers, strings and
// invalid characters). Private to compiler/lex.
#pragma once

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"
#include "lex/Token.h"
#include "preprocess/Preprocessor.h"

namespace croqc::lexer {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
/// Blanks that do not end a line (`\r` belongs to a `\r\n` line end).
inline bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool isPunctChar(char c);
const llvm::StringMap<TokenKind>& keywordTable();
const llvm::StringMap<TokenKind>& memberTable();
bool isDirectiveName(llvm::StringRef word);
bool isRawStringPrefix(llvm::StringRef word);
bool isValidIntSuffix(llvm::StringRef s);
unsigned decodeUtf8(llvm::StringRef s, std::uint32_t& cp);
std::string withoutExponent(llvm::StringRef intPart, llvm::StringRef fracPart, llvm::StringRef exponent);

class Lexer {
 public:
  Lexer(const PreprocessedSource& source, DiagnosticEngine& diags)
      : source_(source), diags_(diags), text_(source.text), n_(text_.size()) {}

  std::vector<Token> run();

 private:
  // --- locations and tokens -------------------------------------------------

  llvm::SMLoc locAt(size_t offset) const { return source_.originalLoc(offset); }

  /// The segment holding `offset`: [begin, end) in the output and whether it
  /// is a macro expansion. Tokens come in increasing offsets, so the last
  /// answer is cached.
  struct SegmentSpan {
    size_t begin = 0, end = 0;
    bool expansion = false;
  };
  const SegmentSpan& segmentAt(size_t offset) const;

  /// One past the last character of [start, end) in the original source; a
  /// token from a macro expansion ends where it starts, at the macro's use.
  llvm::SMLoc endLocOf(size_t start, size_t end, llvm::SMLoc startLoc) const;

  llvm::SMRange rangeOf(size_t start, size_t end) const;

  void add(TokenKind kind, size_t start, size_t end, bool leadingSpace);

  /// Whether whitespace or a comment precedes offset `p` (or it starts the text).
  bool precededBySpace(size_t p) const;

  bool atLineStart(size_t p) const;

  char at(size_t p) const { return p < n_ ? text_[p] : '\0'; }

  // --- skipping host C++ ----------------------------------------------------

  size_t scanIdent(size_t p) const;

  /// `p` at `\`: the length of a line splice (`\` newline), or 0.
  size_t spliceLength(size_t p) const;

  /// `p` at `//`; returns the offset of the newline that ends the comment.
  size_t skipLineComment(size_t p) const;

  /// `p` at `/*`; returns the offset after `*/`, reporting an unterminated comment.
  size_t skipBlockComment(size_t p);

  /// `p` at a quote in host code; returns the offset after the closing quote,
  /// or of the newline that ends an unterminated literal (nvcc reports it).
  size_t skipQuoted(size_t p) const;

  /// `quote` at the `"` of `R"delim(`: the delimiter's end (the `(`), or npos if
  /// the delimiter is not valid C++.
  size_t rawDelimiterEnd(size_t quote) const;

  /// `start` at the prefix and `quote` at the `"` of a raw string with a valid
  /// delimiter ending at `open`; returns the offset after the literal, or the
  /// end of the text (reported) when it is unterminated.
  size_t skipRawString(size_t start, size_t quote, size_t open, bool& terminated);

  /// `p` at `#` starting a preprocessor line; returns the offset of the newline
  /// that ends it (after `\` continuations and multi-line block comments).
  size_t skipDirectiveLine(size_t p);

  /// `p` at a digit, or a `.` before a digit: skips a C++ preprocessing number
  /// (so that `1'000` digit separators are not taken for char literals).
  size_t skipPPNumber(size_t p) const;

  /// Skips one host element that can hide braces or keywords: a comment, a
  /// string, char or raw-string literal, a number or an identifier. Returns
  /// `p` if none starts at `p`.
  size_t skipHostElement(size_t p);

  size_t skipHostRawString(size_t start, size_t quote);

  /// Skips whitespace and comments (not preprocessor lines) to look ahead;
  /// reports nothing, as the text is scanned again afterwards.
  size_t skipSpaceAndComments(size_t p) const;

  // --- host mode ------------------------------------------------------------

  void flushHost(size_t start, size_t end);

  void reportNotAtFileScope(size_t start, size_t end, llvm::StringRef what, unsigned depth, size_t outerBrace);

  /// Host mode from `p` until a file-scope `__co__` (returns its offset) or the
  /// end of the text (returns the text size).
  size_t lexHost(size_t p);

  /// A file-scope `__device__`/`__co_device__` definition or `__cok__` block
  /// whose keyword spans [start, afterKeyword). Emits the pending host text
  /// and the region token; returns the region's end, or `start` if there is
  /// no region here (a reported `__cok__` without `{`).
  size_t lexHostRegion(size_t start, size_t afterKeyword, size_t hostStart);

  /// Scans host C++ from `p` to the `}` that closes the first file-scope
  /// `{`, or to a `;` at depth 0 before any `{` (a declaration). A `;` or `,`
  /// right after the `}` means the braces were an initializer, so the scan
  /// goes on to the `;`. Parentheses are tracked outside braces so that a
  /// brace-initialised default argument is not taken for the body.
  size_t skipRegionBody(size_t p, bool& terminated);

  // --- __co__ mode ----------------------------------------------------------

  /// `__co__` mode from the `__co__` at `p` until the function's braces close,
  /// or a `;` at depth 0 ends a prototype. Returns the offset after it.
  size_t lexCo(size_t p);

  /// Skips whitespace, line splices and comments; notes whether any was
  /// skipped and whether a new line started.
  size_t skipCoTrivia(size_t p, bool& space, bool& lineStart);

  /// `p` at `#` first on its line: is it followed by a directive name?
  bool startsDirective(size_t p) const;

  /// Lexes the token at `p` and advances `p` past it.
  TokenKind lexCoToken(size_t& p);

  TokenKind lexWord(size_t& p);

  TokenKind lexDot(size_t& p);

  TokenKind lexPunct(size_t& p);

  /// `e` at `e`/`E`: does an exponent (`e5`, `e-5`, `E+3`) start here?
  bool startsExponent(size_t e) const;

  /// Reports `digits[.digits]e[+-]digits[f]` and returns the error token's end.
  size_t lexExponentError(size_t start, size_t intEnd, size_t fracStart, size_t fracEnd, size_t e);

  TokenKind lexNumber(size_t& p);

  /// A decimal integer literal with digits [start, digitsEnd) and suffix
  /// [digitsEnd, end): rejects octal-looking leading zeros.
  TokenKind checkDecimalInt(size_t start, size_t digitsEnd, size_t end);

  /// Checks the suffix [digitsEnd, end) of an integer literal.
  TokenKind checkIntLiteral(size_t start, size_t digitsEnd, size_t end);

  TokenKind lexString(size_t& p);

  /// `i` at the `\` of an escape in a string; reports bad escapes and returns
  /// the offset after the escape.
  size_t checkEscape(size_t i);

  /// `p` at the `R` of `R"delim(...)delim"`.
  TokenKind lexRawString(size_t& p);

  void reportInvalidChars(size_t start, size_t end);

  static std::string hintForChar(std::uint32_t cp, size_t len);

  const PreprocessedSource& source_;
  DiagnosticEngine& diags_;
  llvm::StringRef text_;
  size_t n_;
  std::vector<Token> tokens_;
  mutable SegmentSpan seg_;
};

}  // namespace croqc::lexer
