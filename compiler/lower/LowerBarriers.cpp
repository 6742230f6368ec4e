// Barrier elision after lowering (spec 21.1 lets croqc drop any barrier it
// can prove unnecessary).
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

namespace {

bool harmless(const kir::Stmt* s) {
  switch (s->kind) {
    case StmtKind::Let:
    case StmtKind::Assign: return !kir::readsNonLocalMemory(s->value);
    case StmtKind::Comment:
    case StmtKind::AsyncWait: return true;
    case StmtKind::Raw: return s->pure;
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

void Lowerer::elideBarriers(std::vector<kir::Stmt*>& body) {
  elide(body);
  // Nothing runs after the kernel's last statement.
  while (true) {
    auto [owner, index] = trailingBarrier(body);
    if (!owner) break;
    owner->erase(owner->begin() + static_cast<std::ptrdiff_t>(index));
  }
}

}  // namespace croqc::lower
