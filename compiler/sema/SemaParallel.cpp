// Semantic analysis of parallelism (spec section 8): level inference and
// normalisation, the bounded variables of `parallel`, threads per block,
// grid dimensions and the limits of the target.
#include "sema/SemaImpl.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;

namespace {

/// Nesting rank of a level: outer levels are smaller.
int levelRank(ParallelLevel l) {
  switch (l) {
    case ParallelLevel::Term:
    case ParallelLevel::Device:
    case ParallelLevel::Cluster: return -1;
    case ParallelLevel::Block: return 0;
    case ParallelLevel::Group4: return 1;
    case ParallelLevel::Group: return 2;
    case ParallelLevel::Thread: return 3;
    case ParallelLevel::None: return -2;
  }
  return -2;
}

/// Calls `fn` on every statement directly or indirectly inside `s` that is
/// not itself inside a nested `parallel`, and on nested `parallel`s.
template <typename Fn>
void forEachChild(const Stmt* s, Fn&& fn) {
  switch (s->kind()) {
    case NodeKind::CompoundStmt:
      for (const Stmt* c : llvm::cast<CompoundStmt>(s)->body) fn(c);
      return;
    case NodeKind::WithStmt: fn(llvm::cast<WithStmt>(s)->body); return;
    case NodeKind::ForeachStmt: fn(llvm::cast<ForeachStmt>(s)->body); return;
    case NodeKind::WhileStmt: fn(llvm::cast<WhileStmt>(s)->body); return;
    case NodeKind::IfStmt:
      fn(llvm::cast<IfStmt>(s)->then);
      if (llvm::cast<IfStmt>(s)->otherwise) fn(llvm::cast<IfStmt>(s)->otherwise);
      return;
    case NodeKind::InthreadsStmt: fn(llvm::cast<InthreadsStmt>(s)->body); return;
    case NodeKind::ApplyStmt: fn(llvm::cast<ApplyStmt>(s)->body); return;
    case NodeKind::ParallelStmt: fn(llvm::cast<ParallelStmt>(s)->body); return;
    default: return;
  }
}

bool anyAnnotated(const Stmt* s) {
  if (const auto* p = llvm::dyn_cast<ParallelStmt>(s)) {
    for (const ParallelBinding& b : p->bindings)
      if (b.level != ParallelLevel::None) return true;
  }
  bool found = false;
  forEachChild(s, [&](const Stmt* c) { found = found || (c && anyAnnotated(c)); });
  return found;
}

bool anyUnannotated(const Stmt* s) {
  if (const auto* p = llvm::dyn_cast<ParallelStmt>(s)) {
    for (const ParallelBinding& b : p->bindings)
      if (b.level == ParallelLevel::None) return true;
  }
  bool found = false;
  forEachChild(s, [&](const Stmt* c) { found = found || (c && anyUnannotated(c)); });
  return found;
}

}  // namespace

/// The number of parallel binding levels on the deepest chain that starts at
/// `s`: a `parallel` counts its own bindings and those below its body (which
/// may itself be a `parallel`, as in `parallel p by 8 parallel q by 64 ...`).
unsigned Checker::nestHeight(const Stmt* s) const {
  if (!s) return 0;
  if (const auto* p = llvm::dyn_cast<ParallelStmt>(s))
    return static_cast<unsigned>(p->bindings.size()) + nestHeight(p->body);
  unsigned best = 0;
  forEachChild(s, [&](const Stmt* c) {
    if (c) best = std::max(best, nestHeight(c));
  });
  return best;
}

/// Gives every binding of the nest rooted at `root` a level (spec 8.3).
void Checker::inferLevels(const ParallelStmt* root) {
  bool annotated = anyAnnotated(root);
  bool mixed = annotated && anyUnannotated(root);
  if (mixed) diags_.report(root->loc(), DiagKind::warn_parallel_partly_annotated);
  // One error for an ambiguous nest, not one per level.
  bool ambiguityReported = false;
  std::function<void(const Stmt*, ParallelLevel, llvm::SMLoc, unsigned)> visit =
      [&](const Stmt* s, ParallelLevel enclosing, llvm::SMLoc enclosingLoc, unsigned depth) {
    const auto* p = llvm::dyn_cast<ParallelStmt>(s);
    if (!p) {
      forEachChild(s, [&](const Stmt* c) {
        if (c) visit(c, enclosing, enclosingLoc, depth);
      });
      return;
    }
    std::vector<ParallelLevel>& levels = result_.parallelLevels[p];
    levels.clear();
    unsigned below = nestHeight(p->body);
    for (size_t i = 0; i < p->bindings.size(); ++i) {
      const ParallelBinding& b = p->bindings[i];
      unsigned heightBelow = below + static_cast<unsigned>(p->bindings.size() - i - 1);
      ParallelLevel level = b.level;
      bool ambiguous = false;
      if (level == ParallelLevel::None) {
        if (!annotated) {
          unsigned total = depth + heightBelow + 1;
          static const ParallelLevel kTable[4][4] = {
              {ParallelLevel::Thread},
              {ParallelLevel::Block, ParallelLevel::Thread},
              {ParallelLevel::Block, ParallelLevel::Group, ParallelLevel::Thread},
              {ParallelLevel::Block, ParallelLevel::Group4, ParallelLevel::Group, ParallelLevel::Thread}};
          if (total > 4) {
            if (!ambiguityReported) report(b.range, DiagKind::err_parallel_level_ambiguous, total);
            ambiguityReported = true;
            ambiguous = true;
            level = ParallelLevel::Thread;
          } else {
            level = kTable[total - 1][depth];
          }
        } else if (enclosing == ParallelLevel::None) {
          level = heightBelow > 0 ? ParallelLevel::Block : ParallelLevel::Thread;
        } else if (heightBelow == 0) {
          level = ParallelLevel::Thread;
        } else {
          level = heightBelow >= 2 ? ParallelLevel::Group4 : ParallelLevel::Group;
          if (levelRank(level) <= levelRank(enclosing)) level = ParallelLevel::Thread;
        }
      }
      if (!ambiguous && enclosing != ParallelLevel::None && levelRank(level) <= levelRank(enclosing) &&
          !(levelRank(level) < 0 && levelRank(enclosing) < 0)) {
        report(b.range, DiagKind::err_parallel_level_order, parallelLevelName(level), parallelLevelName(enclosing))
            .note(enclosingLoc, DiagKind::note_enclosing_parallel, parallelLevelName(enclosing));
      }
      levels.push_back(level);
      enclosing = level;
      enclosingLoc = b.range.Start;
      ++depth;
    }
    visit(p->body, enclosing, enclosingLoc, depth);
  };
  visit(root, ParallelLevel::None, llvm::SMLoc(), 0);
}

// The threads per block of the innermost `parallel` of a nest: the product of
// its levels on the path from the root, the same for every leaf, and within
// the target's limits.
void Checker::checkThreadsPerBlock(const ParallelStmt* p) {
  std::int64_t g4 = 1, g = 1, t = 1;
  bool hasG4 = false, hasG = false, hasT = false;
  for (const ParallelLevelInfo& l : kernel_->levels) {
    bool onPath = false;
    for (const ParallelFrame& f : parallels_) onPath = onPath || f.stmt == l.stmt;
    if (!onPath) continue;
    std::int64_t product = 1;
    for (const SymExpr* e : l.extents) product *= sym::constantValue(e).value_or(1);
    switch (l.level) {
      case ParallelLevel::Group4: g4 *= product; hasG4 = true; break;
      case ParallelLevel::Group: g *= product; hasG = true; break;
      case ParallelLevel::Thread: t *= product; hasT = true; break;
      default: break;
    }
  }
  std::int64_t unit = hasT ? t : hasG ? 32 : hasG4 ? 128 : 1;
  std::int64_t threads = g4 * g * unit;
  if (hasT && hasG) threads = g4 * g * t;
  if (kernel_->threadsPerCta > 1 && threads != kernel_->threadsPerCta) {
    report(p->range(), DiagKind::err_sibling_block_dims, threads, kernel_->threadsPerCta)
        .note(threadsLeaf_->loc(), DiagKind::note_sibling_parallel, kernel_->threadsPerCta);
  } else if (threads > kernel_->threadsPerCta) {
    kernel_->threadsPerCta = threads;
    threadsLeaf_ = p;
    if (threads > target_.maxThreadsPerCta) {
      report(p->range(), DiagKind::err_threads_per_cta, threads, target_.maxThreadsPerCta, target_.name);
    } else if (hasG4 && threads % 128 != 0) {
      report(p->range(), DiagKind::err_threads_not_multiple, threads, 128, "group-4");
    } else if (hasG && threads % 32 != 0) {
      report(p->range(), DiagKind::err_threads_not_multiple, threads, 32, "group");
    }
  }
}

// `[[maxnreg(n)]]`, `[[launch_bounds(...)]]` on the outermost `parallel`;
// the kernel records their values.
void Checker::checkParallelAttributes(const ParallelStmt* p, bool root) {
  for (const Attribute& a : p->attributes) {
    if (a.name == "schedule") {
      report(a.range, DiagKind::err_schedule_not_mma);
      continue;
    }
    if (!root) report(a.range, DiagKind::err_attribute_not_block, a.name);
    if (a.name == "maxnreg") {
      std::optional<std::int64_t> n = a.args.size() == 1 ? constantOf(a.args[0]) : std::nullopt;
      if (!n || *n <= 0) report(a.range, DiagKind::err_attribute_args, a.name, "one positive integer constant");
      else if (root && kernel_) kernel_->maxRegisters = *n;
    } else if (a.name == "launch_bounds") {
      if (a.args.empty() || a.args.size() > 2) report(a.range, DiagKind::err_attribute_args, a.name, "one or two arguments");
      for (size_t i = 0; i < a.args.size() && i < 2; ++i) {
        if (llvm::isa<WildcardExpr>(a.args[i])) continue;
        intValue(a.args[i], "`launch_bounds`");
        std::optional<std::int64_t> v = constantOf(a.args[i]);
        if (!v) continue;
        if (*v <= 0) report(a.range, DiagKind::err_attribute_args, a.name, "positive integer constants or `_`");
        else if (root && kernel_) (i == 0 ? kernel_->launchBoundThreads : kernel_->launchMinBlocks) = *v;
      }
    }
  }
}

void Checker::checkParallel(const ParallelStmt* p) {
  bool root = parallels_.empty();
  if (root) {
    if (!function_) return;
    KernelInfo& k = function_->kernels.emplace_back();
    k.root = p;
    k.name = functionDecl_->name.str() + "_kernel" + std::to_string(function_->kernels.size() - 1);
    kernel_ = &k;
    inferLevels(p);
  }
  const std::vector<ParallelLevel>& levels = result_.parallelLevels[p];
  if (p->isAsync && !root) report(p->range(), DiagKind::err_inner_parallel_async);
  if (!p->stream.empty()) {
    if (!root) report(p->range(), DiagKind::err_stream_not_block);
    Symbol* s = lookup(p->stream);
    if (!s || s->type.kind != TypeKind::Stream) report(p->range(), DiagKind::err_stream_not_parameter, p->stream);
  }
  checkParallelAttributes(p, root);
  pushScope(ScopeKind::Parallel, "paraby");
  ParallelFrame frame;
  frame.stmt = p;
  for (size_t i = 0; i < p->bindings.size(); ++i) {
    const ParallelBinding& b = p->bindings[i];
    ParallelLevel level = i < levels.size() ? levels[i] : ParallelLevel::Thread;
    if (b.cooperative) {
      if (level != ParallelLevel::Block) report(b.range, DiagKind::err_cooperative_not_block);
      frame.cooperative = true;
      if (kernel_) kernel_->cooperative = true;
    }
    if (level == ParallelLevel::Group4 && !target_.hasWarpgroups)
      report(b.range, DiagKind::err_group4_needs_sm90, target_.name);
    SymList extents;
    for (const Expr* e : b.extents) {
      Type t = check(e);
      if (t.kind == TypeKind::Ituple) {
        extents.append(t.values.begin(), t.values.end());
        continue;
      }
      if (t.kind == TypeKind::Mdspan) {
        extents.append(t.shape.begin(), t.shape.end());
        continue;
      }
      if (!t.isIntegral()) {
        if (!t.isError()) report(e->range(), DiagKind::err_parallel_extent_type, describe(t));
        extents.push_back(unknown());
        continue;
      }
      const SymExpr* v = valueOf(e);
      std::optional<std::int64_t> c = sym::constantValue(v);
      if (c && *c <= 0) report(e->range(), DiagKind::err_parallel_extent_non_positive, *c);
      else if (!c && (level == ParallelLevel::Group || level == ParallelLevel::Thread) && !sym::isUnknown(v) &&
               runtimeWarpCountAllowed(b))
        kernel_->runtimeWarps = v;
      else if (!c && (level == ParallelLevel::Group || level == ParallelLevel::Group4) && !sym::isUnknown(v))
        report(e->range(), DiagKind::err_parallel_extent_not_constant, parallelLevelName(level), sym::printForUser(v));
      extents.push_back(v);
    }
    ParallelLevelInfo info;
    info.level = level;
    info.extents = extents;
    info.stmt = p;
    auto declareVar = [&](StringRef name, const SymExpr* extent) -> const Symbol* {
      if (name == "_") return nullptr;  // an anonymous level: `parallel _ by 1 : group-4`
      Type t = Type::simple(TypeKind::Bounded);
      t.shape = {extent};
      Symbol* s = declare(name, b.range.Start, Symbol::Kind::ParallelVar, t, false);
      s->value = sym().boundedSymbol(s->qualifiedName, 0, extent);
      s->type.values = {s->value};
      s->level = level;
      return s;
    };
    if (!b.elements.empty()) {
      if (b.elements.size() != extents.size())
        report(b.range, DiagKind::err_parallel_binding_count, b.elements.size(), extents.size());
      // `q = {q0, q1} by [...]`: the tuple's values are its elements'.
      SymList values;
      for (size_t d = 0; d < b.elements.size(); ++d) {
        info.vars.push_back(declareVar(b.elements[d], d < extents.size() ? extents[d] : unknown()));
        values.push_back(info.vars.back() ? info.vars.back()->value : unknown());
      }
      if (!b.name.empty()) {
        Type t = Type::simple(TypeKind::BoundedTuple);
        t.shape = extents;
        if (values.size() == extents.size()) t.values = values;
        Symbol* s = declare(b.name, b.range.Start, Symbol::Kind::ParallelVar, t, false);
        s->level = level;
      }
    } else if (!b.name.empty()) {
      if (extents.size() == 1) {
        info.vars.push_back(declareVar(b.name, extents[0]));
      } else {
        Type t = Type::simple(TypeKind::BoundedTuple);
        t.shape = extents;
        Symbol* s = declare(b.name, b.range.Start, Symbol::Kind::ParallelVar, t, false);
        s->level = level;
        for (Symbol* e : tupleElements(s)) info.vars.push_back(e);
      }
    }
    if (level == ParallelLevel::Block && extents.size() > 3) report(b.range, DiagKind::err_grid_rank, extents.size());
    if (level == ParallelLevel::Cluster && kernel_) checkClusterLevel(b, info);
    if (level == ParallelLevel::Block && kernel_ && kernel_->clusterLevel && kernel_->gridDims.empty() &&
        !info.vars.empty())
      kernel_->clusterBlockVar = info.vars[0];
    frame.levels.push_back(level);
    if (kernel_) {
      if (level == ParallelLevel::Block && kernel_->gridDims.empty()) kernel_->gridDims = extents;
      kernel_->levels.push_back(std::move(info));
    }
  }
  parallels_.push_back(frame);

  // A leaf of the nest fixes the number of threads per block.
  if (kernel_ && nestHeight(p->body) == 0) checkThreadsPerBlock(p);

  if (const auto* c = llvm::dyn_cast<CompoundStmt>(p->body)) checkCompound(c);
  else checkStmt(p->body);
  parallels_.pop_back();
  popScope();
  if (root && kernel_) {
    finishKernel(*kernel_);
    kernel_ = nullptr;
  }
}

bool Checker::runtimeWarpCountAllowed(const ParallelBinding& b) const {
  // The outermost sub-block level of a kernel, one extent: the block has
  // that many warps (each of the threads below it) or threads, set at the
  // launch.
  if (!kernel_ || kernel_->runtimeWarps || b.extents.size() != 1) return false;
  return llvm::none_of(kernel_->levels, [](const ParallelLevelInfo& l) {
    return l.level == ParallelLevel::Group4 || l.level == ParallelLevel::Group || l.level == ParallelLevel::Thread;
  });
}

void Checker::checkClusterLevel(const ParallelBinding& b, const ParallelLevelInfo& info) {
  kernel_->clusterLevel = true;
  if (target_.isGpu && !target_.hasClusters) report(b.range, DiagKind::err_cluster_needs_sm90, target_.name);
  std::optional<std::int64_t> size = info.extents.size() == 1 ? sym::constantValue(info.extents[0]) : std::nullopt;
  if (!size || *size < 1 || *size > 8) {
    std::string found;
    for (const SymExpr* e : info.extents) found += (found.empty() ? "" : ", ") + sym::printForUser(e);
    report(b.range, DiagKind::err_cluster_size, "[" + found + "]");
    return;
  }
  kernel_->clusterSize = *size;
  if (!info.vars.empty()) kernel_->clusterRank = info.vars[0];
}

void Checker::finishKernel(KernelInfo& kernel) {
  if (kernel.clusterLevel && kernel.gridDims.empty())
    report(kernel.root->range(), DiagKind::err_cluster_without_block);
  if (kernel.gridDims.empty()) kernel.gridDims = {sym().constant(1)};
  for (const Attribute& a : kernel.root->attributes) {
    if (a.name != "launch_bounds" || a.args.empty() || llvm::isa<WildcardExpr>(a.args[0])) continue;
    std::optional<std::int64_t> bound = constantOf(a.args[0]);
    if (bound && *bound < kernel.threadsPerCta)
      report(a.range, DiagKind::err_launch_bounds_too_small, *bound, kernel.threadsPerCta);
  }
  if (kernel.sharedBytes > target_.maxSharedBytes)
    report(kernel.root->range(), DiagKind::err_shared_memory_capacity, kernel.sharedBytes, target_.maxSharedBytes,
           target_.name);
}

void Checker::checkSync(const SyncStmt* s) {
  if (parallels_.empty()) {
    report(s->range(), DiagKind::err_device_only_statement, "a synchronisation");
    return;
  }
  if (s->syncKind == SyncStmt::Kind::Barrier && s->level == ParallelLevel::Device) {
    bool cooperative = false;
    for (const ParallelFrame& f : parallels_) cooperative = cooperative || f.cooperative;
    if (!cooperative) report(s->range(), DiagKind::err_grid_barrier_not_cooperative);
  }
}

}  // namespace croqc::sema
