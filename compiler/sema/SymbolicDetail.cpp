// Exact integer helpers, saturating interval arithmetic and the linear view
// used by the symbolic constructors and the prover (see SymbolicDetail.h).
#include "sema/SymbolicDetail.h"

#include <algorithm>

namespace croqc::sym::detail {

std::int64_t gcd64(std::int64_t a, std::int64_t b) {
  std::uint64_t x = a < 0 ? 0 - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
  std::uint64_t y = b < 0 ? 0 - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b);
  while (y != 0) {
    std::uint64_t t = x % y;
    x = y;
    y = t;
  }
  // Only gcd(INT64_MIN, 0 or INT64_MIN) does not fit; 1 means "no common factor".
  return x > static_cast<std::uint64_t>(kInt64Max) ? 1 : static_cast<std::int64_t>(x);
}

std::optional<std::int64_t> lcmBounded(std::int64_t a, std::int64_t b, std::int64_t limit) {
  std::int64_t g = gcd64(a, b);
  std::int64_t r = 0;
  if (g == 0 || __builtin_mul_overflow(a / g, b, &r) || r > limit || r <= 0) return std::nullopt;
  return r;
}

namespace {

/// An interval end point: `inf` is -1 (minus infinity), +1 (plus infinity) or
/// 0 (the finite value `v`, always within int64 before a multiplication).
struct End {
  int inf;
  Int128 v;
};

End lowEnd(const Interval& a) { return a.lo ? End{0, *a.lo} : End{-1, 0}; }
End highEnd(const Interval& a) { return a.hi ? End{0, *a.hi} : End{1, 0}; }

int sign(const End& e) {
  if (e.inf != 0) return e.inf;
  return (e.v > 0) - (e.v < 0);
}

End mulEnd(const End& a, const End& b) {
  if (a.inf != 0 || b.inf != 0) {
    int s = sign(a) * sign(b);
    return s == 0 ? End{0, 0} : End{s, 0};
  }
  return End{0, a.v * b.v};
}

bool lessEnd(const End& a, const End& b) {
  if (a.inf != b.inf) return a.inf < b.inf;
  return a.inf == 0 && a.v < b.v;
}

/// Weakens an end point to a representable lower / upper bound.
std::optional<std::int64_t> toLower(const End& e) {
  if (e.inf < 0 || (e.inf == 0 && e.v < kInt64Min)) return std::nullopt;
  if (e.inf > 0 || e.v > kInt64Max) return kInt64Max;
  return static_cast<std::int64_t>(e.v);
}
std::optional<std::int64_t> toUpper(const End& e) {
  if (e.inf > 0 || (e.inf == 0 && e.v > kInt64Max)) return std::nullopt;
  if (e.inf < 0 || e.v < kInt64Min) return kInt64Min;
  return static_cast<std::int64_t>(e.v);
}

}  // namespace

Interval exactInterval(std::int64_t v) { return Interval{v, v}; }

Interval negInterval(const Interval& a) {
  Interval r;
  if (a.hi) r.lo = toLower(End{0, -static_cast<Int128>(*a.hi)});
  if (a.lo) r.hi = toUpper(End{0, -static_cast<Int128>(*a.lo)});
  return r;
}

Interval addInterval(const Interval& a, const Interval& b) {
  Interval r;
  if (a.lo && b.lo) r.lo = toLower(End{0, static_cast<Int128>(*a.lo) + *b.lo});
  if (a.hi && b.hi) r.hi = toUpper(End{0, static_cast<Int128>(*a.hi) + *b.hi});
  return r;
}

Interval mulInterval(const Interval& a, const Interval& b) {
  End p[4] = {mulEnd(lowEnd(a), lowEnd(b)), mulEnd(lowEnd(a), highEnd(b)),
              mulEnd(highEnd(a), lowEnd(b)), mulEnd(highEnd(a), highEnd(b))};
  End lo = p[0], hi = p[0];
  for (const End& e : p) {
    if (lessEnd(e, lo)) lo = e;
    if (lessEnd(hi, e)) hi = e;
  }
  return Interval{toLower(lo), toUpper(hi)};
}

Interval scaleInterval(const Interval& a, std::int64_t c) { return mulInterval(a, exactInterval(c)); }

Interval floorDivInterval(const Interval& x, const Interval& d) {
  if (d.lo && *d.lo >= 1) {
    Interval r;
    if (x.lo) {
      if (*x.lo >= 0)
        r.lo = d.hi ? static_cast<std::int64_t>(floorDiv128(*x.lo, *d.hi)) : 0;
      else
        r.lo = static_cast<std::int64_t>(floorDiv128(*x.lo, *d.lo));
    }
    if (x.hi) {
      if (*x.hi >= 0)
        r.hi = static_cast<std::int64_t>(floorDiv128(*x.hi, *d.lo));
      else
        r.hi = d.hi ? static_cast<std::int64_t>(floorDiv128(*x.hi, *d.hi)) : -1;
    }
    return r;
  }
  if (d.hi && *d.hi <= -1) return floorDivInterval(negInterval(x), negInterval(d));
  return {};
}

Interval ceilDivInterval(const Interval& x, const Interval& d) {
  return negInterval(floorDivInterval(negInterval(x), d));
}

Interval modInterval(const Interval& x, const Interval& d) {
  if (d.lo && *d.lo >= 1) {
    if (x.lo && *x.lo >= 0 && x.hi && *x.hi < *d.lo) return x;
    Interval r{0, std::nullopt};
    if (d.hi) r.hi = *d.hi - 1;
    if (x.lo && *x.lo >= 0 && x.hi) r.hi = r.hi ? std::min(*r.hi, *x.hi) : *x.hi;
    return r;
  }
  if (d.hi && *d.hi <= -1) {
    Interval r{std::nullopt, 0};
    if (d.lo) r.lo = *d.lo + 1;
    return r;
  }
  return {};
}

Interval minInterval(llvm::ArrayRef<Interval> ops) {
  Interval r = ops.front();
  for (const Interval& o : ops.drop_front()) {
    r.lo = (r.lo && o.lo) ? std::optional(std::min(*r.lo, *o.lo)) : std::nullopt;
    if (o.hi) r.hi = r.hi ? std::min(*r.hi, *o.hi) : *o.hi;
  }
  return r;
}

Interval maxInterval(llvm::ArrayRef<Interval> ops) {
  Interval r = ops.front();
  for (const Interval& o : ops.drop_front()) {
    if (o.lo) r.lo = r.lo ? std::max(*r.lo, *o.lo) : *o.lo;
    r.hi = (r.hi && o.hi) ? std::optional(std::max(*r.hi, *o.hi)) : std::nullopt;
  }
  return r;
}

Interval intersect(const Interval& a, const Interval& b) {
  Interval r = a;
  if (b.lo) r.lo = r.lo ? std::max(*r.lo, *b.lo) : *b.lo;
  if (b.hi) r.hi = r.hi ? std::min(*r.hi, *b.hi) : *b.hi;
  return r;
}

llvm::ArrayRef<const SymExpr*> monomialFactors(const SymExpr* const& m) {
  if (const auto* mul = llvm::dyn_cast<MulExpr>(m)) return mul->factors();
  return llvm::ArrayRef<const SymExpr*>(m);
}

LinearView viewLinear(const SymExpr* e) {
  LinearView v;
  if (const auto* c = llvm::dyn_cast<ConstantExpr>(e)) {
    v.constant = c->value();
  } else if (const auto* add = llvm::dyn_cast<AddExpr>(e)) {
    v.constant = add->constant();
    for (const SymTerm& t : add->terms()) {
      TermView tv;
      tv.coefficient = t.coefficient;
      llvm::ArrayRef<const SymExpr*> fs = monomialFactors(t.monomial);
      tv.factors.assign(fs.begin(), fs.end());
      v.terms.push_back(std::move(tv));
    }
  } else if (const auto* mul = llvm::dyn_cast<MulExpr>(e)) {
    TermView tv;
    tv.coefficient = mul->coefficient();
    tv.factors.assign(mul->factors().begin(), mul->factors().end());
    v.terms.push_back(std::move(tv));
  } else {
    TermView tv;
    tv.factors.push_back(e);
    v.terms.push_back(std::move(tv));
  }
  return v;
}

bool removeFactors(llvm::ArrayRef<const SymExpr*> whole, llvm::ArrayRef<const SymExpr*> part,
                   llvm::SmallVectorImpl<const SymExpr*>& rest) {
  std::size_t i = 0;
  for (const SymExpr* p : part) {
    while (i < whole.size() && whole[i] != p && compare(whole[i], p) < 0) rest.push_back(whole[i++]);
    if (i == whole.size() || whole[i] != p) return false;
    ++i;
  }
  rest.append(whole.begin() + i, whole.end());
  return true;
}

}  // namespace croqc::sym::detail
