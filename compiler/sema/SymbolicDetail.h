// Internals shared by the files of the symbolic engine (not part of its
// interface): exact integer helpers, saturating interval arithmetic and a
// flat view of an expression as `constant + sum(coefficient * factors)`.
//
// Interval arithmetic is sound by construction: every end point is computed
// in 128 bits and, when it leaves the int64 range, weakened (a lower bound
// below INT64_MIN becomes unbounded, one above INT64_MAX becomes INT64_MAX;
// symmetrically for upper bounds), never wrapped.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>

#include <cstdint>
#include <limits>
#include <optional>

#include "sema/Symbolic.h"

namespace croqc::sym::detail {

using Int128 = __int128;
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

inline bool fitsInt64(Int128 v) { return v >= kInt64Min && v <= kInt64Max; }

/// floor(a / b) and ceil(a / b) for b != 0, without overflow in 128 bits.
inline Int128 floorDiv128(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline Int128 ceilDiv128(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
  return q;
}
/// The floored remainder: `a - b * floor(a / b)`, with the sign of b.
inline Int128 floorMod128(Int128 a, Int128 b) { return a - b * floorDiv128(a, b); }

std::int64_t gcd64(std::int64_t a, std::int64_t b);
/// lcm of positive values, or nothing if it exceeds `limit`.
std::optional<std::int64_t> lcmBounded(std::int64_t a, std::int64_t b, std::int64_t limit);

// --- Intervals -----------------------------------------------------------------

Interval exactInterval(std::int64_t v);
Interval negInterval(const Interval& a);
Interval addInterval(const Interval& a, const Interval& b);
Interval mulInterval(const Interval& a, const Interval& b);
Interval scaleInterval(const Interval& a, std::int64_t c);
Interval floorDivInterval(const Interval& x, const Interval& d);
Interval ceilDivInterval(const Interval& x, const Interval& d);
Interval modInterval(const Interval& x, const Interval& d);
Interval minInterval(llvm::ArrayRef<Interval> ops);
Interval maxInterval(llvm::ArrayRef<Interval> ops);
/// The values common to both, for combining two sound enclosures.
Interval intersect(const Interval& a, const Interval& b);

// --- Linear view ----------------------------------------------------------------

/// `coefficient * factors[0] * ...`; factors are sorted, none is a product.
struct TermView {
  std::int64_t coefficient = 1;
  llvm::SmallVector<const SymExpr*, 4> factors;
};

/// `e == constant + sum(terms)`: a sum gives its terms, a product one term,
/// any other node one term with coefficient 1 and itself as the factor.
struct LinearView {
  std::int64_t constant = 0;
  llvm::SmallVector<TermView, 4> terms;
};

LinearView viewLinear(const SymExpr* e);
/// The factors of a monomial (itself unless it is a product).
llvm::ArrayRef<const SymExpr*> monomialFactors(const SymExpr* const& m);

/// True if the sorted multiset `part` is contained in the sorted multiset
/// `whole`; `rest` receives `whole` minus `part`.
bool removeFactors(llvm::ArrayRef<const SymExpr*> whole, llvm::ArrayRef<const SymExpr*> part,
                   llvm::SmallVectorImpl<const SymExpr*>& rest);

}  // namespace croqc::sym::detail
