// The raw scanners of the preprocessor: comments, literals (raw strings
// included), pp-numbers, identifiers and punctuators, found the way a C++
// lexer would find them, so that no macro expands inside a literal or a
// comment and no `#` inside a comment starts a directive.
#include <cstring>
#include <string>

#include "preprocess/PPToken.h"

namespace croqc::pp {

std::string describeToken(const PPToken* tok) {
  if (!tok) return "end of line";
  constexpr size_t kMaxShown = 40;
  std::string text = tok->text.size() > kMaxShown ? tok->text.take_front(kMaxShown).str() + "..."
                                                  : tok->text.str();
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return "`" + text + "`";
}

namespace scan {
namespace {

/// The length of the punctuator at `p` (longest match): C++ punctuators plus
/// the Croqtile ones that C++ lacks (`<->`, `=>`).
size_t punctuatorLength(const char* p, const char* end) {
  const char c0 = *p;
  const char c1 = p + 1 < end ? p[1] : '\0';
  const char c2 = p + 2 < end ? p[2] : '\0';
  switch (c0) {
    case '.':
      if (c1 == '.' && c2 == '.') return 3;
      return c1 == '*' ? 2 : 1;
    case '<':
      if ((c1 == '<' && c2 == '=') || (c1 == '=' && c2 == '>') || (c1 == '-' && c2 == '>'))
        return 3;
      return c1 == '<' || c1 == '=' ? 2 : 1;
    case '>':
      if (c1 == '>' && c2 == '=') return 3;
      return c1 == '>' || c1 == '=' ? 2 : 1;
    case '-':
      if (c1 == '>' && c2 == '*') return 3;
      return c1 == '>' || c1 == '-' || c1 == '=' ? 2 : 1;
    case '#': return c1 == '#' ? 2 : 1;
    case ':': return c1 == ':' ? 2 : 1;
    case '+': return c1 == '+' || c1 == '=' ? 2 : 1;
    case '&': return c1 == '&' || c1 == '=' ? 2 : 1;
    case '|': return c1 == '|' || c1 == '=' ? 2 : 1;
    case '=': return c1 == '=' || c1 == '>' ? 2 : 1;
    case '!':
    case '*':
    case '/':
    case '%':
    case '^': return c1 == '=' ? 2 : 1;
    default: return 1;
  }
}

bool isPunctChar(unsigned char c) {
  return c > 0x20 && c < 0x7f && !isIdentChar(static_cast<char>(c)) && c != '"' && c != '\'';
}

/// `p` at an opening quote: the position after the closing one, or the
/// newline that ends an unterminated literal.
const char* scanQuoted(const char* p, const char* end) {
  const char quote = *p;
  const char* q = p + 1;
  while (q < end) {
    char c = *q;
    if (c == '\\') {
      q += 2;
      continue;
    }
    if (c == quote) return q + 1;
    if (c == '\n') return q;
    ++q;
  }
  return end;
}

/// `p` at the `"` of `R"delim(...)delim"`. An invalid delimiter makes it an
/// ordinary string, as a C++ lexer would after reporting it.
const char* scanRawString(const char* p, const char* end) {
  constexpr size_t kMaxDelimiter = 16;
  const char* q = p + 1;
  while (q < end && *q != '(' && static_cast<size_t>(q - p - 1) <= kMaxDelimiter) {
    char c = *q;
    if (c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\v' || c == '\f' || c == '\n' ||
        c == '"')
      return scanQuoted(p, end);
    ++q;
  }
  if (q >= end || *q != '(') return scanQuoted(p, end);
  std::string closing = ")" + std::string(p + 1, q) + "\"";
  llvm::StringRef rest(q + 1, static_cast<size_t>(end - q - 1));
  size_t at = rest.find(closing);
  if (at == llvm::StringRef::npos) return end;
  return rest.data() + at + closing.size();
}

/// A user-defined literal suffix (`"abc"_s`) belongs to the literal.
const char* scanSuffix(const char* p, const char* end) {
  if (p < end && isIdentStart(*p))
    while (p < end && isIdentChar(*p)) ++p;
  return p;
}

const char* scanNumber(const char* p, const char* end) {
  const char* q = p + 1;
  while (q < end) {
    char c = *q;
    if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') && q + 1 < end &&
        (q[1] == '+' || q[1] == '-')) {
      q += 2;
    } else if (isIdentChar(c) || c == '.') {
      ++q;
    } else if (c == '\'' && q + 1 < end && isIdentChar(q[1])) {
      q += 2;  // digit separator
    } else {
      break;
    }
  }
  return q;
}

}  // namespace

const char* skipBlockComment(const char* p, const char* end) {
  llvm::StringRef rest(p + 2, p + 2 <= end ? static_cast<size_t>(end - p - 2) : 0);
  size_t at = rest.find("*/");
  return at == llvm::StringRef::npos ? end : rest.data() + at + 2;
}

const char* skipLineComment(const char* p, const char* end) {
  const char* q = p + 2;
  while (q < end) {
    const void* nl = std::memchr(q, '\n', static_cast<size_t>(end - q));
    if (!nl) return end;
    const char* n = static_cast<const char*>(nl);
    const char* before = n - 1;
    if (before >= q && *before == '\r') --before;
    if (before >= p + 2 && *before == '\\') {
      q = n + 1;  // continued onto the next line
      continue;
    }
    return n;
  }
  return end;
}

const char* skipContinuation(const char* p, const char* end) {
  if (p >= end || *p != '\\') return p;
  if (p + 1 < end && p[1] == '\n') return p + 2;
  if (p + 2 < end && p[1] == '\r' && p[2] == '\n') return p + 3;
  return p;
}

const char* scanLexeme(const char* p, const char* end, PPTokenKind& kind) {
  const unsigned char c = static_cast<unsigned char>(*p);
  if (isIdentStart(static_cast<char>(c))) {
    const char* q = p + 1;
    while (q < end && isIdentChar(*q)) ++q;
    if (q < end && (*q == '"' || *q == '\'')) {
      llvm::StringRef prefix(p, static_cast<size_t>(q - p));
      if (*q == '"' && (prefix == "R" || prefix == "LR" || prefix == "uR" || prefix == "UR" ||
                        prefix == "u8R")) {
        kind = PPTokenKind::Literal;
        return scanSuffix(scanRawString(q, end), end);
      }
      if (prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8") {
        kind = PPTokenKind::Literal;
        return scanSuffix(scanQuoted(q, end), end);
      }
    }
    kind = PPTokenKind::Identifier;
    return q;
  }
  if (isDigit(static_cast<char>(c)) || (c == '.' && p + 1 < end && isDigit(p[1]))) {
    kind = PPTokenKind::Number;
    return scanNumber(p, end);
  }
  if (c == '"' || c == '\'') {
    kind = PPTokenKind::Literal;
    return scanSuffix(scanQuoted(p, end), end);
  }
  if (isPunctChar(c)) {
    kind = PPTokenKind::Punct;
    return p + punctuatorLength(p, end);
  }
  kind = PPTokenKind::Other;
  const char* q = p + 1;
  if (c >= 0xC0)  // keep a UTF-8 sequence together
    while (q < end && (static_cast<unsigned char>(*q) & 0xC0) == 0x80) ++q;
  return q;
}

const char* skipBlanks(const char* p, const char* end) {
  while (p < end) {
    if (isHorizontalSpace(*p)) {
      ++p;
    } else if (*p == '/' && p + 1 < end && p[1] == '*') {
      const char* q = skipBlockComment(p, end);
      if (std::memchr(p, '\n', static_cast<size_t>(q - p))) return p;
      p = q;
    } else {
      break;
    }
  }
  return p;
}

const char* findDirectiveEnd(const char* p, const char* end) {
  while (p < end) {
    char c = *p;
    if (c == '\n') return p;
    if (c == '\\') {
      const char* q = skipContinuation(p, end);
      p = q == p ? p + 1 : q;
    } else if (c == '/' && p + 1 < end && p[1] == '*') {
      p = skipBlockComment(p, end);
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      return skipLineComment(p, end);
    } else if (c == '"' || c == '\'' || isIdentChar(c) || c == '.') {
      PPTokenKind kind;
      p = scanLexeme(p, end, kind);
    } else {
      ++p;
    }
  }
  return end;
}

const char* skipLine(const char* p, const char* end) {
  while (p < end) {
    char c = *p;
    if (c == '\n') return p + 1;
    if (isHorizontalSpace(c)) {
      ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '*') {
      p = skipBlockComment(p, end);
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      p = skipLineComment(p, end);
    } else {
      PPTokenKind kind;
      p = scanLexeme(p, end, kind);
    }
  }
  return end;
}

}  // namespace scan

void tokenizeDirective(const char* begin, const char* end, std::vector<PPToken>& out) {
  const char* p = begin;
  bool space = false;
  while (p < end) {
    char c = *p;
    if (scan::isHorizontalSpace(c) || c == '\n') {
      ++p;
      space = true;
      continue;
    }
    if (c == '\\') {
      const char* q = scan::skipContinuation(p, end);
      if (q != p) {
        p = q;
        space = true;
        continue;
      }
    }
    if (c == '/' && p + 1 < end && p[1] == '*') {
      p = scan::skipBlockComment(p, end);
      space = true;
      continue;
    }
    if (c == '/' && p + 1 < end && p[1] == '/') break;
    PPToken tok;
    const char* q = scan::scanLexeme(p, end, tok.kind);
    tok.text = llvm::StringRef(p, static_cast<size_t>(q - p));
    tok.loc = p;
    tok.leadingSpace = space;
    out.push_back(tok);
    space = false;
    p = q;
  }
}

}  // namespace croqc::pp
