// The recursive-descent parser. Each parse function carries its grammar rule
// (spec Appendix A, with the drift spellings of section 20) as a comment.
// Errors go through `error()`; a failed statement is skipped up to the next
// `;` or `}` at its own nesting level, so one run reports every independent
// syntax error.
#include "parse/Parser.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>

#include "ast/AST.h"
#include "basic/Diagnostic.h"
#include "parse/ParserImpl.h"

namespace croqc {

using namespace ast;
using llvm::SMRange;
using llvm::StringRef;

ast::Program* parseProgram(llvm::ArrayRef<Token> tokens, ASTContext& ctx, DiagnosticEngine& diags) {
  Parser parser(tokens, ctx, diags);
  return parser.parseProgram();
}

// ---------------------------------------------------------------------------
// Token stream helpers

Parser::Parser(llvm::ArrayRef<Token> tokens, ASTContext& ctx, DiagnosticEngine& diags)
    : toks_(tokens.begin(), tokens.end()), ctx_(ctx), diags_(diags) {
  if (toks_.empty() || toks_.back().isNot(TokenKind::eof)) toks_.push_back(Token{});
}

const Token& Parser::peek(unsigned ahead) const {
  size_t i = std::min(pos_ + ahead, toks_.size() - 1);
  return toks_[i];
}

Token Parser::consume() {
  Token t = toks_[pos_];
  if (pos_ + 1 < toks_.size()) ++pos_;
  prevEnd_ = t.endLoc;
  return t;
}

bool Parser::consumeIf(TokenKind k) {
  if (tok().isNot(k)) return false;
  consume();
  return true;
}

std::string Parser::describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::eof: return "end of file";
    case TokenKind::host_text:
    case TokenKind::device_text:
    case TokenKind::co_device_text:
    case TokenKind::cok_text: return std::string(tokenKindSpelling(t.kind));
    case TokenKind::directive: return "a preprocessor directive";
    default: break;
  }
  StringRef text = t.text;
  if (text.size() > 40) return "`" + text.take_front(37).str() + "...`";
  return "`" + text.str() + "`";
}

bool Parser::expect(TokenKind k, StringRef what) {
  if (tok().is(k)) {
    consume();
    return true;
  }
  // `]]` closes two brackets, `>>` two angle brackets: split them.
  if (k == TokenKind::r_square && tok().is(TokenKind::r_attr)) {
    splitFront(TokenKind::r_square);
    return true;
  }
  if (k == TokenKind::greater && tok().is(TokenKind::greatergreater)) {
    splitFront(TokenKind::greater);
    return true;
  }
  if (k == TokenKind::greater && tok().is(TokenKind::greaterequal)) {
    splitFront(TokenKind::greater);
    return true;
  }
  std::string expected = what.empty() ? "`" + tokenKindSpelling(k).str() + "`" : what.str();
  // A keyword where a name belongs (`local s32 [K] where;`): say why it is not one.
  if (k == TokenKind::identifier && isKeyword(tok().kind) && llvm::isAlpha(tok().text.front())) {
    error(DiagKind::err_keyword_as_name, expected, tok().text);
    return false;
  }
  error(DiagKind::err_expected, expected, describe(tok()));
  return false;
}

/// Consumes the first character of a two-character token (`]]`, `>>`, `>=`),
/// leaving the rest as the current token.
void Parser::splitFront(TokenKind first) {
  Token& t = toks_[pos_];
  Token rest = t;
  rest.text = t.text.drop_front(1);
  rest.loc = llvm::SMLoc::getFromPointer(t.loc.getPointer() + 1);
  rest.leadingSpace = false;
  switch (t.kind) {
    case TokenKind::r_attr: rest.kind = TokenKind::r_square; break;
    case TokenKind::greatergreater: rest.kind = TokenKind::greater; break;
    case TokenKind::greaterequal: rest.kind = TokenKind::equal; break;
    default: break;
  }
  prevEnd_ = rest.loc;
  (void)first;
  t = rest;
}

bool Parser::expectClose(TokenKind close, const Token& open) {
  if (tok().is(close)) {
    consume();
    return true;
  }
  if (close == TokenKind::r_square && tok().is(TokenKind::r_attr)) {
    splitFront(TokenKind::r_square);
    return true;
  }
  if (close == TokenKind::greater && tok().isOneOf(TokenKind::greatergreater, TokenKind::greaterequal)) {
    splitFront(TokenKind::greater);
    return true;
  }
  if (!failed_) {
    diags_.report(tok().loc, DiagKind::err_unmatched, tokenKindSpelling(close), open.text, describe(tok()))
        .range(tok().range())
        .note(open.loc, DiagKind::note_opened_here, open.text);
  }
  failed_ = true;
  return false;
}

SMRange Parser::rangeFrom(llvm::SMLoc start) const { return {start, prevEnd_.isValid() ? prevEnd_ : start}; }

/// Skips to the end of the current statement: past the next `;` outside any
/// braces, past a `{ ... }` block that ends it, or up to (not past) a `}`
/// that closes the enclosing block. Parentheses are not counted: they cannot
/// span statements, and an unbalanced `(` must not swallow the rest of the
/// function.
void Parser::skipStatement() {
  int braces = 0;
  while (tok().isNot(TokenKind::eof) && !isHostRegion(tok().kind) && tok().isNot(TokenKind::kw_co)) {
    switch (tok().kind) {
      case TokenKind::l_brace: ++braces; break;
      case TokenKind::r_brace:
        if (braces == 0) return;
        if (--braces == 0) {
          consume();
          return;
        }
        break;
      case TokenKind::semi:
        if (braces == 0) {
          consume();
          return;
        }
        break;
      default: break;
    }
    consume();
  }
}

bool Parser::enterNesting() {
  if (depth_ < kMaxNesting) {
    ++depth_;
    return true;
  }
  if (!tooDeepReported_) {
    diags_.report(tok().loc, DiagKind::err_nesting_too_deep, kMaxNesting).range(tok().range());
    tooDeepReported_ = true;
  }
  failed_ = true;
  return false;
}

// ---------------------------------------------------------------------------
// Top level

/// program := { host_text | co_function | device_function | cok_block }
Program* Parser::parseProgram() {
  llvm::SmallVector<Node*, 16> items;
  while (tok().isNot(TokenKind::eof) && !diags_.shouldStop()) {
    const Token& t = tok();
    switch (t.kind) {
      case TokenKind::host_text:
        items.push_back(ctx_.create<HostCode>(t.range(), t.text));
        consume();
        break;
      case TokenKind::device_text:
      case TokenKind::co_device_text:
      case TokenKind::cok_text:
        items.push_back(ctx_.create<DeviceCode>(t.range(), t.kind, t.text, deviceFunctionName(t.text)));
        consume();
        break;
      case TokenKind::kw_co:
        if (CoFunction* fn = parseCoFunction()) items.push_back(fn);
        break;
      default:
        // Not reached: the lexer starts every file in host mode and every
        // path of parseCoFunction ends in skipToTopLevel(). Should a token be
        // left over all the same, it is reported rather than dropped.
        if (!failed_) error(DiagKind::err_expected, "host code or a `__co__` function", describe(t));
        skipToTopLevel();
        break;
    }
  }
  return ctx_.create<Program>(ctx_.copy(llvm::ArrayRef<Node*>(items)));
}

void Parser::skipToTopLevel() {
  while (tok().isNot(TokenKind::eof) && !isHostRegion(tok().kind) && tok().isNot(TokenKind::kw_co)) consume();
  failed_ = false;
}

/// The name of a `__device__` function: the identifier before the first `(`.
StringRef Parser::deviceFunctionName(StringRef text) {
  size_t paren = text.find('(');
  if (paren == StringRef::npos) return {};
  StringRef head = text.take_front(paren).rtrim();
  size_t start = head.size();
  while (start > 0 && (isalnum(static_cast<unsigned char>(head[start - 1])) || head[start - 1] == '_')) --start;
  return head.drop_front(start);
}

/// co_function := '__co__' ret_type IDENT '(' [param {',' param}] ')' '{' {stmt} '}'
CoFunction* Parser::parseCoFunction() {
  llvm::SMLoc start = tok().loc;
  consume();  // __co__
  failed_ = false;
  std::optional<TypeRef> ret = parseReturnType();
  if (!ret) {
    skipToTopLevel();
    return nullptr;
  }
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "the name of the `__co__` function");
    skipToTopLevel();
    return nullptr;
  }
  Token nameTok = consume();
  Token open = tok();
  if (!expect(TokenKind::l_paren)) {
    skipToTopLevel();
    return nullptr;
  }
  llvm::SmallVector<Param, 8> params;
  if (tok().isNot(TokenKind::r_paren)) {
    do {
      std::optional<Param> p = parseParam();
      if (!p) {
        skipToTopLevel();
        return nullptr;
      }
      params.push_back(*p);
    } while (consumeIf(TokenKind::comma));
  }
  if (!expectClose(TokenKind::r_paren, open)) {
    skipToTopLevel();
    return nullptr;
  }
  if (tok().is(TokenKind::semi)) {
    error(DiagKind::err_co_forward_declaration, nameTok.text);
    consume();
    skipToTopLevel();
    return nullptr;
  }
  if (tok().isNot(TokenKind::l_brace)) {
    expect(TokenKind::l_brace, "`{` to begin the body of the `__co__` function");
    skipToTopLevel();
    return nullptr;
  }
  Token openBrace = tok();
  CompoundStmt* body = parseCompound();
  if (!body) {
    skipToTopLevel();
    return nullptr;
  }
  if (unterminated_) {
    diags_.report(tok().loc, DiagKind::err_co_unterminated, nameTok.text)
        .note(openBrace.loc, DiagKind::note_opened_here, "{");
    unterminated_ = false;
  }
  auto* fn = ctx_.create<CoFunction>(rangeFrom(start), *ret, nameTok.text, ctx_.copy(llvm::ArrayRef<Param>(params)),
                                     body);
  skipToTopLevel();
  return fn;
}

/// ret_type := 'void' | 'auto' | param_type
std::optional<TypeRef> Parser::parseReturnType() {
  if (tok().is(TokenKind::kw_void) || tok().is(TokenKind::kw_auto)) {
    TypeRef t;
    t.kind = tok().is(TokenKind::kw_void) ? TypeRef::Kind::Void : TypeRef::Kind::Auto;
    t.range = tok().range();
    consume();
    return t;
  }
  if (!startsType(tok())) {
    error(DiagKind::err_missing_return_type, describe(tok()));
    return std::nullopt;
  }
  return parseParamType();
}

bool Parser::startsType(const Token& t) {
  return isElementType(t.kind) ||
         t.isOneOf(TokenKind::kw_int, TokenKind::kw_bool, TokenKind::kw_stream, TokenKind::kw_half,
                   TokenKind::kw_float, TokenKind::kw_double, TokenKind::kw_bfp16);
}

/// Maps scalar-type aliases to element types: `half` -> f16, ...
TokenKind Parser::canonicalElementType(TokenKind k) {
  switch (k) {
    case TokenKind::kw_half: return TokenKind::ty_f16;
    case TokenKind::kw_float: return TokenKind::ty_f32;
    case TokenKind::kw_double: return TokenKind::ty_f64;
    case TokenKind::kw_bfp16: return TokenKind::ty_bf16;
    default: return k;
  }
}

/// param_type := elem_type ('[' pdim {',' pdim} ']' | 'mdspan' '<' NUM '>' | 'mdspan' '[' pdim {',' pdim} ']')?
///             | 'int' | 'bool' | 'stream'
/// pdim       := '?' | '??' | expr
std::optional<TypeRef> Parser::parseParamType() {
  TypeRef t;
  llvm::SMLoc start = tok().loc;
  const Token& first = tok();
  if (first.is(TokenKind::kw_int) || first.is(TokenKind::kw_bool) || first.is(TokenKind::kw_stream)) {
    t.kind = first.is(TokenKind::kw_int)    ? TypeRef::Kind::Int
             : first.is(TokenKind::kw_bool) ? TypeRef::Kind::Bool
                                            : TypeRef::Kind::Stream;
    consume();
    t.range = rangeFrom(start);
    return t;
  }
  if (!startsType(first)) {
    error(DiagKind::err_expected_type, describe(first));
    return std::nullopt;
  }
  t.elem = canonicalElementType(consume().kind);
  // `f32 mdspan[11, 1025]`: the shape spelled after `mdspan` (Croqtile's tests).
  if (tok().is(TokenKind::kw_mdspan) && peek(1).isOneOf(TokenKind::l_square, TokenKind::l_attr)) consume();
  if (tok().is(TokenKind::l_square) || tok().is(TokenKind::l_attr)) {
    std::optional<llvm::ArrayRef<Expr*>> dims = parseShapeList();
    if (!dims) return std::nullopt;
    t.kind = TypeRef::Kind::Spanned;
    t.dims = *dims;
  } else if (tok().is(TokenKind::kw_mdspan)) {
    consume();
    Token open = tok();
    if (!expect(TokenKind::less)) return std::nullopt;
    std::optional<unsigned> rank = parseSmallInt();
    if (!rank || !expectClose(TokenKind::greater, open)) return std::nullopt;
    t.kind = TypeRef::Kind::RankedSpan;
    t.rank = *rank;
  } else {
    t.kind = TypeRef::Kind::Scalar;
  }
  t.range = rangeFrom(start);
  return t;
}

/// '[' pdim {',' pdim} ']'
std::optional<llvm::ArrayRef<Expr*>> Parser::parseShapeList() {
  if (tok().is(TokenKind::l_attr)) splitAttrOpen();
  Token open = consume();  // [
  llvm::SmallVector<Expr*, 4> dims;
  if (tok().isNot(TokenKind::r_square)) {
    do {
      Expr* e = nullptr;
      if (tok().is(TokenKind::question) || tok().is(TokenKind::questionquestion)) {
        Token q = consume();
        e = ctx_.create<DynamicDimExpr>(q.range(), q.is(TokenKind::questionquestion));
      } else {
        e = parseExpr();
      }
      if (!e) return std::nullopt;
      dims.push_back(e);
    } while (consumeIf(TokenKind::comma));
  }
  if (!expectClose(TokenKind::r_square, open)) return std::nullopt;
  return ctx_.copy(llvm::ArrayRef<Expr*>(dims));
}

/// `[[` where a plain `[` was meant (`f16 [[a, b], c]` style nesting).
void Parser::splitAttrOpen() {
  Token& t = toks_[pos_];
  Token second = t;
  second.kind = TokenKind::l_square;
  second.text = t.text.drop_front(1);
  second.loc = llvm::SMLoc::getFromPointer(t.loc.getPointer() + 1);
  second.leadingSpace = false;
  t.kind = TokenKind::l_square;
  t.text = t.text.take_front(1);
  t.endLoc = second.loc;
  toks_.insert(toks_.begin() + static_cast<std::ptrdiff_t>(pos_) + 1, second);
}

/// param := ['global'|'shared'|'local'] param_type ['&'] [IDENT]
std::optional<Param> Parser::parseParam() {
  Param p;
  llvm::SMLoc start = tok().loc;
  p.storage = parseStorage();
  std::optional<TypeRef> t = parseParamType();
  if (!t) return std::nullopt;
  p.type = *t;
  if (consumeIf(TokenKind::amp)) p.byRef = true;
  if (tok().is(TokenKind::identifier)) {
    p.name = consume().text;
  } else if (isKeyword(tok().kind) && llvm::isAlpha(tok().text.front()) && pos_ + 1 < toks_.size() &&
             toks_[pos_ + 1].isOneOf(TokenKind::comma, TokenKind::r_paren)) {
    // `f32 by)`: a keyword where the parameter's name belongs.
    error(DiagKind::err_keyword_as_name, "a parameter name", tok().text);
    consume();
  }
  p.range = rangeFrom(start);
  return p;
}

Storage Parser::parseStorage() {
  switch (tok().kind) {
    case TokenKind::kw_global: consume(); return Storage::Global;
    case TokenKind::kw_shared: consume(); return Storage::Shared;
    case TokenKind::kw_local: consume(); return Storage::Local;
    default: return Storage::None;
  }
}

std::optional<unsigned> Parser::parseSmallInt() {
  if (tok().isNot(TokenKind::int_literal)) {
    error(DiagKind::err_expected_int_literal, describe(tok()));
    return std::nullopt;
  }
  IntLiteralValue v = decodeIntLiteral(consume().text);
  return static_cast<unsigned>(std::min<std::uint64_t>(v.value, 1u << 30));
}

}  // namespace croqc
