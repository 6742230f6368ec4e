// Device operations of `__co__` bodies: copies (`dma`, `tma`), the MMA steps,
// events (`wait`, `trigger`), `swap` and `sync` (spec sections 12-14).
#include <llvm/Support/SourceMgr.h>

#include "parse/ParserImpl.h"

namespace croqc {

using namespace ast;
using llvm::SMLoc;
using llvm::StringRef;

/// dma := [IDENT '='] ('dma'|'tma') op [config] {mod} view {mod} '=>' (view | storage) ['after' exprs]
///      | IDENT '=' ('dma'|'tma') '.any'
/// op  := '.copy' | '.load' | '.pad' | '.transp';   config := '<' exprs '>'
Stmt* Parser::parseDma(StringRef future, SMLoc start) {
  Token engine = consume();
  if (!tok().isOneOf(TokenKind::m_copy, TokenKind::m_load, TokenKind::m_pad, TokenKind::m_transp, TokenKind::m_any)) {
    std::string what = tok().is(TokenKind::period) && peek(1).is(TokenKind::identifier)
                           ? "." + peek(1).text.str()
                           : (tok().text.startswith(".") ? tok().text.str() : " " + tok().text.str());
    error(DiagKind::err_unknown_dma_op, engine.text, what);
    return nullptr;
  }
  if (engine.is(TokenKind::kw_dma) && tok().is(TokenKind::m_load)) {
    errorAt({engine.loc, tok().endLoc}, DiagKind::err_load_is_tma_only);
    return nullptr;
  }
  Token op = consume();
  auto* dma = ctx_.create<DmaStmt>(rangeFrom(start), engine.kind, op.kind);
  dma->future = future;
  if (op.is(TokenKind::m_any)) {
    if (future.empty()) {
      errorAt({start, op.endLoc}, DiagKind::err_dma_any_needs_future, engine.text);
      return nullptr;
    }
    if (!expectSemi("`" + engine.text.str() + ".any`")) return nullptr;
    dma->setRange(rangeFrom(start));
    return dma;
  }
  if (tok().is(TokenKind::less)) {
    std::optional<llvm::ArrayRef<Expr*>> config = parseAngleArgs();
    if (!config) return nullptr;
    dma->config = *config;
  }
  llvm::SmallVector<DmaModifier, 4> mods;
  if (!parseDmaModifiers(dma, mods)) return nullptr;
  dma->source = parseExpr();
  if (!dma->source) return nullptr;
  if (!parseDmaModifiers(dma, mods)) return nullptr;
  // L2 eviction hints are TMA load hints (Croqtile rejects them elsewhere).
  if (engine.isNot(TokenKind::kw_tma) || op.isNot(TokenKind::m_load)) {
    for (const DmaModifier& m : mods) {
      if (m.kind != TokenKind::m_evict_first && m.kind != TokenKind::m_evict_last) continue;
      errorAt(m.range, DiagKind::err_evict_needs_tma_load, tokenKindSpelling(m.kind), engine.text.str() + op.text.str());
      return nullptr;
    }
  }
  dma->modifiers = ctx_.copy(llvm::ArrayRef<DmaModifier>(mods));
  if (!expect(TokenKind::arrow, "`=>` between the source and the destination of the copy")) return nullptr;
  if (tok().isOneOf(TokenKind::kw_shared, TokenKind::kw_local, TokenKind::kw_global) &&
      !peek(1).isOneOf(TokenKind::l_square, TokenKind::m_span)) {
    dma->destStorage = parseStorage();
  } else {
    dma->dest = parseExpr();
    if (!dma->dest) return nullptr;
  }
  if (consumeIf(TokenKind::kw_after)) {
    llvm::SmallVector<Expr*, 2> after;
    do {
      Expr* e = parseExpr();
      if (!e) return nullptr;
      after.push_back(e);
    } while (consumeIf(TokenKind::comma));
    dma->after = ctx_.copy(llvm::ArrayRef<Expr*>(after));
  }
  if (!expectSemi("the copy")) return nullptr;
  dma->setRange(rangeFrom(start));
  return dma;
}

/// mod := '.async' ['<' expr '>'] | ('.swiz' | '.swizzle') ['<' expr '>'] | '.zfill'
///      | '.evict_first' | '.evict_last' | '.multicast' | '.sp' ['<' INT (':'|',') INT '>']
///      | '.promote' '<' expr '>'
bool Parser::parseDmaModifiers(DmaStmt* dma, llvm::SmallVectorImpl<DmaModifier>& mods) {
  while (true) {
    const Token& t = tok();
    SMLoc start = t.loc;
    switch (t.kind) {
      case TokenKind::m_async:
        consume();
        dma->isAsync = true;
        if (tok().is(TokenKind::less)) {
          Token open = consume();
          dma->asyncEvent = parseAngleArg();
          if (!dma->asyncEvent || !expectClose(TokenKind::greater, open)) return false;
        }
        continue;
      case TokenKind::m_swiz:
      case TokenKind::m_swizzle:
      case TokenKind::m_promote: {
        TokenKind k = consume().kind;
        llvm::ArrayRef<Expr*> args;
        if (tok().is(TokenKind::less)) {
          std::optional<llvm::ArrayRef<Expr*>> a = parseAngleArgs();
          if (!a) return false;
          args = *a;
        }
        mods.push_back({k, args, rangeFrom(start)});
        continue;
      }
      case TokenKind::m_sp: {
        consume();
        llvm::SmallVector<Expr*, 2> args;
        if (tok().is(TokenKind::less)) {
          Token open = consume();
          Expr* a = parseAngleArg();
          if (!a) return false;
          args.push_back(a);
          if (!consumeIf(TokenKind::colon) && !expect(TokenKind::comma, "`:` in `.sp<N:M>`")) return false;
          Expr* b = parseAngleArg();
          if (!b || !expectClose(TokenKind::greater, open)) return false;
          args.push_back(b);
        }
        mods.push_back({TokenKind::m_sp, ctx_.copy(llvm::ArrayRef<Expr*>(args)), rangeFrom(start)});
        continue;
      }
      case TokenKind::m_zfill:
      case TokenKind::m_evict_first:
      case TokenKind::m_evict_last:
      case TokenKind::m_multicast:
        mods.push_back({consume().kind, {}, rangeFrom(start)});
        continue;
      default:
        if (t.is(TokenKind::period) && peek(1).is(TokenKind::identifier)) {
          errorAt({t.loc, peek(1).endLoc}, DiagKind::err_unknown_dma_modifier, "." + peek(1).text.str());
          return false;
        }
        if (isMemberToken(t.kind) && !isViewMethod(t.kind) &&
            !t.isOneOf(TokenKind::m_span, TokenKind::m_data, TokenKind::m_mdata)) {
          error(DiagKind::err_unknown_dma_modifier, t.text);
          return false;
        }
        return true;
    }
  }
}

/// mma := IDENT '=' 'mma' '.fill' ['.' elem_type] expr | 'mma' '.fill' expr ',' expr
///      | IDENT '=' 'mma' '.load' {'.' 'frag' | '.swiz' ['<' expr '>'] | '.async'} view
///      | 'mma' '.load' {...} view ',' expr
///      | [IDENT '='] {attr} 'mma' layout {'.sp' | '.scale' | '.async'} expr ',' expr ',' expr {',' expr}
///      | 'mma' '.store' {'.transp' | '.async' | '.mask'} expr ',' view {',' expr}
///      | 'mma' '.scale' expr ',' expr ',' expr | 'mma' '.' 'commit' | 'mma' '.' 'wait' '<' expr '>'
Stmt* Parser::parseMma(StringRef result, SMLoc start, llvm::ArrayRef<Attribute> attrs) {
  consume();  // mma
  const Token& op = tok();
  if (op.isOneOf(TokenKind::m_row, TokenKind::m_col)) return parseMmaExec(result, start, attrs);
  if (!attrs.empty()) {
    errorAt(attrs.front().range, DiagKind::err_attribute_target, attrs.front().name, "`mma" + op.text.str() + "`");
    return nullptr;
  }
  if (op.is(TokenKind::m_fill)) {
    consume();
    TokenKind elem = TokenKind::eof;
    if (tok().is(TokenKind::period) && (startsType(peek(1)) && peek(1).isNot(TokenKind::kw_stream))) {
      consume();
      elem = canonicalElementType(consume().kind);
    }
    Expr* target = nullptr;
    if (result.empty()) {
      target = parseExpr();
      if (!target || !expect(TokenKind::comma, "`,` between the accumulator and the fill value")) return nullptr;
    }
    Expr* value = parseExpr();
    if (!value || !expectSemi("`mma.fill`")) return nullptr;
    auto* s = ctx_.create<MmaFillStmt>(rangeFrom(start), value);
    s->result = result;
    s->target = target;
    s->elem = elem;
    return s;
  }
  if (op.is(TokenKind::m_load)) {
    consume();
    bool toFrag = false, isAsync = false, hasSwizzle = false;
    Expr* swizzle = nullptr;
    while (true) {
      if (tok().is(TokenKind::period) && peek(1).is(TokenKind::kw_frag)) {
        consume();
        consume();
        toFrag = true;
      } else if (tok().isOneOf(TokenKind::m_swiz, TokenKind::m_swizzle)) {
        consume();
        hasSwizzle = true;
        if (tok().is(TokenKind::less)) {
          Token open = consume();
          swizzle = parseAngleArg();
          if (!swizzle || !expectClose(TokenKind::greater, open)) return nullptr;
        }
      } else if (tok().is(TokenKind::m_async)) {
        consume();
        isAsync = true;
      } else {
        break;
      }
    }
    Expr* source = parseExpr();
    if (!source) return nullptr;
    Expr* target = nullptr;
    if (result.empty()) {
      if (!expect(TokenKind::comma, "`,` and the fragment to load into")) return nullptr;
      target = parseExpr();
      if (!target) return nullptr;
    }
    if (!expectSemi("`mma.load`")) return nullptr;
    auto* s = ctx_.create<MmaLoadStmt>(rangeFrom(start), source);
    s->result = result;
    s->target = target;
    s->toFrag = toFrag;
    s->isAsync = isAsync;
    s->hasSwizzle = hasSwizzle;
    s->swizzle = swizzle;
    return s;
  }
  if (op.is(TokenKind::m_store)) {
    consume();
    bool transpose = false, isAsync = false, mask = false;
    while (tok().isOneOf(TokenKind::m_transp, TokenKind::m_async, TokenKind::m_mask)) {
      TokenKind k = consume().kind;
      transpose |= k == TokenKind::m_transp;
      isAsync |= k == TokenKind::m_async;
      mask |= k == TokenKind::m_mask;
    }
    Expr* acc = parseExpr();
    if (!acc || !expect(TokenKind::comma, "`,` between the accumulator and the destination")) return nullptr;
    Expr* dest = parseExpr();
    if (!dest) return nullptr;
    llvm::SmallVector<Expr*, 2> maskArgs;
    while (consumeIf(TokenKind::comma)) {
      Expr* e = parseExpr();
      if (!e) return nullptr;
      maskArgs.push_back(e);
    }
    if (!expectSemi("`mma.store`")) return nullptr;
    auto* s = ctx_.create<MmaStoreStmt>(rangeFrom(start), acc, dest);
    s->transpose = transpose;
    s->isAsync = isAsync;
    s->mask = mask;
    s->maskArgs = ctx_.copy(llvm::ArrayRef<Expr*>(maskArgs));
    return s;
  }
  if (op.is(TokenKind::m_scale)) {
    consume();
    Expr* acc = parseExpr();
    if (!acc || !expect(TokenKind::comma)) return nullptr;
    Expr* sa = parseExpr();
    if (!sa || !expect(TokenKind::comma)) return nullptr;
    Expr* sb = parseExpr();
    if (!sb || !expectSemi("`mma.scale`")) return nullptr;
    return ctx_.create<MmaScaleStmt>(rangeFrom(start), acc, sa, sb);
  }
  if (op.is(TokenKind::period) && peek(1).is(TokenKind::identifier) && peek(1).text == "commit") {
    consume();
    consume();
    if (!expectSemi("`mma.commit`")) return nullptr;
    return ctx_.create<MmaCommitStmt>(rangeFrom(start));
  }
  if (op.is(TokenKind::period) && peek(1).is(TokenKind::kw_wait)) {
    consume();
    consume();
    Token open = tok();
    if (!expect(TokenKind::less, "`<` and the number of groups left in flight, as in `mma.wait<0>`")) return nullptr;
    Expr* count = parseAngleArg();
    if (!count || !expectClose(TokenKind::greater, open) || !expectSemi("`mma.wait<n>`")) return nullptr;
    return ctx_.create<MmaWaitStmt>(rangeFrom(start), count);
  }
  std::string spelled = op.is(TokenKind::period) ? "." + peek(1).text.str() : op.text.str();
  if (!op.is(TokenKind::period) && !isMemberToken(op.kind)) spelled = " " + spelled;
  error(DiagKind::err_unknown_mma_op, spelled);
  return nullptr;
}

Stmt* Parser::parseMmaExec(StringRef result, SMLoc start, llvm::ArrayRef<Attribute> attrs) {
  Token la = consume();
  if (!tok().isOneOf(TokenKind::m_row, TokenKind::m_col)) {
    errorAt(la.range(), DiagKind::err_mma_layout_incomplete, la.text);
    return nullptr;
  }
  Token lb = consume();
  bool sparse = false, scale = false, isAsync = false;
  while (tok().isOneOf(TokenKind::m_sp, TokenKind::m_scale, TokenKind::m_async)) {
    TokenKind k = consume().kind;
    sparse |= k == TokenKind::m_sp;
    scale |= k == TokenKind::m_scale;
    isAsync |= k == TokenKind::m_async;
  }
  llvm::SmallVector<Expr*, 5> operands;
  do {
    Expr* e = parseExpr();
    if (!e) return nullptr;
    operands.push_back(e);
  } while (consumeIf(TokenKind::comma));
  if (operands.size() < 3) {
    expect(TokenKind::comma, "three operands (accumulator, A, B)");
    return nullptr;
  }
  if (!expectSemi("the MMA")) return nullptr;
  auto* s = ctx_.create<MmaExecStmt>(rangeFrom(start), la.is(TokenKind::m_row), lb.is(TokenKind::m_row), operands[0],
                                     operands[1], operands[2]);
  s->extra = ctx_.copy(llvm::ArrayRef<Expr*>(operands).drop_front(3));
  s->sparse = sparse;
  s->scale = scale;
  s->isAsync = isAsync;
  s->result = result;
  s->attributes = attrs;
  return s;
}

/// frag_op := ('reduce_max' | 'reduce_sum' | 'all_reduce_sum' | 'copy') '(' exprs ')' ';'
Stmt* Parser::parseFragOp() {
  SMLoc start = tok().loc;
  Token op = consume();
  Token open = tok();
  if (!expect(TokenKind::l_paren, "`(` after `" + op.text.str() + "`")) return nullptr;
  std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
  if (!args || !expectSemi("`" + op.text.str() + "(...)`")) return nullptr;
  return ctx_.create<FragOpStmt>(rangeFrom(start), op.kind, *args);
}

/// wait := 'wait' expr {',' expr} ';'
Stmt* Parser::parseWait() {
  SMLoc start = tok().loc;
  consume();
  llvm::SmallVector<Expr*, 2> targets;
  do {
    Expr* e = parseExpr();
    if (!e) return nullptr;
    targets.push_back(e);
  } while (consumeIf(TokenKind::comma));
  if (!expectSemi("`wait`")) return nullptr;
  return ctx_.create<WaitStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<Expr*>(targets)));
}

/// trigger := 'trigger' ['.' level] expr {',' expr} ['after' expr {',' expr}] ';'
Stmt* Parser::parseTrigger() {
  SMLoc start = tok().loc;
  consume();
  ParallelLevel level = ParallelLevel::None;
  if (consumeIf(TokenKind::period) && !parseLevel(level)) return nullptr;
  llvm::SmallVector<Expr*, 2> targets, after;
  do {
    Expr* e = parseExpr();
    if (!e) return nullptr;
    targets.push_back(e);
  } while (consumeIf(TokenKind::comma));
  if (consumeIf(TokenKind::kw_after)) {
    do {
      Expr* e = parseExpr();
      if (!e) return nullptr;
      after.push_back(e);
    } while (consumeIf(TokenKind::comma));
  }
  if (!expectSemi("`trigger`")) return nullptr;
  auto* s = ctx_.create<TriggerStmt>(rangeFrom(start), ctx_.copy(llvm::ArrayRef<Expr*>(targets)));
  s->after = ctx_.copy(llvm::ArrayRef<Expr*>(after));
  s->level = level;
  return s;
}

/// swap := ('swap' | 'rotate') ('(' exprs ')' | exprs) ';'
Stmt* Parser::parseSwap() {
  SMLoc start = tok().loc;
  Token kw = consume();
  llvm::ArrayRef<Expr*> names;
  if (tok().is(TokenKind::l_paren)) {
    Token open = consume();
    std::optional<llvm::ArrayRef<Expr*>> args = parseArgList(TokenKind::r_paren, open);
    if (!args) return nullptr;
    names = *args;
  } else {
    llvm::SmallVector<Expr*, 3> list;
    do {
      Expr* e = parseExpr();
      if (!e) return nullptr;
      list.push_back(e);
    } while (consumeIf(TokenKind::comma));
    names = ctx_.copy(llvm::ArrayRef<Expr*>(list));
  }
  if (!expectSemi("`" + kw.text.str() + "`")) return nullptr;
  return ctx_.create<SwapStmt>(rangeFrom(start), kw.is(TokenKind::kw_rotate), names);
}

/// return := 'return' [expr] ';'
Stmt* Parser::parseReturn() {
  SMLoc start = tok().loc;
  consume();
  Expr* value = nullptr;
  if (tok().isNot(TokenKind::semi)) {
    value = parseExpr();
    if (!value) return nullptr;
  }
  if (!expectSemi("`return`")) return nullptr;
  return ctx_.create<ReturnStmt>(rangeFrom(start), value);
}

/// sync := 'sync' '.' ('shared' | 'global' | 'local') ';'
///       | 'sync' '.' 'barrier' ':' level ';' | 'sync' '.' 'fence' ':' level ['<' storage '>'] ';'
Stmt* Parser::parseSync() {
  SMLoc start = tok().loc;
  consume();
  if (!expect(TokenKind::period, "`.` after `sync`")) return nullptr;
  const Token& what = tok();
  if (what.isOneOf(TokenKind::kw_shared, TokenKind::kw_global, TokenKind::kw_local)) {
    Storage st = parseStorage();
    if (!expectSemi("`sync." + storageName(st).str() + "`")) return nullptr;
    auto* s = ctx_.create<SyncStmt>(rangeFrom(start), SyncStmt::Kind::Storage);
    s->storage = st;
    return s;
  }
  if (what.isOneOf(TokenKind::kw_barrier, TokenKind::kw_fence)) {
    auto kind = consume().is(TokenKind::kw_barrier) ? SyncStmt::Kind::Barrier : SyncStmt::Kind::Fence;
    auto* s = ctx_.create<SyncStmt>(rangeFrom(start), kind);
    if (!expect(TokenKind::colon, "`:` and the scope of the synchronisation") || !parseLevel(s->level))
      return nullptr;
    if (kind == SyncStmt::Kind::Fence && tok().is(TokenKind::less)) {
      Token open = consume();
      s->storage = parseStorage();
      if (s->storage == Storage::None) {
        error(DiagKind::err_expected_storage, describe(tok()));
        return nullptr;
      }
      if (!expectClose(TokenKind::greater, open)) return nullptr;
    }
    if (!expectSemi("the synchronisation")) return nullptr;
    s->setRange(rangeFrom(start));
    return s;
  }
  error(DiagKind::err_unknown_sync, what.text);
  return nullptr;
}

}  // namespace croqc
