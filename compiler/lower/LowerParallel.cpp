// Parallel levels to CUDA thread mapping (spec 8.2-8.4, 10.3).
//
// A kernel runs `threads` threads per CTA in one dimension (`tid_`). Each
// sub-block level owns `span` consecutive thread ids per instance: a
// warpgroup 128, a warp 32 (or the threads of the level below it), a thread
// 1. The instance index of a level is `(tid_ % parentSpan) / span`, split
// row-major over the level's extents; threads whose index is past the
// product of the extents are masked off. Block-level variables are
// `blockIdx.x/y/z`, first element first.
#include "lower/LowerImpl.h"

#include <llvm/ADT/STLExtras.h>

namespace croqc::lower {

using namespace ast;

namespace {

std::int64_t levelSpan(ParallelLevel level) {
  switch (level) {
    case ParallelLevel::Group4: return 128;
    case ParallelLevel::Group: return 32;
    default: return 1;
  }
}

// Appends `const int name = value;` (maybe unused) to `into`; returns the
// variable.
const Expr* pushLet(kir::Module& m, std::vector<Stmt*>& into, llvm::SMLoc loc, const std::string& name,
                    const Expr* value) {
  Stmt* let = m.stmt(StmtKind::Let, loc);
  let->var = name;
  let->value = value;
  let->maybeUnused = true;
  into.push_back(let);
  return m.var(name);
}

}  // namespace

kir::Scope Lowerer::scopeForLevel(ParallelLevel level) const {
  switch (level) {
    case ParallelLevel::Thread: return kir::Scope::Thread;
    case ParallelLevel::Group: return kir::Scope::Warp;
    case ParallelLevel::Group4: return kir::Scope::Warpgroup;
    default: return kir::Scope::Cta;
  }
}

const Expr* Lowerer::leaderCondition() {
  const LevelFrame& f = currentFrame();
  if (f.span <= 1) return nullptr;
  // Inside an `apply` over an MMA accumulator every element is visited by
  // the one thread that holds it.
  if (!accApplies_.empty()) return nullptr;
  const Expr* tid = m().var("tid_");
  if (coversBlock(f.span) || (kernel_->instances && f.level == ParallelLevel::Block))
    return m().eq(tid, m().intc(regions_.empty() ? 0 : regions_.back().lo));
  return m().eq(m().mod(tid, m().intc(f.span)), m().intc(0));
}

void Lowerer::forEachSymbolUsed(const ast::Expr* e, llvm::function_ref<void(const sema::Symbol&)> fn) const {
  int depth = 0;
  std::function<void(const ast::Expr*)> walk = [&](const ast::Expr* x) {
    if (!x) return;
    if (const auto* n = llvm::dyn_cast<NameExpr>(x)) {
      const sema::Symbol* s = sema_.references.lookup(n);
      if (s) fn(*s);
      // A name bound to a view or an integer (`cidx = wg - 1`) depends on
      // what its expression depends on.
      const ast::Expr* bound = nullptr;
      if (auto v = viewBindings_.find(s); s && v != viewBindings_.end()) bound = v->second;
      else if (auto i = scalarBindings_.find(s); s && i != scalarBindings_.end()) bound = i->second;
      if (bound && depth < 32) {
        ++depth;
        walk(bound);
        --depth;
      }
      return;
    }
    switch (x->kind()) {
      case NodeKind::UnaryExpr: walk(llvm::cast<UnaryExpr>(x)->operand); break;
      case NodeKind::PostfixExpr: walk(llvm::cast<PostfixExpr>(x)->operand); break;
      case NodeKind::BinaryExpr:
        walk(llvm::cast<BinaryExpr>(x)->lhs);
        walk(llvm::cast<BinaryExpr>(x)->rhs);
        break;
      case NodeKind::ConditionalExpr: {
        const auto* c = llvm::cast<ConditionalExpr>(x);
        walk(c->cond);
        walk(c->then);
        walk(c->otherwise);
        break;
      }
      case NodeKind::ItupleExpr:
        for (const ast::Expr* el : llvm::cast<ItupleExpr>(x)->elements) walk(el);
        break;
      case NodeKind::MdspanExpr:
        for (const ast::Expr* el : llvm::cast<MdspanExpr>(x)->dims) walk(el);
        break;
      case NodeKind::MemberExpr: walk(llvm::cast<MemberExpr>(x)->base); break;
      case NodeKind::MethodExpr: {
        const auto* mm = llvm::cast<MethodExpr>(x);
        walk(mm->base);
        for (const ast::Expr* a : mm->args) walk(a);
        for (const ast::Expr* a : mm->strides) walk(a);
        break;
      }
      case NodeKind::ElementOfExpr: {
        const auto* eo = llvm::cast<ElementOfExpr>(x);
        walk(eo->base);
        for (const ast::Expr* a : eo->args) walk(a);
        break;
      }
      case NodeKind::SubscriptExpr: {
        const auto* sub = llvm::cast<SubscriptExpr>(x);
        walk(sub->base);
        for (const ast::Expr* a : sub->indices) walk(a);
        break;
      }
      case NodeKind::CallExpr:
        for (const ast::Expr* a : llvm::cast<CallExpr>(x)->args) walk(a);
        break;
      case NodeKind::CastExpr: walk(llvm::cast<CastExpr>(x)->operand); break;
      default: break;
    }
  };
  walk(e);
}

ParallelLevel Lowerer::deepestLevelUsed(const ast::Expr* e) const {
  ParallelLevel deepest = ParallelLevel::Block;
  forEachSymbolUsed(e, [&](const sema::Symbol& s) {
    if (s.kind == sema::Symbol::Kind::ParallelVar && s.level > deepest && s.level != ParallelLevel::Term)
      deepest = s.level;
  });
  return deepest;
}

bool Lowerer::groupedBlockOrder(const sema::ParallelLevelInfo& info) const {
  if (options_.blockGroup <= 1 || info.vars.size() != 2 || info.extents.size() != 2) return false;
  for (const sym::SymExpr* e : info.extents)
    if (std::optional<std::int64_t> c = sym::constantValue(e); c && *c <= 1) return false;
  bool userCode = false;
  forEachStmt(kernelInfo_->root, [&](const ast::Stmt* s) {
    if (llvm::isa<CppStmt>(s) || llvm::isa<AsmStmt>(s)) userCode = true;
  });
  return !userCode;
}

// The grid keeps its shape (blockIdx.x over the first extent); the linear
// block number, in the order the hardware starts blocks, is split into groups
// of `G` first-dimension indices: group g covers first indices [g G, g G + G)
// (fewer in the last group) and walks them fastest, then the second index.
void Lowerer::lowerGroupedBlocks(const sema::ParallelLevelInfo& info, llvm::SMLoc loc, std::vector<Stmt*>& into) {
  auto let = [&](const std::string& name, const Expr* value) { return pushLet(m(), into, loc, name, value); };
  const Expr* gx = m().builtin(kir::Builtin::GridDim, 0);
  const Expr* gy = m().builtin(kir::Builtin::GridDim, 1);
  const Expr* linear = let("block_", m().add(m().builtin(kir::Builtin::BlockIdx, 0),
                                                   m().mul(m().builtin(kir::Builtin::BlockIdx, 1), gx)));
  // With clusters, a group holds whole clusters (the grid's x extent is a
  // multiple of the cluster size, so every group's rows are too), so the
  // blocks of a cluster get consecutive first indices and one second index.
  const std::int64_t cluster = kernel_->clusterSize;
  const std::int64_t group = (options_.blockGroup + cluster - 1) / cluster * cluster;
  const Expr* perGroup = m().mul(m().intc(group), gy);
  const Expr* first = let("group_first_", m().mul(m().div(linear, perGroup), m().intc(group)));
  const Expr* rows = let("group_rows_", m().min(m().sub(gx, first), m().intc(group)));
  const Expr* inGroup = let("in_group_", m().mod(linear, perGroup));
  const Expr* values[2] = {m().add(first, m().mod(inGroup, rows)), m().div(inGroup, rows)};
  for (size_t d = 0; d < 2; ++d) {
    if (!info.vars[d]) continue;
    std::string name = nameFor(info.vars[d]);
    bindValue(info.vars[d], let(name, values[d]));
  }
}

bool Lowerer::coversBlock(std::int64_t span) const { return !kernel_->instances && span >= kernel_->threads; }

void Lowerer::firstInstanceOnly(kir::Scope scope, llvm::SMLoc loc, llvm::function_ref<void()> body) {
  // In a block of a run-time number of warps, block-wide work (whose thread
  // count is a constant) is done by the threads of the first instance; the
  // barriers around it stay block-wide.
  if (!kernel_->instances || scope != kir::Scope::Cta || !regions_.empty()) return body();
  Stmt* guard = emit(StmtKind::If, loc);
  guard->cond = m().lt(m().var("tid_"), m().intc(kernel_->threads));
  nested(guard->body, body);
}

std::vector<Stmt*>* Lowerer::lowerRuntimeWarps(const ast::ParallelBinding& b, const sema::ParallelLevelInfo& info,
                                                std::vector<Stmt*>* into) {
  // `parallel w by N : group` (or `: thread`) of a run-time N, the kernel's
  // outermost sub-block level: the launch has exactly N instances of
  // `threads` threads, so instance w is tid_ / threads and no thread is
  // masked.
  LevelFrame frame;
  frame.level = info.level;
  frame.parentSpan = frames_.back().span;
  frame.span = kernel_->threads;
  std::string indexName = fresh(info.level == ParallelLevel::Thread ? "thread" : "warp");
  const Expr* index = m().div(m().var("tid_"), m().intc(frame.span));
  const Expr* idx = pushLet(m(), *into, b.range.Start, indexName, index);
  threadLets_[indexName] = index;
  if (!info.vars.empty() && info.vars[0]) {
    std::string name = nameFor(info.vars[0]);
    threadLets_[name] = idx;
    bindValue(info.vars[0], pushLet(m(), *into, b.range.Start, name, idx));
  }
  frames_.push_back(frame);
  return into;
}

void Lowerer::lowerParallel(const ParallelStmt* p) {
  if (p->isAsync && p != kernelInfo_->root) unreachable("an inner `parallel.async`");
  auto levelsIt = sema_.parallelLevels.find(p);
  std::vector<Stmt*>* into = out_;
  size_t framesBefore = frames_.size();
  size_t masks = 0;
  unsigned blockDim = 0;
  for (size_t bi = 0; bi < p->bindings.size(); ++bi) {
    const ParallelBinding& b = p->bindings[bi];
    ParallelLevel level = b.level;
    if (levelsIt != sema_.parallelLevels.end() && bi < levelsIt->second.size()) level = levelsIt->second[bi];

    // The variables this binding declares (sema's kernel levels record them).
    const sema::ParallelLevelInfo* info = nullptr;
    for (const sema::ParallelLevelInfo& l : kernelInfo_->levels)
      if (l.stmt == p && l.level == level) info = &l;
    if (!info) {
      unreachable("a parallel binding without the kernel level sema recorded for it");
    }
    if (level == ParallelLevel::Block && blockDim == 0 && (p == kernelInfo_->root || kernelInfo_->clusterLevel) &&
        groupedBlockOrder(*info)) {
      lowerGroupedBlocks(*info, b.range.Start, *into);
      blockDim += 2;
      continue;
    }
    if (level == ParallelLevel::Cluster) {
      // The block's rank in its cluster: clusters are consecutive blocks
      // along grid x (sema checked the single constant extent).
      if (!info->vars.empty() && info->vars[0])
        bindValue(info->vars[0],
                  pushLet(m(), *into, b.range.Start, nameFor(info->vars[0]),
                          m().mod(m().builtin(kir::Builtin::BlockIdx, 0), m().intc(kernelInfo_->clusterSize))));
      continue;
    }
    if (level == ParallelLevel::Block || level == ParallelLevel::Device) {
      for (size_t d = 0; d < info->vars.size(); ++d) {
        if (!info->vars[d]) continue;
        if (blockDim + d >= 3) {
          unsupported(DiagKind::err_unsupported_block_level_rank, b.range);
          break;
        }
        bindValue(info->vars[d], pushLet(m(), *into, b.range.Start, nameFor(info->vars[d]),
                                         m().builtin(kir::Builtin::BlockIdx, static_cast<int>(blockDim + d))));
      }
      blockDim += static_cast<unsigned>(info->extents.size());
      continue;
    }

    // Sub-block levels.
    const LevelFrame& parent = frames_.back();
    LevelFrame frame;
    frame.level = level;
    frame.parentSpan = parent.span;
    std::int64_t product = 1;
    std::vector<std::int64_t> extents;
    if (kernelInfo_->runtimeWarps && info->extents.size() == 1 && info->extents[0] == kernelInfo_->runtimeWarps) {
      into = lowerRuntimeWarps(b, *info, into);
      continue;
    }
    for (const sym::SymExpr* e : info->extents) {
      std::optional<std::int64_t> c = sym::constantValue(e);
      if (!c) {
        diags_.report(b.range.Start, DiagKind::err_lower_symbolic, "the parallel extent", sym::print(e),
                      "thread-level extents must be constants");
        return;
      }
      extents.push_back(*c);
      product *= *c;
    }
    frame.span = levelSpan(level);
    if (level == ParallelLevel::Group && parent.level != ParallelLevel::Group4)
      frame.span = std::max<std::int64_t>(1, parent.span / std::max<std::int64_t>(1, product));
    if (level == ParallelLevel::Group && parent.level == ParallelLevel::Group4) frame.span = 32;
    if (level == ParallelLevel::Thread) frame.span = 1;

    const Expr* tid = m().var("tid_");
    const Expr* local = coversBlock(parent.span) ? tid : m().mod(tid, m().intc(parent.span));
    const Expr* index = m().div(local, m().intc(frame.span));
    std::string indexName = fresh(level == ParallelLevel::Thread ? "thread" : level == ParallelLevel::Group ? "warp" : "warpgroup");
    const Expr* idx = pushLet(m(), *into, b.range.Start, indexName, index);
    threadLets_[indexName] = index;
    std::int64_t inner = product;
    for (size_t d = 0; d < info->vars.size() && d < extents.size(); ++d) {
      inner /= extents[d];
      if (!info->vars[d]) continue;
      const Expr* v = m().div(idx, m().intc(inner));
      if (d > 0) v = m().mod(v, m().intc(extents[d]));
      std::string name = nameFor(info->vars[d]);
      threadLets_[name] = v;
      bindValue(info->vars[d], pushLet(m(), *into, b.range.Start, name, v));
    }
    // Threads past the level's instances are masked off.
    if (product * frame.span < parent.span) {
      Stmt* mask = m().stmt(StmtKind::If, b.range.Start);
      mask->cond = m().lt(idx, m().intc(product));
      into->push_back(mask);
      into = &mask->body;
      activeConds_.push_back(mask->cond);
      ++masks;
    }
    frames_.push_back(frame);
  }
  nested(*into, [&] { lowerBody(p->body); });
  activeConds_.resize(activeConds_.size() - masks);
  // Spec 21.1: the threads of an inner parallel finish before the statements
  // after it run.
  if (p != kernelInfo_->root && frames_.size() > framesBefore && frames_[framesBefore].level != ParallelLevel::Block) {
    const LevelFrame& outer = framesBefore > 0 ? frames_[framesBefore - 1] : frames_.front();
    kir::Scope scope = outer.span == 32 && !coversBlock(outer.span) ? kir::Scope::Warp : kir::Scope::Cta;
    if (scope == kir::Scope::Cta && !regions_.empty() && regions_.back().barrierId != 0) {
      // Inside an `inthreads` region: over the region's threads.
      barrier(scope, p->range().End);
    } else {
      Stmt* bar = m().stmt(StmtKind::Barrier, p->range().End);
      bar->scope = scope;
      out_->push_back(bar);
    }
  }
  frames_.resize(framesBefore);
}

}  // namespace croqc::lower
