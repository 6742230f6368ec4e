// `#if` conditions: a recursive-descent parser that evaluates as it parses.
// Arithmetic is done on 64-bit patterns so that overflow wraps instead of
// being undefined; `&&`, `||` and `?:` do not evaluate (and so do not
// diagnose) the operand they skip, as in C.
#include "preprocess/PPExpression.h"

#include <cstdint>
#include <limits>
#include <string>

#include "basic/Diagnostic.h"
#include "preprocess/MacroExpander.h"

namespace croqc::pp {
namespace {

struct Value {
  std::uint64_t bits = 0;
  bool isUnsigned = false;

  bool truthy() const { return bits != 0; }
  std::int64_t asSigned() const { return static_cast<std::int64_t>(bits); }
};

Value boolValue(bool b) { return {b ? 1u : 0u, false}; }

/// Binding strength of a binary operator; 0 for anything else.
int precedence(const PPToken& tok) {
  if (tok.kind != PPTokenKind::Punct) return 0;
  llvm::StringRef t = tok.text;
  if (t == "||") return 1;
  if (t == "&&") return 2;
  if (t == "|") return 3;
  if (t == "^") return 4;
  if (t == "&") return 5;
  if (t == "==" || t == "!=") return 6;
  if (t == "<" || t == ">" || t == "<=" || t == ">=") return 7;
  if (t == "<<" || t == ">>") return 8;
  if (t == "+" || t == "-") return 9;
  if (t == "*" || t == "/" || t == "%") return 10;
  return 0;
}

int digitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isIntegerSuffix(llvm::StringRef s, bool& isUnsigned) {
  std::string lower = s.lower();
  if (lower.find('u') != std::string::npos) isUnsigned = true;
  static const char* const kSuffixes[] = {"",    "u",   "l", "ul", "lu", "ll",
                                          "ull", "llu", "z", "uz", "zu"};
  for (const char* suffix : kSuffixes)
    if (lower == suffix) return true;
  return false;
}

/// Questions only the target compiler can answer (its headers, attributes
/// and builtins); evaluating them as 0 would silently pick a wrong branch.
bool isCompilerQuery(llvm::StringRef name) {
  return name.startswith("__has_") || name == "__is_identifier";
}

class ConditionParser {
 public:
  ConditionParser(llvm::ArrayRef<PPToken> tokens, llvm::StringRef directive, const char* endOfLine,
                  const MacroTable& macros, DiagnosticEngine& diags, const SourceView& view)
      : tokens_(tokens),
        directive_(directive),
        endOfLine_(endOfLine),
        macros_(macros),
        diags_(diags),
        view_(view) {}

  std::optional<bool> run() {
    Value v;
    if (!parseConditional(v, true)) return std::nullopt;
    if (const PPToken* extra = peek()) {
      diags_
          .report(locOf(extra), DiagKind::err_pp_extra_expression_tokens, directive_,
                  describeToken(extra))
          .range(view_.range(*extra));
      return std::nullopt;
    }
    return v.truthy();
  }

 private:
  const PPToken* peek() const { return pos_ < tokens_.size() ? &tokens_[pos_] : nullptr; }
  llvm::SMLoc locOf(const PPToken* tok) const {
    return tok ? view_.loc(tok->loc) : view_.loc(endOfLine_);
  }
  llvm::SMRange rangeOf(const PPToken* tok) const {
    return tok ? view_.range(*tok) : llvm::SMRange();
  }

  /// Counts one level of nesting; false (after an error) past the limit.
  bool enter() {
    if (++depth_ <= kMaxConditionDepth) return true;
    diags_.report(locOf(peek()), DiagKind::err_pp_expression_too_deep, directive_,
                  kMaxConditionDepth);
    return false;
  }
  void leave() { --depth_; }

  /// conditional := binary ['?' conditional ':' conditional]
  bool parseConditional(Value& v, bool eval) {
    if (!parseBinary(1, v, eval)) return false;
    const PPToken* question = peek();
    if (!question || !question->isPunct('?')) return true;
    ++pos_;
    if (!enter()) return false;
    const bool cond = v.truthy();
    Value a, b;
    if (!parseConditional(a, eval && cond)) return false;
    const PPToken* colon = peek();
    if (!colon || !colon->isPunct(':')) {
      diags_.report(locOf(colon), DiagKind::err_pp_expected_colon, directive_, describeToken(colon))
          .range(rangeOf(colon))
          .note(view_.loc(question->loc), DiagKind::note_pp_question_here);
      return false;
    }
    ++pos_;
    if (!parseConditional(b, eval && !cond)) return false;
    leave();
    v = cond ? a : b;
    v.isUnsigned = a.isUnsigned || b.isUnsigned;
    return true;
  }

  /// binary := unary {binop unary}, by precedence climbing
  bool parseBinary(int minPrecedence, Value& lhs, bool eval) {
    if (!parseUnary(lhs, eval)) return false;
    while (true) {
      const PPToken* op = peek();
      const int prec = op ? precedence(*op) : 0;
      if (prec == 0 || prec < minPrecedence) return true;
      ++pos_;
      bool evalRhs = eval;
      if (op->text == "&&") evalRhs = eval && lhs.truthy();
      if (op->text == "||") evalRhs = eval && !lhs.truthy();
      Value rhs;
      if (!parseBinary(prec + 1, rhs, evalRhs)) return false;
      if (!apply(*op, lhs, rhs, eval)) return false;
    }
  }

  /// unary := ('+' | '-' | '!' | '~') unary | primary
  bool parseUnary(Value& v, bool eval) {
    const PPToken* tok = peek();
    if (!tok || tok->kind != PPTokenKind::Punct ||
        !(tok->text == "+" || tok->text == "-" || tok->text == "!" || tok->text == "~"))
      return parsePrimary(v, eval);
    ++pos_;
    if (!enter()) return false;
    if (!parseUnary(v, eval)) return false;
    leave();
    if (tok->text == "-") v.bits = 0 - v.bits;
    if (tok->text == "~") v.bits = ~v.bits;
    if (tok->text == "!") v = boolValue(!v.truthy());
    return true;
  }

  /// primary := integer | character | identifier | 'defined' name
  ///          | 'defined' '(' name ')' | '(' conditional ')'
  bool parsePrimary(Value& v, bool eval) {
    const PPToken* tok = peek();
    if (!tok) {
      diags_.report(locOf(nullptr), DiagKind::err_pp_expected_expression, directive_,
                    describeToken(nullptr));
      return false;
    }
    switch (tok->kind) {
      case PPTokenKind::Number: ++pos_; return parseInteger(*tok, v);
      case PPTokenKind::Literal: ++pos_; return parseCharacter(*tok, v);
      case PPTokenKind::Identifier:
        ++pos_;
        if (tok->text == "defined") return parseDefined(v);
        if (isCompilerQuery(tok->text)) {
          diags_
              .report(view_.loc(tok->loc), DiagKind::err_pp_compiler_query, directive_, tok->text)
              .range(view_.range(*tok));
          return false;
        }
        v = boolValue(tok->text == "true");
        return true;
      case PPTokenKind::Punct:
        if (tok->isPunct('(')) {
          ++pos_;
          if (!enter() || !parseConditional(v, eval)) return false;
          leave();
          const PPToken* close = peek();
          if (!close || !close->isPunct(')')) {
            diags_
                .report(locOf(close), DiagKind::err_pp_expected_rparen, directive_,
                        describeToken(close))
                .range(rangeOf(close))
                .note(view_.loc(tok->loc), DiagKind::note_pp_lparen_here);
            return false;
          }
          ++pos_;
          return true;
        }
        break;
      case PPTokenKind::Other:
      case PPTokenKind::Placemarker: break;
    }
    diags_.report(locOf(tok), DiagKind::err_pp_expected_expression, directive_, describeToken(tok))
        .range(rangeOf(tok));
    return false;
  }

  /// After `defined`: NAME or `(` NAME `)`.
  bool parseDefined(Value& v) {
    const PPToken* lparen = peek();
    const PPToken* name = lparen;
    if (lparen && lparen->isPunct('(')) {
      ++pos_;
      name = peek();
    } else {
      lparen = nullptr;
    }
    if (!name || name->kind != PPTokenKind::Identifier) {
      diags_.report(locOf(name), DiagKind::err_pp_defined_without_identifier, describeToken(name))
          .range(rangeOf(name));
      return false;
    }
    ++pos_;
    if (lparen) {
      const PPToken* close = peek();
      if (!close || !close->isPunct(')')) {
        diags_
            .report(locOf(close), DiagKind::err_pp_defined_missing_rparen, name->text,
                    describeToken(close))
            .range(rangeOf(close))
            .note(view_.loc(lparen->loc), DiagKind::note_pp_lparen_here);
        return false;
      }
      ++pos_;
    }
    v = boolValue(macros_.lookup(name->text) != nullptr);
    return true;
  }

  bool parseInteger(const PPToken& tok, Value& v) {
    std::string digits;
    for (char c : tok.text)
      if (c != '\'') digits += c;
    llvm::StringRef s(digits);
    unsigned base = 10;
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s = s.drop_front(2);
    } else if (s.size() > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
      base = 2;
      s = s.drop_front(2);
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;
    }
    std::uint64_t value = 0;
    bool overflow = false;
    size_t i = 0;
    for (; i < s.size(); ++i) {
      int d = digitValue(s[i]);
      if (d < 0 || static_cast<unsigned>(d) >= base) break;
      const auto digit = static_cast<std::uint64_t>(d);
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / base) overflow = true;
      value = value * base + digit;
    }
    bool isUnsigned = false;
    if (i == 0 || !isIntegerSuffix(s.drop_front(i), isUnsigned)) {
      diags_.report(view_.loc(tok.loc), DiagKind::err_pp_invalid_integer, directive_, tok.text)
          .range(view_.range(tok));
      return false;
    }
    if (overflow) {
      diags_.report(view_.loc(tok.loc), DiagKind::err_pp_integer_too_large, directive_, tok.text)
          .range(view_.range(tok));
      return false;
    }
    v = {value, isUnsigned ||
                    value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())};
    return true;
  }

  /// A character literal's value: one byte is a (signed) char, several are
  /// packed into an int as GCC does.
  bool parseCharacter(const PPToken& tok, Value& v) {
    llvm::StringRef s = tok.text;
    const size_t open = s.find_first_of("'\"");
    if (open == llvm::StringRef::npos || s[open] != '\'' || s.size() < open + 3 ||
        s.back() != '\'') {
      diags_
          .report(view_.loc(tok.loc), DiagKind::err_pp_invalid_expression_token, directive_,
                  describeToken(&tok))
          .range(view_.range(tok));
      return false;
    }
    const bool plain = open == 0;
    llvm::StringRef body = s.slice(open + 1, s.size() - 1);
    std::uint64_t value = 0;
    unsigned count = 0;
    for (size_t i = 0; i < body.size(); ++count) {
      std::uint64_t c = static_cast<unsigned char>(body[i++]);
      if (c == '\\' && i < body.size()) {
        char e = body[i++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case 'a': c = '\a'; break;
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'v': c = '\v'; break;
          case 'x':
          case 'u':
          case 'U':
            c = 0;
            while (i < body.size() && digitValue(body[i]) >= 0)
              c = c * 16 + static_cast<std::uint64_t>(digitValue(body[i++]));
            break;
          default:
            if (e >= '0' && e <= '7') {
              c = static_cast<std::uint64_t>(e - '0');
              for (int k = 0; k < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++k)
                c = c * 8 + static_cast<std::uint64_t>(body[i++] - '0');
            } else {
              c = static_cast<unsigned char>(e);
            }
        }
      }
      value = (value << 8) | (c & 0xff);
    }
    if (count == 1 && plain)
      value =
          static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<signed char>(value)));
    v = {value, false};
    return true;
  }

  bool apply(const PPToken& op, Value& lhs, const Value& rhs, bool eval) {
    const llvm::StringRef o = op.text;
    const bool isUnsigned = lhs.isUnsigned || rhs.isUnsigned;
    const auto compare = [&](auto less) {
      return isUnsigned ? less(lhs.bits, rhs.bits) : less(lhs.asSigned(), rhs.asSigned());
    };
    if (o == "*") {
      lhs = {lhs.bits * rhs.bits, isUnsigned};
    } else if (o == "/" || o == "%") {
      if (rhs.bits == 0) {
        if (eval) {
          diags_.report(view_.loc(op.loc), DiagKind::err_pp_division_by_zero, directive_, o)
              .range(view_.range(op));
          return false;
        }
        lhs = {0, isUnsigned};
      } else if (isUnsigned) {
        lhs = {o == "/" ? lhs.bits / rhs.bits : lhs.bits % rhs.bits, true};
      } else if (lhs.asSigned() == std::numeric_limits<std::int64_t>::min() &&
                 rhs.asSigned() == -1) {
        lhs = {o == "/" ? lhs.bits : 0, false};  // wraps instead of trapping
      } else {
        std::int64_t r =
            o == "/" ? lhs.asSigned() / rhs.asSigned() : lhs.asSigned() % rhs.asSigned();
        lhs = {static_cast<std::uint64_t>(r), false};
      }
    } else if (o == "+") {
      lhs = {lhs.bits + rhs.bits, isUnsigned};
    } else if (o == "-") {
      lhs = {lhs.bits - rhs.bits, isUnsigned};
    } else if (o == "<<" || o == ">>") {
      // The result has the left operand's type; out-of-range counts give
      // what an infinitely wide shift would.
      const bool outOfRange = (!rhs.isUnsigned && rhs.asSigned() < 0) || rhs.bits >= 64;
      const bool negative = !lhs.isUnsigned && lhs.asSigned() < 0;
      if (o == "<<") {
        lhs.bits = outOfRange ? 0 : lhs.bits << rhs.bits;
      } else if (outOfRange) {
        lhs.bits = negative ? ~std::uint64_t{0} : 0;
      } else {
        lhs.bits = lhs.isUnsigned ? lhs.bits >> rhs.bits
                                  : static_cast<std::uint64_t>(lhs.asSigned() >> rhs.bits);
      }
    } else if (o == "<") {
      lhs = boolValue(compare([](auto a, auto b) { return a < b; }));
    } else if (o == ">") {
      lhs = boolValue(compare([](auto a, auto b) { return a > b; }));
    } else if (o == "<=") {
      lhs = boolValue(compare([](auto a, auto b) { return a <= b; }));
    } else if (o == ">=") {
      lhs = boolValue(compare([](auto a, auto b) { return a >= b; }));
    } else if (o == "==") {
      lhs = boolValue(lhs.bits == rhs.bits);
    } else if (o == "!=") {
      lhs = boolValue(lhs.bits != rhs.bits);
    } else if (o == "&") {
      lhs = {lhs.bits & rhs.bits, isUnsigned};
    } else if (o == "^") {
      lhs = {lhs.bits ^ rhs.bits, isUnsigned};
    } else if (o == "|") {
      lhs = {lhs.bits | rhs.bits, isUnsigned};
    } else if (o == "&&") {
      lhs = boolValue(lhs.truthy() && rhs.truthy());
    } else if (o == "||") {
      lhs = boolValue(lhs.truthy() || rhs.truthy());
    }
    return true;
  }

  llvm::ArrayRef<PPToken> tokens_;
  llvm::StringRef directive_;
  const char* endOfLine_;
  const MacroTable& macros_;
  DiagnosticEngine& diags_;
  const SourceView& view_;
  size_t pos_ = 0;
  unsigned depth_ = 0;
};

}  // namespace

std::optional<bool> evaluateCondition(llvm::ArrayRef<PPToken> tokens, llvm::StringRef directive,
                                      const char* endOfLine, const MacroTable& macros,
                                      DiagnosticEngine& diags, const SourceView& view) {
  return ConditionParser(tokens, directive, endOfLine, macros, diags, view).run();
}

}  // namespace croqc::pp
