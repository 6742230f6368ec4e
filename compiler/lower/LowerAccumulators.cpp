// `wgmma-zero-init`: a warpgroup accumulator that is filled with zero and
// then only accumulated into by WGMMA starts from the first WGMMA's scale-d
// operand instead (`wgmma ... p` with p false: D = A * B, the old D unread).
//
// The fill is not merely redundant. A fill is ordinary register moves into
// the accumulator registers; when it sits inside a loop (the tile loop of a
// persistent kernel, a K-block loop of block-scaled MMA), ptxas sees
// non-WGMMA instructions defining a WGMMA's accumulators between the start
// and the end of a pipeline stage, and serializes every WGMMA of the kernel
// (warning C7515), which costs a persistent GEMM 15-25% of its speed.
//
// Two shapes are rewritten, for a fill `F = 0` of a whole warpgroup
// accumulator, when the next statement of its list that touches F (operand
// fences aside) is
//   (a) a WGMMA into F: that WGMMA's first K step overwrites F, and the fill
//       goes;
//   (b) a loop `for v in [lo, hi)` whose body's first statement touching F
//       is, at the top level of the body, a WGMMA into F: that WGMMA's first
//       K step overwrites F in the first iteration (v == lo) and accumulates
//       in the others. Unless the loop is known to run, the fill moves to
//       just before the next use of F after the loop (past the WGMMA waits
//       there), taken only when the loop ran no iteration (`let F_ran =
//       lo < hi` before the loop); with no later use in the list, nothing is
//       rewritten.
// In both, no `break`, `continue` or `return` may come between the fill and
// the WGMMA, so that the WGMMA that overwrites is the one that runs first.
//
// A third shape is the K-block partial of block scaling (`mma.scale`):
//   (c) a loop whose body accumulates into F by a WGMMA (its first use of F,
//       at the top level) and ends its use of F with a fill `F = 0`, where F
//       is zero when the loop starts (a zero fill is the last use of F before
//       the loop, or shape (b) made the WGMMA overwrite in the first
//       iteration). Every iteration then starts from zero: the WGMMA always
//       overwrites, the fill at the end of the body goes, and one fill after
//       the loop leaves F as the loop did. The body may not `break`,
//       `continue` or `return`.
#include "lower/LowerImpl.h"

#include <cstdlib>

namespace croqc::lower {

namespace {

/// True for a float or integer literal zero (possibly converted).
bool isZero(const kir::Expr* e) {
  if (!e) return false;
  switch (e->kind) {
    case kir::ExprKind::IntConst: return e->intValue == 0;
    case kir::ExprKind::FloatConst: {
      std::string text = e->name;
      while (!text.empty() && (text.back() == 'f' || text.back() == 'F')) text.pop_back();
      if (text.empty() || text[0] == '-') return false;
      char* end = nullptr;
      double v = std::strtod(text.c_str(), &end);
      return end && *end == '\0' && v == 0.0;
    }
    case kir::ExprKind::Convert: return isZero(e->operands[0]);
    default: return false;
  }
}

bool exprUsesFragment(const kir::Expr* e, const kir::Fragment* f) {
  if (!e) return false;
  if (e->frag == f) return true;
  for (const kir::Expr* o : e->operands)
    if (exprUsesFragment(o, f)) return true;
  return false;
}

/// Does `s` (or anything nested in it) read or write fragment `f`? The
/// operand fences of `f` do not count: they order, they do not access.
bool usesFragment(const Stmt* s, const kir::Fragment* f) {
  if (s->kind == StmtKind::WgmmaFence || s->kind == StmtKind::WgmmaArrive) return false;
  if (s->frag == f || s->fragA == f || s->fragB == f) return true;
  for (const kir::Expr* e : {s->lo, s->hi, s->cond, s->value, s->index, s->rank, s->i, s->j, s->k})
    if (exprUsesFragment(e, f)) return true;
  for (const std::vector<const kir::Expr*>* list : {&s->fragIndex, &s->args})
    for (const kir::Expr* e : *list)
      if (exprUsesFragment(e, f)) return true;
  for (const std::vector<Stmt*>* list : {&s->body, &s->elseBody})
    for (const Stmt* c : *list)
      if (c && usesFragment(c, f)) return true;
  return false;
}

/// Can control leave the enclosing loop or kernel from inside `s`?
bool transfersControl(const Stmt* s) {
  if (s->kind == StmtKind::Break || s->kind == StmtKind::Continue || s->kind == StmtKind::Return) return true;
  for (const std::vector<Stmt*>* list : {&s->body, &s->elseBody})
    for (const Stmt* c : *list)
      if (c && transfersControl(c)) return true;
  return false;
}

/// The index of the first statement of `list` from `from` on that uses `f`,
/// or list.size(); `clean` is false when a statement before it can transfer
/// control.
size_t firstUse(const std::vector<Stmt*>& list, size_t from, const kir::Fragment* f, bool& clean) {
  clean = true;
  for (size_t i = from; i < list.size(); ++i) {
    if (usesFragment(list[i], f)) return i;
    if (transfersControl(list[i])) clean = false;
  }
  return list.size();
}

bool overwritable(const Stmt* s, const kir::Fragment* f) {
  return s->kind == StmtKind::WgmmaExec && s->frag == f && s->fragIndex.empty() && !s->cond;
}

class ZeroInit {
 public:
  explicit ZeroInit(kir::Module& m) : m_(m) {}

  void list(std::vector<Stmt*>& stmts) {
    for (size_t i = 0; i < stmts.size(); ++i) {
      list(stmts[i]->body);
      list(stmts[i]->elseBody);
    }
    for (size_t i = 0; i < stmts.size(); ++i)
      if (rewrite(stmts, i)) --i;
    for (size_t i = 0; i < stmts.size(); ++i)
      if (rewriteLoopFill(stmts, i)) ++i;
  }

 private:
  /// Rewrites the fill at stmts[i], if it is one of the two shapes; true
  /// when it was removed from there.
  bool rewrite(std::vector<Stmt*>& stmts, size_t i) {
    Stmt* fill = stmts[i];
    if (fill->kind != StmtKind::FragFill || !fill->frag || !fill->frag->warpgroup || !fill->fragIndex.empty() ||
        !isZero(fill->value))
      return false;
    const kir::Fragment* f = fill->frag;
    bool clean = true;
    size_t j = firstUse(stmts, i + 1, f, clean);
    if (j == stmts.size() || !clean) return false;
    Stmt* next = stmts[j];
    if (overwritable(next, f)) {
      next->cond = m_.boolc(false);
      stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    if (next->kind != StmtKind::For || next->step <= 0 || !next->lo || !next->lo->isConst() || !next->hi) return false;
    size_t k = firstUse(next->body, 0, f, clean);
    if (k == next->body.size() || !clean || !overwritable(next->body[k], f)) return false;
    bool runs = next->hi->isConst() && next->hi->intValue > next->lo->intValue;
    // The fill for a loop that ran no iteration goes right before the next
    // use of F: after the WGMMA waits that follow the loop, since a fill
    // while WGMMAs may be in flight serializes them as well.
    size_t use = firstUse(stmts, j + 1, f, clean);
    if (!runs && (use == stmts.size() || !clean)) return false;
    kir::ScalarType boolean = kir::ScalarType::boolean();
    next->body[k]->cond = m_.binary("!=", m_.var(next->var), next->lo, boolean);
    if (!runs) {
      Stmt* ran = m_.stmt(StmtKind::Let, fill->loc);
      ran->var = f->name + "_ran" + (count_ ? std::to_string(count_) : std::string());
      ++count_;
      ran->type = boolean;
      ran->value = m_.lt(next->lo, next->hi);
      Stmt* guard = m_.stmt(StmtKind::If, fill->loc);
      guard->cond = m_.unary("!", m_.var(ran->var, boolean), boolean);
      guard->body.push_back(fill);
      // Each before the source comment of the statement it precedes.
      auto before = [&](size_t at, size_t floor) {
        while (at > floor && stmts[at - 1]->kind == StmtKind::Comment) --at;
        return stmts.begin() + static_cast<std::ptrdiff_t>(at);
      };
      stmts.insert(before(use, j + 1), guard);
      stmts.insert(before(j, i + 1), ran);
    }
    stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }

  /// Shape (c) for the loop at stmts[j]; true when it put a fill after the
  /// loop.
  bool rewriteLoopFill(std::vector<Stmt*>& stmts, size_t j) {
    Stmt* loop = stmts[j];
    if (loop->kind != StmtKind::For) return false;
    std::vector<Stmt*>& body = loop->body;
    for (const Stmt* s : body)
      if (transfersControl(s)) return false;
    for (size_t e = body.size(); e-- > 0;) {
      Stmt* fill = body[e];
      if (fill->kind != StmtKind::FragFill || !fill->frag || !fill->frag->warpgroup || !fill->fragIndex.empty() ||
          !isZero(fill->value))
        continue;
      const kir::Fragment* f = fill->frag;
      bool clean = true;
      if (firstUse(body, e + 1, f, clean) != body.size()) continue;
      size_t k = firstUse(body, 0, f, clean);
      if (k >= e) continue;
      Stmt* mma = body[k];
      if (mma->kind != StmtKind::WgmmaExec || mma->frag != f || !mma->fragIndex.empty()) continue;
      if (mma->cond ? !overwritesFirstIteration(mma->cond, loop) : !zeroBefore(stmts, j, f)) continue;
      mma->cond = m_.boolc(false);
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(e));
      stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(j + 1), fill);
      return true;
    }
    return false;
  }

  /// Is `cond` the `v != lo` that shape (b) gave the loop's first WGMMA?
  static bool overwritesFirstIteration(const kir::Expr* cond, const Stmt* loop) {
    return cond->kind == kir::ExprKind::Binary && cond->name == "!=" && cond->operands.size() == 2 &&
           cond->operands[0]->kind == kir::ExprKind::Var && cond->operands[0]->name == loop->var &&
           cond->operands[1] == loop->lo;
  }

  /// Is the last use of `f` before stmts[j] a zero fill of all of it?
  static bool zeroBefore(const std::vector<Stmt*>& stmts, size_t j, const kir::Fragment* f) {
    for (size_t i = j; i-- > 0;) {
      const Stmt* s = stmts[i];
      if (transfersControl(s)) return false;
      if (!usesFragment(s, f)) continue;
      return s->kind == StmtKind::FragFill && s->frag == f && s->fragIndex.empty() && isZero(s->value);
    }
    return false;
  }

  kir::Module& m_;
  /// Names the `_ran` flags of one kernel apart.
  unsigned count_ = 0;
};

}  // namespace

void zeroAccumulatorsByScaleD(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) ZeroInit(module).list(k->body);
}

}  // namespace croqc::lower
