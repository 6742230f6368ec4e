// `wgmma-operand-fences`: an accumulator that asynchronous WGMMAs use
// (`mma.wait<n>` in the kernel, `Fragment::asyncUse`) is filled, stored or
// scaled by ordinary code only after the `mma.wait` before it; an operand
// fence of each of its rows (`wgmma.fence mc[i]`, the compiler-only
// ordering of those registers) right before the statement keeps the
// compiler from moving the access above that wait.
//
// Lowering cannot place these fences itself: whether an accumulator is used
// asynchronously is known only once every MMA of the kernel is lowered, and
// a fill is lowered before the MMAs that follow it. The pass runs after
// `wgmma-zero-init`, so a fill that pass removed gets no fence and a fill it
// moved behind a loop is fenced where it now is.
#include "lower/LowerImpl.h"

namespace croqc::lower {

namespace {

void fenceAccumulators(kir::Module& m, std::vector<Stmt*>& stmts) {
  std::vector<Stmt*> out;
  out.reserve(stmts.size());
  for (Stmt* s : stmts) {
    fenceAccumulators(m, s->body);
    fenceAccumulators(m, s->elseBody);
    if (const kir::Fragment* f = kir::asyncAccumulatorAccessed(s)) {
      for (std::int64_t row = 0; row < f->rows; ++row) {
        Stmt* fence = m.stmt(StmtKind::WgmmaFence, s->loc);
        fence->frag = f;
        fence->count = row;
        out.push_back(fence);
      }
    }
    out.push_back(s);
  }
  stmts = std::move(out);
}

}  // namespace

void fenceAsyncAccumulators(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions) {
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) {
      fenceAccumulators(module, k->body);
      k->accumulatorsFenced = true;
    }
  }
}

}  // namespace croqc::lower
