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
// to the wait. It follows the committed groups into nested statements: the
// branches of an `if` meet with what either left in flight, and a loop body
// starts with what the loop's entry and the body's own previous iteration
// left (a register set reloaded for the next K tile while the group of the
// previous K tile that read it is in flight is a reload across the back
// edge). WGMMAs not yet committed are left as the program orders
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

bool intersects(const FragSet& a, const FragSet& b) {
  return llvm::any_of(a, [&](const kir::Fragment* f) { return llvm::is_contained(b, f); });
}

bool sameSet(const FragSet& a, const FragSet& b) {
  return a.size() == b.size() && llvm::all_of(a, [&](const kir::Fragment* f) { return llvm::is_contained(b, f); });
}

// The WGMMA groups that may be in flight at a point of a scope, oldest
// first: the watched fragments each reads.
struct Groups {
  std::vector<FragSet> committed;
  FragSet open;     // read by WGMMAs not committed yet
  FragSet unknown;  // in flight in committed groups of unknown age (a loop
                    // whose groups did not settle)
  const Stmt* reader = nullptr;

  // The fragments read by committed groups that may be in flight.
  FragSet inFlight() const {
    FragSet all = unknown;
    for (const FragSet& g : committed) addAll(all, g);
    return all;
  }
  // The depth of a `wgmma.wait` that retires every group reading one of
  // `which`: the number of groups newer than the newest such group.
  std::int64_t retiringDepth(const FragSet& which) const {
    if (intersects(unknown, which)) return 0;
    std::int64_t newer = 0;
    for (auto it = committed.rbegin(); it != committed.rend() && !intersects(*it, which); ++it) ++newer;
    return newer;
  }
  // The fragments read by the groups a `wgmma.wait` of depth `keep` retires.
  FragSet retiredBy(std::int64_t keep) const {
    FragSet out = keep == 0 ? unknown : FragSet{};
    const auto older = committed.size() - std::min(committed.size(), static_cast<std::size_t>(keep));
    for (std::size_t i = 0; i < older; ++i) addAll(out, committed[i]);
    return out;
  }
  void wait(std::int64_t keep) {
    const auto k = static_cast<std::size_t>(std::max<std::int64_t>(keep, 0));
    if (committed.size() > k) committed.erase(committed.begin(), committed.end() - static_cast<std::ptrdiff_t>(k));
    if (k == 0) unknown.clear();
  }
  void exec(const Stmt* s, const FragSet& watched) {
    FragSet read = registersRead(s, watched);
    if (!read.empty() && !reader) reader = s;
    addAll(open, read);
  }
  void commit() {
    committed.push_back(open);
    open.clear();
  }

  // What may be in flight where two paths meet (the branches of an `if`, a
  // loop's entry and its back edge): groups of the same age, counted from
  // the newest, read what either path's read.
  static Groups join(const Groups& a, const Groups& b) {
    Groups out;
    const std::size_t n = std::max(a.committed.size(), b.committed.size());
    out.committed.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (i < a.committed.size()) addAll(out.committed[n - 1 - i], a.committed[a.committed.size() - 1 - i]);
      if (i < b.committed.size()) addAll(out.committed[n - 1 - i], b.committed[b.committed.size() - 1 - i]);
    }
    // Groups that read nothing watched and are older than every group that
    // does make no difference to a wait's depth: drop them so that joins
    // settle.
    while (!out.committed.empty() && out.committed.front().empty()) out.committed.erase(out.committed.begin());
    out.open = a.open;
    addAll(out.open, b.open);
    out.unknown = a.unknown;
    addAll(out.unknown, b.unknown);
    out.reader = a.reader ? a.reader : b.reader;
    return out;
  }
  bool sameAs(const Groups& o) const {
    if (committed.size() != o.committed.size() || !sameSet(open, o.open) || !sameSet(unknown, o.unknown)) return false;
    for (std::size_t i = 0; i < committed.size(); ++i)
      if (!sameSet(committed[i], o.committed[i])) return false;
    return true;
  }
};

class RegisterOperands {
 public:
  RegisterOperands(kir::Module& m, DiagnosticEngine& diags) : m_(m), diags_(diags) {}

  // Each kernel has its own budget of statements walked.
  void runKernel(std::vector<Stmt*>& body) {
    visits_ = 0;
    run(body);
  }

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
    if (watched.empty()) return;
    Groups g;
    walk(stmts, g, watched);
    if (!g.inFlight().empty()) insertRetire(stmts, stmts.size(), g, g.inFlight());
  }

 private:
  // Follows the groups in flight through `stmts` (and the statements nested
  // in them) and retires the readers of a watched fragment before it is
  // reloaded, and all of them before a jump out of a loop or the kernel.
  void walk(std::vector<Stmt*>& stmts, Groups& g, const FragSet& watched) {
    visits_ += stmts.size();
    for (size_t j = 0; j < stmts.size(); ++j) {
      const Stmt* s = stmts[j];
      const FragSet flying = g.inFlight();
      const bool reload = s->kind == StmtKind::AtomLoad && llvm::is_contained(flying, s->frag);
      const bool leaves = s->kind == StmtKind::Break || s->kind == StmtKind::Continue || s->kind == StmtKind::Return;
      if (reload || (leaves && !flying.empty())) {
        // Before the source comment that introduces the statement.
        size_t at = j;
        while (at > 0 && stmts[at - 1]->kind == StmtKind::Comment) --at;
        j += insertRetire(stmts, at, g, reload ? FragSet{s->frag} : flying);
      }
      Stmt* x = stmts[j];
      switch (x->kind) {
        case StmtKind::WgmmaExec: g.exec(x, watched); break;
        case StmtKind::WgmmaCommit: g.commit(); break;
        case StmtKind::WgmmaWait: g.wait(x->count); break;
        case StmtKind::For:
        case StmtKind::While: loop(x, g, watched); break;
        case StmtKind::If: {
          Groups taken = g;
          walk(x->body, taken, watched);
          walk(x->elseBody, g, watched);
          g = Groups::join(taken, g);
          break;
        }
        default:
          walk(x->body, g, watched);
          walk(x->elseBody, g, watched);
          break;
      }
    }
  }

  // A loop body runs with what its entry and its own previous iteration left
  // in flight: walked until that settles (each walk may add retires, which
  // only shrink it), or, past a few rounds, as if every watched fragment
  // were read by a group of unknown age.
  void loop(Stmt* s, Groups& g, const FragSet& watched) {
    const bool matters = anyStmt(s->body, [&](const Stmt* x) {
      switch (x->kind) {
        case StmtKind::WgmmaCommit:
        case StmtKind::WgmmaWait:
        case StmtKind::Break:
        case StmtKind::Continue:
        case StmtKind::Return: return true;
        case StmtKind::WgmmaExec: return !registersRead(x, watched).empty();
        case StmtKind::AtomLoad: return llvm::is_contained(watched, x->frag);
        default: return false;
      }
    });
    if (!matters) return;
    Groups head = g;
    // Nested loops multiply the rounds: past a budget of statements walked,
    // every loop takes the unsettled path, one walk each.
    for (int round = 0; round < 8 && visits_ < kVisitBudget; ++round) {
      Groups end = head;
      walk(s->body, end, watched);
      Groups next = Groups::join(g, end);
      if (next.sameAs(head)) {
        g = next;
        return;
      }
      head = next;
    }
    Groups unsettled;
    unsettled.unknown = watched;
    unsettled.open = head.open;
    unsettled.reader = head.reader;
    Groups end = unsettled;
    walk(s->body, end, watched);
    g = Groups::join(unsettled, end);
  }

  // Puts a wait that retires the groups reading `which`, and the operand
  // fences of what it retires, before `at`; returns how many statements it
  // added.
  size_t insertRetire(std::vector<Stmt*>& stmts, size_t at, Groups& g, const FragSet& which) {
    const llvm::SMLoc loc = g.reader ? g.reader->loc : llvm::SMLoc();
    std::vector<Stmt*> added;
    Stmt* wait = m_.stmt(StmtKind::WgmmaWait, loc);
    wait->count = g.retiringDepth(which);
    added.push_back(wait);
    const FragSet retired = g.retiredBy(wait->count);
    for (const kir::Fragment* f : retired) {
      const bool meta = f->role == kir::FragRole::E;
      for (std::int64_t row = 0; row < (meta ? f->rows : 1); ++row) {
        Stmt* fence = m_.stmt(StmtKind::WgmmaFence, loc);
        fence->frag = f;
        fence->count = meta ? row : -1;
        added.push_back(fence);
      }
    }
    stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
    g.wait(wait->count);
    for (const kir::Fragment* f : retired) {
      if (!warned_.insert(f).second || !loc.isValid()) continue;
      diags_.report(loc, DiagKind::warn_wgmma_register_operand_wait,
                    f->role == kir::FragRole::E ? "metadata" : "A operand", wait->count);
      break;
    }
    return added.size();
  }

  static constexpr std::size_t kVisitBudget = std::size_t{1} << 20;

  kir::Module& m_;
  DiagnosticEngine& diags_;
  llvm::DenseSet<const kir::Fragment*> warned_;
  std::size_t visits_ = 0;
};

}  // namespace

void retireWgmmaRegisterOperands(kir::Module& module, DiagnosticEngine& diags) {
  RegisterOperands pass(module, diags);
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) pass.runKernel(k->body);
}

}  // namespace croqc::lower
