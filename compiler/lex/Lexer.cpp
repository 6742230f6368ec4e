// The lexer (spec section 1). Host C++ is scanned only as far as needed to
// find file-scope `__co__`, `__device__`, `__co_device__` and `__cok__`
// keywords: comments, string/char/raw-string literals and preprocessor lines
// are skipped and `{}` depth is tracked. `__co__` functions are tokenised.
//
// Every loop advances by at least one character and nothing recurses on the
// input's structure, so any input lexes in linear time without deep stacks.
#include "lex/Lexer.h"

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSwitch.h>

#include <algorithm>
#include <cstdint>

#include "basic/Diagnostic.h"
#include "preprocess/Preprocessor.h"

namespace croqc {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
/// Blanks that do not end a line (`\r` belongs to a `\r\n` line end).
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }
bool isPunctChar(char c) {
  switch (c) {
    case '(': case ')': case '{': case '}': case '[': case ']': case '.': case ',': case ';':
    case ':': case '?': case '=': case '!': case '<': case '>': case '+': case '-': case '*':
    case '/': case '%': case '&': case '|': case '^': case '~': case '#':
      return true;
    default:
      return false;
  }
}

const llvm::StringMap<TokenKind>& keywordTable() {
  static const llvm::StringMap<TokenKind> table = [] {
    llvm::StringMap<TokenKind> t;
#define KEYWORD(Name, Spelling) t[Spelling] = TokenKind::Name;
#include "lex/TokenKinds.def"
    return t;
  }();
  return table;
}

/// Member tokens keyed by their word, without the dot.
const llvm::StringMap<TokenKind>& memberTable() {
  static const llvm::StringMap<TokenKind> table = [] {
    llvm::StringMap<TokenKind> t;
#define MEMBER(Name, Spelling) t[llvm::StringRef(Spelling).drop_front()] = TokenKind::Name;
#include "lex/TokenKinds.def"
    return t;
  }();
  return table;
}

bool isDirectiveName(llvm::StringRef word) {
  return llvm::StringSwitch<bool>(word)
      .Cases("define", "undef", "include", "pragma", "line", true)
      .Cases("if", "ifdef", "ifndef", "elif", "else", "endif", true)
      .Cases("error", "warning", true)
      .Default(false);
}

/// Identifiers that prefix a C++ raw string literal.
bool isRawStringPrefix(llvm::StringRef word) {
  return word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
}

bool isValidIntSuffix(llvm::StringRef s) {
  // (u)? (l|ll)?  or  (l|ll) u
  auto isU = [](char c) { return c == 'u' || c == 'U'; };
  auto isL = [](char c) { return c == 'l' || c == 'L'; };
  size_t i = 0;
  bool u = false;
  if (i < s.size() && isU(s[i])) u = true, ++i;
  unsigned longs = 0;
  while (i < s.size() && isL(s[i]) && longs < 2) ++longs, ++i;
  if (!u && longs > 0 && i < s.size() && isU(s[i])) ++i;
  return i == s.size();
}

/// Decodes one UTF-8 sequence at the start of `s`; returns its length, or 0 if
/// it is not valid UTF-8.
unsigned decodeUtf8(llvm::StringRef s, std::uint32_t& cp) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = b(0);
  unsigned len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (len == 0 || c >= 0xF8 || s.size() < len) return 0;
  cp = c & (0x7F >> len);
  for (unsigned i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return len;
}

/// The plain `digits.digits` spelling of `intPart.fracPart e exponent`, or ""
/// when it would be unreasonably long.
std::string withoutExponent(llvm::StringRef intPart, llvm::StringRef fracPart, llvm::StringRef exponent) {
  bool negative = exponent.consume_front("-");
  if (!negative) exponent.consume_front("+");
  exponent = exponent.ltrim('0');
  if (exponent.size() > 2) return {};
  long exp = 0;
  for (char c : exponent) exp = exp * 10 + (c - '0');
  if (negative) exp = -exp;
  std::string digits = intPart.str() + fracPart.str();
  long point = static_cast<long>(intPart.size()) + exp;
  std::string whole, frac;
  if (point <= 0) {
    frac = std::string(-point, '0') + digits;
  } else if (point >= static_cast<long>(digits.size())) {
    whole = digits + std::string(point - digits.size(), '0');
  } else {
    whole = digits.substr(0, point);
    frac = digits.substr(point);
  }
  size_t firstNonZero = whole.find_first_not_of('0');
  whole = firstNonZero == std::string::npos ? "0" : whole.substr(firstNonZero);
  size_t lastNonZero = frac.find_last_not_of('0');
  frac = lastNonZero == std::string::npos ? "0" : frac.substr(0, lastNonZero + 1);
  return whole + "." + frac;
}

class Lexer {
 public:
  Lexer(const PreprocessedSource& source, DiagnosticEngine& diags)
      : source_(source), diags_(diags), text_(source.text), n_(text_.size()) {}

  std::vector<Token> run() {
    // `__co__` code averages a token per 3-4 bytes; one reservation avoids
    // the page faults of repeated regrowth on large files (pages of it that
    // host-heavy files never use are never touched).
    tokens_.reserve(std::min<size_t>(n_ / 4, 1 << 20) + 16);
    size_t p = 0;
    while (p < n_) {
      p = lexHost(p);
      if (p < n_) p = lexCo(p);
    }
    add(TokenKind::eof, n_, n_, precededBySpace(n_));
    return std::move(tokens_);
  }

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
  const SegmentSpan& segmentAt(size_t offset) const {
    if (offset >= seg_.begin && offset < seg_.end) return seg_;
    const auto& segs = source_.segments;
    auto it = std::upper_bound(segs.begin(), segs.end(), offset,
                               [](size_t off, const PreprocessedSource::Segment& s) { return off < s.outOffset; });
    if (it == segs.begin()) {
      seg_ = {0, segs.empty() ? SIZE_MAX : segs.front().outOffset, false};
    } else {
      seg_ = {std::prev(it)->outOffset, it == segs.end() ? SIZE_MAX : it->outOffset, std::prev(it)->expansion};
    }
    return seg_;
  }

  /// One past the last character of [start, end) in the original source; a
  /// token from a macro expansion ends where it starts, at the macro's use.
  llvm::SMLoc endLocOf(size_t start, size_t end, llvm::SMLoc startLoc) const {
    if (end <= start || !startLoc.isValid()) return startLoc;
    const SegmentSpan& seg = segmentAt(start);
    if (end - 1 < seg.end)  // one segment: a verbatim run maps offsets one to one
      return seg.expansion ? startLoc : llvm::SMLoc::getFromPointer(startLoc.getPointer() + (end - start));
    llvm::SMLoc last = locAt(end - 1);
    if (segmentAt(end - 1).expansion || !last.isValid()) return last;
    return llvm::SMLoc::getFromPointer(last.getPointer() + 1);
  }

  llvm::SMRange rangeOf(size_t start, size_t end) const {
    llvm::SMLoc loc = locAt(start);
    return {loc, endLocOf(start, end, loc)};
  }

  void add(TokenKind kind, size_t start, size_t end, bool leadingSpace) {
    Token tok;
    tok.kind = kind;
    tok.text = text_.slice(start, end);
    tok.loc = locAt(start);
    tok.endLoc = endLocOf(start, end, tok.loc);
    tok.leadingSpace = leadingSpace;
    tokens_.push_back(tok);
  }

  /// Whether whitespace or a comment precedes offset `p` (or it starts the text).
  bool precededBySpace(size_t p) const {
    if (p == 0) return true;
    char prev = text_[p - 1];
    return prev == '\n' || isBlank(prev) || (p >= 2 && prev == '/' && text_[p - 2] == '*');
  }

  bool atLineStart(size_t p) const {
    while (p > 0 && isBlank(text_[p - 1])) --p;
    return p == 0 || text_[p - 1] == '\n';
  }

  char at(size_t p) const { return p < n_ ? text_[p] : '\0'; }

  // --- skipping host C++ ----------------------------------------------------

  size_t scanIdent(size_t p) const {
    while (p < n_ && isIdentChar(text_[p])) ++p;
    return p;
  }

  /// `p` at `\`: the length of a line splice (`\` newline), or 0.
  size_t spliceLength(size_t p) const {
    if (at(p + 1) == '\n') return 2;
    if (at(p + 1) == '\r' && at(p + 2) == '\n') return 3;
    return 0;
  }

  /// `p` at `//`; returns the offset of the newline that ends the comment.
  size_t skipLineComment(size_t p) const {
    while (p < n_ && text_[p] != '\n') {
      size_t splice = text_[p] == '\\' ? spliceLength(p) : 0;
      p += splice ? splice : 1;
    }
    return p;
  }

  /// `p` at `/*`; returns the offset after `*/`, reporting an unterminated comment.
  size_t skipBlockComment(size_t p) {
    size_t close = text_.find("*/", p + 2);
    if (close == llvm::StringRef::npos) {
      diags_.report(locAt(p), DiagKind::err_unterminated_block_comment).range(rangeOf(p, p + 2));
      return n_;
    }
    return close + 2;
  }

  /// `p` at a quote in host code; returns the offset after the closing quote,
  /// or of the newline that ends an unterminated literal (nvcc reports it).
  size_t skipQuoted(size_t p) const {
    char quote = text_[p];
    size_t i = p + 1;
    while (i < n_) {
      char c = text_[i];
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == quote) return i + 1;
      if (c == '\n') return i;
      ++i;
    }
    return n_;
  }

  /// `quote` at the `"` of `R"delim(`: the delimiter's end (the `(`), or npos if
  /// the delimiter is not valid C++.
  size_t rawDelimiterEnd(size_t quote) const {
    size_t i = quote + 1;
    for (; i < n_ && i - quote - 1 <= 16; ++i) {
      char c = text_[i];
      if (c == '(') return i;
      if (c == ')' || c == '\\' || c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\n' ||
          c == '\r' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
        return llvm::StringRef::npos;
    }
    return llvm::StringRef::npos;
  }

  /// `start` at the prefix and `quote` at the `"` of a raw string with a valid
  /// delimiter ending at `open`; returns the offset after the literal, or the
  /// end of the text (reported) when it is unterminated.
  size_t skipRawString(size_t start, size_t quote, size_t open, bool& terminated) {
    llvm::StringRef delim = text_.slice(quote + 1, open);
    std::string close = ")" + delim.str() + "\"";
    size_t found = text_.find(close, open + 1);
    terminated = found != llvm::StringRef::npos;
    if (!terminated) {
      diags_.report(locAt(start), DiagKind::err_unterminated_raw_string, delim).range(rangeOf(start, open + 1));
      return n_;
    }
    return found + close.size();
  }

  /// `p` at `#` starting a preprocessor line; returns the offset of the newline
  /// that ends it (after `\` continuations and multi-line block comments).
  size_t skipDirectiveLine(size_t p) {
    size_t i = p + 1;
    while (i < n_ && text_[i] != '\n') {
      char c = text_[i];
      if (c == '\\') {
        size_t splice = spliceLength(i);
        i += splice ? splice : 1;
      } else if (c == '/' && at(i + 1) == '*') {
        i = skipBlockComment(i);
      } else if (c == '/' && at(i + 1) == '/') {
        i = skipLineComment(i);
      } else if (c == '"' || c == '\'') {
        i = skipQuoted(i);
      } else {
        ++i;
      }
    }
    return i;
  }

  /// `p` at a digit, or a `.` before a digit: skips a C++ preprocessing number
  /// (so that `1'000` digit separators are not taken for char literals).
  size_t skipPPNumber(size_t p) const {
    size_t i = p + 1;
    while (i < n_) {
      char c = text_[i];
      if (isIdentChar(c) || c == '.') {
        ++i;
      } else if ((c == '+' || c == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E' ||
                                            text_[i - 1] == 'p' || text_[i - 1] == 'P')) {
        ++i;
      } else if (c == '\'' && isIdentChar(at(i + 1))) {
        i += 2;
      } else {
        break;
      }
    }
    return i;
  }

  /// Skips one host element that can hide braces or keywords: a comment, a
  /// string, char or raw-string literal, a number or an identifier. Returns
  /// `p` if none starts at `p`.
  size_t skipHostElement(size_t p) {
    char c = text_[p];
    if (c == '/' && at(p + 1) == '/') return skipLineComment(p);
    if (c == '/' && at(p + 1) == '*') return skipBlockComment(p);
    if (c == '"' || c == '\'') return skipQuoted(p);
    if (isDigit(c) || (c == '.' && isDigit(at(p + 1)))) return skipPPNumber(p);
    if (isIdentStart(c)) {
      size_t e = scanIdent(p);
      if (at(e) == '"' && isRawStringPrefix(text_.slice(p, e))) return skipHostRawString(p, e);
      return e;
    }
    return p;
  }

  size_t skipHostRawString(size_t start, size_t quote) {
    size_t open = rawDelimiterEnd(quote);
    if (open == llvm::StringRef::npos) return skipQuoted(quote);  // not a raw string; nvcc reports it
    bool terminated;
    return skipRawString(start, quote, open, terminated);
  }

  /// Skips whitespace and comments (not preprocessor lines) to look ahead;
  /// reports nothing, as the text is scanned again afterwards.
  size_t skipSpaceAndComments(size_t p) const {
    while (p < n_) {
      char c = text_[p];
      if (c == '\n' || isBlank(c)) {
        ++p;
      } else if (c == '/' && at(p + 1) == '/') {
        p = skipLineComment(p);
      } else if (c == '/' && at(p + 1) == '*') {
        size_t close = text_.find("*/", p + 2);
        p = close == llvm::StringRef::npos ? n_ : close + 2;
      } else {
        break;
      }
    }
    return p;
  }

  // --- host mode ------------------------------------------------------------

  void flushHost(size_t start, size_t end) {
    if (end > start) add(TokenKind::host_text, start, end, precededBySpace(start));
  }

  void reportNotAtFileScope(size_t start, size_t end, llvm::StringRef what, unsigned depth, size_t outerBrace) {
    llvm::StringRef keyword = text_.slice(start, end);
    diags_.report(locAt(start), DiagKind::err_region_not_at_file_scope, keyword, what, depth)
        .range(rangeOf(start, end))
        .note(locAt(outerBrace), DiagKind::note_enclosing_scope_opens_here);
  }

  /// Host mode from `p` until a file-scope `__co__` (returns its offset) or the
  /// end of the text (returns the text size).
  size_t lexHost(size_t p) {
    size_t runStart = p;
    unsigned depth = 0;
    size_t outerBrace = 0;
    bool lineStart = atLineStart(p);
    while (p < n_) {
      char c = text_[p];
      if (c == '\n') {
        lineStart = true;
        ++p;
        continue;
      }
      if (isBlank(c)) {
        ++p;
        continue;
      }
      if (c == '#' && lineStart) {
        p = skipDirectiveLine(p);
        continue;
      }
      lineStart = false;
      if (isIdentStart(c)) {
        size_t e = scanIdent(p);
        llvm::StringRef word = text_.slice(p, e);
        if (at(e) == '"' && isRawStringPrefix(word)) {
          p = skipHostRawString(p, e);
          continue;
        }
        if (word.startswith("__")) {
          if (word == "__co__") {
            if (depth == 0) {
              flushHost(runStart, p);
              return p;
            }
            reportNotAtFileScope(p, e, "functions", depth, outerBrace);
          } else if (word == "__device__" || word == "__co_device__" || word == "__cok__") {
            bool cok = word == "__cok__";
            if (depth == 0) {
              size_t end = lexHostRegion(p, e, runStart);
              if (end != p) {
                p = runStart = end;
                continue;
              }
            } else if (word != "__device__") {
              reportNotAtFileScope(p, e, cok ? "blocks" : "functions", depth, outerBrace);
            }
          }
        }
        p = e;
        continue;
      }
      size_t next = skipHostElement(p);
      if (next != p) {
        p = next;
        continue;
      }
      if (c == '{') {
        if (depth == 0) outerBrace = p;
        ++depth;
      } else if (c == '}' && depth > 0) {
        --depth;
      }
      ++p;
    }
    flushHost(runStart, n_);
    return n_;
  }

  /// A file-scope `__device__`/`__co_device__` definition or `__cok__` block
  /// whose keyword spans [start, afterKeyword). Emits the pending host text
  /// and the region token; returns the region's end, or `start` if there is
  /// no region here (a reported `__cok__` without `{`).
  size_t lexHostRegion(size_t start, size_t afterKeyword, size_t hostStart) {
    llvm::StringRef keyword = text_.slice(start, afterKeyword);
    TokenKind kind = keyword == "__device__"      ? TokenKind::device_text
                     : keyword == "__co_device__" ? TokenKind::co_device_text
                                                  : TokenKind::cok_text;
    size_t bodyFrom = afterKeyword;
    if (kind == TokenKind::cok_text) {
      bodyFrom = skipSpaceAndComments(afterKeyword);
      if (at(bodyFrom) != '{') {
        std::string found = bodyFrom >= n_ ? std::string("end of file")
                                           : fmt::format("`{}`", text_.slice(bodyFrom, std::max(scanIdent(bodyFrom), bodyFrom + 1)));
        diags_.report(locAt(start), DiagKind::err_expected_brace_after_cok, found).range(rangeOf(start, afterKeyword));
        return start;
      }
    }
    flushHost(hostStart, start);
    bool terminated;
    size_t end = skipRegionBody(bodyFrom, terminated);
    if (!terminated) {
      diags_.report(locAt(start), DiagKind::err_unterminated_host_region, keyword,
                    kind == TokenKind::cok_text ? "block" : "function")
          .range(rangeOf(start, afterKeyword));
    }
    add(kind, start, end, precededBySpace(start));
    return end;
  }

  /// Scans host C++ from `p` to the `}` that closes the first file-scope
  /// `{`, or to a `;` at depth 0 before any `{` (a declaration). A `;` or `,`
  /// right after the `}` means the braces were an initializer, so the scan
  /// goes on to the `;`. Parentheses are tracked outside braces so that a
  /// brace-initialised default argument is not taken for the body.
  size_t skipRegionBody(size_t p, bool& terminated) {
    terminated = true;
    unsigned depth = 0, parens = 0;
    bool lineStart = false;
    while (p < n_) {
      char c = text_[p];
      if (c == '\n') {
        lineStart = true;
        ++p;
        continue;
      }
      if (isBlank(c)) {
        ++p;
        continue;
      }
      if (c == '#' && lineStart) {
        p = skipDirectiveLine(p);
        continue;
      }
      lineStart = false;
      size_t next = skipHostElement(p);
      if (next != p) {
        p = next;
        continue;
      }
      ++p;
      if (c == '{') {
        ++depth;
      } else if (c == '}' && depth > 0) {
        if (--depth == 0 && parens == 0) {
          size_t after = skipSpaceAndComments(p);
          if (at(after) != ';' && at(after) != ',') return p;
        }
      } else if (depth == 0) {
        if (c == '(') ++parens;
        if (c == ')' && parens > 0) --parens;
        if (c == ';' && parens == 0) return p;
      }
    }
    terminated = false;
    return n_;
  }

  // --- __co__ mode ----------------------------------------------------------

  /// `__co__` mode from the `__co__` at `p` until the function's braces close,
  /// or a `;` at depth 0 ends a prototype. Returns the offset after it.
  size_t lexCo(size_t p) {
    size_t e = p + 6;  // "__co__"
    add(TokenKind::kw_co, p, e, precededBySpace(p));
    p = e;
    unsigned depth = 0;
    bool space = false, lineStart = false;
    while (true) {
      p = skipCoTrivia(p, space, lineStart);
      if (p >= n_) return n_;
      size_t start = p;
      bool leading = space || lineStart;
      if (text_[p] == '#' && lineStart && startsDirective(p)) {
        p = skipDirectiveLine(p);
        add(TokenKind::directive, start, text_[p - 1] == '\r' ? p - 1 : p, leading);
      } else {
        TokenKind kind = lexCoToken(p);
        add(kind, start, p, leading);
        if (kind == TokenKind::l_brace) ++depth;
        if (kind == TokenKind::r_brace && (depth == 0 || --depth == 0)) return p;
        if (kind == TokenKind::semi && depth == 0) return p;
      }
      space = lineStart = false;
    }
  }

  /// Skips whitespace, line splices and comments; notes whether any was
  /// skipped and whether a new line started.
  size_t skipCoTrivia(size_t p, bool& space, bool& lineStart) {
    while (p < n_) {
      char c = text_[p];
      if (c == '\n') {
        lineStart = true;
        ++p;
      } else if (isBlank(c)) {
        space = true;
        ++p;
      } else if (c == '\\' && spliceLength(p)) {
        space = true;
        p += spliceLength(p);
      } else if (c == '/' && at(p + 1) == '/') {
        space = true;
        p = skipLineComment(p);
      } else if (c == '/' && at(p + 1) == '*') {
        space = true;
        p = skipBlockComment(p);
      } else {
        break;
      }
    }
    return p;
  }

  /// `p` at `#` first on its line: is it followed by a directive name?
  bool startsDirective(size_t p) const {
    size_t i = p + 1;
    while (i < n_ && isBlank(text_[i])) ++i;
    return isDirectiveName(text_.slice(i, scanIdent(i)));
  }

  /// Lexes the token at `p` and advances `p` past it.
  TokenKind lexCoToken(size_t& p) {
    size_t start = p;
    char c = text_[p];
    if (isIdentStart(c)) return lexWord(p);
    if (isDigit(c)) return lexNumber(p);
    if (c == '"') return lexString(p);
    if (c == '.') return lexDot(p);
    if (isPunctChar(c)) return lexPunct(p);
    // A run of characters that start no token.
    size_t e = p;
    while (e < n_) {
      char d = text_[e];
      if (d == '\n' || isBlank(d) || isIdentChar(d) || d == '"' || isPunctChar(d)) break;
      if (d == '\\' && spliceLength(e)) break;
      ++e;
    }
    p = e;
    reportInvalidChars(start, e);
    return TokenKind::error;
  }

  TokenKind lexWord(size_t& p) {
    size_t start = p;
    size_t e = scanIdent(p);
    llvm::StringRef word = text_.slice(start, e);
    if (word == "R" && at(e) == '"') return lexRawString(p);
    p = e;
    if (word == "group" && at(e) == '-' && at(e + 1) == '4' && !isIdentChar(at(e + 2))) {
      p = e + 2;
      return TokenKind::kw_group4;
    }
    const auto& keywords = keywordTable();
    auto it = keywords.find(word);
    return it == keywords.end() ? TokenKind::identifier : it->second;
  }

  TokenKind lexDot(size_t& p) {
    size_t start = p;
    if (isDigit(at(p + 1))) {
      // `.5`: no integer part.
      size_t e = p + 1;
      while (isDigit(at(e))) ++e;
      llvm::StringRef frac = text_.slice(p + 1, e);
      bool f32 = at(e) == 'f' || at(e) == 'F';
      if (f32) ++e;
      p = e;
      diags_.report(locAt(start), DiagKind::err_float_missing_integer, text_.slice(start, e),
                    fmt::format("0.{}{}", frac, f32 ? "f" : ""))
          .range(rangeOf(start, e));
      return TokenKind::error;
    }
    if (isIdentStart(at(p + 1))) {
      size_t e = scanIdent(p + 1);
      const auto& members = memberTable();
      auto it = members.find(text_.slice(p + 1, e));
      if (it != members.end()) {
        p = e;
        return it->second;
      }
    }
    ++p;
    return TokenKind::period;
  }

  TokenKind lexPunct(size_t& p) {
    char c = text_[p];
    char d = at(p + 1);
    auto take = [&](size_t len, TokenKind kind) {
      p += len;
      return kind;
    };
    switch (c) {
      case '(': return take(1, TokenKind::l_paren);
      case ')': return take(1, TokenKind::r_paren);
      case '{': return take(1, TokenKind::l_brace);
      case '}': return take(1, TokenKind::r_brace);
      case '[': return d == '[' ? take(2, TokenKind::l_attr) : take(1, TokenKind::l_square);
      case ']': return d == ']' ? take(2, TokenKind::r_attr) : take(1, TokenKind::r_square);
      case ',': return take(1, TokenKind::comma);
      case ';': return take(1, TokenKind::semi);
      case ':': return d == ':' ? take(2, TokenKind::coloncolon) : take(1, TokenKind::colon);
      case '?': return d == '?' ? take(2, TokenKind::questionquestion) : take(1, TokenKind::question);
      case '=':
        if (d == '=') return take(2, TokenKind::equalequal);
        if (d == '>') return take(2, TokenKind::arrow);
        return take(1, TokenKind::equal);
      case '!': return d == '=' ? take(2, TokenKind::exclaimequal) : take(1, TokenKind::exclaim);
      case '<':
        if (d == '-' && at(p + 2) == '>') return take(3, TokenKind::swaparrow);
        if (d == '=') return take(2, TokenKind::lessequal);
        if (d == '<') return take(2, TokenKind::lessless);
        return take(1, TokenKind::less);
      case '>':
        if (d == '=') return take(2, TokenKind::greaterequal);
        if (d == '>') return take(2, TokenKind::greatergreater);
        return take(1, TokenKind::greater);
      case '+': return d == '+' ? take(2, TokenKind::plusplus) : take(1, TokenKind::plus);
      case '-': return d == '-' ? take(2, TokenKind::minusminus) : take(1, TokenKind::minus);
      case '*': return take(1, TokenKind::star);
      case '/': return take(1, TokenKind::slash);
      case '%': return take(1, TokenKind::percent);
      case '&': return d == '&' ? take(2, TokenKind::ampamp) : take(1, TokenKind::amp);
      case '|': return d == '|' ? take(2, TokenKind::pipepipe) : take(1, TokenKind::pipe);
      case '^': return take(1, TokenKind::caret);
      case '~': return take(1, TokenKind::tilde);
      case '#':
        switch (d) {
          case '+': return take(2, TokenKind::hashplus);
          case '-': return take(2, TokenKind::hashminus);
          case '*': return take(2, TokenKind::hashstar);
          case '%': return take(2, TokenKind::hashpercent);
          case '/':
            // `#//` and `#/*` are `#` and a comment.
            if (at(p + 2) != '/' && at(p + 2) != '*') return take(2, TokenKind::hashslash);
            break;
        }
        return take(1, TokenKind::hash);
    }
    return take(1, TokenKind::error);  // unreachable: isPunctChar guards the call
  }

  /// `e` at `e`/`E`: does an exponent (`e5`, `e-5`, `E+3`) start here?
  bool startsExponent(size_t e) const {
    char c = at(e);
    if (c != 'e' && c != 'E') return false;
    char d = at(e + 1);
    return isDigit(d) || ((d == '+' || d == '-') && isDigit(at(e + 2)));
  }

  /// Reports `digits[.digits]e[+-]digits[f]` and returns the error token's end.
  size_t lexExponentError(size_t start, size_t intEnd, size_t fracStart, size_t fracEnd, size_t e) {
    size_t i = e + 1;
    if (at(i) == '+' || at(i) == '-') ++i;
    while (isDigit(at(i))) ++i;
    llvm::StringRef exponent = text_.slice(e + 1, i);
    bool f32 = at(i) == 'f' || at(i) == 'F';
    size_t end = scanIdent(i);
    std::string plain = withoutExponent(text_.slice(start, intEnd), text_.slice(fracStart, fracEnd), exponent);
    std::string hint = plain.empty() ? std::string("write the value as `digits.digits`")
                                     : fmt::format("write `{}{}`", plain, f32 ? "f" : "");
    diags_.report(locAt(start), DiagKind::err_float_exponent, text_.slice(start, end), hint)
        .range(rangeOf(start, end));
    return end;
  }

  TokenKind lexNumber(size_t& p) {
    size_t start = p;
    if (text_[p] == '0' && (at(p + 1) == 'x' || at(p + 1) == 'X')) {
      size_t digits = p + 2, i = digits;
      while (isHexDigit(at(i))) ++i;
      size_t end = scanIdent(i);
      p = end;
      llvm::StringRef spelling = text_.slice(start, end);
      if (i == digits) {
        diags_.report(locAt(start), DiagKind::err_hex_no_digits, spelling).range(rangeOf(start, end));
        return TokenKind::error;
      }
      return checkIntLiteral(start, i, end);
    }
    size_t i = p;
    while (isDigit(at(i))) ++i;
    size_t intEnd = i;
    if (at(i) == '.' && isDigit(at(i + 1))) {
      size_t fracStart = i + 1;
      i = fracStart;
      while (isDigit(at(i))) ++i;
      size_t fracEnd = i;
      if (startsExponent(i)) {
        p = lexExponentError(start, intEnd, fracStart, fracEnd, i);
        return TokenKind::error;
      }
      size_t end = scanIdent(i);
      p = end;
      llvm::StringRef suffix = text_.slice(i, end);
      if (!suffix.empty() && suffix != "f" && suffix != "F") {
        diags_.report(locAt(start), DiagKind::err_invalid_float_suffix, suffix, text_.slice(start, end))
            .range(rangeOf(start, end));
        return TokenKind::error;
      }
      return TokenKind::float_literal;
    }
    if (at(i) == '.') {
      // `1.`, `1.f`, `1.e5`: no fraction. `1.x` is left to the parser.
      size_t after = i + 1;
      if (startsExponent(after)) {
        p = lexExponentError(start, intEnd, after, after, after);
        return TokenKind::error;
      }
      bool f32 = (at(after) == 'f' || at(after) == 'F') && !isIdentChar(at(after + 1));
      if (f32 || !isIdentStart(at(after))) {
        size_t end = f32 ? after + 1 : after;
        p = end;
        diags_.report(locAt(start), DiagKind::err_float_missing_fraction, text_.slice(start, end),
                      fmt::format("{}.0{}", text_.slice(start, intEnd), f32 ? "f" : ""))
            .range(rangeOf(start, end));
        return TokenKind::error;
      }
      p = intEnd;
      return checkDecimalInt(start, intEnd, intEnd);
    }
    if (startsExponent(i)) {
      p = lexExponentError(start, intEnd, intEnd, intEnd, i);
      return TokenKind::error;
    }
    size_t end = scanIdent(i);
    p = end;
    return checkDecimalInt(start, intEnd, end);
  }

  /// A decimal integer literal with digits [start, digitsEnd) and suffix
  /// [digitsEnd, end): rejects octal-looking leading zeros.
  TokenKind checkDecimalInt(size_t start, size_t digitsEnd, size_t end) {
    llvm::StringRef digits = text_.slice(start, digitsEnd);
    if (digits.size() > 1 && digits[0] == '0') {
      llvm::StringRef suffix = text_.slice(digitsEnd, end);
      llvm::StringRef decimal = digits.ltrim('0');
      if (decimal.empty()) decimal = "0";
      std::string hint = fmt::format("write `{}{}`", decimal, suffix);
      bool octalDigits = digits.find_first_of("89") == llvm::StringRef::npos;
      if (octalDigits && digits.size() <= 22) {
        std::uint64_t value = 0;
        for (char c : digits) value = value * 8 + (c - '0');
        std::string octal = std::to_string(value);
        if (octal != decimal) hint += fmt::format(", or `{}{}` for the octal value", octal, suffix);
      }
      diags_.report(locAt(start), DiagKind::err_octal_literal, text_.slice(start, end), hint)
          .range(rangeOf(start, end));
      return TokenKind::error;
    }
    return checkIntLiteral(start, digitsEnd, end);
  }

  /// Checks the suffix [digitsEnd, end) of an integer literal.
  TokenKind checkIntLiteral(size_t start, size_t digitsEnd, size_t end) {
    llvm::StringRef spelling = text_.slice(start, end);
    llvm::StringRef suffix = text_.slice(digitsEnd, end);
    if (!isValidIntSuffix(suffix)) {
      std::string hint = "integer suffixes are `u`, `l`, `ul`, `ll` and `ull`, in either case";
      if ((suffix == "f" || suffix == "F") && !spelling.startswith_insensitive("0x"))
        hint = fmt::format("write `{}.0f` for an `f32` literal", text_.slice(start, digitsEnd));
      diags_.report(locAt(start), DiagKind::err_invalid_int_suffix, suffix, spelling, hint)
          .range(rangeOf(start, end));
      return TokenKind::error;
    }
    return TokenKind::int_literal;  // the parser reports values that overflow 64 bits
  }

  TokenKind lexString(size_t& p) {
    size_t start = p;
    size_t i = p + 1;
    while (i < n_) {
      char c = text_[i];
      if (c == '"') {
        p = i + 1;
        return TokenKind::string_literal;
      }
      if (c == '\n') break;
      if (c != '\\') {
        ++i;
        continue;
      }
      if (i + 1 >= n_) {
        ++i;
        break;
      }
      i = checkEscape(i);
    }
    p = i;
    diags_.report(locAt(start), DiagKind::err_unterminated_string).range(rangeOf(start, i));
    return TokenKind::error;
  }

  /// `i` at the `\` of an escape in a string; reports bad escapes and returns
  /// the offset after the escape.
  size_t checkEscape(size_t i) {
    char e = text_[i + 1];
    switch (e) {
      case 'n': case 't': case 'r': case '"': case '\\': case '\'': case '?':
      case 'a': case 'b': case 'f': case 'v': case '\n':
        return i + 2;
      case '\r':
        return at(i + 2) == '\n' ? i + 3 : i + 2;
      case 'x': {
        size_t j = i + 2;
        while (isHexDigit(at(j))) ++j;
        llvm::StringRef digits = text_.slice(i + 2, j);
        if (digits.empty())
          diags_.report(locAt(i), DiagKind::err_hex_escape_no_digits).range(rangeOf(i, i + 2));
        else if (digits.ltrim('0').size() > 2)
          diags_.report(locAt(i), DiagKind::err_hex_escape_out_of_range, digits).range(rangeOf(i, j));
        return j;
      }
      default:
        break;
    }
    if (e >= '0' && e <= '7') {
      size_t j = i + 2;
      while (j < i + 4 && at(j) >= '0' && at(j) <= '7') ++j;
      return j;
    }
    std::uint32_t cp;
    size_t len = static_cast<unsigned char>(e) >= 0x80 ? decodeUtf8(text_.drop_front(i + 1), cp) : 1;
    if (len == 0) len = 1;
    llvm::StringRef escaped = text_.slice(i + 1, i + 1 + len);
    std::string shown = static_cast<unsigned char>(e) < 0x20 || e == 0x7F || (static_cast<unsigned char>(e) >= 0x80 && len == 1)
                            ? fmt::format("\\x{:02x}", static_cast<unsigned char>(e))
                            : escaped.str();
    diags_.report(locAt(i), DiagKind::warn_unknown_escape, shown).range(rangeOf(i, i + 1 + len));
    return i + 1 + len;
  }

  /// `p` at the `R` of `R"delim(...)delim"`.
  TokenKind lexRawString(size_t& p) {
    size_t start = p, quote = p + 1;
    size_t open = rawDelimiterEnd(quote);
    if (open == llvm::StringRef::npos) {
      size_t e = quote + 1;
      while (e < n_ && e < quote + 18 && text_[e] != '(' && text_[e] != '\n') ++e;
      diags_.report(locAt(start), DiagKind::err_raw_string_bad_delimiter, text_.slice(quote + 1, e))
          .range(rangeOf(start, e));
      p = skipQuoted(quote);
      return TokenKind::error;
    }
    bool terminated;
    p = skipRawString(start, quote, open, terminated);
    return terminated ? TokenKind::raw_string_literal : TokenKind::error;
  }

  void reportInvalidChars(size_t start, size_t end) {
    llvm::StringRef run = text_.slice(start, end);
    std::string shown, hint;
    unsigned count = 0;
    for (size_t i = 0; i < run.size();) {
      unsigned char c = run[i];
      std::uint32_t cp = c;
      size_t len = c >= 0x80 ? decodeUtf8(run.drop_front(i), cp) : 1;
      std::string item;
      if (len == 0) {
        item = fmt::format("byte 0x{:02X}", c);
        cp = c;
        len = 1;
      } else if (cp > 0x20 && cp < 0x7F) {
        item = fmt::format("`{}`", static_cast<char>(cp));
      } else {
        item = fmt::format("U+{:04X}", cp);
      }
      if (hint.empty()) hint = hintForChar(cp, len);
      i += len;
      if (++count <= 6) shown += (count > 1 ? ", " : "") + item;
    }
    if (count > 6) shown += fmt::format(" and {} more", count - 6);
    diags_.report(locAt(start), DiagKind::err_invalid_char, count == 1 ? "character" : "characters", shown, hint)
        .range(rangeOf(start, end));
  }

  static std::string hintForChar(std::uint32_t cp, size_t len) {
    if (len == 0) return {};
    switch (cp) {
      case '\'': return "character literals do not exist in `__co__` code; use a string or an integer";
      case '\\': return "`\\` continues a line only at the end of a preprocessor line";
      case 0x2018: case 0x2019: case 0x201C: case 0x201D:
        return "replace the typographic quote with a plain `\"`";
      case 0x2212: case 0x2013: case 0x2014: return "replace the typographic dash with `-`";
      case 0x00A0: return "replace the non-breaking space with a plain space";
      default: return {};
    }
  }

  const PreprocessedSource& source_;
  DiagnosticEngine& diags_;
  llvm::StringRef text_;
  size_t n_;
  std::vector<Token> tokens_;
  mutable SegmentSpan seg_;
};

}  // namespace

std::vector<Token> lex(const PreprocessedSource& source, DiagnosticEngine& diags) {
  return Lexer(source, diags).run();
}

}  // namespace croqc
