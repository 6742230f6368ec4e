// `wgmma-register-operands`: a WGMMA reads its register operands (sparse
// metadata, register A) asynchronously, until the `wgmma.wait` that retires
// its group. To nvcc the registers are dead once the WGMMA's asm has been
// issued, so it may give them to anything after that: the next K tile's
// metadata, an address. A program that keeps a committed group in flight
// (`mma.wait<1>`) across the end of the scope that declared such a
// fragment, or across a reload of it, then feeds the tensor cores other
// values (on the H200, a sparse GEMM so written gives wrong results).
//
// The pass keeps such a fragment's registers until the groups that read
// them are retired: where its scope ends with one of them committed and
// possibly still in flight, and before a reload of it while one is, it
// puts a `wgmma.wait` that retires them (newer groups stay in flight), and
// then an operand fence of the fragment, which keeps its registers live up
// to the wait. WGMMAs not yet committed are left as the program orders
// them: programs that reload metadata between the WGMMAs of one group and
// then retire it give the right results. The pass warns once per fragment,
// since the wait shortens the pipeline the program asked for.
#include "basic/Diagnostic.h"
#include "lower/LowerImpl.h"

namespace croqc::lower {

namespace {

using FragSet = llvm::SmallVector<const kir::Fragment*, 4>;

// The register operands of an asynchronous WGMMA, among `watched`.
FragSet registersRead(const Stmt* s, const FragSet& watched) {
  FragSet out;
  if (s->kind != StmtKind::WgmmaExec || !s->async) return out;
  for (const kir::Fragment* f : {s->fragA, s->fragB})
    if (f && llvm::is_contained(watched, f)) out.push_back(f);
  return out;
}

bool anyStmt(const std::vector<Stmt*>& stmts, llvm::function_ref<bool(const Stmt*)> pred) {
  for (const Stmt* s : stmts)
    if (pred(s) || anyStmt(s->body, pred) || anyStmt(s->elseBody, pred)) return true;
  return false;
}

void addAll(FragSet& to, const FragSet& from) {
  for (const kir::Fragment* f : from)
    if (!llvm::is_contained(to, f)) to.push_back(f);
}

// The WGMMA groups of one scope, oldest first, as far as its own statements
// tell: the watched fragments each reads.
struct Groups {
  std::vector<FragSet> committed;
  FragSet open;              // read by WGMMAs not committed yet
  FragSet unknown;           // in flight across the commits and waits of
                             // nested statements
  const Stmt* reader = nullptr;

  // The fragments read by committed groups that may be in flight.
  FragSet inFlight() const {
    FragSet all = unknown;
    for (const FragSet& g : committed) addAll(all, g);
    return all;
  }
  // The depth of a `wgmma.wait` that retires every group reading them.
  std::int64_t retiringDepth() const {
    if (!unknown.empty()) return 0;
    std::int64_t newer = 0;
    for (auto it = committed.rbegin(); it != committed.rend() && it->empty(); ++it) ++newer;
    return newer;
  }
  void step(const Stmt* s, const FragSet& watched) {
    switch (s->kind) {
      case StmtKind::WgmmaExec: {
        FragSet read = registersRead(s, watched);
        if (!read.empty() && !reader) reader = s;
        addAll(open, read);
        return;
      }
      case StmtKind::WgmmaCommit:
        committed.push_back(open);
        open.clear();
        return;
      case StmtKind::WgmmaWait: {
        const auto keep = static_cast<std::size_t>(std::max<std::int64_t>(s->count, 0));
        if (committed.size() > keep) committed.erase(committed.begin(), committed.end() - static_cast<std::ptrdiff_t>(keep));
        if (keep == 0) unknown.clear();
        return;
      }
      default: break;
    }
    // Nested statements: what they read joins the open WGMMAs; if they also
    // commit or wait, what is in flight after them is not known exactly.
    FragSet nested;
    bool groups = false;
    auto visit = [&](const Stmt* x) {
      addAll(nested, registersRead(x, watched));
      groups = groups || x->kind == StmtKind::WgmmaCommit || x->kind == StmtKind::WgmmaWait;
      return false;
    };
    anyStmt(s->body, visit);
    anyStmt(s->elseBody, visit);
    if (!nested.empty() && !reader) reader = s;
    addAll(open, nested);
    if (!groups) return;
    addAll(unknown, inFlight());
    addAll(unknown, open);
    committed.clear();
    open.clear();
  }
};

class RegisterOperands {
 public:
  RegisterOperands(kir::Module& m, DiagnosticEngine& diags) : m_(m), diags_(diags) {}

  void run(std::vector<Stmt*>& stmts) {
    for (Stmt* s : stmts) {
      run(s->body);
      run(s->elseBody);
    }
    // The fragments this scope declares that asynchronous WGMMAs read.
    FragSet declared, watched;
    for (const Stmt* s : stmts)
      if (s->kind == StmtKind::FragDecl && s->frag) declared.push_back(s->frag);
    anyStmt(stmts, [&](const Stmt* x) {
      addAll(watched, registersRead(x, declared));
      return false;
    });
    if (!watched.empty()) retire(stmts, watched);
  }

 private:
  // Retires the readers of a watched fragment before its reload, before
  // leaving the scope early, and at the scope's end.
  void retire(std::vector<Stmt*>& stmts, const FragSet& watched) {
    Groups g;
    for (size_t j = 0; j < stmts.size(); ++j) {
      const Stmt* s = stmts[j];
      const FragSet flying = g.inFlight();
      const bool reload = s->kind == StmtKind::AtomLoad && llvm::is_contained(flying, s->frag);
      const bool leaves = s->kind == StmtKind::Break || s->kind == StmtKind::Continue || s->kind == StmtKind::Return;
      if (reload || (leaves && !flying.empty())) {
        // Before the source comment that introduces the statement.
        size_t at = j;
        while (at > 0 && stmts[at - 1]->kind == StmtKind::Comment) --at;
        j += insertRetire(stmts, at, g);
        g = Groups{};
      }
      g.step(stmts[j], watched);
    }
    if (!g.inFlight().empty()) insertRetire(stmts, stmts.size(), g);
  }

  // Puts the retiring wait and the operand fences before `at`; returns how
  // many statements it added.
  size_t insertRetire(std::vector<Stmt*>& stmts, size_t at, const Groups& g) {
    const llvm::SMLoc loc = g.reader ? g.reader->loc : llvm::SMLoc();
    std::vector<Stmt*> added;
    Stmt* wait = m_.stmt(StmtKind::WgmmaWait, loc);
    wait->count = g.retiringDepth();
    added.push_back(wait);
    const FragSet flying = g.inFlight();
    for (const kir::Fragment* f : flying) {
      const bool meta = f->role == kir::FragRole::E;
      for (std::int64_t row = 0; row < (meta ? f->rows : 1); ++row) {
        Stmt* fence = m_.stmt(StmtKind::WgmmaFence, loc);
        fence->frag = f;
        fence->count = meta ? row : -1;
        added.push_back(fence);
      }
    }
    stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
    for (const kir::Fragment* f : flying) {
      if (!warned_.insert(f).second || !loc.isValid()) continue;
      diags_.report(loc, DiagKind::warn_wgmma_register_operand_wait,
                    f->role == kir::FragRole::E ? "metadata" : "A operand", wait->count);
      break;
    }
    return added.size();
  }

  kir::Module& m_;
  DiagnosticEngine& diags_;
  llvm::DenseSet<const kir::Fragment*> warned_;
};

}  // namespace

void retireWgmmaRegisterOperands(kir::Module& module, DiagnosticEngine& diags) {
  RegisterOperands pass(module, diags);
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) pass.run(k->body);
}

}  // namespace croqc::lower
