// `wgmma-arrive`: every `mma` statement is lowered with a `wgmma.fence`
// (`wgmma.arrive` in KIR) before its WGMMAs, which orders the warpgroup's
// earlier register accesses before them. Between two WGMMAs that follow
// one another with nothing but compiler-only operand fences between them,
// the second fence orders nothing: the PTX ISA needs `wgmma.fence` after a
// register access by the threads, and WGMMAs of one shape on the same
// accumulator are ordered among themselves. The pass drops such a fence,
// so that a K tile written as several `mma` statements issues its WGMMAs
// back to back, as one statement's would be. It keeps every fence that a
// load, a store, a fill, a wait, a commit or any other statement precedes.
//
// The registers of the later WGMMA's metadata (or register A) were loaded
// before the fence that stays, in program order, but only their operand
// fence keeps the compiler from sinking the load below it: the pass moves
// those operand fences above the fence that stays.
#include "lower/LowerImpl.h"

namespace croqc::lower {

namespace {

bool onlyOrdersRegisters(const Stmt* s) { return s->kind == StmtKind::WgmmaFence || s->kind == StmtKind::Comment; }

// WGMMA `next` may follow `prev` without a wgmma.fence between them.
bool mayFollow(const Stmt* prev, const Stmt* next) {
  if (prev->frag != next->frag) return true;
  return prev->step == next->step && prev->dst.extents == next->dst.extents && !prev->fragA && !next->fragA;
}

bool fencesOperandRegisters(const Stmt* s) {
  return s->kind == StmtKind::WgmmaFence && s->frag && s->frag->role != kir::FragRole::C;
}

void dropArrives(std::vector<Stmt*>& stmts) {
  std::vector<Stmt*> out;
  out.reserve(stmts.size());
  // The WGMMAs since the last wgmma.fence (at `kept` in `out`), while only
  // WGMMAs and operand fences have followed it.
  std::vector<const Stmt*> run;
  bool open = false;
  size_t kept = 0;
  for (size_t j = 0; j < stmts.size(); ++j) {
    Stmt* s = stmts[j];
    dropArrives(s->body);
    dropArrives(s->elseBody);
    if (s->kind == StmtKind::WgmmaArrive) {
      size_t n = j + 1;
      while (n < stmts.size() && onlyOrdersRegisters(stmts[n])) ++n;
      const Stmt* next = n < stmts.size() ? stmts[n] : nullptr;
      const bool redundant = open && next && next->kind == StmtKind::WgmmaExec &&
                             llvm::all_of(run, [&](const Stmt* prev) { return mayFollow(prev, next); });
      if (redundant) {
        // Operand fences since the kept fence, and up to the WGMMA, go above it.
        std::vector<Stmt*> hoisted;
        for (size_t i = kept + 1; i < out.size();) {
          if (fencesOperandRegisters(out[i])) {
            hoisted.push_back(out[i]);
            out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
          } else {
            ++i;
          }
        }
        for (size_t i = j + 1; i < n; ++i)
          if (fencesOperandRegisters(stmts[i])) hoisted.push_back(stmts[i]);
        stmts.erase(std::remove_if(stmts.begin() + static_cast<std::ptrdiff_t>(j + 1),
                                   stmts.begin() + static_cast<std::ptrdiff_t>(n), fencesOperandRegisters),
                    stmts.begin() + static_cast<std::ptrdiff_t>(n));
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(kept), hoisted.begin(), hoisted.end());
        kept += hoisted.size();
        continue;
      }
      open = true;
      run.clear();
      kept = out.size();
    } else if (s->kind == StmtKind::WgmmaExec && open) {
      run.push_back(s);
    } else if (!onlyOrdersRegisters(s)) {
      open = false;
      run.clear();
    }
    out.push_back(s);
  }
  stmts = std::move(out);
}

}  // namespace

void dropRedundantWgmmaArrives(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) dropArrives(k->body);
}

}  // namespace croqc::lower
