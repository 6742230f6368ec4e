// Lowering of one top-level `parallel` to a kernel: its name, launch shape
// and parameters, the lowering state that is per kernel, its body, and the
// prologue that the body's lowering asks for (the async-copy counter, event
// and mbarrier initialisation) with the wrapper's TMA condition.
#include "lower/LowerImpl.h"

#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/STLExtras.h>

#include <utility>

#include "sema/Sema.h"

namespace croqc::lower {

using namespace ast;

void Lowerer::lowerKernel(const ParallelStmt* root, const sema::KernelInfo& info) {
  auto k = std::make_unique<kir::Kernel>();
  kernel_ = k.get();
  kernelInfo_ = &info;
  kernelLaunchShape(*k, root, info);
  kernelParams(*k);
  // The kernel's generated names (`kt_3`, `mc_5`, a shadowing `a_7`) are
  // numbered and kept apart within the kernel, so that adding a kernel
  // before it in the function renames nothing in it. The only names of the
  // wrapper in its scope are its parameters', which they skip. The
  // wrapper's numbering and names carry on after it.
  unsigned wrapperCounter = std::exchange(freshCounter_, 0);
  llvm::DenseMap<const sema::Symbol*, std::string> wrapperNames = names_;
  for (const kir::KernelParam& p : k->params) kernelParamNames_.insert(p.name);

  std::vector<Stmt*> body;
  resetKernelState(root, info);
  frames_.push_back({ParallelLevel::Block, k->threads, k->threads});
  nested(body, [&] {
    Stmt* tid = emit(StmtKind::Let, root->loc());
    tid->var = "tid_";
    tid->value = m().builtin(kir::Builtin::ThreadIdx, 0);
    tid->type = kir::ScalarType::integer();
    tid->maybeUnused = true;
    lowerParallel(root);
  });
  finishPrologue(*k, root->loc());
  // ptxas honours `setmaxnreg` only where it knows the registers a thread
  // has at the kernel's entry, which a minimum of one block per SM fixes
  // (65536 / threads); without it, it drops the instruction.
  if (reallocatesRegisters_ && k->launchBoundThreads && !k->launchMinBlocks) k->launchMinBlocks = 1;
  if (k->clusterSize > 1) {
    // No block leaves while the others of its cluster may still arrive on
    // its events or copy into its shared memory.
    Stmt* last = m().stmt(StmtKind::Barrier, root->loc());
    last->scope = kir::Scope::Cluster;
    body.push_back(last);
  }
  if (!tensorMaps_.empty()) tmaLaunchCondition(*k);
  k->body = std::move(prologue_);
  k->body.insert(k->body.begin(), body.front());
  k->body.insert(k->body.end(), body.begin() + 1, body.end());
  prologue_.clear();
  freshCounter_ = wrapperCounter;
  names_ = std::move(wrapperNames);
  kernelParamNames_.clear();
  function_->kernels.push_back(std::move(k));
  kernel_ = nullptr;
  kernelInfo_ = nullptr;
}

void Lowerer::kernelLaunchShape(kir::Kernel& k, const ParallelStmt* root, const sema::KernelInfo& info) {
  size_t index = function_->kernels.size();
  k.name = "__croqtile_device_" + function_->name + (index ? "_" + std::to_string(index) : "");
  // The CPU target takes a kernel's address, which an overloaded name does
  // not give: a name already used gets a suffix.
  for (int n = 2; !kernelNames_.insert(k.name).second; ++n)
    k.name = "__croqtile_device_" + function_->name + (index ? "_" + std::to_string(index) : "") + "_v" +
             std::to_string(n);
  k.loc = root->loc();
  k.threads = std::max<std::int64_t>(1, info.threadsPerCta);
  if (info.runtimeWarps) k.instances = lowerSym(info.runtimeWarps, root->loc());
  k.cooperative = info.cooperative;
  // The launch bound: the block's threads (a block of a run-time number of
  // warps: the most a block can have), or what `[[launch_bounds]]` says.
  // With `[[maxnreg]]` there is none: nvcc rejects __launch_bounds__ beside
  // __maxnreg__, and the explicit register cap is the stronger request (sema
  // has still checked the bound against the thread count).
  k.maxRegisters = info.maxRegisters;
  if (!k.maxRegisters) {
    k.launchBoundThreads = info.launchBoundThreads ? info.launchBoundThreads : k.instances ? 1024 : k.threads;
    k.launchMinBlocks = info.launchMinBlocks;
  }
  for (const sym::SymExpr* g : info.gridDims) k.grid.push_back(lowerSym(g, root->loc()));
  if (k.grid.empty()) k.grid.push_back(m().intc(1));
  if (info.clusterSize > 1 && !cpuTarget()) {
    // A cluster's blocks are consecutive along x: the grid's x extent is a
    // multiple of the cluster size. The extra blocks load zeros (TMA fills
    // rows past the tensor with them) and store nothing (stores are
    // clipped). The CPU target runs a cluster's blocks as independent
    // blocks, where a multicast copy is an ordinary copy.
    k.clusterSize = info.clusterSize;
    const Expr* c = m().intc(info.clusterSize);
    k.grid[0] = m().mul(m().cdiv(k.grid[0], c), c);
  }
}

void Lowerer::kernelParams(kir::Kernel& k) {
  // Every global buffer and every integer the kernel may read.
  for (const kir::Buffer* b : globalBuffers_)
    k.params.push_back(kir::KernelParam::ofBuffer(b));
  llvm::DenseSet<llvm::StringRef> seen;
  for (const kir::HostStmt& h : function_->wrapper) {
    // Values the host code computed (at the top level of the body).
    if (h.kind == kir::HostStmt::Kind::Code) {
      for (const Stmt* st : h.code)
        if (st->kind == StmtKind::Let && seen.insert(st->var).second)
          k.params.push_back(kir::KernelParam::scalar(st->var, st->type, st->var));
      continue;
    }
    if (h.kind == kir::HostStmt::Kind::Let && seen.insert(h.var).second)
      k.params.push_back(kir::KernelParam::scalar(h.var, h.type, h.var));
  }
  for (const sema::Symbol* p : functionInfo_->params) {
    if (p->type.kind == sema::TypeKind::Int || p->type.kind == sema::TypeKind::Element ||
        p->type.kind == sema::TypeKind::Bool) {
      std::string name = nameFor(p);
      kir::ScalarType type = p->type.kind == sema::TypeKind::Int    ? kir::ScalarType::integer()
                             : p->type.kind == sema::TypeKind::Bool ? kir::ScalarType::boolean()
                                                                    : kir::ScalarType::element(p->type.elem);
      k.params.push_back(kir::KernelParam::scalar(name, type, name));
    }
  }
}

void Lowerer::resetKernelState(const ParallelStmt* root, const sema::KernelInfo& info) {
  prologue_.clear();
  launchChecks_.clear();
  frames_.clear();
  anyAsyncCopy_ = false;
  asyncFutures_.clear();
  wgmma_ = target_.hasWgmma &&
           llvm::any_of(info.levels, [](const sema::ParallelLevelInfo& l) { return l.level == ParallelLevel::Group4; });
  swizzled_.clear();
  wgOperands_.clear();
  stagedOperands_.clear();
  tensorMaps_.clear();
  tmaFutures_.clear();
  tmaDests_.clear();
  tmaHostConditions_.clear();
  anyMbarrier_ = false;
  reallocatesRegisters_ = false;
  regions_.clear();
  nextNamedBarrier_ = 1;
  warpgroupBarrierBase_ = 0;
  activeConds_.clear();
  threadLets_.clear();
  events_.clear();
  eventBound_.clear();
  boundBytes_.clear();
  pendingEventBytes_.clear();
  findEventBoundCopies(root);
  findViewBindings(root);
  asyncWgmma_ = false;
  commitWaits_ = false;
  wgmmaUncommitted_ = false;
  if (wgmma_) {
    bool commits = false, waits = false;
    forEachStmt(root, [&](const ast::Stmt* s) {
      waits = waits || llvm::isa<MmaWaitStmt>(s);
      commits = commits || llvm::isa<MmaCommitStmt>(s);
    });
    asyncWgmma_ = waits || commits;
    commitWaits_ = commits && !waits;
  }
  if (target_.isGpu && target_.hasTma) findTmaDestinations(root);
  if (wgmma_) findWgmmaOperands(root);
  scaledAccumulators_.clear();
  kblockPartials_.clear();
  if (wgmma_) findScaledAccumulators(root);
}

void Lowerer::finishPrologue(const kir::Kernel& k, llvm::SMLoc loc) {
  if (anyAsyncCopy_) {
    Stmt* issued = m().stmt(StmtKind::Let, loc);
    issued->var = "async_issued_";
    issued->isMutable = true;
    issued->maybeUnused = true;
    issued->value = m().intc(0);
    prologue_.insert(prologue_.begin(), issued);
  }
  for (auto& [sym, info] : events_) {
    std::int64_t count = info.declaredCount ? info.declaredCount
                                            : std::max<std::int64_t>(info.arrivals(), 1) * std::max<std::int64_t>(info.cluster, 1);
    info.init->buffer = info.buffer;
    info.init->count = info.elements;
    info.init->threads = count;
    info.init->text = sym->name;
  }
  if (anyMbarrier_) {
    // mbarrier.init is visible to the other threads and the copy engine
    // after this fence and a barrier.
    std::vector<Stmt*>* saved = out_;
    out_ = &prologue_;
    emit(StmtKind::Fence, loc)->fence = kir::FenceKind::MbarrierInit;
    emit(StmtKind::Barrier, loc)->scope = k.clusterSize > 1 ? kir::Scope::Cluster : kir::Scope::Cta;
    out_ = saved;
  }
}

void Lowerer::tmaLaunchCondition(kir::Kernel& k) {
  // TMA is used when every tensor map (there is one at least) could be
  // made and the run-time extents of the tiles it copies are the boxes'.
  const Expr* all = nullptr;
  for (const auto& [key, name] : tensorMaps_)
    all = m().logicalAnd(all, m().var(name + "_ok", kir::ScalarType::boolean()));
  for (const Expr* c : tmaHostConditions_) all = m().logicalAnd(all, c);
  std::string var = "tma_ok_" + std::to_string(function_->kernels.size());
  kir::HostStmt& h = appendHostStmt(kir::HostStmt::Kind::Local);
  h.var = var;
  h.type = kir::ScalarType::integer();
  h.value = m().select(all, m().intc(1), m().intc(0), kir::ScalarType::integer());
  k.params.push_back(kir::KernelParam::scalar("tma_ok_", kir::ScalarType::integer(), var));
}

}  // namespace croqc::lower
