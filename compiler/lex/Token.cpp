// Token kind tables (names, spellings, classes) and the decoders that turn
// literal tokens into values. The decoders assume text the lexer accepted;
// on anything else they return a best-effort value and never fail.
#include "lex/Token.h"

#include <charconv>
#include <limits>
#include <string>

namespace croqc {

namespace {

constexpr unsigned kNumTokenKinds = 0
#define TOKEN(Name, Desc) +1
#define KEYWORD(Name, Spelling) +1
#define MEMBER(Name, Spelling) +1
#define PUNCT(Name, Spelling) +1
#include "lex/TokenKinds.def"
    ;

enum class KindClass : std::uint8_t { Token, Keyword, ElemType, Member, Punct };

struct KindInfo {
  const char* name;
  const char* spelling;
  KindClass cls;
};

const KindInfo kKindInfo[kNumTokenKinds] = {
#define TOKEN(Name, Desc) {#Name, Desc, KindClass::Token},
#define KEYWORD(Name, Spelling) {#Name, Spelling, KindClass::Keyword},
#define ELEMTYPE(Name, Spelling) {#Name, Spelling, KindClass::ElemType},
#define MEMBER(Name, Spelling) {#Name, Spelling, KindClass::Member},
#define PUNCT(Name, Spelling) {#Name, Spelling, KindClass::Punct},
#include "lex/TokenKinds.def"
};

const KindInfo& info(TokenKind kind) { return kKindInfo[static_cast<unsigned>(kind)]; }

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

unsigned hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

/// Decodes the body of a (non-raw) string literal: escapes and `\`-newline
/// line splices. Unknown escapes keep the escaped character (the lexer warns).
std::string decodeEscapes(llvm::StringRef body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\n': break;  // line splice
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') ++i;
        break;
      case 'x': {
        unsigned value = 0;
        while (i + 1 < body.size() && isHexDigit(body[i + 1])) value = (value * 16 + hexValue(body[++i])) & 0xFF;
        out += static_cast<char>(value);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          unsigned value = e - '0';
          for (int n = 1; n < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++n)
            value = value * 8 + (body[++i] - '0');
          out += static_cast<char>(value & 0xFF);
        } else {
          out += e;  // \" \\ \' \? and unknown escapes
        }
    }
  }
  return out;
}

}  // namespace

llvm::StringRef tokenKindName(TokenKind kind) { return info(kind).name; }

llvm::StringRef tokenKindSpelling(TokenKind kind) { return info(kind).spelling; }

bool isKeyword(TokenKind kind) {
  KindClass c = info(kind).cls;
  return c == KindClass::Keyword || c == KindClass::ElemType;
}

bool isElementType(TokenKind kind) { return info(kind).cls == KindClass::ElemType; }

bool isMemberToken(TokenKind kind) { return info(kind).cls == KindClass::Member; }

bool isHostRegion(TokenKind kind) {
  switch (kind) {
    case TokenKind::host_text:
    case TokenKind::device_text:
    case TokenKind::co_device_text:
    case TokenKind::cok_text: return true;
    default: return false;
  }
}

IntLiteralValue decodeIntLiteral(llvm::StringRef text) {
  IntLiteralValue result;
  text.consume_front("-");
  unsigned base = 10;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text = text.drop_front(2);
  }
  size_t i = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (; i < text.size(); ++i) {
    char c = text[i];
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (base == 16 && isHexDigit(c))
      digit = hexValue(c);
    else
      break;
    if (result.value > (kMax - digit) / base) result.overflow = true;
    result.value = result.value * base + digit;
  }
  for (char c : text.drop_front(i)) {
    if (c == 'u' || c == 'U') result.isUnsigned = true;
    if (c == 'l' || c == 'L') ++result.longCount;
  }
  return result;
}

FloatLiteralValue decodeFloatLiteral(llvm::StringRef text) {
  FloatLiteralValue result;
  bool negative = text.consume_front("-");
  if (text == "inf") {
    result.value = std::numeric_limits<double>::infinity();
  } else {
    if (text.endswith("f") || text.endswith("F")) {
      result.isF32 = true;
      text = text.drop_back();
    }
    std::from_chars(text.begin(), text.end(), result.value, std::chars_format::fixed);
  }
  if (negative) result.value = -result.value;
  return result;
}

std::string decodeStringLiteral(const Token& tok) {
  llvm::StringRef text = tok.text;
  if (tok.kind == TokenKind::raw_string_literal) {
    // R"delim( ... )delim"
    size_t open = text.find('(');
    if (open == llvm::StringRef::npos || text.size() < 2) return {};
    llvm::StringRef delim = text.slice(2, open);
    size_t closeLen = delim.size() + 2;  // `)` + delim + `"`
    if (text.size() < open + 1 + closeLen) return {};
    return text.slice(open + 1, text.size() - closeLen).str();
  }
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.slice(1, text.size() - 1);
  return decodeEscapes(text);
}

}  // namespace croqc
