// `scale-loads`: the row factors of a block scaling (`mma.scale`,
// `mma.<la>.<lb>.scale`) are read from memory that the K block's WGMMAs do
// not touch, but lowering reads them where the program scales: after the
// WGMMAs and the wait for their results, where every thread then stalls on
// the load. The pass moves each factor load (`acc.scale.load`) above the
// WGMMA statements before it in its statement list (arrive, WGMMAs, commit,
// wait, operand fences, and source comments), so that the load is in flight
// while the tensor cores work. It crosses nothing else: not a copy, an event
// wait or a barrier that could fill the scales, nor another factor load,
// whose order it keeps.
#include "lower/LowerImpl.h"

namespace croqc::lower {

namespace {

bool loadMayCross(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::WgmmaArrive:
    case StmtKind::WgmmaExec:
    case StmtKind::WgmmaCommit:
    case StmtKind::WgmmaWait:
    case StmtKind::WgmmaFence:
    case StmtKind::Comment: return true;
    default: return false;
  }
}

void hoistScaleLoads(std::vector<Stmt*>& stmts) {
  for (size_t j = 0; j < stmts.size(); ++j) {
    Stmt* s = stmts[j];
    hoistScaleLoads(s->body);
    hoistScaleLoads(s->elseBody);
    if (s->kind != StmtKind::AccScaleLoad) continue;
    size_t to = j;
    while (to > 0 && loadMayCross(stmts[to - 1])) --to;
    // Keep the source comment that introduces the statement the load
    // now precedes.
    while (to < j && stmts[to]->kind == StmtKind::Comment) ++to;
    if (to == j) continue;
    stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(j));
    stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(to), s);
  }
}

}  // namespace

void loadScaleFactorsEarly(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) hoistScaleLoads(k->body);
}

}  // namespace croqc::lower
