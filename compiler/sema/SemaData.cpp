// Semantic analysis of data movement (spec section 12) and of the future
// and event protocols (sections 12.6-12.8, 14): copy directions, shapes and
// element types, swizzles, TMA boxes, and that every asynchronous copy is
// waited exactly once before its data is read.
#include <llvm/ADT/STLExtras.h>

#include "basic/Saturating.h"
#include "sema/SemaImpl.h"
#include "target/ElementTypes.h"
#include "target/Target.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;
using sym::Truth;

namespace {

StringRef storageWord(const Type& t) {
  if (t.hostParam) return "host";
  switch (t.storage) {
    case Storage::Shared: return "shared";
    case Storage::Local: return "local";
    default: return "global";
  }
}

}  // namespace

Symbol* Checker::bindFuture(StringRef name, llvm::SMLoc loc, const Type& type, const Node* stmt) {
  Symbol* s = lookup(name);
  if (s && (s->type.kind == TypeKind::Future || s->type.isError())) {
    s->type = type;
  } else {
    s = declare(name, loc, Symbol::Kind::Variable, type, false);
  }
  result_.declarations[stmt].push_back(s);
  return s;
}

// The shape a copy produces: the source's, permuted by `dma.transp`, grown by
// the padding of `dma.pad`.
SymList Checker::copiedShape(const DmaStmt* d, const Type& src) {
  SymList produced = src.shape;
  if (d->op == TokenKind::m_transp && !src.isError()) {
    llvm::SmallVector<std::int64_t, 4> perm;
    for (const Expr* c : d->config) perm.push_back(constantOf(c).value_or(-1));
    bool ok = perm.size() == src.rank();
    llvm::SmallVector<bool, 4> seen(src.rank(), false);
    for (std::int64_t p : perm) {
      if (p < 0 || p >= static_cast<std::int64_t>(src.rank()) || seen[static_cast<size_t>(p)]) ok = false;
      else seen[static_cast<size_t>(p)] = true;
    }
    if (!ok) {
      std::string list;
      for (const Expr* c : d->config) list += (list.empty() ? "" : ", ") + exprText(c);
      report(d->range(), DiagKind::err_transp_permutation, list, src.rank());
    } else {
      produced.clear();
      for (std::int64_t p : perm) produced.push_back(src.shape[static_cast<size_t>(p)]);
    }
  }
  if (d->op == TokenKind::m_pad && !src.isError()) {
    bool ok = d->config.size() == 4;
    SymList lo, hi, mid;
    for (size_t i = 0; ok && i < 3; ++i) {
      Type t = check(d->config[i]);
      if (t.kind != TypeKind::Ituple || t.values.size() != src.rank()) ok = false;
      else (i == 0 ? lo : i == 1 ? hi : mid) = t.values;
    }
    if (!ok) {
      report(d->range(), DiagKind::err_pad_config, src.rank());
    } else {
      check(d->config[3]);
      produced.clear();
      for (size_t i = 0; i < src.rank(); ++i)
        produced.push_back(sym().add(sym().add(src.shape[i], sym().add(lo[i], hi[i])),
                                     sym().mul(mid[i], sym().sub(src.shape[i], sym().constant(1)))));
    }
  }
  return produced;
}

// The two ends of a copy agree: element types, ranks and extents (a larger
// destination wants `.zfill`), and the direction suits the engine.
void Checker::checkCopyEnds(const DmaStmt* d, const Type& src, const Type& dst, const SymList& produced, bool zfill) {
  bool isTma = d->engine == TokenKind::kw_tma;
  if (src.elem != dst.elem && dst.elem != TokenKind::eof)
    report(d->range(), DiagKind::err_dma_elem_mismatch, tokenKindSpelling(src.elem), tokenKindSpelling(dst.elem));
  if (produced.size() != dst.rank()) {
    report(d->range(), DiagKind::err_dma_rank_mismatch, produced.size(), dst.rank());
  } else if (d->dest) {
    bool allEqual = true, larger = false;
    for (size_t i = 0; i < produced.size(); ++i) {
      Truth eq = sym().proveEQ(produced[i], dst.shape[i]);
      if (eq != Truth::True) allEqual = false;
      if (sym().proveLT(dst.shape[i], produced[i]) == Truth::True) {
        report(d->range(), DiagKind::err_dma_shape_mismatch, printShape(dst.shape), printShape(produced), i);
        allEqual = larger = false;
        break;
      }
      if (sym().proveGT(dst.shape[i], produced[i]) == Truth::True) larger = true;
    }
    if (allEqual && zfill) diags_.report(d->loc(), DiagKind::warn_dma_redundant_zfill, printShape(produced)).range(d->range());
    if (larger && !zfill)
      diags_.report(d->loc(), DiagKind::warn_dma_uncovered, printShape(dst.shape), printShape(produced)).range(d->range());
  }
  // Directions (spec 12.4).
  StringRef from = storageWord(src), to = storageWord(dst);
  bool fromGlobal = from == "global" || from == "host";
  bool toGlobal = to == "global" || to == "host";
  if (isTma) {
    bool ok = (fromGlobal && to == "shared") || (from == "shared" && toGlobal && d->op == TokenKind::m_copy);
    if (!ok) report(d->range(), DiagKind::err_tma_direction, tokenKindSpelling(d->op).drop_front(), from, to);
    // The box is the shared-memory side of the copy.
    const Type& box = to == "shared" ? dst : src;
    for (size_t i = 0; i < box.rank(); ++i) {
      if (!sym::constantValue(box.shape[i]) && !sym::isUnknown(box.shape[i])) {
        report(d->range(), DiagKind::err_tma_box_not_constant, i, sym::printForUser(box.shape[i]));
        break;
      }
    }
  } else if (!parallels_.empty() || !d->dest) {
    if (fromGlobal && toGlobal) {
      report(d->range(), DiagKind::err_dma_direction, d->isAsync ? "an asynchronous" : "a synchronous", from, to,
             "copy through shared memory, or assign elements inside a `parallel`");
    } else if (d->isAsync && !(fromGlobal && to == "shared")) {
      report(d->range(), DiagKind::err_dma_direction, "an asynchronous", from, to,
             "only global -> shared copies can be asynchronous; drop `.async`");
    }
  }
}

void Checker::checkDma(const DmaStmt* d) {
  bool isTma = d->engine == TokenKind::kw_tma;
  StringRef engine = tokenKindSpelling(d->engine);
  if (d->op == TokenKind::m_any) {
    Type t = Type::simple(TypeKind::Future);
    Symbol* s = bindFuture(d->future, d->loc(), t, d);
    FutureState& st = futures_[s];
    st = FutureState{};
    st.placeholder = true;
    st.boundAt = d->loc();
    st.scope = scopes_.back().get();
    return;
  }
  if (isTma && !target_.hasTma) report(d->range(), DiagKind::err_tma_needs_sm90, target_.name);
  for (const DmaModifier& m : d->modifiers) {
    if (m.kind == TokenKind::m_sp && m.args.size() == 2) {
      // Sparse tensor cores take 2:4 structured sparsity only.
      std::optional<std::int64_t> n = constantOf(m.args[0]), k = constantOf(m.args[1]);
      if (!n || !k || *n != 2 || *k != 4)
        report(m.range, DiagKind::err_sparsity_pattern, exprText(m.args[0]), exprText(m.args[1]));
    }
    if (m.kind == TokenKind::m_multicast) checkMulticast(d, m);
    if ((m.kind == TokenKind::m_swiz || m.kind == TokenKind::m_swizzle) && !m.args.empty()) {
      std::optional<std::int64_t> v = constantOf(m.args[0]);
      if (!v || !(*v == 0 || *v == 1 || *v == 2 || *v == 3 || *v == 32 || *v == 64 || *v == 128))
        report(m.range, DiagKind::err_swizzle_value, exprText(m.args[0]));
    }
  }
  if (d->asyncEvent) check(d->asyncEvent);
  ++readOnlyOperand_;
  Type src = check(d->source);
  --readOnlyOperand_;
  if (src.kind == TypeKind::Future) src.kind = TypeKind::Data;
  if (!src.isError() && src.kind != TypeKind::Data) {
    report(d->source->range(), DiagKind::err_dma_source_type, exprText(d->source), describe(src));
    src = Type::error();
  }
  SymList produced = copiedShape(d, src);
  bool zfill = false;
  for (const DmaModifier& m : d->modifiers) zfill = zfill || m.kind == TokenKind::m_zfill;

  Type dst;
  if (!d->dest) {
    if (parallels_.empty() && (d->destStorage == Storage::Shared || d->destStorage == Storage::Local))
      report(d->range(), DiagKind::err_dma_outside_parallel, storageName(d->destStorage));
    dst = Type::simple(TypeKind::Data);
    dst.elem = src.elem;
    dst.storage = d->destStorage;
    dst.shape = produced;
    if (!src.isError() && (d->destStorage == Storage::Local || d->destStorage == Storage::Shared)) {
      for (size_t i = 0; i < produced.size(); ++i) {
        if (sym::isUnknown(produced[i]))
          report(d->source->range(), DiagKind::err_buffer_shape_untracked, storageName(d->destStorage),
                 "=> " + storageName(d->destStorage).str(), i, exprText(d->source));
      }
    }
    if (kernel_ && d->destStorage == Storage::Shared && !src.isError()) {
      std::int64_t count = 1;
      for (const SymExpr* e : produced) count = saturatingMul(count, sym::constantValue(e).value_or(0));
      addSharedBytes(saturatingMul(count, target::elementBytes(src.elem)));
    }
  } else {
    dst = check(d->dest);
    if (dst.kind == TypeKind::Future) dst.kind = TypeKind::Data;
    if (!dst.isError() && dst.kind != TypeKind::Data) {
      report(d->dest->range(), DiagKind::err_dma_dest_type, exprText(d->dest), describe(dst));
      dst = Type::error();
    }
  }
  if (!src.isError() && !dst.isError()) checkCopyEnds(d, src, dst, produced, zfill);
  for (const Expr* a : d->after) {
    Type t = check(a);
    if (!t.isError() && t.kind != TypeKind::Future && t.kind != TypeKind::MmaFuture)
      report(a->range(), DiagKind::err_after_operand, exprText(a), describe(t));
  }
  // Remember an explicit swizzle for the `mma.load`s that read the buffer.
  if (!dst.isError() && dst.buffer) {
    for (const DmaModifier& m : d->modifiers) {
      if ((m.kind != TokenKind::m_swiz && m.kind != TokenKind::m_swizzle) || m.args.empty()) continue;
      if (std::optional<std::int64_t> v = constantOf(m.args[0])) {
        std::optional<unsigned> bytes = target::swizzleBytesFromArgument(static_cast<std::uint64_t>(*v));
        if (bytes) bufferSwizzles_[dst.buffer] = {static_cast<std::int64_t>(*bytes), d->loc()};
      }
    }
  }
  if (d->isAsync && d->future.empty() && !d->asyncEvent) {
    report(d->range(), DiagKind::err_dma_async_unnamed, engine);
    return;
  }
  if (d->future.empty()) return;
  Type fut = dst.isError() ? Type::error() : dst;
  if (!fut.isError()) {
    fut.kind = TypeKind::Future;
    fut.async = d->isAsync;
  }
  Symbol* s = bindFuture(d->future, d->loc(), fut, d);
  FutureState& st = futures_[s];
  if (st.async && !st.waited && !st.placeholder && st.boundAt.isValid() && st.boundAt != d->loc() && loopDepth_ == 0)
    diags_.report(st.boundAt, DiagKind::err_future_not_waited, d->future);
  // A re-bound future stays in the scope that declared it (spec 12.7).
  const Scope* declaredIn = st.scope ? st.scope : scopes_.back().get();
  st = FutureState{};
  st.async = d->isAsync && !d->asyncEvent;
  st.tma = isTma;
  st.boundAt = d->loc();
  st.scope = declaredIn;
}

void Checker::checkWait(const WaitStmt* w) {
  bool warned = false;  // one warning per statement, like `trigger`
  for (const Expr* target : w->targets) {
    Type t = check(target);
    if (t.isError()) continue;
    if (t.kind == TypeKind::Event || t.kind == TypeKind::MmaFuture) {
      if (t.kind == TypeKind::Event && inthreadsDepth_ == 0 && !parallels_.empty() && !warned)
        diags_.report(w->loc(), DiagKind::warn_event_outside_inthreads, "wait").range(w->range());
      warned = warned || t.kind == TypeKind::Event;
      continue;
    }
    if (t.kind != TypeKind::Future) {
      report(target->range(), DiagKind::err_wait_operand, exprText(target), describe(t));
      continue;
    }
    const auto* name = llvm::dyn_cast<NameExpr>(target);
    if (!name) continue;
    const Symbol* s = result_.references.lookup(name);
    if (!s) continue;
    FutureState& st = futures_[s];
    if (!st.async) {
      report(target->range(), DiagKind::err_wait_non_async, name->name);
      continue;
    }
    if (st.waited && loopDepth_ == 0) {
      report(target->range(), DiagKind::err_wait_twice, name->name).note(st.waitedAt, DiagKind::note_waited_here);
      continue;
    }
    st.waited = true;
    st.waitedAt = target->loc();
  }
}

void Checker::checkMulticast(const DmaStmt* d, const DmaModifier& m) {
  // A `dma` copy has no copy engine to multicast with: each block copies
  // the tile itself.
  if (d->engine != TokenKind::kw_tma) return;
  if (!kernel_ || !kernel_->clusterLevel) report(m.range, DiagKind::err_multicast_without_cluster);
}

void Checker::checkTrigger(const TriggerStmt* t) {
  if (parallels_.empty()) report(t->range(), DiagKind::err_device_only_statement, "`trigger`");
  // `trigger.cluster` arrives in every block of the cluster; the other
  // levels (`trigger.block`, ...) arrive for the triggering threads, as
  // `trigger` does.
  if (t->level == ParallelLevel::Cluster && kernel_ && !kernel_->clusterLevel)
    report(t->range(), DiagKind::err_trigger_cluster_without_cluster);
  for (const Expr* e : t->targets) {
    Type ty = check(e);
    if (!ty.isError() && ty.kind != TypeKind::Event)
      report(e->range(), DiagKind::err_trigger_operand, exprText(e), describe(ty));
  }
  if (inthreadsDepth_ == 0 && !parallels_.empty())
    diags_.report(t->loc(), DiagKind::warn_event_outside_inthreads, "trigger").range(t->range());
  for (const Expr* e : t->after) {
    Type ty = check(e);
    if (ty.isError()) continue;
    if (ty.kind == TypeKind::MmaFuture) {
      report(e->range(), DiagKind::err_trigger_after_mma, exprText(e));
      continue;
    }
    if (ty.kind != TypeKind::Future) {
      report(e->range(), DiagKind::err_after_operand, exprText(e), describe(ty));
      continue;
    }
    const auto* name = llvm::dyn_cast<NameExpr>(e);
    const Symbol* s = name ? result_.references.lookup(name) : nullptr;
    if (!s) continue;
    FutureState& st = futures_[s];
    if (!st.tma || !st.async) {
      report(e->range(), DiagKind::err_trigger_after_dma, exprText(e));
      st.waited = true;  // reported once, not again as never waited
      continue;
    }
    // Spec 14.2: binding the copy to an event consumes it like a `wait`.
    if (st.waited && loopDepth_ == 0) {
      report(e->range(), DiagKind::err_wait_twice, exprText(e)).note(st.waitedAt, DiagKind::note_waited_here);
      continue;
    }
    // The event now owns the copy's completion.
    st.waited = true;
    st.waitedAt = e->loc();
  }
}

void Checker::checkSwap(const SwapStmt* s) {
  StringRef what = s->rotate ? "rotate" : "swap";
  std::vector<const Symbol*> symbols;
  for (const Expr* e : s->names) {
    Type t = check(e);
    if (t.isError()) return;
    const auto* name = llvm::dyn_cast<NameExpr>(e);
    if (t.kind != TypeKind::Future || !name) {
      report(e->range(), DiagKind::err_swap_operand, what, exprText(e), describe(t));
      return;
    }
    symbols.push_back(result_.references.lookup(name));
  }
  if (symbols.size() < 2) return;
  for (size_t i = 1; i < symbols.size(); ++i) {
    if (symbols[i] && symbols[0] && futures_[symbols[i]].scope != futures_[symbols[0]].scope) {
      report(s->range(), DiagKind::err_swap_scope, what, symbols[0]->name, symbols[i]->name);
      return;
    }
  }
  // rotate(f0, f1, f2): f0 <- f1 <- f2 <- f0.
  FutureState first = futures_[symbols[0]];
  Type firstType = symbols[0]->type;
  for (size_t i = 0; i + 1 < symbols.size(); ++i) {
    futures_[symbols[i]] = futures_[symbols[i + 1]];
    const_cast<Symbol*>(symbols[i])->type = symbols[i + 1]->type;
  }
  futures_[symbols.back()] = first;
  const_cast<Symbol*>(symbols.back())->type = firstType;
}

void Checker::finishFutures() {
  // Report in source order, not in the hash map's order.
  std::vector<std::pair<const Symbol*, FutureState>> pending(futures_.begin(), futures_.end());
  llvm::sort(pending, [](const auto& a, const auto& b) {
    return a.second.boundAt.getPointer() < b.second.boundAt.getPointer();
  });
  for (auto& [symbol, st] : pending) {
    if (st.placeholder) {
      diags_.report(st.boundAt, DiagKind::err_dma_any_unused, symbol->name);
      continue;
    }
    if (st.async && !st.waited)
      diags_.report(st.boundAt, DiagKind::err_future_not_waited, symbol->name);
  }
  futures_.clear();
}

}  // namespace croqc::sema
