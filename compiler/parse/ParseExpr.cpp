// Expressions, with the precedence table of spec 6.1 (lowest to highest):
//   ?:  ||  &&  == !=  < <= > >=  << >>  + -  * / %  #+ #-  #* #/ #%
//   prefix ! ++ -- -   binary & ^ |   # (compose) and prefix #   prefix ~ &
//   postfix: member tokens, (...), [...], ++, --
// Note that `& ^ |` bind tighter than arithmetic and comparisons, unlike C.
#include <cmath>

#include "parse/ParserImpl.h"

namespace croqc {

using namespace ast;
using llvm::SMLoc;
using llvm::StringRef;

int Parser::binaryPrecedence(TokenKind k) {
  switch (k) {
    case TokenKind::pipepipe: return 4;
    case TokenKind::ampamp: return 5;
    case TokenKind::equalequal:
    case TokenKind::exclaimequal: return 6;
    case TokenKind::less:
    case TokenKind::lessequal:
    case TokenKind::greater:
    case TokenKind::greaterequal: return 7;
    case TokenKind::lessless:
    case TokenKind::greatergreater: return 8;
    case TokenKind::plus:
    case TokenKind::minus: return 9;
    case TokenKind::star:
    case TokenKind::slash:
    case TokenKind::percent: return 10;
    case TokenKind::hashplus:
    case TokenKind::hashminus: return 11;
    case TokenKind::hashstar:
    case TokenKind::hashslash:
    case TokenKind::hashpercent: return 12;
    default: return -1;
  }
}

bool Parser::isViewMethod(TokenKind k) {
  switch (k) {
    case TokenKind::m_chunkat:
    case TokenKind::m_chunk:
    case TokenKind::m_subspan:
    case TokenKind::m_modspan:
    case TokenKind::m_step:
    case TokenKind::m_stride:
    case TokenKind::m_at:
    case TokenKind::m_view:
    case TokenKind::m_from:
    case TokenKind::m_span_as:
    case TokenKind::m_sqz:
    case TokenKind::m_map:
    case TokenKind::m_remap: return true;
    default: return false;
  }
}

/// expr := conditional
Expr* Parser::parseExpr() { return parseConditional(); }

/// conditional := binary ['?' expr ':' conditional]
Expr* Parser::parseConditional() {
  if (!enterNesting()) return nullptr;
  SMLoc start = tok().loc;
  Expr* cond = parseBinary(4);
  if (cond && tok().is(TokenKind::question)) {
    consume();
    bool savedAngle = inAngle_;
    inAngle_ = false;
    Expr* then = parseExpr();
    inAngle_ = savedAngle;
    Expr* otherwise = nullptr;
    if (then && expect(TokenKind::colon, "`:` in the conditional expression")) otherwise = parseConditional();
    cond = otherwise ? ctx_.create<ConditionalExpr>(rangeFrom(start), cond, then, otherwise) : nullptr;
  }
  leaveNesting();
  return cond;
}

/// binary := prefix { binop binary }   (precedence climbing, levels 4-12)
Expr* Parser::parseBinary(int minPrec) {
  SMLoc start = tok().loc;
  Expr* lhs = parsePrefix();
  unsigned links = 0;
  while (lhs) {
    TokenKind op = tok().kind;
    int prec = binaryPrecedence(op);
    if (prec < minPrec) break;
    if (inAngle_ && (op == TokenKind::greater || op == TokenKind::greatergreater || op == TokenKind::greaterequal))
      break;
    if (isCompoundAssignOp(op) && peek(1).is(TokenKind::equal)) break;
    consume();
    Expr* rhs = parseBinary(prec + 1);
    if (!rhs || !enterNesting()) {
      lhs = nullptr;
      break;
    }
    ++links;
    lhs = ctx_.create<BinaryExpr>(rangeFrom(start), op, lhs, rhs);
  }
  depth_ -= links;
  return lhs;
}

/// prefix := ('!' | '++' | '--' | '-') prefix | bitwise
Expr* Parser::parsePrefix() {
  const Token& t = tok();
  bool negativeLiteral = t.is(TokenKind::minus) &&
                         peek(1).isOneOf(TokenKind::int_literal, TokenKind::float_literal, TokenKind::kw_inf);
  if (!t.isOneOf(TokenKind::exclaim, TokenKind::plusplus, TokenKind::minusminus, TokenKind::minus) ||
      negativeLiteral)
    return parseBitwise();
  if (!enterNesting()) return nullptr;
  SMLoc start = t.loc;
  TokenKind op = consume().kind;
  Expr* operand = parsePrefix();
  leaveNesting();
  return operand ? ctx_.create<UnaryExpr>(rangeFrom(start), op, operand) : nullptr;
}

/// bitwise := compose { ('&' | '^' | '|') compose }
Expr* Parser::parseBitwise() {
  SMLoc start = tok().loc;
  Expr* lhs = parseCompose();
  unsigned links = 0;
  while (lhs && (tok().isOneOf(TokenKind::amp, TokenKind::caret) || (tok().is(TokenKind::pipe) && !inSizeOf_)) &&
         peek(1).isNot(TokenKind::equal)) {
    TokenKind op = consume().kind;
    Expr* rhs = parseCompose();
    if (!rhs || !enterNesting()) {
      lhs = nullptr;
      break;
    }
    ++links;
    lhs = ctx_.create<BinaryExpr>(rangeFrom(start), op, lhs, rhs);
  }
  depth_ -= links;
  return lhs;
}

/// compose := ['#'] tilde { '#' ['#'] tilde }
Expr* Parser::parseCompose() {
  SMLoc start = tok().loc;
  auto operand = [&]() -> Expr* {
    if (tok().isNot(TokenKind::hash)) return parseTilde();
    SMLoc s = tok().loc;
    consume();
    Expr* e = parseTilde();
    return e ? ctx_.create<UnaryExpr>(rangeFrom(s), TokenKind::hash, e) : nullptr;
  };
  Expr* lhs = operand();
  unsigned links = 0;
  while (lhs && tok().is(TokenKind::hash)) {
    consume();
    Expr* rhs = operand();
    if (!rhs || !enterNesting()) {
      lhs = nullptr;
      break;
    }
    ++links;
    lhs = ctx_.create<BinaryExpr>(rangeFrom(start), TokenKind::hash, lhs, rhs);
  }
  depth_ -= links;
  return lhs;
}

/// tilde := ('~' | '&') tilde | postfix
Expr* Parser::parseTilde() {
  if (tok().isNot(TokenKind::tilde) && tok().isNot(TokenKind::amp)) return parsePostfix();
  if (!enterNesting()) return nullptr;
  SMLoc start = tok().loc;
  TokenKind op = consume().kind;
  Expr* operand = parseTilde();
  leaveNesting();
  return operand ? ctx_.create<UnaryExpr>(rangeFrom(start), op, operand) : nullptr;
}

Expr* Parser::parsePostfix() {
  SMLoc start = tok().loc;
  Expr* base = parsePrimary();
  return base ? parsePostfixTail(base, start) : nullptr;
}

/// postfix := primary { postfix_op }
/// Each operator wraps the tree built so far, so each counts as one level of
/// nesting (`x.span.span...` is as deep as it is long).
Expr* Parser::parsePostfixTail(Expr* base, SMLoc start) {
  unsigned links = 0;
  while (base && startsPostfixOp(tok())) {
    if (!enterNesting()) {
      base = nullptr;
      break;
    }
    ++links;
    base = parsePostfixOp(base, start);
  }
  depth_ -= links;
  return base;
}

bool Parser::startsPostfixOp(const Token& t) {
  return t.isOneOf(TokenKind::m_span, TokenKind::m_data, TokenKind::m_mdata, TokenKind::l_paren, TokenKind::l_square,
                   TokenKind::plusplus, TokenKind::minusminus) ||
         isViewMethod(t.kind);
}

/// postfix_op := '.span' | '.data' | '.mdata' | view_method '(' args [':' args] ')'
///             | '(' elem_args ')' | '[' exprs ']' | '++' | '--'
/// elem_args  := range_or_expr {',' range_or_expr};  range := [expr] ':' [expr] [':' [expr]]
Expr* Parser::parsePostfixOp(Expr* base, SMLoc start) {
  const Token& t = tok();
  if (t.isOneOf(TokenKind::m_span, TokenKind::m_data, TokenKind::m_mdata)) {
    TokenKind member = consume().kind;
    return ctx_.create<MemberExpr>(rangeFrom(start), base, member);
  }
  if (isViewMethod(t.kind)) {
    TokenKind method = consume().kind;
    Token open = tok();
    if (!expect(TokenKind::l_paren, "`(` after `" + tokenKindSpelling(method).str() + "`")) return nullptr;
    BracketScope brackets(*this);
    llvm::SmallVector<Expr*, 4> args, strides;
    bool hasStrides = false;
    bool ok = true;
    if (tok().isNot(TokenKind::r_paren)) {
      llvm::SmallVector<Expr*, 4>* list = &args;
      while (true) {
        Expr* e = parseExpr();
        if (!e) {
          ok = false;
          break;
        }
        list->push_back(e);
        if (consumeIf(TokenKind::comma)) continue;
        if (list == &args && tok().is(TokenKind::colon)) {
          consume();
          hasStrides = true;
          list = &strides;
          continue;
        }
        break;
      }
    }
    if (!ok || !expectClose(TokenKind::r_paren, open)) return nullptr;
    auto* m = ctx_.create<MethodExpr>(rangeFrom(start), base, method, ctx_.copy(llvm::ArrayRef<Expr*>(args)),
                                      ctx_.copy(llvm::ArrayRef<Expr*>(strides)));
    m->hasStrides = hasStrides;
    return m;
  }
  if (t.is(TokenKind::l_paren)) {
    Token open = consume();
    BracketScope brackets(*this);
    llvm::SmallVector<Expr*, 4> args;
    bool ok = true;
    if (tok().isNot(TokenKind::r_paren)) {
      do {
        SMLoc argStart = tok().loc;
        Expr* lo = nullptr;
        if (tok().isNot(TokenKind::colon) && tok().isNot(TokenKind::coloncolon)) {
          lo = parseExpr();
          if (!lo) {
            ok = false;
            break;
          }
        }
        if (tok().isNot(TokenKind::colon) && tok().isNot(TokenKind::coloncolon)) {
          args.push_back(lo);
          continue;
        }
        // A range `lo:hi:step`; `::` is the same as `: :`.
        Expr* hi = nullptr;
        Expr* step = nullptr;
        if (consumeIf(TokenKind::coloncolon)) {
          if (tok().isNot(TokenKind::r_paren) && tok().isNot(TokenKind::comma)) step = parseExpr();
        } else {
          consume();  // :
          if (!tok().isOneOf(TokenKind::colon, TokenKind::r_paren, TokenKind::comma)) hi = parseExpr();
          if (consumeIf(TokenKind::colon) && !tok().isOneOf(TokenKind::r_paren, TokenKind::comma))
            step = parseExpr();
        }
        if (failed_) {
          ok = false;
          break;
        }
        args.push_back(ctx_.create<RangeExpr>(rangeFrom(argStart), lo, hi, step));
      } while (consumeIf(TokenKind::comma));
    }
    if (!ok || !expectClose(TokenKind::r_paren, open)) return nullptr;
    return ctx_.create<ElementOfExpr>(rangeFrom(start), base, ctx_.copy(llvm::ArrayRef<Expr*>(args)));
  }
  if (t.is(TokenKind::l_square)) {
    Token open = consume();
    BracketScope brackets(*this);
    std::optional<llvm::ArrayRef<Expr*>> indices = parseArgList(TokenKind::r_square, open);
    if (!indices) return nullptr;
    return ctx_.create<SubscriptExpr>(rangeFrom(start), base, *indices);
  }
  TokenKind op = consume().kind;  // '++' or '--'
  return ctx_.create<PostfixExpr>(rangeFrom(start), op, base);
}

/// args := [expr {',' expr}] CLOSE
std::optional<llvm::ArrayRef<Expr*>> Parser::parseArgList(TokenKind close, const Token& open) {
  llvm::SmallVector<Expr*, 4> args;
  if (tok().isNot(close) && !(close == TokenKind::r_square && tok().is(TokenKind::r_attr))) {
    do {
      Expr* e = parseExpr();
      if (!e) return std::nullopt;
      args.push_back(e);
    } while (consumeIf(TokenKind::comma));
  }
  if (!expectClose(close, open)) return std::nullopt;
  return ctx_.copy(llvm::ArrayRef<Expr*>(args));
}

/// qualified := IDENT {'::' IDENT}
std::optional<StringRef> Parser::parseQualifiedName() {
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "a name");
    return std::nullopt;
  }
  const char* begin = tok().text.begin();
  std::string joined = consume().text.str();
  bool contiguous = true;
  while (tok().is(TokenKind::coloncolon) && peek(1).is(TokenKind::identifier)) {
    if (tok().leadingSpace || peek(1).leadingSpace) contiguous = false;
    consume();
    Token part = consume();
    joined += "::";
    joined += part.text.str();
  }
  if (contiguous && joined.size() <= static_cast<size_t>(prevEnd_.getPointer() - begin) &&
      StringRef(begin, joined.size()) == joined)
    return StringRef(begin, joined.size());
  return ctx_.copy(StringRef(joined));
}

/// number := ['-'] (INT | FLOAT | 'inf')
Expr* Parser::parseNumber(bool negative, SMLoc start) {
  Token t = consume();
  if (t.is(TokenKind::int_literal)) {
    IntLiteralValue v = decodeIntLiteral(t.text);
    if (v.overflow) {
      errorAt(t.range(), DiagKind::err_int_literal_too_large, t.text);
      return nullptr;
    }
    auto* e = ctx_.create<IntLiteralExpr>(rangeFrom(start), t.text, v);
    e->negative = negative;
    return e;
  }
  FloatLiteralValue v = t.is(TokenKind::kw_inf) ? FloatLiteralValue{HUGE_VAL, false} : decodeFloatLiteral(t.text);
  if (negative) v.value = -v.value;
  auto* e = ctx_.create<FloatLiteralExpr>(rangeFrom(start), t.text, v);
  e->negative = negative;
  return e;
}

/// primary := number | 'true' | 'false' | 'nullptr' | STRING {STRING} | '_' | qualified
///          | builtin '(' args ')' | 'cdiv' '(' args ')' | 'select' '(' args ')' | call_expr
///          | '__to' '<' type '>' '(' expr ')' | '(' expr ')' | '{' exprs '}' | '[' exprs ']'
///          | '|' expr '|' | '?' | '??' | elem_type
Expr* Parser::parsePrimary() {
  const Token& t = tok();
  SMLoc start = t.loc;
  switch (t.kind) {
    case TokenKind::int_literal:
    case TokenKind::float_literal:
    case TokenKind::kw_inf: return parseNumber(false, start);
    case TokenKind::minus:
      if (peek(1).isOneOf(TokenKind::int_literal, TokenKind::float_literal, TokenKind::kw_inf)) {
        consume();
        return parseNumber(true, start);
      }
      break;
    case TokenKind::kw_true:
    case TokenKind::kw_false: {
      bool value = consume().is(TokenKind::kw_true);
      return ctx_.create<BoolLiteralExpr>(rangeFrom(start), value);
    }
    case TokenKind::kw_nullptr: consume(); return ctx_.create<NullptrLiteralExpr>(rangeFrom(start));
    case TokenKind::string_literal:
    case TokenKind::raw_string_literal: {
      bool raw = t.is(TokenKind::raw_string_literal);
      llvm::SMRange r;
      std::optional<StringRef> s = parseStringLiterals(&r);
      if (!s) return nullptr;
      auto* e = ctx_.create<StringLiteralExpr>(r, *s);
      e->raw = raw;
      return e;
    }
    case TokenKind::identifier: {
      if (t.text == "_") {
        consume();
        return ctx_.create<WildcardExpr>(rangeFrom(start));
      }
      std::optional<StringRef> name = parseQualifiedName();
      if (!name) return nullptr;
      if (name->startswith("__") && tok().is(TokenKind::l_paren)) {
        Token open = consume();
        std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
        if (!args) return nullptr;
        return ctx_.create<CallExpr>(rangeFrom(start), *name, llvm::ArrayRef<Expr*>(), *args);
      }
      return ctx_.create<NameExpr>(rangeFrom(start), *name);
    }
    case TokenKind::kw_cdiv:
    case TokenKind::kw_select: {
      StringRef callee = consume().text;
      Token open = tok();
      if (!expect(TokenKind::l_paren, "`(` after `" + callee.str() + "`")) return nullptr;
      std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
      if (!args) return nullptr;
      return ctx_.create<CallExpr>(rangeFrom(start), callee, llvm::ArrayRef<Expr*>(), *args);
    }
    case TokenKind::kw_call: return parseCallKeyword();
    case TokenKind::kw_to: return parseCast();
    case TokenKind::l_paren: {
      Token open = consume();
      BracketScope brackets(*this);
      Expr* e = parseExpr();
      if (!e || !expectClose(TokenKind::r_paren, open)) return nullptr;
      if (auto* lit = llvm::dyn_cast<IntLiteralExpr>(e)) lit->parenthesized = true;
      return e;
    }
    case TokenKind::l_brace: {
      if (!enterNesting()) return nullptr;
      Token open = consume();
      BracketScope brackets(*this);
      std::optional<llvm::ArrayRef<Expr*>> elems = parseArgList(TokenKind::r_brace, open);
      leaveNesting();
      if (!elems) return nullptr;
      return ctx_.create<ItupleExpr>(rangeFrom(start), *elems);
    }
    case TokenKind::l_attr: splitAttrOpen(); [[fallthrough]];
    case TokenKind::l_square: {
      if (!enterNesting()) return nullptr;
      Token open = consume();
      BracketScope brackets(*this);
      std::optional<llvm::ArrayRef<Expr*>> dims = parseArgList(TokenKind::r_square, open);
      leaveNesting();
      if (!dims) return nullptr;
      return ctx_.create<MdspanExpr>(rangeFrom(start), *dims);
    }
    case TokenKind::pipe: return parseSizeOf();
    case TokenKind::question:
    case TokenKind::questionquestion: {
      bool unbounded = consume().is(TokenKind::questionquestion);
      return ctx_.create<DynamicDimExpr>(rangeFrom(start), unbounded);
    }
    default:
      if (startsType(t) && t.isNot(TokenKind::kw_stream)) {
        TokenKind k = canonicalElementType(consume().kind);
        return ctx_.create<ElementTypeExpr>(rangeFrom(start), k);
      }
      break;
  }
  error(DiagKind::err_expected_expression, describe(t));
  return nullptr;
}

/// call_expr := 'call' qualified ['<' angle_args '>'] '(' [expr {',' expr}] ')'
Expr* Parser::parseCallKeyword() {
  SMLoc start = tok().loc;
  consume();  // call
  std::optional<StringRef> callee = parseQualifiedName();
  if (!callee) return nullptr;
  llvm::ArrayRef<Expr*> targs;
  bool hasTemplateArgs = false;
  if (tok().is(TokenKind::less)) {
    std::optional<llvm::ArrayRef<Expr*>> a = parseAngleArgs();
    if (!a) return nullptr;
    targs = *a;
    hasTemplateArgs = true;
  }
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after the called function's name")) return nullptr;
  BracketScope brackets(*this);
  std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
  if (!args) return nullptr;
  auto* call = ctx_.create<CallExpr>(rangeFrom(start), *callee, targs, *args);
  call->viaCallKeyword = true;
  call->hasTemplateArgs = hasTemplateArgs;
  return call;
}

/// angle_args := '<' [angle_arg {',' angle_arg}] '>'
/// angle_arg  := expr without top-level comparisons or shifts (so `>` closes)
std::optional<llvm::ArrayRef<Expr*>> Parser::parseAngleArgs() {
  Token open = consume();  // <
  llvm::SmallVector<Expr*, 4> args;
  if (tok().isNot(TokenKind::greater)) {
    do {
      Expr* e = parseAngleArg();
      if (!e) return std::nullopt;
      args.push_back(e);
    } while (consumeIf(TokenKind::comma));
  }
  if (!expectClose(TokenKind::greater, open)) return std::nullopt;
  return ctx_.copy(llvm::ArrayRef<Expr*>(args));
}

Expr* Parser::parseAngleArg() {
  bool savedAngle = inAngle_;
  inAngle_ = true;
  Expr* e = nullptr;
  if (enterNesting()) {
    e = parseBinary(9);
    leaveNesting();
  }
  inAngle_ = savedAngle;
  return e;
}

/// cast := '__to' '<' (elem_type | STRING) '>' '(' expr ')'
Expr* Parser::parseCast() {
  SMLoc start = tok().loc;
  consume();  // __to
  Token open = tok();
  if (!expect(TokenKind::less, "`<` after `__to`")) return nullptr;
  TokenKind type = TokenKind::eof;
  StringRef cxxType;
  if (tok().isOneOf(TokenKind::string_literal, TokenKind::raw_string_literal)) {
    std::optional<StringRef> s = parseStringLiterals();
    if (!s) return nullptr;
    cxxType = *s;
  } else if (startsType(tok()) && tok().isNot(TokenKind::kw_stream)) {
    type = canonicalElementType(consume().kind);
  } else {
    error(DiagKind::err_expected_type, describe(tok()));
    return nullptr;
  }
  if (!expectClose(TokenKind::greater, open)) return nullptr;
  Token paren = tok();
  if (!expect(TokenKind::l_paren, "`(` after `__to<...>`")) return nullptr;
  BracketScope brackets(*this);
  Expr* operand = parseExpr();
  if (!operand || !expectClose(TokenKind::r_paren, paren)) return nullptr;
  return ctx_.create<CastExpr>(rangeFrom(start), type, cxxType, operand);
}

/// sizeof := '|' expr '|'      (`|` inside the operand ends it)
Expr* Parser::parseSizeOf() {
  SMLoc start = tok().loc;
  Token open = consume();
  BracketScope brackets(*this);
  inSizeOf_ = true;
  Expr* operand = parseExpr();
  if (!operand || !expectClose(TokenKind::pipe, open)) return nullptr;
  return ctx_.create<SizeOfExpr>(rangeFrom(start), operand);
}

}  // namespace croqc
