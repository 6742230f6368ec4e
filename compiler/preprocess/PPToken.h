// Preprocessing tokens and the raw scanners that find them in a buffer. The
// preprocessor copies most text verbatim; it only needs to know where
// comments, literals and identifiers are, and to tokenise directive lines and
// macro bodies. Internal to the preprocess library.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace croqc::pp {

enum class PPTokenKind : std::uint8_t {
  Identifier,
  Number,       // a C pp-number: `64`, `0x1F`, `1.5f`, `1'000`
  Literal,      // a string or character literal, raw strings included
  Punct,        // a C++ punctuator, longest match
  Other,        // any other byte (or UTF-8 sequence)
  Placemarker,  // an empty macro argument next to `##`; never printed
};

struct PPToken {
  llvm::StringRef text;
  /// Where the token is in the source buffer. A token produced by a macro
  /// expansion points at the outermost invocation instead (`fromExpansion`).
  const char* loc = nullptr;
  PPTokenKind kind = PPTokenKind::Other;
  bool leadingSpace = false;
  /// Painted: named a macro that was being expanded, so never expands again.
  bool noExpand = false;
  bool fromExpansion = false;
  /// In a function-like macro's body: the index of the parameter it names.
  std::int16_t param = -1;

  bool isPunct(llvm::StringRef s) const { return kind == PPTokenKind::Punct && text == s; }
  bool isPunct(char c) const {
    return kind == PPTokenKind::Punct && text.size() == 1 && text[0] == c;
  }
  bool isIdentifier(llvm::StringRef s) const {
    return kind == PPTokenKind::Identifier && text == s;
  }
};

/// Where the buffer being preprocessed lies, to turn pointers into locations
/// the SourceMgr knows. Pointers outside it (command-line macros) give
/// invalid locations.
struct SourceView {
  const char* begin = nullptr;
  const char* end = nullptr;

  bool contains(const char* p) const { return p && p >= begin && p <= end; }
  llvm::SMLoc loc(const char* p) const {
    return contains(p) ? llvm::SMLoc::getFromPointer(p) : llvm::SMLoc();
  }
  /// The token's own text, or an invalid range for tokens that come from an
  /// expansion or from the command line.
  llvm::SMRange range(const PPToken& tok) const {
    if (tok.fromExpansion || !contains(tok.loc) || !contains(tok.loc + tok.text.size())) return {};
    return {loc(tok.loc), loc(tok.loc + tok.text.size())};
  }
};

/// `` `tok` `` for a diagnostic, shortened if long, or "end of line".
std::string describeToken(const PPToken* tok);

namespace scan {

inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
inline bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
/// Blanks that do not end a line; `\r` of a CRLF counts as one.
inline bool isHorizontalSpace(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/// `p` at `/*`: the position after the closing `*/`, or `end`.
const char* skipBlockComment(const char* p, const char* end);
/// `p` at `//`: the `\n` that ends the comment (a `\`-newline continues
/// it), or `end`.
const char* skipLineComment(const char* p, const char* end);
/// If `p` starts a `\`-newline line continuation, the position after it;
/// otherwise `p`.
const char* skipContinuation(const char* p, const char* end);
/// Scans the lexeme at `p` (which is not a blank, newline or comment) and
/// returns its end. Literals stop before an unescaped newline when
/// unterminated; raw strings may span lines.
const char* scanLexeme(const char* p, const char* end, PPTokenKind& kind);
/// Skips spaces, tabs and block comments that close on the same line.
const char* skipBlanks(const char* p, const char* end);
/// `p` just after the `#` of a directive: the `\n` that ends the directive
/// (line continuations and multi-line block comments extend it), or `end`.
const char* findDirectiveEnd(const char* p, const char* end);
/// The position after the `\n` that ends the line starting at `p`, treating
/// comments and literals as a C lexer does (a block comment may carry the
/// line on), or `end`.
const char* skipLine(const char* p, const char* end);

}  // namespace scan

/// Tokenises the text of a directive, `[begin, end)`; blanks, comments and
/// line continuations only separate tokens.
void tokenizeDirective(const char* begin, const char* end, std::vector<PPToken>& out);

}  // namespace croqc::pp
