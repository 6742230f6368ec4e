// The prover: decides `a <= b`, `a == b`, ... by bounding the canonical
// difference `b - a`. The naive interval (cached in every node) is refined by
// a small, budgeted search over rewritings of the difference, each of which
// is sound:
//
//  * division elimination (exact): a term `c * D * floorDiv(x, D) * rest`
//    becomes `c * rest * (x - r)` and `D * cdiv(x, D)` becomes `x + r`, where
//    r in [0, D) is the remainder of that division (D >= 1). r is a function
//    of the point, so one symbol per division is sound however often it is
//    eliminated. The whole difference is first scaled by L > 0 so that D
//    divides every coefficient (the sign is unchanged). This proves `k *
//    cdiv(x, k) >= x`, `k * (x / k) <= x`, `cdiv(x, k) * k - x < k`, also for
//    symbolic k;
//  * mod expansion (exact): `mod(x, D) == x - D * floorDiv(x, D)`;
//  * case split (exact): `d == min(d[min(a, b) := a], d[min(a, b) := b])`
//    where the min is multiplied by something non-negative (max: by
//    something non-positive), so `min(64, M - 64 * block_m) >= 1` follows
//    from both operands;
//  * bounding substitution: where a factor's sign in the difference is known,
//    replace it by an expression that bounds it in the right direction:
//    `min(a, b) <= a`, `max(a, b) >= a`, `mod(x, D) <= D - 1`, `mod(x, D) <=
//    x`, `floorDiv(x, D) <= x` and `cdiv(x, D) <= x` for x >= 0, D >= 1, and
//    `i <= hi - 1` for a symbol with a symbolic range [lo, hi), and a factor
//    of a product by the end of its interval (`K * M >= M` for K >= 1).
//
// After each rewriting the constructors cancel what they can (`x - x`), and
// the naive interval of the result bounds the original. Every answer other
// than Unknown is therefore a proof; the search only decides how many proofs
// are tried (kSearchDepth steps deep, kSearchBudget rewritings per query).
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallPtrSet.h>

#include "sema/Symbolic.h"
#include "sema/SymbolicDetail.h"

namespace croqc::sym {

using namespace detail;

namespace {

constexpr unsigned kSearchDepth = 4;
constexpr unsigned kSearchBudget = 48;
/// The largest factor a difference is scaled by in division elimination.
constexpr std::int64_t kMaxScale = std::int64_t{1} << 24;

std::optional<std::int64_t> negated(std::optional<std::int64_t> v) {
  if (!v || *v == kInt64Min) return std::nullopt;
  return -*v;
}

bool reached(std::optional<std::int64_t> bound, std::optional<std::int64_t> target) {
  return bound && target && *bound >= *target;
}

std::optional<std::int64_t> better(std::optional<std::int64_t> a, std::optional<std::int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

/// The target for a rewriting `e` with `scale * d >= e`: ceil(lb(e) / scale)
/// >= target exactly when lb(e) >= scale * (target - 1) + 1.
std::optional<std::int64_t> scaledTarget(std::optional<std::int64_t> target, std::int64_t scale) {
  if (!target) return std::nullopt;
  Int128 t = static_cast<Int128>(scale) * (static_cast<Int128>(*target) - 1) + 1;
  if (!fitsInt64(t)) return std::nullopt;
  return static_cast<std::int64_t>(t);
}

bool atLeast(const SymExpr* e, std::int64_t v) {
  std::optional<std::int64_t> lo = e->naiveBounds().lo;
  return lo && *lo >= v;
}

/// A divisor as `coefficient * factors` with a positive coefficient.
struct DivisorShape {
  std::int64_t coefficient = 1;
  llvm::SmallVector<const SymExpr*, 4> factors;
};

std::optional<DivisorShape> positiveDivisorShape(const SymExpr* d) {
  DivisorShape s;
  if (const auto* c = llvm::dyn_cast<ConstantExpr>(d)) {
    s.coefficient = c->value();
  } else if (const auto* m = llvm::dyn_cast<MulExpr>(d)) {
    s.coefficient = m->coefficient();
    s.factors.assign(m->factors().begin(), m->factors().end());
  } else if (llvm::isa<AddExpr>(d) || isUnknown(d)) {
    return std::nullopt;
  } else {
    s.factors.push_back(d);
  }
  if (s.coefficient <= 0 || !atLeast(d, 1)) return std::nullopt;
  return s;
}

/// Searches rewritings of a difference for the best lower bound.
class BoundSearch {
 public:
  explicit BoundSearch(SymContext& ctx) : ctx_(ctx) {}

  /// A lower bound of `d`; stops early once `target` is reached. Iterative
  /// deepening finds the short proofs (the usual ones) first.
  std::optional<std::int64_t> lower(const SymExpr* d, std::optional<std::int64_t> target) {
    std::optional<std::int64_t> best = d->naiveBounds().lo;
    for (unsigned depth = 1; depth <= kSearchDepth && budget_ > 0 && !reached(best, target);
         ++depth) {
      cutOff_ = false;
      best = better(best, search(d, target, depth));
      if (!cutOff_) break;  // the whole tree was explored
    }
    return best;
  }

  /// An upper bound of `d`; stops early once it is at most `target`.
  std::optional<std::int64_t> upper(const SymExpr* d, std::optional<std::int64_t> target) {
    std::optional<std::int64_t> t = target ? negated(target) : std::nullopt;
    if (target && !t) return d->naiveBounds().hi;
    return negated(lower(ctx_.neg(d), t));
  }

 private:
  struct Explored {
    std::optional<std::int64_t> best;
    unsigned depth;
  };

  /// The depth-limited search of `lower`.
  std::optional<std::int64_t> search(const SymExpr* d, std::optional<std::int64_t> target,
                                     unsigned depth) {
    std::optional<std::int64_t> best = d->naiveBounds().lo;
    if (reached(best, target) || isConstant(d) || isUnknown(d)) return best;
    if (depth == 0) {
      cutOff_ |= mayRewrite(d);
      return best;
    }
    if (auto it = done_.find(d); it != done_.end() && it->second.depth >= depth)
      return better(best, it->second.best);
    if (!mayRewrite(d) || !active_.insert(d).second) return best;
    auto visit = [&](const SymExpr* e, std::int64_t scale) {
      --budget_;
      std::optional<std::int64_t> sub = search(e, scaledTarget(target, scale), depth - 1);
      if (sub) best = better(best, static_cast<std::int64_t>(ceilDiv128(*sub, scale)));
      return reached(best, target);
    };
    // d == min(branches): its lower bound is the smallest of theirs.
    auto visitAll = [&](llvm::ArrayRef<const SymExpr*> branches) {
      std::optional<std::int64_t> worst;
      for (std::size_t i = 0; i < branches.size(); ++i) {
        if (budget_ == 0) return true;
        --budget_;
        std::optional<std::int64_t> sub = search(branches[i], target, depth - 1);
        if (!sub) return false;
        worst = i == 0 ? *sub : std::min(*worst, *sub);
      }
      best = better(best, worst);
      return reached(best, target);
    };
    forEachRewrite(d, visit, visitAll);
    active_.erase(d);
    done_[d] = Explored{best, depth};
    return best;
  }

  /// Whether `forEachRewrite` could find anything for the factor `f` (of a
  /// term with other factors or not).
  static bool atomMayRewrite(const SymExpr* f, bool inProduct) {
    switch (f->kind()) {
      case SymKind::FloorDiv:
      case SymKind::CeilDiv:
      case SymKind::Mod:
      case SymKind::Min:
      case SymKind::Max:
        return true;
      case SymKind::Symbol: {
        const SymExpr* hi = llvm::cast<SymbolExpr>(f)->upperBound();
        return inProduct || (hi && !isConstant(hi));
      }
      default:
        return inProduct;
    }
  }

  /// Whether `forEachRewrite` could find anything in `d` (a cheap test).
  static bool mayRewrite(const SymExpr* d) {
    auto termMay = [&](const SymExpr* m) {
      if (const auto* mul = llvm::dyn_cast<MulExpr>(m))
        return llvm::any_of(mul->factors(), [&](const SymExpr* f) {
          return atomMayRewrite(f, mul->factors().size() > 1);
        });
      return atomMayRewrite(m, false);
    };
    if (const auto* add = llvm::dyn_cast<AddExpr>(d))
      return llvm::any_of(add->terms(), [&](const SymTerm& t) { return termMay(t.monomial); });
    return termMay(d);
  }

  /// Calls `visit(e, scale)` for rewritings with `scale * d >= e`, and
  /// `visitAll(branches)` for case splits with `d == min(branches)`, until
  /// one returns true or the budget is spent.
  template <typename Visit, typename VisitAll>
  void forEachRewrite(const SymExpr* d, Visit visit, VisitAll visitAll) {
    LinearView v = viewLinear(d);
    llvm::SmallVector<const SymExpr*, 8> atoms;
    llvm::SmallPtrSet<const SymExpr*, 8> seen;
    for (const TermView& t : v.terms)
      for (const SymExpr* f : t.factors)
        if (seen.insert(f).second) atoms.push_back(f);

    for (const SymExpr* f : atoms) {
      if (budget_ == 0) return;
      if (f->kind() != SymKind::FloorDiv && f->kind() != SymKind::CeilDiv) continue;
      if (auto e = eliminateDivision(v, llvm::cast<DivisionExpr>(f)))
        if (visit(e->first, e->second)) return;
    }
    for (const SymExpr* f : atoms) {
      if (budget_ == 0) return;
      const auto* m = llvm::dyn_cast<ModExpr>(f);
      if (!m) continue;
      const SymExpr* x = m->numerator();
      const SymExpr* expanded =
          ctx_.sub(x, ctx_.mul(m->divisor(), ctx_.floorDiv(x, m->divisor())));
      if (visit(replaceAtom(v, f, expanded), 1)) return;
    }
    for (const TermView& t : v.terms) {
      for (std::size_t j = 0; j < t.factors.size(); ++j) {
        const SymExpr* f = t.factors[j];
        if ((j > 0 && t.factors[j - 1] == f) || !atomMayRewrite(f, t.factors.size() > 1)) continue;
        // The sign of everything multiplying f in this term.
        Interval s = exactInterval(t.coefficient);
        llvm::SmallVector<const SymExpr*, 8> scaled{ctx_.constant(t.coefficient)};
        for (std::size_t i = 0; i < t.factors.size(); ++i) {
          if (i == j) continue;
          s = mulInterval(s, t.factors[i]->naiveBounds());
          scaled.push_back(t.factors[i]);
        }
        bool positive = s.lo && *s.lo >= 0;
        if (!positive && !(s.hi && *s.hi <= 0)) continue;
        // S * min(a, b) == min(S * a, S * b) for S >= 0; S * max(a, b) too for S <= 0.
        if (f->kind() == (positive ? SymKind::Min : SymKind::Max)) {
          llvm::ArrayRef<const SymExpr*> ops = llvm::cast<MinMaxExpr>(f)->operands();
          if (budget_ < ops.size()) return;
          llvm::SmallVector<const SymExpr*, 4> branches;
          for (const SymExpr* op : ops) {
            scaled.push_back(ctx_.sub(op, f));
            branches.push_back(ctx_.add(d, ctx_.mul(scaled)));
            scaled.pop_back();
          }
          if (visitAll(branches)) return;
        }
        llvm::SmallVector<const SymExpr*, 4> cands = candidates(f, /*lowerBounds=*/positive);
        // Monotonicity in a product: a factor may be replaced by its bound.
        std::optional<std::int64_t> own = positive ? f->naiveBounds().lo : f->naiveBounds().hi;
        if (t.factors.size() > 1 && own && !isConstant(f)) cands.push_back(ctx_.constant(*own));
        for (const SymExpr* cand : cands) {
          if (budget_ == 0) return;
          scaled.push_back(ctx_.sub(cand, f));
          const SymExpr* e = ctx_.add(d, ctx_.mul(scaled));
          scaled.pop_back();
          if (visit(e, 1)) return;
        }
      }
    }
  }

  /// Expressions known to be <= f (lowerBounds) or >= f.
  llvm::SmallVector<const SymExpr*, 4> candidates(const SymExpr* f, bool lowerBounds) {
    llvm::SmallVector<const SymExpr*, 4> out;
    if (lowerBounds) {
      if (const auto* m = llvm::dyn_cast<MaxExpr>(f)) out.append(m->operands().begin(), m->operands().end());
      return out;
    }
    switch (f->kind()) {
      case SymKind::Min: {
        llvm::ArrayRef<const SymExpr*> ops = llvm::cast<MinExpr>(f)->operands();
        out.append(ops.begin(), ops.end());
        break;
      }
      case SymKind::Mod: {
        const auto* m = llvm::cast<ModExpr>(f);
        if (atLeast(m->divisor(), 1)) {
          out.push_back(ctx_.sub(m->divisor(), ctx_.constant(1)));
          if (atLeast(m->numerator(), 0)) out.push_back(m->numerator());
        }
        break;
      }
      case SymKind::FloorDiv:
      case SymKind::CeilDiv: {
        const auto* d = llvm::cast<DivisionExpr>(f);
        if (atLeast(d->divisor(), 1) && atLeast(d->numerator(), 0)) out.push_back(d->numerator());
        break;
      }
      case SymKind::Symbol: {
        const SymExpr* hi = llvm::cast<SymbolExpr>(f)->upperBound();
        if (hi && !isConstant(hi)) out.push_back(ctx_.sub(hi, ctx_.constant(1)));
        break;
      }
      default:
        break;
    }
    return out;
  }

  /// `d` with every top-level factor `f` replaced by `g` (an equal value).
  const SymExpr* replaceAtom(const LinearView& v, const SymExpr* f, const SymExpr* g) {
    llvm::SmallVector<const SymExpr*, 8> terms{ctx_.constant(v.constant)};
    for (const TermView& t : v.terms) {
      llvm::SmallVector<const SymExpr*, 8> ops{ctx_.constant(t.coefficient)};
      for (const SymExpr* x : t.factors) ops.push_back(x == f ? g : x);
      terms.push_back(ctx_.mul(ops));
    }
    return ctx_.add(terms);
  }

  /// `L * d` with `D * floorDiv(x, D)` replaced by `x - r` (cdiv: `x + r`),
  /// r a fresh remainder in [0, D); nothing if some occurrence of f has no
  /// D beside it.
  std::optional<std::pair<const SymExpr*, std::int64_t>> eliminateDivision(const LinearView& v,
                                                                            const DivisionExpr* f) {
    std::optional<DivisorShape> shape = positiveDivisorShape(f->divisor());
    if (!shape) return std::nullopt;
    std::int64_t scale = 1;
    llvm::SmallVector<llvm::SmallVector<const SymExpr*, 4>, 4> remaining(v.terms.size());
    llvm::SmallVector<bool, 4> contains(v.terms.size(), false);
    for (std::size_t i = 0; i < v.terms.size(); ++i) {
      const TermView& t = v.terms[i];
      llvm::SmallVector<const SymExpr*, 4> rest;
      for (const SymExpr* x : t.factors) {
        if (x != f) rest.push_back(x);
      }
      std::size_t occurrences = t.factors.size() - rest.size();
      if (occurrences == 0) continue;
      if (occurrences > 1 || !removeFactors(rest, shape->factors, remaining[i])) return std::nullopt;
      contains[i] = true;
      std::int64_t need = shape->coefficient / gcd64(t.coefficient, shape->coefficient);
      std::optional<std::int64_t> l = lcmBounded(scale, need, kMaxScale);
      if (!l) return std::nullopt;
      scale = *l;
    }
    const SymExpr* r = ctx_.remainderOf(f);
    const SymExpr* replacement = f->kind() == SymKind::FloorDiv ? ctx_.sub(f->numerator(), r)
                                                                : ctx_.add(f->numerator(), r);
    std::int64_t c = 0;
    if (__builtin_mul_overflow(v.constant, scale, &c)) return std::nullopt;
    llvm::SmallVector<const SymExpr*, 8> terms{ctx_.constant(c)};
    for (std::size_t i = 0; i < v.terms.size(); ++i) {
      const TermView& t = v.terms[i];
      if (__builtin_mul_overflow(t.coefficient, scale, &c)) return std::nullopt;
      llvm::SmallVector<const SymExpr*, 8> ops;
      if (contains[i]) {
        ops.push_back(ctx_.constant(c / shape->coefficient));
        ops.append(remaining[i].begin(), remaining[i].end());
        ops.push_back(replacement);
      } else {
        ops.push_back(ctx_.constant(c));
        ops.append(t.factors.begin(), t.factors.end());
      }
      terms.push_back(ctx_.mul(ops));
    }
    return std::make_pair(ctx_.add(terms), scale);
  }

  SymContext& ctx_;
  unsigned budget_ = kSearchBudget;
  bool cutOff_ = false;  // the last iteration stopped at its depth limit
  llvm::DenseMap<const SymExpr*, Explored> done_;
  llvm::SmallPtrSet<const SymExpr*, 16> active_;
};

/// Expressions whose value is undefined somewhere or unknown: no facts.
bool poisoned(const SymExpr* e) { return isUnknown(e) || e->hasDivisionByZero(); }

}  // namespace

Truth SymContext::proveLE(const SymExpr* a, const SymExpr* b) {
  if (poisoned(a) || poisoned(b)) return Truth::Unknown;
  const SymExpr* d = sub(b, a);  // a <= b  <=>  d >= 0
  if (isUnknown(d)) return Truth::Unknown;
  if (reached(BoundSearch(*this).lower(d, 0), 0)) return Truth::True;
  std::optional<std::int64_t> ub = BoundSearch(*this).upper(d, -1);
  if (ub && *ub <= -1) return Truth::False;
  return Truth::Unknown;
}

Truth SymContext::proveLT(const SymExpr* a, const SymExpr* b) {
  if (poisoned(a) || poisoned(b)) return Truth::Unknown;
  const SymExpr* d = sub(b, a);  // a < b  <=>  d >= 1
  if (isUnknown(d)) return Truth::Unknown;
  if (reached(BoundSearch(*this).lower(d, 1), 1)) return Truth::True;
  std::optional<std::int64_t> ub = BoundSearch(*this).upper(d, 0);
  if (ub && *ub <= 0) return Truth::False;
  return Truth::Unknown;
}

Truth SymContext::proveGE(const SymExpr* a, const SymExpr* b) { return proveLE(b, a); }
Truth SymContext::proveGT(const SymExpr* a, const SymExpr* b) { return proveLT(b, a); }

Truth SymContext::proveEQ(const SymExpr* a, const SymExpr* b) {
  if (poisoned(a) || poisoned(b)) return Truth::Unknown;
  if (a == b) return Truth::True;
  const SymExpr* d = sub(a, b);
  if (isUnknown(d)) return Truth::Unknown;
  if (std::optional<std::int64_t> c = constantValue(d)) return *c == 0 ? Truth::True : Truth::False;
  std::optional<std::int64_t> lb = BoundSearch(*this).lower(d, 1);
  if (lb && *lb >= 1) return Truth::False;
  bool nonNegative = lb && *lb >= 0;
  std::optional<std::int64_t> ub = BoundSearch(*this).upper(d, nonNegative ? 0 : -1);
  if (ub && *ub <= -1) return Truth::False;
  if (nonNegative && ub && *ub <= 0) return Truth::True;
  return Truth::Unknown;
}

Truth SymContext::proveNE(const SymExpr* a, const SymExpr* b) { return negate(proveEQ(a, b)); }

Interval SymContext::bounds(const SymExpr* e) {
  if (poisoned(e)) return e->naiveBounds();
  Interval r = e->naiveBounds();
  r.lo = better(r.lo, BoundSearch(*this).lower(e, std::nullopt));
  r = intersect(r, Interval{std::nullopt, BoundSearch(*this).upper(e, std::nullopt)});
  return r;
}

}  // namespace croqc::sym
