// Statements of `__co__` bodies (spec sections 7-16 and Appendix A): blocks,
// control flow, `parallel`, `foreach`, `with`, `inthreads`, `apply`, returns,
// inline C++ and asm. Declarations are in ParseDecl.cpp, copies, MMA steps,
// events and `sync` in ParseDevice.cpp.
#include <llvm/Support/SourceMgr.h>

#include "parse/ParserImpl.h"

namespace croqc {

using namespace ast;
using llvm::SMLoc;
using llvm::StringRef;

/// A missing `;` is reported at the end of the statement. When the next token
/// starts a new line the statement is taken as complete (the `;` was simply
/// forgotten) and parsing goes on from that token, so that the following
/// statements are still checked.
bool Parser::expectSemi(StringRef after) {
  if (consumeIf(TokenKind::semi)) return true;
  SMLoc at = prevEnd_.isValid() ? prevEnd_ : tok().loc;
  if (!failed_) diags_.report(at, DiagKind::err_expected_semi, after, describe(tok())).range(tok().range());
  const llvm::SourceMgr& sm = diags_.sourceMgr();
  if (!failed_ && at.isValid() && tok().loc.isValid() && tok().isNot(TokenKind::eof) &&
      sm.getLineAndColumn(at).first != sm.getLineAndColumn(tok().loc).first)
    return true;
  failed_ = true;
  return false;
}

/// compound := '{' {stmt} '}'
CompoundStmt* Parser::parseCompound() {
  SMLoc start = tok().loc;
  Token open = tok();
  if (!expect(TokenKind::l_brace)) return nullptr;
  if (!enterNesting()) return nullptr;
  llvm::SmallVector<Stmt*, 16> body;
  while (tok().isNot(TokenKind::r_brace)) {
    if (tok().is(TokenKind::eof) || isHostRegion(tok().kind) || tok().is(TokenKind::kw_co)) {
      unterminated_ = true;
      break;
    }
    if (diags_.shouldStop()) {
      while (tok().isNot(TokenKind::eof)) consume();
      break;
    }
    parseStatementInto(body);
  }
  consumeIf(TokenKind::r_brace);
  leaveNesting();
  (void)open;
  return ctx_.create<CompoundStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<Stmt*>(body)));
}

/// body := compound | stmt
Stmt* Parser::parseBody() {
  if (tok().is(TokenKind::l_brace)) {
    bool outer = failed_;
    failed_ = false;
    CompoundStmt* c = parseCompound();
    failed_ = outer;
    if (c) return c;
    return ctx_.create<NullStmt>(tok().range());
  }
  SMLoc start = tok().loc;
  llvm::SmallVector<Stmt*, 2> stmts;
  parseStatementInto(stmts);
  if (stmts.size() == 1) return stmts.front();
  if (stmts.empty()) return ctx_.create<NullStmt>(rangeFrom(start));
  return ctx_.create<CompoundStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<Stmt*>(stmts)));
}

/// Parses one statement (a comma list of assignments gives several) and
/// appends it to `out`. Errors are reported and the statement skipped.
void Parser::parseStatementInto(llvm::SmallVectorImpl<Stmt*>& out) {
  bool outerFailed = failed_;
  failed_ = false;
  size_t before = pos_;
  Stmt* s = nullptr;
  if (enterNesting()) {
    s = parseStatementOrNull(out);
    leaveNesting();
  }
  if (s) out.push_back(s);
  if (failed_) {
    if (pos_ == before) consume();
    skipStatement();
  } else if (!s && pos_ == before) {
    consume();
  }
  failed_ = outerFailed;
}

/// stmt := (see each parse function)
Stmt* Parser::parseStatementOrNull(llvm::SmallVectorImpl<Stmt*>& out) {
  const Token& t = tok();
  SMLoc start = t.loc;
  switch (t.kind) {
    case TokenKind::l_brace: return parseCompound();
    case TokenKind::semi: consume(); return ctx_.create<NullStmt>(rangeFrom(start));
    case TokenKind::l_attr: return parseWithAttributes(out);
    case TokenKind::kw_parallel: return parseParallel({});
    case TokenKind::kw_with: return parseWith();
    case TokenKind::kw_foreach: return parseForeach();
    case TokenKind::kw_while: return parseWhile();
    case TokenKind::kw_if: return parseIf();
    case TokenKind::kw_inthreads: return parseInthreads();
    case TokenKind::kw_apply: return parseApply();
    case TokenKind::kw_dma:
    case TokenKind::kw_tma: return parseDma({}, start);
    case TokenKind::kw_mma: return parseMma({}, start, {});
    case TokenKind::kw_reduce_max:
    case TokenKind::kw_reduce_sum:
    case TokenKind::kw_all_reduce_sum:
    case TokenKind::kw_copy: return parseFragOp();
    case TokenKind::kw_wait: return parseWait();
    case TokenKind::kw_trigger: return parseTrigger();
    case TokenKind::kw_swap:
    case TokenKind::kw_rotate: return parseSwap();
    case TokenKind::kw_return: return parseReturn();
    case TokenKind::kw_sync: return parseSync();
    case TokenKind::kw_cpp: return parseCpp();
    case TokenKind::kw_asm:
    case TokenKind::kw_asm_: return parseAsm();
    case TokenKind::kw_print:
    case TokenKind::kw_println: return parsePrint();
    case TokenKind::kw_assert: return parseAssert();
    case TokenKind::kw_break:
    case TokenKind::kw_continue:
    case TokenKind::kw_yield: {
      TokenKind k = consume().kind;
      if (!expectSemi("`" + tokenKindSpelling(k).str() + "`")) return nullptr;
      if (k == TokenKind::kw_break) return ctx_.create<BreakStmt>(rangeFrom(start));
      if (k == TokenKind::kw_continue) return ctx_.create<ContinueStmt>(rangeFrom(start));
      return ctx_.create<YieldStmt>(rangeFrom(start));
    }
    case TokenKind::kw_mdspan: return parseMdspanDecl();
    case TokenKind::kw_ituple: return parseItupleDecl();
    case TokenKind::kw_shared:
    case TokenKind::kw_local:
    case TokenKind::kw_global: return parseStorageDecl();
    case TokenKind::kw_event: return parseEventDecl(Storage::None, start);
    case TokenKind::kw_frag: return parseFragDecl();
    case TokenKind::kw_mutable: return parseScalarDecl(Storage::None, start);
    case TokenKind::directive: {
      Token d = consume();
      return ctx_.create<DirectiveStmt>(d.range(), d.text);
    }
    case TokenKind::identifier:
      if (peek(1).is(TokenKind::colon)) return parseMdspanDecl();
      if (peek(1).is(TokenKind::equal) && peek(2).isOneOf(TokenKind::kw_dma, TokenKind::kw_tma)) {
        StringRef name = consume().text;
        consume();  // =
        return parseDma(name, start);
      }
      if (peek(1).is(TokenKind::equal) && peek(2).is(TokenKind::kw_mma)) {
        StringRef name = consume().text;
        consume();  // =
        return parseMma(name, start, {});
      }
      parseSimpleStatement(out);
      return nullptr;
    default:
      if (startsType(t) && t.isNot(TokenKind::kw_stream)) {
        if (peek(1).isOneOf(TokenKind::l_square, TokenKind::l_attr)) return parseSpannedDecl(Storage::None, start);
        return parseScalarDecl(Storage::None, start);
      }
      if (t.isOneOf(TokenKind::plusplus, TokenKind::minusminus, TokenKind::kw_call, TokenKind::l_paren,
                    TokenKind::kw_select, TokenKind::kw_cdiv, TokenKind::hash)) {
        parseSimpleStatement(out);
        return nullptr;
      }
      break;
  }
  error(DiagKind::err_expected_statement, describe(t));
  return nullptr;
}

/// simple := assign {',' assign} ';' | expr ';'
/// assign := postfix ['+'|'-'|'*'|'/'|'%'|'&'|'|'|'^'|'<<'|'>>'] '=' expr
void Parser::parseSimpleStatement(llvm::SmallVectorImpl<Stmt*>& out) {
  while (true) {
    SMLoc start = tok().loc;
    Expr* target = parseExpr();
    if (!target) return;
    if (tok().is(TokenKind::equal) || (isCompoundAssignOp(tok().kind) && peek(1).is(TokenKind::equal))) {
      Stmt* s = parseAssignmentTail(target, start);
      if (!s) return;
      out.push_back(s);
      if (consumeIf(TokenKind::comma)) continue;
      expectSemi("the assignment");
      return;
    }
    if (!expectSemi("the expression")) return;
    out.push_back(ctx_.create<ExprStmt>(rangeFrom(start), target));
    return;
  }
}

Stmt* Parser::parseAssignmentTail(Expr* target, SMLoc start) {
  TokenKind op = TokenKind::equal;
  if (tok().isNot(TokenKind::equal)) op = consume().kind;
  consume();  // =
  Expr* value = parseExpr();
  if (!value) return nullptr;
  // Ituple sugar `t2 = t {(0), 2}`: the elements of `t` picked by `(i)`.
  if (llvm::isa<NameExpr>(value) && tok().is(TokenKind::l_brace)) {
    SMLoc braceStart = tok().loc;
    Expr* elems = parsePrimary();
    if (!elems) return nullptr;
    llvm::SMRange r{value->loc(), prevEnd_};
    (void)braceStart;
    value = ctx_.create<ElementOfExpr>(r, value, ctx_.copy(llvm::ArrayRef<Expr*>(elems)));
  }
  if (tok().is(TokenKind::equal)) {
    error(DiagKind::err_chained_assignment);
    return nullptr;
  }
  return ctx_.create<AssignStmt>(rangeFrom(start), target, op, value);
}

/// attributed := attr {attr} (parallel | [IDENT '='] mma_exec)
/// attr := '[[' IDENT ['(' args ')'] ']]'
Stmt* Parser::parseWithAttributes(llvm::SmallVectorImpl<Stmt*>& out) {
  SMLoc start = tok().loc;
  llvm::SmallVector<Attribute, 2> attrs;
  while (tok().is(TokenKind::l_attr)) {
    std::optional<Attribute> a = parseAttribute();
    if (!a) return nullptr;
    attrs.push_back(*a);
  }
  llvm::ArrayRef<Attribute> copied = ctx_.copy(llvm::ArrayRef<Attribute>(attrs));
  if (tok().is(TokenKind::kw_parallel)) {
    Stmt* s = parseParallel(copied);
    if (s) s->setRange(rangeFrom(start));
    return s;
  }
  if (tok().is(TokenKind::kw_mma)) return parseMma({}, start, copied);
  // `[[schedule(...)]] f = mma.row.row.async ...`: the MMA binds its future.
  if (tok().is(TokenKind::identifier) && peek(1).is(TokenKind::equal) && peek(2).is(TokenKind::kw_mma)) {
    StringRef name = consume().text;
    consume();  // =
    return parseMma(name, start, copied);
  }
  errorAt(attrs.front().range, DiagKind::err_attribute_target, attrs.front().name, describe(tok()));
  (void)out;
  return nullptr;
}

std::optional<Attribute> Parser::parseAttribute() {
  SMLoc start = tok().loc;
  Token open = consume();  // [[
  Attribute a;
  if (tok().isNot(TokenKind::identifier) && !isKeyword(tok().kind)) {
    expect(TokenKind::identifier, "an attribute name");
    return std::nullopt;
  }
  Token name = consume();
  a.name = name.text;
  if (a.name != "launch_bounds" && a.name != "maxnreg" && a.name != "schedule") {
    errorAt(name.range(), DiagKind::err_unknown_attribute, name.text);
    return std::nullopt;
  }
  if (tok().is(TokenKind::l_paren)) {
    Token paren = consume();
    if (a.name == "schedule") {
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "a schedule such as `k_tiles(...)`");
        return std::nullopt;
      }
      a.sub = consume().text;
      Token inner = tok();
      if (!expect(TokenKind::l_paren)) return std::nullopt;
      std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, inner);
      if (!args) return std::nullopt;
      a.args = *args;
      if (!expectClose(TokenKind::r_paren, paren)) return std::nullopt;
    } else {
      std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, paren);
      if (!args) return std::nullopt;
      a.args = *args;
    }
  }
  if (tok().is(TokenKind::r_attr)) {
    consume();
  } else if (tok().is(TokenKind::r_square) && peek(1).is(TokenKind::r_square)) {
    consume();
    consume();
  } else {
    expectClose(TokenKind::r_attr, open);
    return std::nullopt;
  }
  a.range = rangeFrom(start);
  return a;
}

/// parallel := {attr} 'parallel' ['.async'] ['<' IDENT '>'] pb [':' lvl] {',' pb [':' lvl]} body
Stmt* Parser::parseParallel(llvm::ArrayRef<Attribute> attrs) {
  SMLoc start = tok().loc;
  consume();  // parallel
  bool isAsync = consumeIf(TokenKind::m_async);
  StringRef stream;
  if (tok().is(TokenKind::less)) {
    Token open = consume();
    if (tok().isNot(TokenKind::identifier)) {
      expect(TokenKind::identifier, "a stream parameter name");
      return nullptr;
    }
    stream = consume().text;
    if (!expectClose(TokenKind::greater, open)) return nullptr;
  }
  llvm::SmallVector<ParallelBinding, 2> bindings;
  do {
    std::optional<ParallelBinding> b = parseParallelBinding();
    if (!b) return nullptr;
    bindings.push_back(*b);
  } while (consumeIf(TokenKind::comma));
  Stmt* body = parseBody();
  auto* p = ctx_.create<ParallelStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<ParallelBinding>(bindings)), body);
  p->attributes = attrs;
  p->isAsync = isAsync;
  p->stream = stream;
  return p;
}

/// pb  := 'by' extent | IDENT 'by' extent | [IDENT '='] '{' ids '}' 'by' extent
/// extent := '[' exprs ']' | expr;   lvl := level ['(' IDENT ')'] ['<' 'cooperative' '>']
std::optional<ParallelBinding> Parser::parseParallelBinding() {
  ParallelBinding b;
  SMLoc start = tok().loc;
  if (tok().is(TokenKind::identifier) && peek(1).is(TokenKind::equal) && peek(2).is(TokenKind::l_brace)) {
    b.name = consume().text;
    consume();  // =
  }
  if (tok().is(TokenKind::l_brace)) {
    std::optional<llvm::ArrayRef<StringRef>> names = parseNameTuple("a parallel variable name");
    if (!names) return std::nullopt;
    b.elements = *names;
  } else if (tok().is(TokenKind::identifier)) {
    b.name = consume().text;
  }
  if (!expect(TokenKind::kw_by, "`by` in the parallel statement")) return std::nullopt;
  if (tok().isOneOf(TokenKind::l_square, TokenKind::l_attr)) {
    std::optional<llvm::ArrayRef<Expr*>> extents = parseShapeList();
    if (!extents) return std::nullopt;
    b.extents = *extents;
    b.bracketed = true;
  } else {
    Expr* e = parseExpr();
    if (!e) return std::nullopt;
    b.extents = ctx_.copy(llvm::ArrayRef<Expr*>(e));
  }
  if (consumeIf(TokenKind::colon)) {
    if (!parseLevel(b.level)) return std::nullopt;
    if (tok().is(TokenKind::l_paren)) {
      Token open = consume();
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "a name");
        return std::nullopt;
      }
      b.levelTag = consume().text;
      if (!expectClose(TokenKind::r_paren, open)) return std::nullopt;
    }
    if (tok().is(TokenKind::less) && peek(1).is(TokenKind::kw_cooperative)) {
      Token open = consume();
      consume();
      if (!expectClose(TokenKind::greater, open)) return std::nullopt;
      b.cooperative = true;
    }
  }
  b.range = rangeFrom(start);
  return b;
}

/// level := 'term' | 'device' | 'cluster' | 'block' | 'group-4' | 'group' | 'thread'
bool Parser::parseLevel(ParallelLevel& level) {
  switch (tok().kind) {
    case TokenKind::kw_term: level = ParallelLevel::Term; break;
    case TokenKind::kw_device: level = ParallelLevel::Device; break;
    case TokenKind::kw_cluster: level = ParallelLevel::Cluster; break;
    case TokenKind::kw_block: level = ParallelLevel::Block; break;
    case TokenKind::kw_group4: level = ParallelLevel::Group4; break;
    case TokenKind::kw_group:
      if (peek(1).is(TokenKind::minus) && peek(2).is(TokenKind::int_literal) && peek(2).text == "4") {
        errorAt({tok().loc, peek(2).endLoc}, DiagKind::err_group4_spaced);
        return false;
      }
      level = ParallelLevel::Group;
      break;
    case TokenKind::kw_thread: level = ParallelLevel::Thread; break;
    default: error(DiagKind::err_expected_level, describe(tok())); return false;
  }
  consume();
  return true;
}

/// with_block := 'with' within {',' within} ['where' IDENT '<->' IDENT {',' IDENT '<->' IDENT}] body
Stmt* Parser::parseWith() {
  SMLoc start = tok().loc;
  consume();  // with
  llvm::SmallVector<IterBinding, 2> bindings;
  do {
    std::optional<IterBinding> b = parseIterBinding(false);
    if (!b) return nullptr;
    bindings.push_back(*b);
  } while (consumeIf(TokenKind::comma));
  llvm::SmallVector<WherePair, 1> where;
  if (consumeIf(TokenKind::kw_where)) {
    do {
      SMLoc ps = tok().loc;
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "a bounded variable");
        return nullptr;
      }
      StringRef lhs = consume().text;
      if (!expect(TokenKind::swaparrow)) return nullptr;
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "a bounded variable");
        return nullptr;
      }
      StringRef rhs = consume().text;
      where.push_back({lhs, rhs, rangeFrom(ps)});
    } while (consumeIf(TokenKind::comma));
  }
  Stmt* body = parseBody();
  auto* w = ctx_.create<WithStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<IterBinding>(bindings)), body);
  w->where = ctx_.copy(llvm::ArrayRef<WherePair>(where));
  return w;
}

/// foreach := 'foreach' item {',' item} [':' suffix {',' suffix}] body
/// item    := within | [IDENT '='] IDENT ['(' [expr] ':' [expr] [':' [expr]] ')']
/// suffix  := 'unroll' ['(' expr ')'] | 'vectorize' '(' IDENT ',' expr ')'
Stmt* Parser::parseForeach() {
  SMLoc start = tok().loc;
  consume();  // foreach
  llvm::SmallVector<IterBinding, 2> bindings;
  do {
    std::optional<IterBinding> b = parseIterBinding(true);
    if (!b) return nullptr;
    bindings.push_back(*b);
  } while (consumeIf(TokenKind::comma));
  llvm::SmallVector<LoopSuffix, 1> suffixes;
  if (consumeIf(TokenKind::colon)) {
    do {
      LoopSuffix s;
      SMLoc ss = tok().loc;
      if (tok().is(TokenKind::kw_unroll)) {
        s.kind = consume().kind;
        if (tok().is(TokenKind::l_paren)) {
          Token open = consume();
          s.factor = parseExpr();
          if (!s.factor || !expectClose(TokenKind::r_paren, open)) return nullptr;
        }
      } else if (tok().is(TokenKind::kw_vectorize)) {
        s.kind = consume().kind;
        Token open = tok();
        if (!expect(TokenKind::l_paren)) return nullptr;
        if (tok().isNot(TokenKind::identifier)) {
          expect(TokenKind::identifier, "the vectorised loop variable");
          return nullptr;
        }
        s.var = consume().text;
        if (!expect(TokenKind::comma)) return nullptr;
        s.factor = parseExpr();
        if (!s.factor || !expectClose(TokenKind::r_paren, open)) return nullptr;
      } else {
        expect(TokenKind::kw_unroll, "a loop suffix (`unroll`, `unroll(N)` or `vectorize(v, N)`)");
        return nullptr;
      }
      s.range = rangeFrom(ss);
      suffixes.push_back(s);
    } while (consumeIf(TokenKind::comma));
  }
  Stmt* body = parseBody();
  auto* f = ctx_.create<ForeachStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<IterBinding>(bindings)), body);
  f->suffixes = ctx_.copy(llvm::ArrayRef<LoopSuffix>(suffixes));
  return f;
}

/// within := IDENT 'in' expr | [IDENT '='] '{' ids '}' 'in' expr
std::optional<IterBinding> Parser::parseIterBinding(bool allowBare) {
  IterBinding b;
  SMLoc start = tok().loc;
  if (tok().is(TokenKind::identifier) && peek(1).is(TokenKind::equal) && peek(2).is(TokenKind::l_brace)) {
    b.name = consume().text;
    consume();  // =
  }
  if (tok().is(TokenKind::l_brace)) {
    std::optional<llvm::ArrayRef<StringRef>> names = parseNameTuple("an iteration variable name");
    if (!names) return std::nullopt;
    b.elements = *names;
    if (!expect(TokenKind::kw_in)) return std::nullopt;
    b.extent = parseIterSpace();
    if (!b.extent) return std::nullopt;
    b.range = rangeFrom(start);
    return b;
  }
  if (tok().isNot(TokenKind::identifier)) {
    expect(TokenKind::identifier, "an iteration variable name");
    return std::nullopt;
  }
  b.name = consume().text;
  if (consumeIf(TokenKind::kw_in)) {
    b.extent = parseIterSpace();
    if (!b.extent) return std::nullopt;
    b.range = rangeFrom(start);
    return b;
  }
  if (!allowBare) {
    expect(TokenKind::kw_in);
    return std::nullopt;
  }
  if (tok().is(TokenKind::equal) && peek(1).is(TokenKind::identifier)) {
    consume();  // =
    b.alias = b.name;
    b.name = consume().text;
  }
  if (tok().is(TokenKind::l_paren) && !parseRangeSuffix(b)) return std::nullopt;
  b.range = rangeFrom(start);
  return b;
}

/// space := expr, not starting with `|` (an mdspan: `[...]`, an integer, a
/// named mdspan, `x.span` or arithmetic on them; an element count `|s|` is
/// not one, as in Croqtile's grammar)
Expr* Parser::parseIterSpace() {
  if (tok().is(TokenKind::pipe)) {
    error(DiagKind::err_iter_space_element_count);
    return nullptr;
  }
  return parseExpr();
}

/// range := '(' [expr] ':' [expr] [':' [expr]] ')'   (`::` is `: :`)
bool Parser::parseRangeSuffix(IterBinding& b) {
  Token open = consume();  // (
  b.hasRange = true;
  auto endOfPart = [&] { return tok().isOneOf(TokenKind::colon, TokenKind::coloncolon, TokenKind::r_paren); };
  if (!endOfPart()) {
    b.lo = parseExpr();
    if (!b.lo) return false;
  }
  if (consumeIf(TokenKind::coloncolon)) {
    if (tok().isNot(TokenKind::r_paren)) {
      b.step = parseExpr();
      if (!b.step) return false;
    }
  } else {
    if (!expect(TokenKind::colon, "`:` in the iteration range")) return false;
    if (!endOfPart()) {
      b.hi = parseExpr();
      if (!b.hi) return false;
    }
    if (consumeIf(TokenKind::colon) && tok().isNot(TokenKind::r_paren)) {
      b.step = parseExpr();
      if (!b.step) return false;
    }
  }
  return expectClose(TokenKind::r_paren, open);
}

/// name_tuple := '{' IDENT {',' IDENT} '}'
std::optional<llvm::ArrayRef<StringRef>> Parser::parseNameTuple(StringRef what) {
  Token open = consume();  // {
  llvm::SmallVector<StringRef, 3> names;
  do {
    if (tok().isNot(TokenKind::identifier)) {
      expect(TokenKind::identifier, what);
      return std::nullopt;
    }
    names.push_back(consume().text);
  } while (consumeIf(TokenKind::comma));
  if (!expectClose(TokenKind::r_brace, open)) return std::nullopt;
  return ctx_.copy(llvm::ArrayRef<StringRef>(names));
}

/// while := 'while' '(' expr ')' body
Stmt* Parser::parseWhile() {
  SMLoc start = tok().loc;
  consume();
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `while`")) return nullptr;
  Expr* cond = parseExpr();
  if (!cond || !expectClose(TokenKind::r_paren, open)) return nullptr;
  Stmt* body = parseBody();
  return ctx_.create<WhileStmt>(rangeFrom(start), cond, body);
}

/// if := 'if' '(' expr ')' body ['else' body]
///
/// An `else if` chain is read in a loop, not by recursion: its arms follow
/// one another at one depth, so a long flat chain is not deep nesting.
Stmt* Parser::parseIf() {
  struct Arm {
    SMLoc start;
    Expr* cond;
    Stmt* then;
  };
  llvm::SmallVector<Arm, 4> arms;
  Stmt* otherwise = nullptr;
  while (true) {
    SMLoc start = tok().loc;
    consume();
    Token open = tok();
    if (!expect(TokenKind::l_paren, "`(` after `if`")) return nullptr;
    Expr* cond = parseExpr();
    if (!cond || !expectClose(TokenKind::r_paren, open)) return nullptr;
    Stmt* then = parseBody();
    arms.push_back({start, cond, then});
    if (!consumeIf(TokenKind::kw_else)) break;
    if (tok().isNot(TokenKind::kw_if)) {
      otherwise = parseBody();
      break;
    }
    if (arms.size() == kMaxElseIfArms) {
      errorAt(tok().range(), DiagKind::err_else_if_chain_too_long, kMaxElseIfArms);
      return nullptr;
    }
  }
  for (auto it = arms.rbegin(); it != arms.rend(); ++it)
    otherwise = ctx_.create<IfStmt>(rangeFrom(it->start), it->cond, it->then, otherwise);
  return otherwise;
}

/// inthreads := 'inthreads' ['.async'] '(' expr ')' body
Stmt* Parser::parseInthreads() {
  SMLoc start = tok().loc;
  consume();
  bool isAsync = consumeIf(TokenKind::m_async);
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `inthreads`")) return nullptr;
  Expr* cond = parseExpr();
  if (!cond || !expectClose(TokenKind::r_paren, open)) return nullptr;
  Stmt* body = parseBody();
  auto* s = ctx_.create<InthreadsStmt>(rangeFrom(start), cond, body);
  s->isAsync = isAsync;
  return s;
}

/// apply := 'apply' ('{' ids '}' | IDENT) 'in' expr body
Stmt* Parser::parseApply() {
  SMLoc start = tok().loc;
  consume();
  llvm::ArrayRef<StringRef> names;
  if (tok().is(TokenKind::l_brace)) {
    std::optional<llvm::ArrayRef<StringRef>> tuple = parseNameTuple("an index name");
    if (!tuple) return nullptr;
    names = *tuple;
  } else if (tok().is(TokenKind::identifier)) {
    names = ctx_.copy(llvm::ArrayRef<StringRef>(consume().text));
  } else {
    expect(TokenKind::l_brace, "`{` and the index names");
    return nullptr;
  }
  if (!expect(TokenKind::kw_in)) return nullptr;
  Expr* source = parseExpr();
  if (!source) return nullptr;
  Stmt* body = parseBody();
  return ctx_.create<ApplyStmt>(rangeFrom(start), names, source, body);
}


/// STRING {STRING}: adjacent literals concatenate.
std::optional<StringRef> Parser::parseStringLiterals(llvm::SMRange* range) {
  if (!tok().isOneOf(TokenKind::string_literal, TokenKind::raw_string_literal)) {
    expect(TokenKind::string_literal);
    return std::nullopt;
  }
  SMLoc start = tok().loc;
  std::string value;
  while (tok().isOneOf(TokenKind::string_literal, TokenKind::raw_string_literal))
    value += decodeStringLiteral(consume());
  if (range) *range = rangeFrom(start);
  return ctx_.copy(StringRef(value));
}

/// cpp := '__cpp__' '(' STRING {STRING} ')' ';'
Stmt* Parser::parseCpp() {
  SMLoc start = tok().loc;
  consume();
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `__cpp__`")) return nullptr;
  std::optional<StringRef> code = parseStringLiterals();
  if (!code || !expectClose(TokenKind::r_paren, open) || !expectSemi("`__cpp__(...)`")) return nullptr;
  return ctx_.create<CppStmt>(rangeFrom(start), *code);
}

/// asm := ('__asm__' | 'asm') ['volatile'] '(' STRING [':' ops [':' ops [':' STRING {',' STRING}]]] ')' ';'
/// op  := ['[' IDENT ']'] STRING '(' expr ')'
Stmt* Parser::parseAsm() {
  SMLoc start = tok().loc;
  consume();
  bool isVolatile = consumeIf(TokenKind::kw_volatile);
  if (tok().is(TokenKind::kw_goto)) {
    error(DiagKind::err_asm_goto);
    return nullptr;
  }
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `asm`")) return nullptr;
  std::optional<StringRef> tmpl = parseStringLiterals();
  if (!tmpl) return nullptr;
  auto* s = ctx_.create<AsmStmt>(rangeFrom(start), *tmpl);
  s->isVolatile = isVolatile;
  // Sections are separated by `:`; `::` separates two at once.
  int section = 0;
  auto nextSection = [&]() -> int {
    if (consumeIf(TokenKind::colon)) return 1;
    if (consumeIf(TokenKind::coloncolon)) return 2;
    return 0;
  };
  for (int step = nextSection(); step != 0 && section < 3; step = nextSection()) {
    section += step;
    if (section > 3) break;
    if (section == 3) {
      llvm::SmallVector<StringRef, 4> clobbers;
      if (tok().isOneOf(TokenKind::string_literal, TokenKind::raw_string_literal)) {
        do {
          std::optional<StringRef> c = parseStringLiterals();
          if (!c) return nullptr;
          clobbers.push_back(*c);
        } while (consumeIf(TokenKind::comma));
      }
      s->clobbers = ctx_.copy(llvm::ArrayRef<StringRef>(clobbers));
      break;
    }
    std::optional<llvm::SmallVector<AsmOperand, 4>> ops = parseAsmOperands();
    if (!ops) return nullptr;
    if (section == 1 && step == 1) s->outputs = ctx_.copy(llvm::ArrayRef<AsmOperand>(*ops));
    else s->inputs = ctx_.copy(llvm::ArrayRef<AsmOperand>(*ops));
  }
  if (!expectClose(TokenKind::r_paren, open) || !expectSemi("the asm statement")) return nullptr;
  s->setRange(rangeFrom(start));
  return s;
}

std::optional<llvm::SmallVector<AsmOperand, 4>> Parser::parseAsmOperands() {
  llvm::SmallVector<AsmOperand, 4> ops;
  if (!tok().isOneOf(TokenKind::string_literal, TokenKind::raw_string_literal, TokenKind::l_square,
                     TokenKind::l_attr))
    return ops;
  do {
    AsmOperand op;
    SMLoc start = tok().loc;
    if (tok().is(TokenKind::l_square)) {
      Token open = consume();
      if (tok().isNot(TokenKind::identifier)) {
        expect(TokenKind::identifier, "an operand name");
        return std::nullopt;
      }
      op.symbolicName = consume().text;
      if (!expectClose(TokenKind::r_square, open)) return std::nullopt;
    }
    std::optional<StringRef> constraint = parseStringLiterals();
    if (!constraint) return std::nullopt;
    op.constraint = *constraint;
    Token open = tok();
    if (!expect(TokenKind::l_paren, "`(` and the operand's value")) return std::nullopt;
    op.value = parseExpr();
    if (!op.value || !expectClose(TokenKind::r_paren, open)) return std::nullopt;
    op.range = rangeFrom(start);
    ops.push_back(op);
  } while (consumeIf(TokenKind::comma));
  return ops;
}

/// print := ('print' | 'println') ['!'] '(' exprs ')' ';'
Stmt* Parser::parsePrint() {
  SMLoc start = tok().loc;
  Token kw = consume();
  bool compileTime = consumeIf(TokenKind::exclaim);
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `" + kw.text.str() + "`")) return nullptr;
  std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
  if (!args || !expectSemi("`" + kw.text.str() + "(...)`")) return nullptr;
  auto* s = ctx_.create<PrintStmt>(rangeFrom(start), *args);
  s->newline = kw.is(TokenKind::kw_println);
  s->compileTime = compileTime;
  return s;
}

/// assert := 'assert' '(' expr ',' STRING ')' ';'
Stmt* Parser::parseAssert() {
  SMLoc start = tok().loc;
  consume();
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `assert`")) return nullptr;
  Expr* cond = parseExpr();
  if (!cond || !expect(TokenKind::comma, "`,` and the assertion's message")) return nullptr;
  std::optional<StringRef> msg = parseStringLiterals();
  if (!msg || !expectClose(TokenKind::r_paren, open) || !expectSemi("`assert(...)`")) return nullptr;
  return ctx_.create<AssertStmt>(rangeFrom(start), cond, *msg);
}

}  // namespace croqc
