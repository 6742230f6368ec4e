// Symbolic integer expressions for shape checking (spec sections 5, 6.3, 6.4,
// 11): parameter dimensions `M`, `K`, tile counts `cdiv(M, 64)`, view extents
// `M / 4`, indices `64 * block_m + thr_m`, and a prover that decides facts
// such as `cdiv(M, 64) * 64 >= M` with a three-valued answer.
//
// A SymContext owns immutable, hash-consed SymExpr nodes: every constructor
// returns the canonical form, so two expressions are structurally equal after
// canonicalisation exactly when they are the same pointer.
//
// Semantics. Values are mathematical integers. `floorDiv` rounds toward minus
// infinity, `cdiv` toward plus infinity, and `mod` is the floored remainder
// (`a == b * floorDiv(a, b) + mod(a, b)`, the result has the divisor's sign).
// For a non-negative dividend and a positive divisor these agree with C++.
// Facts proven about expressions hold at every point where all their
// divisions are defined and every symbol lies in its declared range.
//
// Canonical form.
//  * Constants are folded. A fold whose result does not fit in int64 is not
//    performed: the constants stay apart (a Constant factor in a product, or
//    a `q * 9223372036854775807` term in a sum) so no wrapped value is ever
//    produced; evaluation of such an expression fails with Overflow.
//  * A sum (Add) is `constant + sum(coefficient * monomial)` with like terms
//    combined, zero terms dropped, terms sorted by the canonical order. A
//    monomial is never a sum, a constant or a product with a coefficient.
//  * A product (Mul) is `coefficient * factor * ...` with sorted factors, no
//    nested products; a product with a sum as factor is distributed unless
//    that would create more than kMaxDistributedTerms terms.
//  * A single term `c * m` is a Mul with coefficient c, never a one-term Add.
//  * floorDiv/cdiv/mod pull out the terms of the dividend that the divisor
//    divides exactly (`(64 * a + b) / 64 == a + b / 64`, `cdiv(a * k, k) ==
//    a`, `(a * k) % k == 0`), reduce by the gcd of constant divisor and
//    coefficients, fold nested floor-divisions/cdivs by positive constants,
//    move a negative constant divisor's sign to the dividend and use the
//    cached intervals (`thr_m / 64 == 0` when `thr_m` is in [0, 64)).
//    Constants in a dividend are reduced only when at least the divisor, with
//    the remainder keeping the constant's sign (`(M - 1) / 64` stays).
//  * min/max are flattened, constants merged, operands sorted and
//    deduplicated, and an operand dropped when its interval shows another
//    operand always wins (`min(M, 0) == 0` for `M >= 1`).
//
// Limits. No expression is deeper than kMaxDepth or has more than
// kMaxTreeSize nodes when unfolded as a tree: a constructor whose result
// would exceed a cap returns the Unknown node instead, so every recursive
// walk is bounded. Unknown absorbs every operation, never evaluates, and any
// query about it (even `u == u`) answers Truth::Unknown. Division by the constant 0 is never folded: the node is
// built, `isDivisionByZero` reports it and SymContext::sawDivisionByZero
// records it. Like any other term it still cancels (`e - e == 0`, `0 * e ==
// 0`), so a checker tests the divisions it builds.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/FoldingSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/Casting.h>

#include <cstdint>
#include <optional>
#include <string>

namespace croqc::sym {

enum class SymKind : std::uint8_t {
#define SYM_EXPR(Name, Spelling) Name,
#include "sema/SymKinds.def"
};

/// "constant", "add", "cdiv", ...
llvm::StringRef symKindName(SymKind kind);

/// A closed integer interval; a missing end is unbounded on that side.
struct Interval {
  std::optional<std::int64_t> lo;
  std::optional<std::int64_t> hi;

  bool contains(std::int64_t v) const { return (!lo || *lo <= v) && (!hi || v <= *hi); }
  bool isExact() const { return lo && hi && *lo == *hi; }
};

/// The answer of a query: proven, disproven (the negation is proven), or not
/// decided. Unknown is always a safe answer.
enum class Truth : std::uint8_t { False, True, Unknown };

llvm::StringRef truthName(Truth t);
inline Truth negate(Truth t) {
  return t == Truth::True ? Truth::False : t == Truth::False ? Truth::True : Truth::Unknown;
}

class SymContext;

/// The base of every node. Nodes are immutable and owned by a SymContext.
class SymExpr : public llvm::FoldingSetNode {
 public:
  SymKind kind() const { return kind_; }
  /// 1 for leaves; a node's depth is one more than its deepest operand.
  unsigned depth() const { return depth_; }
  /// The number of nodes when the expression is unfolded into a tree.
  std::uint32_t treeSize() const { return treeSize_; }
  /// True if a division or mod by the constant 0 occurs in the expression.
  bool hasDivisionByZero() const { return divisionByZero_; }
  /// An interval computed bottom-up from the operands' intervals and the
  /// symbols' ranges when the node was built (no relational reasoning; see
  /// SymContext::bounds for the refined one).
  Interval naiveBounds() const { return bounds_; }

  void Profile(llvm::FoldingSetNodeID& id) const;
  /// The hash of the profile, cached for the hash-consing table.
  unsigned profileHash() const { return profileHash_; }

 protected:
  explicit SymExpr(SymKind kind) : kind_(kind) {}

 private:
  friend class SymContext;
  SymKind kind_;
  bool divisionByZero_ = false;
  std::uint16_t depth_ = 1;
  std::uint32_t treeSize_ = 1;
  unsigned profileHash_ = 0;
  Interval bounds_;
};

}  // namespace croqc::sym

/// Hash-consing compares the cached hash before re-profiling a node.
template <>
struct llvm::FoldingSetTrait<croqc::sym::SymExpr>
    : llvm::DefaultFoldingSetTrait<croqc::sym::SymExpr> {
  static bool Equals(const croqc::sym::SymExpr& x, const FoldingSetNodeID& id, unsigned idHash,
                     FoldingSetNodeID& temp) {
    if (x.profileHash() != idHash) return false;
    x.Profile(temp);
    return temp == id;
  }
  static unsigned ComputeHash(const croqc::sym::SymExpr& x, FoldingSetNodeID&) {
    return x.profileHash();
  }
};

namespace croqc::sym {

#define CROQC_SYM_CLASSOF(Name) \
  static bool classof(const SymExpr* e) { return e->kind() == SymKind::Name; }

class ConstantExpr : public SymExpr {
 public:
  CROQC_SYM_CLASSOF(Constant)
  std::int64_t value() const { return value_; }

 private:
  friend class SymContext;
  explicit ConstantExpr(std::int64_t v) : SymExpr(SymKind::Constant), value_(v) {}
  std::int64_t value_;
};

/// A runtime integer: a shape dimension (`M`, at least 1), a loop index (at
/// least 0), or a bounded variable in [lo, hi) where hi may be symbolic
/// (`block_m` in [0, cdiv(M, 64))). Symbols are identified by name, range and
/// fresh id; checkers should pass unique (scope-qualified) names.
class SymbolExpr : public SymExpr {
 public:
  CROQC_SYM_CLASSOF(Symbol)
  llvm::StringRef name() const { return name_; }
  /// Non-zero for symbols made by SymContext::freshSymbol; printed after the
  /// name (`?3`, `%r12`).
  unsigned freshId() const { return freshId_; }
  std::optional<std::int64_t> lowerBound() const { return lowerBound_; }
  /// The exclusive upper bound, or null.
  const SymExpr* upperBound() const { return upperBound_; }

 private:
  friend class SymContext;
  SymbolExpr(llvm::StringRef name, unsigned freshId, std::optional<std::int64_t> lo,
             const SymExpr* hi)
      : SymExpr(SymKind::Symbol), name_(name), freshId_(freshId), lowerBound_(lo), upperBound_(hi) {}
  llvm::StringRef name_;
  unsigned freshId_;
  std::optional<std::int64_t> lowerBound_;
  const SymExpr* upperBound_;
};

/// One `coefficient * monomial` term of a sum.
struct SymTerm {
  std::int64_t coefficient;
  const SymExpr* monomial;
};

/// `constant + sum(terms)`: at least two terms, or one term and a non-zero
/// constant.
class AddExpr : public SymExpr {
 public:
  CROQC_SYM_CLASSOF(Add)
  std::int64_t constant() const { return constant_; }
  llvm::ArrayRef<SymTerm> terms() const { return terms_; }

 private:
  friend class SymContext;
  AddExpr(std::int64_t c, llvm::ArrayRef<SymTerm> terms)
      : SymExpr(SymKind::Add), constant_(c), terms_(terms) {}
  std::int64_t constant_;
  llvm::ArrayRef<SymTerm> terms_;
};

/// `coefficient * factors[0] * factors[1] ...` with a non-zero coefficient,
/// sorted factors, and either two or more factors or a coefficient other
/// than 1.
class MulExpr : public SymExpr {
 public:
  CROQC_SYM_CLASSOF(Mul)
  std::int64_t coefficient() const { return coefficient_; }
  llvm::ArrayRef<const SymExpr*> factors() const { return factors_; }

 private:
  friend class SymContext;
  MulExpr(std::int64_t c, llvm::ArrayRef<const SymExpr*> factors)
      : SymExpr(SymKind::Mul), coefficient_(c), factors_(factors) {}
  std::int64_t coefficient_;
  llvm::ArrayRef<const SymExpr*> factors_;
};

/// floorDiv, cdiv and mod: `numerator op divisor`.
class DivisionExpr : public SymExpr {
 public:
  static bool classof(const SymExpr* e) {
    return e->kind() == SymKind::FloorDiv || e->kind() == SymKind::CeilDiv ||
           e->kind() == SymKind::Mod;
  }
  const SymExpr* numerator() const { return numerator_; }
  const SymExpr* divisor() const { return divisor_; }

 protected:
  DivisionExpr(SymKind k, const SymExpr* n, const SymExpr* d)
      : SymExpr(k), numerator_(n), divisor_(d) {}

 private:
  const SymExpr* numerator_;
  const SymExpr* divisor_;
};

class FloorDivExpr : public DivisionExpr {
 public:
  CROQC_SYM_CLASSOF(FloorDiv)

 private:
  friend class SymContext;
  FloorDivExpr(const SymExpr* n, const SymExpr* d) : DivisionExpr(SymKind::FloorDiv, n, d) {}
};

class CeilDivExpr : public DivisionExpr {
 public:
  CROQC_SYM_CLASSOF(CeilDiv)

 private:
  friend class SymContext;
  CeilDivExpr(const SymExpr* n, const SymExpr* d) : DivisionExpr(SymKind::CeilDiv, n, d) {}
};

class ModExpr : public DivisionExpr {
 public:
  CROQC_SYM_CLASSOF(Mod)

 private:
  friend class SymContext;
  ModExpr(const SymExpr* n, const SymExpr* d) : DivisionExpr(SymKind::Mod, n, d) {}
};

/// min and max over two or more sorted, distinct operands.
class MinMaxExpr : public SymExpr {
 public:
  static bool classof(const SymExpr* e) {
    return e->kind() == SymKind::Min || e->kind() == SymKind::Max;
  }
  llvm::ArrayRef<const SymExpr*> operands() const { return operands_; }

 protected:
  MinMaxExpr(SymKind k, llvm::ArrayRef<const SymExpr*> ops) : SymExpr(k), operands_(ops) {}

 private:
  llvm::ArrayRef<const SymExpr*> operands_;
};

class MinExpr : public MinMaxExpr {
 public:
  CROQC_SYM_CLASSOF(Min)

 private:
  friend class SymContext;
  explicit MinExpr(llvm::ArrayRef<const SymExpr*> ops) : MinMaxExpr(SymKind::Min, ops) {}
};

class MaxExpr : public MinMaxExpr {
 public:
  CROQC_SYM_CLASSOF(Max)

 private:
  friend class SymContext;
  explicit MaxExpr(llvm::ArrayRef<const SymExpr*> ops) : MinMaxExpr(SymKind::Max, ops) {}
};

class UnknownExpr : public SymExpr {
 public:
  CROQC_SYM_CLASSOF(Unknown)

 private:
  friend class SymContext;
  UnknownExpr() : SymExpr(SymKind::Unknown) {}
};

#undef CROQC_SYM_CLASSOF

/// Values of symbols for `evaluate`.
using SymValues = llvm::DenseMap<const SymbolExpr*, std::int64_t>;
/// Replacements of symbols for `SymContext::substitute`.
using SymSubstitution = llvm::DenseMap<const SymbolExpr*, const SymExpr*>;

enum class EvalError : std::uint8_t { None, UnboundSymbol, DivisionByZero, Overflow, Unknown };

/// The value of `e` with the given symbol values, or nothing when a symbol
/// has no value, a divisor is 0, an intermediate result overflows int64, or
/// `e` is Unknown (`error` says which). Symbol ranges are not checked.
std::optional<std::int64_t> evaluate(const SymExpr* e, const SymValues& values,
                                     EvalError* error = nullptr);

bool isConstant(const SymExpr* e);
std::optional<std::int64_t> constantValue(const SymExpr* e);
/// True if `e` divides (or takes a mod) by the constant 0 somewhere.
bool isDivisionByZero(const SymExpr* e);
inline bool isUnknown(const SymExpr* e) { return e->kind() == SymKind::Unknown; }

/// The canonical total order: by kind (SymKinds.def order), then constant
/// value / symbol name and range / operands left to right. Returns <0, 0, >0;
/// 0 only for the same node. Independent of addresses, so printing is stable.
int compare(const SymExpr* a, const SymExpr* b);

/// Prints `e` for diagnostics, with the fewest parentheses:
///  * constants in decimal, symbols by name (fresh symbols: name + id);
///  * sums: positive terms first, then negative ones, then the constant:
///    `64 * block_m + thr_m`, `M - K - 1`;
///  * products: coefficient first, factors joined by ` * `, a sum as factor
///    in parentheses: `-2 * K * M`, `4 * (M + N)` (undistributed only);
///  * floor-division and mod always in parentheses, numerator sums and
///    divisor products in their own: `(N / 2)`, `((M + 63) / 64)`, `(M % 4)`;
///  * calls: `cdiv(M, 64)`, `min(M, N)`, `max(1, K)`; Unknown as `<unknown>`.
std::string print(const SymExpr* e);
/// print() with scope qualifications dropped (`wg + 1`, not
/// `::f::paraby_0::wg + 1`), for diagnostics.
std::string printForUser(const SymExpr* e);

/// Owns every node; see the file comment for the canonical form.
class SymContext {
 public:
  static constexpr unsigned kMaxDepth = 512;
  static constexpr std::uint32_t kMaxTreeSize = 1u << 16;
  static constexpr std::size_t kMaxDistributedTerms = 256;

  SymContext();
  ~SymContext();
  SymContext(const SymContext&) = delete;
  SymContext& operator=(const SymContext&) = delete;

  // --- Leaves ---------------------------------------------------------------
  const SymExpr* constant(std::int64_t value);
  /// A symbol at least `lowerBound` (nothing: any integer). Shape dimensions
  /// use the default 1.
  const SymbolExpr* symbol(llvm::StringRef name, std::optional<std::int64_t> lowerBound = 1);
  /// A symbol known only to be >= 0 (loop indices).
  const SymbolExpr* indexSymbol(llvm::StringRef name);
  /// A bounded variable in [lo, hiExclusive).
  const SymbolExpr* boundedSymbol(llvm::StringRef name, std::int64_t lo, std::int64_t hiExclusive);
  /// A bounded variable in [lo, hiExclusive) with a symbolic extent, e.g.
  /// `block_m` of `parallel block_m by cdiv(M, 64)`. An Unknown extent is
  /// dropped.
  const SymbolExpr* boundedSymbol(llvm::StringRef name, std::int64_t lo,
                                  const SymExpr* hiExclusive);
  /// A symbol distinct from every other one (anonymous `?` dimensions, the
  /// prover's remainders). `hiExclusive` may be null.
  const SymbolExpr* freshSymbol(llvm::StringRef name, std::optional<std::int64_t> lowerBound,
                                const SymExpr* hiExclusive = nullptr);
  /// The remainder of a floor-division or cdiv `f` of x by a divisor D that
  /// the caller knows is >= 1: the symbol r in [0, D) with `D * f == x - r`
  /// (floorDiv) or `D * f == x + r` (cdiv), printed `%r<id>`. The same `f`
  /// always gives the same symbol, so the prover's rewritings are hash-consed
  /// across queries.
  const SymbolExpr* remainderOf(const DivisionExpr* f);
  const SymExpr* unknown() const { return unknown_; }

  // --- Canonicalising constructors ------------------------------------------
  const SymExpr* add(const SymExpr* a, const SymExpr* b);
  const SymExpr* add(llvm::ArrayRef<const SymExpr*> operands);
  const SymExpr* sub(const SymExpr* a, const SymExpr* b);
  const SymExpr* neg(const SymExpr* a);
  const SymExpr* mul(const SymExpr* a, const SymExpr* b);
  const SymExpr* mul(llvm::ArrayRef<const SymExpr*> operands);
  const SymExpr* floorDiv(const SymExpr* a, const SymExpr* b);
  const SymExpr* cdiv(const SymExpr* a, const SymExpr* b);
  const SymExpr* mod(const SymExpr* a, const SymExpr* b);
  const SymExpr* min(const SymExpr* a, const SymExpr* b);
  const SymExpr* min(llvm::ArrayRef<const SymExpr*> operands);
  const SymExpr* max(const SymExpr* a, const SymExpr* b);
  const SymExpr* max(llvm::ArrayRef<const SymExpr*> operands);

  /// `e` with every symbol in `map` replaced, re-canonicalised. Symbols not
  /// in the map are kept as they are, including their range expressions.
  const SymExpr* substitute(const SymExpr* e, const SymSubstitution& map);

  // --- Queries (SymbolicProver.cpp) ------------------------------------------
  Truth proveEQ(const SymExpr* a, const SymExpr* b);
  Truth proveNE(const SymExpr* a, const SymExpr* b);
  Truth proveLE(const SymExpr* a, const SymExpr* b);
  Truth proveLT(const SymExpr* a, const SymExpr* b);
  Truth proveGE(const SymExpr* a, const SymExpr* b);
  Truth proveGT(const SymExpr* a, const SymExpr* b);
  /// An interval that contains every value of `e`, refined by the lemmas of
  /// the prover (`bounds(64 * cdiv(M, 64) - M) == [0, 63]`).
  Interval bounds(const SymExpr* e);

  /// True once a division or mod by the constant 0 has been built.
  bool sawDivisionByZero() const { return sawDivisionByZero_; }
  std::size_t numNodes() const { return numNodes_; }

 private:
  const SymExpr* makeConstant(std::int64_t v);
  const SymbolExpr* makeSymbol(llvm::StringRef name, unsigned freshId,
                               std::optional<std::int64_t> lo, const SymExpr* hi);
  const SymExpr* makeAdd(std::int64_t constant, llvm::ArrayRef<SymTerm> terms);
  const SymExpr* makeMul(std::int64_t coefficient, llvm::ArrayRef<const SymExpr*> factors);
  const SymExpr* makeDivision(SymKind kind, const SymExpr* n, const SymExpr* d);
  const SymExpr* makeMinMax(SymKind kind, llvm::ArrayRef<const SymExpr*> operands);
  const SymExpr* finish(SymExpr* node, const llvm::FoldingSetNodeID& id,
                        llvm::ArrayRef<const SymExpr*> children, void* insertPos);
  const SymExpr* monomial(llvm::ArrayRef<const SymExpr*> sortedFactors);
  const SymExpr* sumOfTerms(__int128 constant, llvm::SmallVectorImpl<SymTerm>& terms);
  const SymExpr* divide(SymKind kind, const SymExpr* a, const SymExpr* b);
  const SymExpr* minMax(SymKind kind, llvm::ArrayRef<const SymExpr*> operands);

  llvm::BumpPtrAllocator arena_;
  llvm::FoldingSet<SymExpr> nodes_;
  llvm::DenseMap<const DivisionExpr*, const SymbolExpr*> remainders_;
  const SymExpr* unknown_ = nullptr;
  unsigned nextFreshId_ = 1;
  std::size_t numNodes_ = 0;
  bool sawDivisionByZero_ = false;
};

}  // namespace croqc::sym
