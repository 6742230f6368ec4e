// Barriers: where lowering places them (a named barrier inside an
// `inthreads` region, none right after another one) and their elision after
// lowering (spec 21.1 lets croqc drop any barrier it can prove unnecessary).
//
// A CTA barrier at the end of a loop body is redundant when the next
// iteration, and the code after the loop, both reach another CTA barrier
// before doing anything that touches memory other threads see: the barrier
// at the top of the next iteration (the one after a `wait`, typically)
// already orders the readers of this iteration before the writers of the
// next. Statements that touch no shared state are declarations and updates
// of registers that read no shared or global memory, comments, future-name
// exchanges, and waits for this thread's own async copies.
#include "lower/LowerImpl.h"

namespace croqc::lower {

// ---------------------------------------------------------------------------
// Barriers as lowering places them

namespace {
/// True when `list` ends with a barrier of `scope` followed only by
/// statements that touch no memory other threads read.
bool endsWithBarrier(const std::vector<Stmt*>& list, kir::Scope scope, std::int64_t namedId) {
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    const Stmt* s = *it;
    switch (s->kind) {
      case StmtKind::Barrier: return s->scope == scope && s->count == namedId;
      case StmtKind::Block: return endsWithBarrier(s->body, scope, namedId);
      case StmtKind::Fence:
        if (s->pure) continue;
        return false;
      case StmtKind::Let:
      case StmtKind::Assign:
        // A read of shared (or global) memory must stay before the barrier:
        // it orders the read before other threads' later writes.
        if (kir::readsNonLocalMemory(s->value)) return false;
        continue;
      case StmtKind::Comment:
      case StmtKind::Rotate:
      case StmtKind::AsyncCommit: continue;
      case StmtKind::Copy:
        if (s->async) continue;
        return false;
      case StmtKind::TmaLoad: continue;  // read only after a wait and a barrier
      default: return false;
    }
  }
  return false;
}

/// Whether `s` (or a statement inside it) stores an element of `b`.
bool storesInto(const Stmt* s, const kir::Buffer* b) {
  if (s->kind == StmtKind::Store && s->buffer == b) return true;
  for (const Stmt* t : s->body)
    if (storesInto(t, b)) return true;
  for (const Stmt* t : s->elseBody)
    if (storesInto(t, b)) return true;
  return false;
}
}  // namespace

void Lowerer::barrierAfterStores(const kir::Buffer* b, llvm::SMLoc loc) {
  if (!out_ || !kernel_ || b->space != kir::Space::Shared) return;
  // Element stores run in one thread per instance of their level (one lane
  // of each warp at a group level): the threads that read the buffer
  // together see them only after a barrier. Looks back to the last block
  // barrier of the current statement list.
  bool pending = false;
  for (auto it = out_->rbegin(); it != out_->rend() && !pending; ++it) {
    if ((*it)->kind == StmtKind::Barrier && (*it)->scope == kir::Scope::Cta) break;
    pending = storesInto(*it, b);
  }
  // Only where every thread of the enclosing region (or block) reaches it.
  if (pending && wholeRegionActive()) barrier(kir::Scope::Cta, loc);
}

bool Lowerer::activeThreadsKnown() const {
  if (kernel_->instances) return false;
  for (const Expr* c : activeConds_)
    for (std::int64_t t = 0; t < kernel_->threads; ++t)
      if (!threadValue(c, t)) return false;
  return true;
}

bool Lowerer::wholeRegionActive() const {
  if (!activeThreadsKnown()) return false;
  std::vector<bool> on = activeThreads();
  std::int64_t enclosing = regions_.empty() ? kernel_->threads : regions_.back().threads;
  return std::count(on.begin(), on.end(), true) == enclosing;
}

bool Lowerer::barrierRedundant(kir::Scope scope, std::int64_t namedId) const {
  // A barrier is redundant right after another one of the same scope when
  // nothing in between touched memory other threads see: declarations and
  // updates of registers that read no shared or global memory, comments, and
  // async copies (whose data nobody reads before a wait and the barrier after
  // it).
  return out_ && endsWithBarrier(*out_, scope, namedId);
}

void Lowerer::barrier(kir::Scope scope, llvm::SMLoc loc) {
  // Inside an `inthreads` region a block barrier is over the region's
  // threads: a named barrier, or nothing for a region of one thread.
  std::int64_t id = 0, threads = kernel_ ? kernel_->threads : 1;
  if (scope == kir::Scope::Warpgroup) {
    if (!regions_.empty() && regions_.back().unknown) {
      reportUnknownRegion(regions_.back(), {loc, loc});
      return;
    }
    if (!regions_.empty() && (regions_.back().lo % 128 || regions_.back().threads % 128 || !regions_.back().contiguous)) {
      Region& r = regions_.back();
      if (!r.reported) unsupported(DiagKind::err_unsupported_wg_barrier_partial_warpgroups, r.range);
      r.reported = true;
      return;
    }
    // Each warpgroup its own named barrier: ids base .. base + warpgroups - 1.
    if (warpgroupBarrierBase_ == 0) {
      warpgroupBarrierBase_ = nextNamedBarrier_;
      nextNamedBarrier_ += std::max<std::int64_t>(1, threads / 128);
      if (nextNamedBarrier_ > 16) unsupported(DiagKind::err_unsupported_wg_barriers_too_many_regions, {loc, loc});
    }
    id = warpgroupBarrierBase_;
    threads = 128;
  } else if (scope == kir::Scope::Cta && !regions_.empty() && regions_.back().barrierId != 0) {
    Region& r = regions_.back();
    if (r.unknown) {
      reportUnknownRegion(r, {loc, loc});
      return;
    }
    if (r.threads <= 1) return;
    if (r.barrierId < 0) {
      if (!r.reported) unsupported(DiagKind::err_unsupported_barrier_partial_warps, r.range);
      r.reported = true;
      return;
    }
    id = r.barrierId;
    threads = r.threads;
  }
  if (barrierRedundant(scope, id)) return;
  Stmt* b = emit(StmtKind::Barrier, loc);
  b->scope = scope;
  b->count = id;
  b->threads = threads;
}

// ---------------------------------------------------------------------------
// Elision after lowering

namespace {

bool harmless(const kir::Stmt* s) {
  switch (s->kind) {
    case StmtKind::Let:
    case StmtKind::Assign: return !kir::readsNonLocalMemory(s->value);
    case StmtKind::Comment:
    case StmtKind::Rotate:
    case StmtKind::AsyncWait: return true;
    case StmtKind::Fence: return s->pure;
    default: return false;
  }
}

// Named barriers (over an `inthreads` region) are left alone.
bool isCtaBarrier(const kir::Stmt* s) {
  return s->kind == StmtKind::Barrier && s->scope == kir::Scope::Cta && s->count == 0;
}

/// Does execution starting at `list[from]` reach a CTA barrier before any
/// statement that is not harmless?
bool startsWithBarrier(const std::vector<kir::Stmt*>& list, size_t from) {
  for (size_t i = from; i < list.size(); ++i) {
    const kir::Stmt* s = list[i];
    if (isCtaBarrier(s)) return true;
    if (s->kind == StmtKind::Block) return startsWithBarrier(s->body, 0);
    if (!harmless(s)) return false;
  }
  return false;
}

/// The trailing CTA barrier of `list` (looking into a final block) that only
/// harmless statements follow, or null.
std::pair<std::vector<kir::Stmt*>*, size_t> trailingBarrier(std::vector<kir::Stmt*>& list) {
  for (size_t i = list.size(); i-- > 0;) {
    kir::Stmt* s = list[i];
    if (isCtaBarrier(s)) return {&list, i};
    if (s->kind == StmtKind::Block) return trailingBarrier(s->body);
    if (!harmless(s)) return {nullptr, 0};
  }
  return {nullptr, 0};
}

void elide(std::vector<kir::Stmt*>& list) {
  for (size_t i = 0; i < list.size(); ++i) {
    kir::Stmt* s = list[i];
    elide(s->body);
    elide(s->elseBody);
    if (s->kind != StmtKind::For) continue;
    auto [owner, index] = trailingBarrier(s->body);
    if (!owner) continue;
    if (!startsWithBarrier(s->body, 0) || !startsWithBarrier(list, i + 1)) continue;
    owner->erase(owner->begin() + static_cast<std::ptrdiff_t>(index));
  }
}

}  // namespace

void elideBarriers(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions) {
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) {
      elide(k->body);
      // Nothing runs after the kernel's last statement.
      while (true) {
        auto [owner, index] = trailingBarrier(k->body);
        if (!owner) break;
        owner->erase(owner->begin() + static_cast<std::ptrdiff_t>(index));
      }
    }
  }
}

}  // namespace croqc::lower
