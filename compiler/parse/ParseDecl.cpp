// Declarations in `__co__` bodies: mdspans, ituples, spanned buffers,
// fragments, events and scalars (spec sections 6-8).
#include <llvm/Support/SourceMgr.h>

#include "parse/ParserImpl.h"

namespace croqc {

using namespace ast;
using llvm::SMLoc;
using llvm::StringRef;

/// mdspan_decl := ['mdspan' ['<' INT '>']] IDENT ':' expr ';'
Stmt* Parser::parseMdspanDecl() {
  SMLoc start = tok().loc;
  bool keyword = consumeIf(TokenKind::kw_mdspan);
  std::optional<unsigned> rank;
  if (keyword && tok().is(TokenKind::less)) {
    Token open = consume();
    rank = parseSmallInt();
    if (!rank || !expectClose(TokenKind::greater, open)) return nullptr;
  }
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "the name of the mdspan");
    return nullptr;
  }
  StringRef name = consume().text;
  if (!expect(TokenKind::colon, "`:` and the shape of the mdspan")) return nullptr;
  Expr* init = parseExpr();
  if (!init || !expectSemi("the mdspan declaration")) return nullptr;
  auto* s = ctx_.create<MdspanDeclStmt>(rangeFrom(start), name, init);
  s->rank = rank;
  s->keyword = keyword;
  return s;
}

/// ituple_decl := 'ituple' ['<' INT '>'] IDENT ['=' expr] ';'
Stmt* Parser::parseItupleDecl() {
  SMLoc start = tok().loc;
  consume();
  std::optional<unsigned> rank;
  if (tok().is(TokenKind::less)) {
    Token open = consume();
    rank = parseSmallInt();
    if (!rank || !expectClose(TokenKind::greater, open)) return nullptr;
  }
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "the name of the ituple");
    return nullptr;
  }
  StringRef name = consume().text;
  Expr* init = nullptr;
  if (consumeIf(TokenKind::equal)) {
    init = parseExpr();
    if (!init) return nullptr;
  }
  if (!expectSemi("the ituple declaration")) return nullptr;
  auto* s = ctx_.create<ItupleDeclStmt>(rangeFrom(start), name, init);
  s->rank = rank;
  return s;
}

/// storage_decl := storage (spanned_decl | event_decl | scalar_decl)
Stmt* Parser::parseStorageDecl() {
  SMLoc start = tok().loc;
  Storage storage = parseStorage();
  if (tok().is(TokenKind::kw_event)) return parseEventDecl(storage, start);
  if (tok().is(TokenKind::kw_mutable)) return parseScalarDecl(storage, start);
  if (!startsType(tok()) || tok().is(TokenKind::kw_stream)) {
    error(DiagKind::err_expected_type, describe(tok()));
    return nullptr;
  }
  if (peek(1).isOneOf(TokenKind::l_square, TokenKind::l_attr)) return parseSpannedDecl(storage, start);
  return parseScalarDecl(storage, start);
}

/// declarator := IDENT {'[' expr ']'} ['{' expr '}' | '=' expr]
std::optional<Declarator> Parser::parseDeclarator(bool allowArray, bool allowBraceInit, bool eventInit) {
  Declarator d;
  SMLoc start = tok().loc;
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "a name to declare");
    return std::nullopt;
  }
  d.name = consume().text;
  llvm::SmallVector<Expr*, 2> arrayDims;
  while (allowArray && tok().isOneOf(TokenKind::l_square, TokenKind::l_attr)) {
    if (tok().is(TokenKind::l_attr)) splitAttrOpen();
    Token open = consume();
    Expr* e = parseExpr();
    if (!e || !expectClose(TokenKind::r_square, open)) return std::nullopt;
    arrayDims.push_back(e);
  }
  d.arrayDims = ctx_.copy(llvm::ArrayRef<Expr*>(arrayDims));
  if (allowBraceInit && tok().is(TokenKind::l_brace)) {
    Token open = consume();
    d.init = parseExpr();
    if (!d.init || !expectClose(TokenKind::r_brace, open)) return std::nullopt;
    d.braceInit = true;
  } else if (consumeIf(TokenKind::equal)) {
    if (eventInit) {
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "the initial state of the event (`ready`)");
        return std::nullopt;
      }
      Token t = consume();
      d.init = ctx_.create<NameExpr>(t.range(), t.text);
    } else {
      d.init = parseExpr();
      if (!d.init) return std::nullopt;
    }
  }
  d.range = rangeFrom(start);
  return d;
}

/// spanned_decl := elem_type '[' exprs ']' declarator {',' declarator} ';'
Stmt* Parser::parseSpannedDecl(Storage storage, SMLoc start) {
  TokenKind elem = canonicalElementType(consume().kind);
  std::optional<llvm::ArrayRef<Expr*>> dims = parseShapeList();
  if (!dims) return nullptr;
  llvm::SmallVector<Declarator, 2> decls;
  do {
    std::optional<Declarator> d = parseDeclarator(true, true, false);
    if (!d) return nullptr;
    decls.push_back(*d);
  } while (consumeIf(TokenKind::comma));
  if (!expectSemi("the declaration")) return nullptr;
  auto* s = ctx_.create<SpannedDeclStmt>(rangeFrom(start), elem, *dims, ctx_.copy(llvm::ArrayRef<Declarator>(decls)));
  s->storage = storage;
  return s;
}

/// frag_decl := 'frag' elem_type '[' exprs ']' declarator {',' declarator} ';'
///            | 'frag' '.' elem_type declarator {',' declarator} ';'   (MMA accumulators, shape from use)
Stmt* Parser::parseFragDecl() {
  SMLoc start = tok().loc;
  consume();  // frag
  if (tok().is(TokenKind::period) && startsType(peek(1))) {
    consume();  // .
    TokenKind elem = canonicalElementType(consume().kind);
    llvm::SmallVector<Declarator, 2> decls;
    do {
      std::optional<Declarator> d = parseDeclarator(true, true, false);
      if (!d) return nullptr;
      decls.push_back(*d);
    } while (consumeIf(TokenKind::comma));
    if (!expectSemi("the fragment declaration")) return nullptr;
    return ctx_.create<FragDeclStmt>(rangeFrom(start), elem, llvm::ArrayRef<Expr*>(),
                                     ctx_.copy(llvm::ArrayRef<Declarator>(decls)));
  }
  // `frag name[i] {v};` re-initialises an existing fragment, like
  // `mma.fill name[i], v;`.
  if (tok().is(TokenKind::identifier)) {
    SMLoc targetStart = tok().loc;
    Expr* target = parsePostfixTail(ctx_.create<NameExpr>(tok().range(), consume().text), targetStart);
    if (!target) return nullptr;
    Token open = tok();
    if (!expect(TokenKind::l_brace, "`{` and the value to fill the fragment with")) return nullptr;
    Expr* value = parseExpr();
    if (!value || !expectClose(TokenKind::r_brace, open) || !expectSemi("the fragment fill")) return nullptr;
    auto* fill = ctx_.create<MmaFillStmt>(rangeFrom(start), value);
    fill->target = target;
    fill->fragSyntax = true;
    return fill;
  }
  if (!startsType(tok()) || tok().isOneOf(TokenKind::kw_stream, TokenKind::kw_int, TokenKind::kw_bool)) {
    error(DiagKind::err_expected_type, describe(tok()));
    return nullptr;
  }
  TokenKind elem = canonicalElementType(consume().kind);
  if (!tok().isOneOf(TokenKind::l_square, TokenKind::l_attr)) {
    expect(TokenKind::l_square, "`[` and the shape of the fragment");
    return nullptr;
  }
  std::optional<llvm::ArrayRef<Expr*>> dims = parseShapeList();
  if (!dims) return nullptr;
  llvm::SmallVector<Declarator, 2> decls;
  do {
    std::optional<Declarator> d = parseDeclarator(true, true, false);
    if (!d) return nullptr;
    decls.push_back(*d);
  } while (consumeIf(TokenKind::comma));
  if (!expectSemi("the fragment declaration")) return nullptr;
  return ctx_.create<FragDeclStmt>(rangeFrom(start), elem, *dims, ctx_.copy(llvm::ArrayRef<Declarator>(decls)));
}

/// event_decl := 'event' ['<' expr '>'] declarator {',' declarator} ';'   (init: `= ready`)
Stmt* Parser::parseEventDecl(Storage storage, SMLoc start) {
  consume();  // event
  Expr* count = nullptr;
  if (tok().is(TokenKind::less)) {
    Token open = consume();
    count = parseAngleArg();
    if (!count || !expectClose(TokenKind::greater, open)) return nullptr;
  }
  llvm::SmallVector<Declarator, 2> decls;
  do {
    std::optional<Declarator> d = parseDeclarator(true, false, true);
    if (!d) return nullptr;
    decls.push_back(*d);
  } while (consumeIf(TokenKind::comma));
  if (!expectSemi("the event declaration")) return nullptr;
  auto* s = ctx_.create<EventDeclStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<Declarator>(decls)));
  s->storage = storage;
  s->count = count;
  return s;
}

/// scalar_decl := ['mutable'] [scalar_type] declarator {',' declarator} ';'
/// scalar_type := 'int' | 'bool' | 'half' | 'float' | 'double' | 'bfp16' | elem_type
Stmt* Parser::parseScalarDecl(Storage storage, SMLoc start) {
  bool isMutable = consumeIf(TokenKind::kw_mutable);
  TypeRef type;
  type.kind = TypeRef::Kind::Auto;
  SMLoc typeStart = tok().loc;
  if (startsType(tok()) && tok().isNot(TokenKind::kw_stream)) {
    // `s2 = e;` reads as a declaration of type s2 that lacks its name.
    if (peek(1).is(TokenKind::equal)) {
      error(DiagKind::err_type_name_as_variable, tok().text);
      return nullptr;
    }
    Token t = consume();
    if (t.is(TokenKind::kw_int)) {
      type.kind = TypeRef::Kind::Int;
    } else if (t.is(TokenKind::kw_bool)) {
      type.kind = TypeRef::Kind::Bool;
    } else {
      type.kind = TypeRef::Kind::Scalar;
      type.elem = canonicalElementType(t.kind);
    }
    type.range = rangeFrom(typeStart);
  } else if (!isMutable) {
    error(DiagKind::err_expected_type, describe(tok()));
    return nullptr;
  }
  llvm::SmallVector<Declarator, 2> decls;
  do {
    std::optional<Declarator> d = parseDeclarator(false, true, false);
    if (!d) return nullptr;
    decls.push_back(*d);
  } while (consumeIf(TokenKind::comma));
  if (!expectSemi("the declaration")) return nullptr;
  auto* s = ctx_.create<ScalarDeclStmt>(rangeFrom(start), type, ctx_.copy(llvm::ArrayRef<Declarator>(decls)));
  s->storage = storage;
  s->isMutable = isMutable;
  return s;
}

}  // namespace croqc
