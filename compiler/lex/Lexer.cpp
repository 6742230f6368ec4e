// The lexer (spec section 1). Host C++ is scanned only as far as needed to
// find file-scope `__co__`, `__device__`, `__co_device__` and `__cok__`
// keywords: comments, string/char/raw-string literals and preprocessor lines
// are skipped and `{}` depth is tracked. `__co__` functions are tokenised.
//
// Every loop advances by at least one character and nothing recurses on the
// input's structure, so any input lexes in linear time without deep stacks.
#include "lex/Lexer.h"

#include "lex/LexerImpl.h"

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSwitch.h>

#include <algorithm>
#include <cstdint>

#include "basic/Diagnostic.h"
#include "preprocess/Preprocessor.h"

namespace croqc {
namespace lexer {

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

std::vector<Token> Lexer::run() {
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

const Lexer::SegmentSpan& Lexer::segmentAt(size_t offset) const {
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

llvm::SMLoc Lexer::endLocOf(size_t start, size_t end, llvm::SMLoc startLoc) const {
  if (end <= start || !startLoc.isValid()) return startLoc;
  const SegmentSpan& seg = segmentAt(start);
  if (end - 1 < seg.end)  // one segment: a verbatim run maps offsets one to one
    return seg.expansion ? startLoc : llvm::SMLoc::getFromPointer(startLoc.getPointer() + (end - start));
  llvm::SMLoc last = locAt(end - 1);
  if (segmentAt(end - 1).expansion || !last.isValid()) return last;
  return llvm::SMLoc::getFromPointer(last.getPointer() + 1);
}

llvm::SMRange Lexer::rangeOf(size_t start, size_t end) const {
  llvm::SMLoc loc = locAt(start);
  return {loc, endLocOf(start, end, loc)};
}

void Lexer::add(TokenKind kind, size_t start, size_t end, bool leadingSpace) {
  Token tok;
  tok.kind = kind;
  tok.text = text_.slice(start, end);
  tok.loc = locAt(start);
  tok.endLoc = endLocOf(start, end, tok.loc);
  tok.leadingSpace = leadingSpace;
  tokens_.push_back(tok);
}

bool Lexer::precededBySpace(size_t p) const {
  if (p == 0) return true;
  char prev = text_[p - 1];
  return prev == '\n' || isBlank(prev) || (p >= 2 && prev == '/' && text_[p - 2] == '*');
}

bool Lexer::atLineStart(size_t p) const {
  while (p > 0 && isBlank(text_[p - 1])) --p;
  return p == 0 || text_[p - 1] == '\n';
}

size_t Lexer::scanIdent(size_t p) const {
  while (p < n_ && isIdentChar(text_[p])) ++p;
  return p;
}

size_t Lexer::spliceLength(size_t p) const {
  if (at(p + 1) == '\n') return 2;
  if (at(p + 1) == '\r' && at(p + 2) == '\n') return 3;
  return 0;
}

size_t Lexer::skipLineComment(size_t p) const {
  while (p < n_ && text_[p] != '\n') {
    size_t splice = text_[p] == '\\' ? spliceLength(p) : 0;
    p += splice ? splice : 1;
  }
  return p;
}

size_t Lexer::skipBlockComment(size_t p) {
  size_t close = text_.find("*/", p + 2);
  if (close == llvm::StringRef::npos) {
    diags_.report(locAt(p), DiagKind::err_unterminated_block_comment).range(rangeOf(p, p + 2));
    return n_;
  }
  return close + 2;
}

size_t Lexer::skipQuoted(size_t p) const {
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

size_t Lexer::rawDelimiterEnd(size_t quote) const {
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

size_t Lexer::skipRawString(size_t start, size_t quote, size_t open, bool& terminated) {
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

size_t Lexer::skipDirectiveLine(size_t p) {
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

size_t Lexer::skipPPNumber(size_t p) const {
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

size_t Lexer::skipHostElement(size_t p) {
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

size_t Lexer::skipHostRawString(size_t start, size_t quote) {
  size_t open = rawDelimiterEnd(quote);
  if (open == llvm::StringRef::npos) return skipQuoted(quote);  // not a raw string; nvcc reports it
  bool terminated;
  return skipRawString(start, quote, open, terminated);
}

size_t Lexer::skipSpaceAndComments(size_t p) const {
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

void Lexer::flushHost(size_t start, size_t end) {
  if (end > start) add(TokenKind::host_text, start, end, precededBySpace(start));
}

void Lexer::reportNotAtFileScope(size_t start, size_t end, llvm::StringRef what, unsigned depth, size_t outerBrace) {
  llvm::StringRef keyword = text_.slice(start, end);
  diags_.report(locAt(start), DiagKind::err_region_not_at_file_scope, keyword, what, depth)
      .range(rangeOf(start, end))
      .note(locAt(outerBrace), DiagKind::note_enclosing_scope_opens_here);
}

size_t Lexer::lexHost(size_t p) {
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

size_t Lexer::lexHostRegion(size_t start, size_t afterKeyword, size_t hostStart) {
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

size_t Lexer::skipRegionBody(size_t p, bool& terminated) {
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

size_t Lexer::lexCo(size_t p) {
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

size_t Lexer::skipCoTrivia(size_t p, bool& space, bool& lineStart) {
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

bool Lexer::startsDirective(size_t p) const {
  size_t i = p + 1;
  while (i < n_ && isBlank(text_[i])) ++i;
  return isDirectiveName(text_.slice(i, scanIdent(i)));
}

TokenKind Lexer::lexCoToken(size_t& p) {
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

TokenKind Lexer::lexWord(size_t& p) {
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

TokenKind Lexer::lexDot(size_t& p) {
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

TokenKind Lexer::lexPunct(size_t& p) {
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

}  // namespace lexer


std::vector<Token> lex(const PreprocessedSource& source, DiagnosticEngine& diags) {
  return lexer::Lexer(source, diags).run();
}

}  // namespace croqc
