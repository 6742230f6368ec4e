// The lexer's literals: numbers (with their suffixes and exponents), strings
// and raw strings with their escapes, and invalid characters with a hint.
#include <fmt/format.h>

#include "lex/LexerImpl.h"

namespace croqc::lexer {

bool Lexer::startsExponent(size_t e) const {
  char c = at(e);
  if (c != 'e' && c != 'E') return false;
  char d = at(e + 1);
  return isDigit(d) || ((d == '+' || d == '-') && isDigit(at(e + 2)));
}

size_t Lexer::lexExponentError(size_t start, size_t intEnd, size_t fracStart, size_t fracEnd, size_t e) {
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

TokenKind Lexer::lexNumber(size_t& p) {
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

TokenKind Lexer::checkDecimalInt(size_t start, size_t digitsEnd, size_t end) {
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

TokenKind Lexer::checkIntLiteral(size_t start, size_t digitsEnd, size_t end) {
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

TokenKind Lexer::lexString(size_t& p) {
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

size_t Lexer::checkEscape(size_t i) {
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

TokenKind Lexer::lexRawString(size_t& p) {
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

void Lexer::reportInvalidChars(size_t start, size_t end) {
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

std::string Lexer::hintForChar(std::uint32_t cp, size_t len) {
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

}  // namespace croqc::lexer
