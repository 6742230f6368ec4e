// Unit tests of the symbolic expression engine (sema/Symbolic.h): canonical
// forms and identities, printing, the prover's lemmas and its Unknowns,
// evaluation and substitution, overflow, division by zero, the depth and size
// caps, randomized checks of canonicalisation and of the prover's soundness
// against evaluation, and the cost of a GEMM-sized shape check.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "sema/Symbolic.h"

using namespace croqc::sym;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

/// A context with the usual GEMM symbols.
struct Fixture {
  SymContext ctx;
  const SymbolExpr* M = ctx.symbol("M");
  const SymbolExpr* N = ctx.symbol("N");
  const SymbolExpr* K = ctx.symbol("K");
  const SymbolExpr* i = ctx.indexSymbol("i");
  const SymbolExpr* thr_m = ctx.boundedSymbol("thr_m", 0, 64);

  const SymExpr* c(std::int64_t v) { return ctx.constant(v); }
};

SymValues valuesOf(std::initializer_list<std::pair<const SymbolExpr*, std::int64_t>> list) {
  SymValues v;
  for (const auto& [s, value] : list) v[s] = value;
  return v;
}

SymSubstitution replacing(std::initializer_list<std::pair<const SymbolExpr*, const SymExpr*>> list) {
  SymSubstitution m;
  for (const auto& [s, e] : list) m[s] = e;
  return m;
}

}  // namespace

// --- Canonical forms --------------------------------------------------------------

TEST_CASE("constants fold", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.add(f.c(2), f.c(3)) == f.c(5));
  CHECK(x.sub(f.c(2), f.c(3)) == f.c(-1));
  CHECK(x.mul(f.c(-4), f.c(5)) == f.c(-20));
  CHECK(x.floorDiv(f.c(7), f.c(2)) == f.c(3));
  CHECK(x.floorDiv(f.c(-7), f.c(2)) == f.c(-4));
  CHECK(x.cdiv(f.c(7), f.c(2)) == f.c(4));
  CHECK(x.cdiv(f.c(-7), f.c(2)) == f.c(-3));
  CHECK(x.mod(f.c(-7), f.c(2)) == f.c(1));
  CHECK(x.mod(f.c(7), f.c(-2)) == f.c(-1));
  CHECK(x.min(f.c(3), f.c(-2)) == f.c(-2));
  CHECK(x.max({f.c(3), f.c(9), f.c(-2)}) == f.c(9));
  CHECK(isConstant(x.mul(x.add(f.c(2), f.c(6)), f.c(8))));
  CHECK(constantValue(x.mul(x.add(f.c(2), f.c(6)), f.c(8))) == 64);
  CHECK_FALSE(constantValue(f.M).has_value());
}

TEST_CASE("sums and products are commutative and associative", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.add(f.M, f.N) == x.add(f.N, f.M));
  CHECK(x.mul(f.M, f.N) == x.mul(f.N, f.M));
  CHECK(x.add(f.M, x.add(f.N, f.K)) == x.add(x.add(f.M, f.N), f.K));
  CHECK(x.mul(f.M, x.mul(f.N, f.K)) == x.mul(x.mul(f.K, f.N), f.M));
  CHECK(x.add({f.K, f.c(1), f.M, f.c(2)}) == x.add(x.add(f.M, f.c(3)), f.K));
}

TEST_CASE("like terms combine and zero terms vanish", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.add(f.M, f.M) == x.mul(f.c(2), f.M));
  CHECK(x.sub(x.mul(f.c(3), f.M), x.mul(f.M, f.c(3))) == f.c(0));
  CHECK(x.add(x.mul(f.M, f.N), x.mul(f.N, f.M)) == x.mul({f.c(2), f.M, f.N}));
  CHECK(x.sub(x.add(f.M, f.N), f.N) == f.M);
  CHECK(x.neg(x.neg(f.K)) == f.K);
  // Distribution makes polynomial identities syntactic.
  CHECK(x.mul(x.add(f.M, f.c(1)), f.K) == x.add(x.mul(f.M, f.K), f.K));
  const SymExpr* mp1 = x.add(f.M, f.c(1));
  const SymExpr* mm1 = x.sub(f.M, f.c(1));
  CHECK(x.mul(mp1, mm1) == x.sub(x.mul(f.M, f.M), f.c(1)));
}

TEST_CASE("identities", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* k64 = f.c(64);
  CHECK(x.mul(f.M, f.c(1)) == f.M);
  CHECK(x.add(f.M, f.c(0)) == f.M);
  CHECK(x.mul(f.M, f.c(0)) == f.c(0));
  CHECK(x.floorDiv(f.M, f.c(1)) == f.M);
  CHECK(x.cdiv(f.M, f.c(1)) == f.M);
  CHECK(x.mod(f.M, f.c(1)) == f.c(0));
  CHECK(x.floorDiv(f.M, f.c(-1)) == x.neg(f.M));
  CHECK(x.min(f.M, f.M) == f.M);
  CHECK(x.max(f.N, f.N) == f.N);
  CHECK(x.floorDiv(x.mul(f.M, k64), k64) == f.M);
  CHECK(x.cdiv(x.mul(f.M, k64), k64) == f.M);
  CHECK(x.mod(x.mul(f.M, k64), k64) == f.c(0));
  CHECK(x.floorDiv(x.add(x.mul(f.M, k64), x.mul(f.N, k64)), k64) == x.add(f.M, f.N));
  CHECK(x.floorDiv(x.add(x.mul(f.M, k64), f.N), k64) == x.add(f.M, x.floorDiv(f.N, k64)));
  CHECK(x.mod(x.add(x.mul(f.M, k64), f.N), k64) == x.mod(f.N, k64));
  CHECK(x.floorDiv(x.floorDiv(f.M, f.c(4)), f.c(2)) == x.floorDiv(f.M, f.c(8)));
  CHECK(x.cdiv(x.cdiv(f.M, f.c(4)), f.c(16)) == x.cdiv(f.M, k64));
  CHECK(x.mod(x.mod(f.M, f.c(8)), f.c(4)) == x.mod(f.M, f.c(4)));
  CHECK(x.mod(x.mod(f.M, f.K), f.K) == x.mod(f.M, f.K));
  // gcd of divisor and coefficients.
  CHECK(x.floorDiv(x.mul(f.c(2), f.M), f.c(4)) == x.floorDiv(f.M, f.c(2)));
  CHECK(x.mod(x.mul(f.c(6), f.M), f.c(4)) == x.mul(f.c(2), x.mod(x.mul(f.c(3), f.M), f.c(2))));
  // Constants reach the divisor: (M + 130) / 64 == (M + 2) / 64 + 2.
  CHECK(x.floorDiv(x.add(f.M, f.c(130)), k64) ==
        x.add(x.floorDiv(x.add(f.M, f.c(2)), k64), f.c(2)));
  CHECK(x.cdiv(x.add(f.M, k64), k64) == x.add(x.cdiv(f.M, k64), f.c(1)));
  // A negative constant divisor moves its sign to the dividend.
  CHECK(x.floorDiv(f.M, f.c(-4)) == x.floorDiv(x.neg(f.M), f.c(4)));
  // Symbolic divisors divide their multiples.
  CHECK(x.floorDiv(x.mul(f.M, f.K), f.K) == f.M);
  CHECK(x.floorDiv(f.K, f.K) == f.c(1));
  CHECK(x.mod(x.add(x.mul(f.M, f.K), f.N), f.K) == x.mod(f.N, f.K));
  CHECK(x.cdiv(x.mul({f.c(6), f.M, f.K}), x.mul(f.c(3), f.K)) == x.mul(f.c(2), f.M));
}

TEST_CASE("ranges fold divisions and min/max", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.floorDiv(f.thr_m, f.c(64)) == f.c(0));
  CHECK(x.mod(f.thr_m, f.c(64)) == f.thr_m);
  CHECK(x.cdiv(f.M, f.c(1)) == f.M);
  const SymExpr* blockM = x.boundedSymbol("block_m", 0, x.cdiv(f.M, f.c(64)));
  const SymExpr* row = x.add(x.mul(blockM, f.c(64)), f.thr_m);
  CHECK(x.floorDiv(row, f.c(64)) == blockM);
  CHECK(x.mod(row, f.c(64)) == f.thr_m);
  CHECK(x.min(f.M, f.c(0)) == f.c(0));
  CHECK(x.max(f.M, f.c(1)) == f.M);
  CHECK(x.min(f.M, x.add(f.M, f.c(1))) == f.M);
  CHECK(x.min(x.min(f.M, f.N), f.K) == x.min(f.M, x.min(f.K, f.N)));
  CHECK(x.max({f.M, f.N, f.M}) == x.max(f.N, f.M));
  CHECK(x.cdiv(f.c(0), f.M) == f.c(0));
}

TEST_CASE("nodes are classes with kinds", "[symbolic][canonical]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* sum = x.add({x.mul(f.c(3), f.M), f.N, f.c(7)});
  REQUIRE(llvm::isa<AddExpr>(sum));
  const auto* add = llvm::cast<AddExpr>(sum);
  CHECK(add->constant() == 7);
  REQUIRE(add->terms().size() == 2);
  CHECK(add->terms()[0].coefficient == 3);
  CHECK(add->terms()[0].monomial == f.M);
  CHECK(add->terms()[1].monomial == f.N);
  const auto* prod = llvm::dyn_cast<MulExpr>(x.mul({f.c(-2), f.N, f.M}));
  REQUIRE(prod);
  CHECK(prod->coefficient() == -2);
  CHECK(prod->factors().size() == 2);
  CHECK(llvm::isa<DivisionExpr>(x.cdiv(f.M, f.c(4))));
  CHECK(llvm::isa<CeilDivExpr>(x.cdiv(f.M, f.c(4))));
  CHECK(llvm::isa<MinMaxExpr>(x.max(f.M, f.N)));
  CHECK_FALSE(llvm::isa<MinExpr>(x.max(f.M, f.N)));
  CHECK(symKindName(x.mod(f.M, f.c(3))->kind()) == "mod");
  CHECK(f.M->lowerBound() == 1);
  CHECK(f.i->lowerBound() == 0);
  CHECK(f.thr_m->naiveBounds().hi == 63);
  CHECK(x.symbol("M") == f.M);
  CHECK(x.symbol("M", 0) != f.M);  // a different range is a different symbol
  CHECK(x.freshSymbol("?", 1) != x.freshSymbol("?", 1));
  CHECK(print(x.freshSymbol("?", 1)).substr(0, 1) == "?");
  const auto* div = llvm::cast<DivisionExpr>(x.floorDiv(f.M, f.c(8)));
  CHECK(x.remainderOf(div) == x.remainderOf(div));
  CHECK(x.remainderOf(div)->naiveBounds().hi == 7);
  CHECK(x.add(f.M, f.N)->depth() == 2);
  CHECK(x.add(f.M, f.N)->treeSize() == 3);
}

// --- Printing -------------------------------------------------------------------------

TEST_CASE("printing is readable and minimal", "[symbolic][print]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* blockM = x.indexSymbol("block_m");
  CHECK(print(x.cdiv(f.M, f.c(64))) == "cdiv(M, 64)");
  CHECK(print(x.floorDiv(f.N, f.c(2))) == "(N / 2)");
  CHECK(print(x.mul(f.M, f.K)) == "K * M");
  CHECK(print(x.add(x.mul(blockM, f.c(64)), f.thr_m)) == "64 * block_m + thr_m");
  CHECK(print(x.sub(x.sub(f.M, f.K), f.c(1))) == "M - K - 1");
  CHECK(print(x.neg(f.M)) == "-M");
  CHECK(print(x.sub(f.c(0), x.add(f.M, f.c(1)))) == "-M - 1");
  CHECK(print(x.mul(f.c(-2), f.M)) == "-2 * M");
  CHECK(print(x.floorDiv(x.add(f.M, f.c(63)), f.c(64))) == "((M + 63) / 64)");
  CHECK(print(x.mod(f.M, f.c(4))) == "(M % 4)");
  CHECK(print(x.floorDiv(f.M, x.mul(f.c(2), f.K))) == "(M / (2 * K))");
  CHECK(print(x.floorDiv(x.mul(f.K, f.M), f.N)) == "(K * M / N)");
  CHECK(print(x.min(f.N, f.M)) == "min(M, N)");
  CHECK(print(x.max(f.c(1), x.sub(f.K, f.c(8)))) == "max(1, K - 8)");
  CHECK(print(x.cdiv(x.add(f.M, f.c(1)), f.c(2))) == "cdiv(M + 1, 2)");
  CHECK(print(x.mul(f.c(4), x.floorDiv(f.M, f.c(4)))) == "4 * (M / 4)");
  CHECK(print(x.unknown()) == "<unknown>");
  CHECK(print(f.c(-3)) == "-3");
  // A shape pair as a diagnostic shows it.
  std::string shapes = "[" + print(x.cdiv(f.M, f.c(64))) + ", 4] vs [16, 4]";
  CHECK(shapes == "[cdiv(M, 64), 4] vs [16, 4]");
  // Printing is independent of construction order.
  SymContext other;
  const SymExpr* z = other.symbol("Z");
  const SymExpr* a = other.symbol("A");
  CHECK(print(other.add(z, a)) == "A + Z");
  CHECK(print(x.add(x.symbol("A"), x.symbol("Z"))) == "A + Z");
}

// --- The prover -----------------------------------------------------------------------

TEST_CASE("lemmas about divisions are proven", "[symbolic][prove]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* k = f.c(64);
  const SymExpr* cdivM = x.cdiv(f.M, k);
  CHECK(x.proveGE(x.mul(cdivM, k), f.M) == Truth::True);
  CHECK(x.proveLT(x.sub(x.mul(cdivM, k), f.M), k) == Truth::True);
  CHECK(x.proveLE(x.mul(x.floorDiv(f.M, k), k), f.M) == Truth::True);
  CHECK(x.proveLT(x.mod(f.M, k), k) == Truth::True);
  CHECK(x.proveGE(x.mod(f.M, k), f.c(0)) == Truth::True);
  CHECK(x.proveLE(x.mod(f.M, k), f.M) == Truth::True);
  CHECK(x.proveGE(cdivM, f.c(1)) == Truth::True);
  CHECK(x.proveLE(cdivM, f.M) == Truth::True);
  CHECK(x.proveGE(x.floorDiv(f.M, k), f.c(0)) == Truth::True);
  CHECK(x.proveLE(x.floorDiv(f.M, k), f.M) == Truth::True);
  // Symbolic divisors.
  CHECK(x.proveGE(x.mul(x.cdiv(f.M, f.K), f.K), f.M) == Truth::True);
  CHECK(x.proveLE(x.mul(x.floorDiv(f.M, f.K), f.K), f.M) == Truth::True);
  CHECK(x.proveLT(x.mod(f.M, f.K), f.K) == Truth::True);
  // k * (x / k) + x % k == x; cdiv(x, k) == (x + k - 1) / k.
  CHECK(x.proveEQ(x.add(x.mul(k, x.floorDiv(f.M, k)), x.mod(f.M, k)), f.M) == Truth::True);
  CHECK(x.proveEQ(cdivM, x.floorDiv(x.add(f.M, f.c(63)), k)) == Truth::True);
  CHECK(x.proveEQ(x.cdiv(x.add(f.M, f.c(1)), k), x.add(x.cdiv(x.sub(f.M, f.c(63)), k), f.c(1))) ==
        Truth::True);
  Interval b = x.bounds(x.sub(x.mul(k, cdivM), f.M));
  CHECK(b.lo == 0);
  CHECK(b.hi == 63);
}

TEST_CASE("lemmas about sums, min, max and ranges are proven", "[symbolic][prove]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.proveLT(f.M, x.add(f.M, f.N)) == Truth::True);
  CHECK(x.proveLE(x.add(f.M, f.i), x.add({f.M, x.mul(f.c(3), f.i), f.N})) == Truth::True);
  CHECK(x.proveLE(f.M, x.mul(f.M, f.K)) == Truth::True);
  CHECK(x.proveLE(x.min(f.M, f.N), f.M) == Truth::True);
  CHECK(x.proveLE(x.min(f.M, f.N), f.N) == Truth::True);
  CHECK(x.proveGE(x.max(f.M, f.N), f.N) == Truth::True);
  CHECK(x.proveLE(x.mul(f.K, x.min(f.M, f.N)), x.mul(f.K, f.M)) == Truth::True);
  CHECK(x.proveLT(f.thr_m, f.c(64)) == Truth::True);
  CHECK(x.proveGE(f.thr_m, f.c(0)) == Truth::True);
  // block_m in [0, cdiv(M, 64)): every row of the tile lies in the padded extent.
  const SymExpr* tiles = x.cdiv(f.M, f.c(64));
  const SymExpr* blockM = x.boundedSymbol("block_m", 0, tiles);
  const SymExpr* row = x.add(x.mul(blockM, f.c(64)), f.thr_m);
  CHECK(x.proveLT(row, x.mul(tiles, f.c(64))) == Truth::True);
  CHECK(x.proveLE(x.add(x.mul(blockM, f.c(64)), f.c(64)), x.mul(tiles, f.c(64))) == Truth::True);
  CHECK(x.proveLT(row, f.M) == Truth::Unknown);  // the ragged last tile
  // The extent of the last tile, min(64, M - 64 * block_m), is in [1, 64].
  const SymExpr* extent = x.min(f.c(64), x.sub(f.M, x.mul(blockM, f.c(64))));
  CHECK(x.proveGE(extent, f.c(1)) == Truth::True);
  CHECK(x.proveLE(extent, f.c(64)) == Truth::True);
  CHECK(x.proveLE(x.add(x.mul(blockM, f.c(64)), extent), f.M) == Truth::True);
  CHECK(x.proveGE(x.max(f.c(0), x.sub(f.M, f.c(1))), f.c(0)) == Truth::True);
  CHECK(x.proveLE(x.mul(f.c(-1), x.max(f.M, f.N)), x.neg(f.N)) == Truth::True);
  // Constants out of range.
  CHECK(x.proveGT(f.c(16), f.c(8)) == Truth::True);
  CHECK(x.proveLE(f.c(16), f.c(8)) == Truth::False);
  CHECK(x.proveNE(f.c(16), f.c(8)) == Truth::True);
  CHECK(x.proveGT(f.c(32), x.floorDiv(f.c(64), f.c(4))) == Truth::True);
  // Disproofs.
  CHECK(x.proveLT(x.add(f.M, f.c(1)), f.M) == Truth::False);
  CHECK(x.proveEQ(x.add(f.M, f.N), f.M) == Truth::False);
  CHECK(x.proveGE(x.mod(f.M, f.c(8)), f.c(8)) == Truth::False);
  CHECK(x.proveEQ(x.mul(x.cdiv(f.M, f.c(8)), f.c(8)), x.sub(f.M, f.c(1))) == Truth::False);
}

TEST_CASE("equal shapes written differently are proven equal", "[symbolic][prove]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* a0 = x.floorDiv(f.M, f.c(4));
  const SymExpr* a1 = x.floorDiv(f.K, f.c(8));
  const SymExpr* b0 = x.floorDiv(x.floorDiv(f.M, f.c(2)), f.c(2));
  const SymExpr* b1 = x.floorDiv(x.mul(f.K, f.c(2)), f.c(16));
  CHECK(a0 == b0);
  CHECK(a1 == b1);
  CHECK(x.proveEQ(a0, b0) == Truth::True);
  CHECK(x.proveEQ(x.mul(f.M, f.K), x.mul(f.K, f.M)) == Truth::True);
}

TEST_CASE("what cannot be decided stays unknown", "[symbolic][prove]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK(x.proveGE(f.M, f.N) == Truth::Unknown);
  CHECK(x.proveEQ(f.M, f.N) == Truth::Unknown);
  CHECK(x.proveEQ(x.mul(x.floorDiv(f.M, f.c(4)), f.c(4)), f.M) == Truth::Unknown);
  CHECK(x.proveEQ(x.mul(x.cdiv(f.M, f.c(4)), f.c(4)), f.M) == Truth::Unknown);
  CHECK(x.proveLT(f.i, f.c(8)) == Truth::Unknown);
  CHECK(x.proveGE(x.sub(f.M, f.c(64)), f.c(0)) == Truth::Unknown);
  CHECK(x.proveLE(x.mul(f.M, f.M), f.N) == Truth::Unknown);
  CHECK(x.proveNE(x.mod(f.M, f.c(4)), f.c(0)) == Truth::Unknown);
  const SymExpr* div0 = x.floorDiv(f.M, f.c(0));
  CHECK(x.proveEQ(div0, div0) == Truth::Unknown);
  CHECK(x.proveEQ(x.unknown(), x.unknown()) == Truth::Unknown);
  CHECK(x.proveLE(x.unknown(), f.M) == Truth::Unknown);
  Interval b = x.bounds(x.sub(f.M, f.N));
  CHECK_FALSE(b.lo.has_value());
  CHECK_FALSE(b.hi.has_value());
}

// --- Evaluation and substitution -------------------------------------------------

TEST_CASE("evaluate and substitute", "[symbolic][eval]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* e = x.add(x.mul(x.cdiv(f.M, f.c(64)), f.K), x.mod(f.N, f.c(3)));
  SymValues at = valuesOf({{f.M, 130}, {f.N, 7}, {f.K, 5}});
  CHECK(evaluate(e, at) == 3 * 5 + 1);
  CHECK(evaluate(x.floorDiv(x.sub(f.c(0), f.M), f.c(4)), at) == -33);
  CHECK(evaluate(x.min(f.M, f.N), at) == 7);
  EvalError why = EvalError::None;
  CHECK_FALSE(evaluate(e, valuesOf({{f.M, 1}}), &why).has_value());
  CHECK(why == EvalError::UnboundSymbol);

  SymSubstitution toConst = replacing({{f.M, f.c(128)}});
  CHECK(x.substitute(x.cdiv(f.M, f.c(64)), toConst) == f.c(2));
  const SymExpr* t = x.symbol("T");
  SymSubstitution toMultiple = replacing({{f.M, x.mul(f.c(64), t)}});
  CHECK(x.substitute(x.cdiv(f.M, f.c(64)), toMultiple) == t);
  CHECK(x.substitute(x.add(f.M, f.N), replacing({{f.N, x.neg(f.M)}})) == f.c(0));
  CHECK(x.substitute(e, SymSubstitution{}) == e);
  CHECK(x.substitute(e, replacing({{f.M, f.M}})) == e);
}

// --- Overflow and division by zero ---------------------------------------------------

TEST_CASE("overflowing folds are not folded", "[symbolic][overflow]") {
  Fixture f;
  auto& x = f.ctx;
  EvalError why = EvalError::None;
  const SymExpr* big = x.add(f.c(kMax), f.c(1));
  CHECK_FALSE(isConstant(big));
  CHECK(print(big) == "9223372036854775807 + 1");
  CHECK_FALSE(evaluate(big, SymValues(), &why).has_value());
  CHECK(why == EvalError::Overflow);
  CHECK(x.sub(big, f.c(1)) == f.c(kMax));  // folds again once it fits
  const SymExpr* twice = x.mul(f.c(kMax), f.c(2));
  CHECK_FALSE(isConstant(twice));
  CHECK_FALSE(evaluate(twice, SymValues()).has_value());
  CHECK_FALSE(isConstant(x.neg(f.c(kMin))));
  CHECK_FALSE(isConstant(x.floorDiv(f.c(kMin), f.c(-1))));
  CHECK(x.mod(f.c(kMin), f.c(-1)) == f.c(0));
  // Like terms whose coefficients overflow stay apart; evaluation reports it.
  const SymExpr* wide = x.add(x.mul(f.c(kMax), f.M), f.M);
  CHECK_FALSE(evaluate(wide, valuesOf({{f.M, 1}}), &why).has_value());
  CHECK(why == EvalError::Overflow);
  CHECK_FALSE(evaluate(x.mul(f.M, f.N), valuesOf({{f.M, kMax}, {f.N, 2}})).has_value());
  // Interval arithmetic saturates instead of wrapping.
  Interval b = x.mul(f.M, f.c(kMax))->naiveBounds();
  CHECK(b.lo == kMax);
  CHECK_FALSE(b.hi.has_value());
  CHECK(x.proveGT(x.mul(f.M, f.c(kMax)), f.c(0)) == Truth::True);
  CHECK(x.proveLT(x.mul(f.M, f.c(kMin)), f.c(0)) == Truth::True);
}

TEST_CASE("division by zero is built, flagged and never folded", "[symbolic][overflow]") {
  Fixture f;
  auto& x = f.ctx;
  CHECK_FALSE(x.sawDivisionByZero());
  const SymExpr* d = x.floorDiv(f.M, f.c(0));
  CHECK(x.sawDivisionByZero());
  CHECK(isDivisionByZero(d));
  CHECK(isDivisionByZero(x.add(d, f.c(1))));
  CHECK_FALSE(isDivisionByZero(x.floorDiv(f.M, f.N)));
  CHECK(llvm::isa<FloorDivExpr>(d));
  CHECK(print(d) == "(M / 0)");
  CHECK_FALSE(isConstant(x.floorDiv(f.c(5), f.c(0))));
  CHECK_FALSE(isConstant(x.mod(f.c(5), f.c(0))));
  CHECK_FALSE(isConstant(x.cdiv(f.c(0), f.c(0))));
  EvalError why = EvalError::None;
  CHECK_FALSE(evaluate(d, valuesOf({{f.M, 3}}), &why).has_value());
  CHECK(why == EvalError::DivisionByZero);
  CHECK_FALSE(evaluate(x.floorDiv(f.M, x.sub(f.N, f.c(1))), valuesOf({{f.M, 3}, {f.N, 1}}), &why));
  CHECK(why == EvalError::DivisionByZero);
  CHECK(x.proveGE(x.mod(f.M, f.c(0)), f.c(0)) == Truth::Unknown);
}

// --- Caps -------------------------------------------------------------------------------

TEST_CASE("deep expressions hit the depth cap", "[symbolic][caps]") {
  Fixture f;
  auto& x = f.ctx;
  const SymExpr* e = f.M;
  int steps = 0;
  while (!isUnknown(e) && steps < 10000) {
    e = x.floorDiv(x.add(e, f.N), f.c(3));
    ++steps;
  }
  CHECK(isUnknown(e));
  CHECK(steps <= static_cast<int>(SymContext::kMaxDepth));
  CHECK(isUnknown(x.add(e, f.c(1))));
  CHECK(isUnknown(x.min(e, e)));
  CHECK(isUnknown(x.sub(e, e)));
  CHECK(x.proveEQ(e, e) == Truth::Unknown);
  EvalError why = EvalError::None;
  CHECK_FALSE(evaluate(e, valuesOf({{f.M, 1}, {f.N, 1}}), &why).has_value());
  CHECK(why == EvalError::Unknown);
  // The deepest expression below the cap still works.
  const SymExpr* deep = f.M;
  for (unsigned n = 0; n < SymContext::kMaxDepth / 2 - 2; ++n) deep = x.floorDiv(x.add(deep, f.N), f.c(3));
  REQUIRE_FALSE(isUnknown(deep));
  CHECK(deep->depth() <= SymContext::kMaxDepth);
  CHECK(evaluate(deep, valuesOf({{f.M, 5}, {f.N, 1}})).has_value());
  CHECK(x.proveGE(deep, f.c(0)) == Truth::True);
  CHECK(!print(deep).empty());
}

TEST_CASE("shared subexpressions hit the size cap", "[symbolic][caps]") {
  Fixture f;
  auto& x = f.ctx;
  // Each step doubles the tree while the DAG stays linear.
  const SymExpr* e = f.M;
  int steps = 0;
  while (!isUnknown(e) && steps < 1000) {
    e = x.floorDiv(e, x.add(e, f.N));
    ++steps;
  }
  CHECK(isUnknown(e));
  CHECK(steps < 40);
  // A very wide sum, too.
  std::vector<const SymExpr*> many;
  for (int n = 0; n < 70000; ++n) many.push_back(x.symbol("s" + std::to_string(n)));
  CHECK(isUnknown(x.add(many)));
}

// --- Randomized properties ---------------------------------------------------------

namespace {

/// A reference expression tree evaluated directly (floor semantics, 128-bit
/// intermediates), to check canonical forms against.
struct RefNode {
  enum Op { Const, Sym, Add, Sub, Mul, Neg, FloorDiv, CeilDiv, Mod, Min, Max } op;
  std::int64_t value = 0;  // Const value or Sym index
  int a = -1, b = -1;
};

struct RandomExprs {
  SymContext& ctx;
  std::mt19937_64& rng;
  std::vector<const SymbolExpr*> symbols;
  std::vector<RefNode> nodes;

  int pick(int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

  /// Builds a random expression; returns its canonical form and reference.
  std::pair<const SymExpr*, int> make(int depth) {
    if (depth == 0 || pick(4) == 0) {
      if (pick(2) == 0) {
        std::int64_t v = pick(15) - 5;
        nodes.push_back({RefNode::Const, v});
        return {ctx.constant(v), static_cast<int>(nodes.size()) - 1};
      }
      int s = pick(static_cast<int>(symbols.size()));
      nodes.push_back({RefNode::Sym, s});
      return {symbols[s], static_cast<int>(nodes.size()) - 1};
    }
    auto op = static_cast<RefNode::Op>(RefNode::Add + pick(9));
    auto [x, xr] = make(depth - 1);
    if (op == RefNode::Neg) {
      nodes.push_back({op, 0, xr});
      return {ctx.neg(x), static_cast<int>(nodes.size()) - 1};
    }
    std::pair<const SymExpr*, int> y;
    if (op == RefNode::FloorDiv || op == RefNode::CeilDiv || op == RefNode::Mod) {
      // Mostly positive constant divisors, as in shapes; sometimes any.
      if (pick(3) != 0) {
        std::int64_t k = 1 + pick(9);
        nodes.push_back({RefNode::Const, k});
        y = {ctx.constant(k), static_cast<int>(nodes.size()) - 1};
      } else {
        y = make(depth - 1);
      }
    } else {
      y = make(depth - 1);
    }
    nodes.push_back({op, 0, xr, y.second});
    const SymExpr* e = nullptr;
    switch (op) {
      case RefNode::Add: e = ctx.add(x, y.first); break;
      case RefNode::Sub: e = ctx.sub(x, y.first); break;
      case RefNode::Mul: e = ctx.mul(x, y.first); break;
      case RefNode::FloorDiv: e = ctx.floorDiv(x, y.first); break;
      case RefNode::CeilDiv: e = ctx.cdiv(x, y.first); break;
      case RefNode::Mod: e = ctx.mod(x, y.first); break;
      case RefNode::Min: e = ctx.min(x, y.first); break;
      default: e = ctx.max(x, y.first); break;
    }
    return {e, static_cast<int>(nodes.size()) - 1};
  }

  std::optional<std::int64_t> eval(int n, const std::vector<std::int64_t>& at) const {
    const RefNode& r = nodes[n];
    using I = __int128;
    auto fits = [](I v) -> std::optional<std::int64_t> {
      if (v < kMin || v > kMax) return std::nullopt;
      return static_cast<std::int64_t>(v);
    };
    if (r.op == RefNode::Const) return r.value;
    if (r.op == RefNode::Sym) return at[r.value];
    auto a = eval(r.a, at);
    if (!a) return std::nullopt;
    if (r.op == RefNode::Neg) return fits(-I(*a));
    auto b = eval(r.b, at);
    if (!b) return std::nullopt;
    I x = *a, y = *b;
    auto floorDiv = [](I p, I q) { I d = p / q; return (p % q != 0 && ((p < 0) != (q < 0))) ? d - 1 : d; };
    switch (r.op) {
      case RefNode::Add: return fits(x + y);
      case RefNode::Sub: return fits(x - y);
      case RefNode::Mul: return fits(x * y);
      case RefNode::FloorDiv: if (y == 0) return std::nullopt; return fits(floorDiv(x, y));
      case RefNode::CeilDiv: if (y == 0) return std::nullopt; return fits(-floorDiv(-x, y));
      case RefNode::Mod: if (y == 0) return std::nullopt; return fits(x - y * floorDiv(x, y));
      case RefNode::Min: return std::min(*a, *b);
      case RefNode::Max: return std::max(*a, *b);
      default: return std::nullopt;
    }
  }
};

/// Symbols M, N >= 1, i in [0, 8), j in [0, M): a random point in range.
struct Point {
  std::vector<std::int64_t> values;
  SymValues bindings;
};

Point randomPoint(std::mt19937_64& rng, const std::vector<const SymbolExpr*>& syms) {
  Point p;
  std::int64_t m = 1 + static_cast<std::int64_t>(rng() % 40);
  std::int64_t n = 1 + static_cast<std::int64_t>(rng() % 40);
  std::int64_t i = static_cast<std::int64_t>(rng() % 8);
  std::int64_t j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m));
  p.values = {m, n, i, j};
  for (std::size_t s = 0; s < syms.size(); ++s) p.bindings[syms[s]] = p.values[s];
  return p;
}

}  // namespace

TEST_CASE("canonicalisation preserves values", "[symbolic][random]") {
  SymContext ctx;
  std::mt19937_64 rng(12345);
  const SymbolExpr* M = ctx.symbol("M");
  RandomExprs gen{ctx, rng, {M, ctx.symbol("N"), ctx.boundedSymbol("i", 0, 8), ctx.boundedSymbol("j", 0, M)}, {}};
  int compared = 0, mismatches = 0, spuriousFailures = 0;
  for (int n = 0; n < 2000; ++n) {
    auto [e, ref] = gen.make(4);
    for (int p = 0; p < 10; ++p) {
      Point pt = randomPoint(rng, gen.symbols);
      std::optional<std::int64_t> want = gen.eval(ref, pt.values);
      if (!want) continue;
      EvalError why = EvalError::None;
      std::optional<std::int64_t> got = evaluate(e, pt.bindings, &why);
      if (!got) {
        // Distribution may overflow where the original did not; nothing else may fail.
        if (why != EvalError::Overflow) ++spuriousFailures;
        continue;
      }
      ++compared;
      if (*got != *want) {
        ++mismatches;
        UNSCOPED_INFO("expression " << print(e) << " gives " << *got << ", expected " << *want);
      }
    }
  }
  CHECK(mismatches == 0);
  CHECK(spuriousFailures == 0);
  CHECK(compared > 10000);
}

TEST_CASE("every proven answer agrees with evaluation", "[symbolic][random]") {
  SymContext ctx;
  std::mt19937_64 rng(777);
  const SymbolExpr* M = ctx.symbol("M");
  RandomExprs gen{ctx, rng, {M, ctx.symbol("N"), ctx.boundedSymbol("i", 0, 8), ctx.boundedSymbol("j", 0, M)}, {}};
  std::vector<std::pair<const SymExpr*, const SymExpr*>> pairs;
  for (int n = 0; n < 500; ++n) {
    const SymExpr* a = gen.make(3).first;
    const SymExpr* b = gen.make(3).first;
    pairs.push_back({a, b});
    // Shapes that exercise the lemmas.
    const SymExpr* k = ctx.constant(1 + static_cast<std::int64_t>(rng() % 9));
    pairs.push_back({ctx.mul(ctx.cdiv(a, k), k), a});
    pairs.push_back({ctx.mul(ctx.floorDiv(a, k), k), a});
    pairs.push_back({ctx.mod(a, k), k});
    pairs.push_back({ctx.min(a, b), a});
    pairs.push_back({ctx.max(a, b), b});
    pairs.push_back({ctx.add(a, ctx.mod(b, k)), a});
    pairs.push_back({ctx.mul(ctx.cdiv(M, b), b), M});
    pairs.push_back({gen.symbols[3], ctx.add(ctx.mul(ctx.cdiv(M, k), k), b)});
  }
  int definite = 0, wrong = 0, checked = 0;
  std::vector<Point> points;
  for (int p = 0; p < 40; ++p) points.push_back(randomPoint(rng, gen.symbols));
  auto holds = [](int rel, std::int64_t a, std::int64_t b) {
    switch (rel) {
      case 0: return a == b;
      case 1: return a != b;
      case 2: return a <= b;
      case 3: return a < b;
      case 4: return a >= b;
      default: return a > b;
    }
  };
  for (auto [a, b] : pairs) {
    Truth answers[6] = {ctx.proveEQ(a, b), ctx.proveNE(a, b), ctx.proveLE(a, b),
                        ctx.proveLT(a, b), ctx.proveGE(a, b), ctx.proveGT(a, b)};
    Interval ba = ctx.bounds(a);
    for (const Point& pt : points) {
      auto va = evaluate(a, pt.bindings);
      auto vb = evaluate(b, pt.bindings);
      if (va && !ba.contains(*va)) {
        ++wrong;
        UNSCOPED_INFO("bounds of " << print(a) << " exclude " << *va);
      }
      if (!va || !vb) continue;
      ++checked;
      for (int rel = 0; rel < 6; ++rel) {
        if (answers[rel] == Truth::Unknown) continue;
        if (holds(rel, *va, *vb) != (answers[rel] == Truth::True)) {
          ++wrong;
          UNSCOPED_INFO("relation " << rel << " of " << print(a) << " and " << print(b)
                                    << " answered " << truthName(answers[rel]).str() << " but "
                                    << *va << " vs " << *vb);
        }
      }
    }
    for (Truth t : answers) definite += t != Truth::Unknown;
  }
  INFO("definite answers " << definite << ", comparisons " << checked);
  CHECK(wrong == 0);
  CHECK(checked > 1000);
  CHECK(definite > 2000);
}

// --- Cost -------------------------------------------------------------------------------

TEST_CASE("a GEMM shape check takes microseconds", "[symbolic][perf]") {
  SymContext ctx;
  auto start = std::chrono::steady_clock::now();
  int proven = 0;
  for (int rep = 0; rep < 10; ++rep) {
    const SymExpr* M = ctx.symbol("M");
    const SymExpr* N = ctx.symbol("N");
    const SymExpr* K = ctx.symbol("K");
    const std::int64_t tiles[] = {64, 128, 256};
    for (std::int64_t tm : tiles) {
      const SymExpr* TM = ctx.constant(tm);
      const SymExpr* TK = ctx.constant(64);
      const SymExpr* gridM = ctx.cdiv(M, TM);
      const SymExpr* gridN = ctx.cdiv(N, TM);
      const SymExpr* bm = ctx.boundedSymbol("block_m", 0, gridM);
      const SymExpr* bn = ctx.boundedSymbol("block_n", 0, gridN);
      const SymExpr* kIter = ctx.boundedSymbol("k", 0, ctx.cdiv(K, TK));
      const SymExpr* thr = ctx.boundedSymbol("thr", 0, 128);
      const SymExpr* row = ctx.add(ctx.mul(bm, TM), ctx.floorDiv(thr, ctx.constant(2)));
      const SymExpr* col = ctx.add(ctx.mul(bn, TM), ctx.mul(ctx.mod(thr, ctx.constant(2)), ctx.constant(4)));
      proven += ctx.proveGE(ctx.mul(gridM, TM), M) == Truth::True;
      proven += ctx.proveLT(row, ctx.mul(gridM, TM)) == Truth::True;
      proven += ctx.proveLT(col, ctx.mul(gridN, TM)) == Truth::True;
      proven += ctx.proveLE(ctx.add(ctx.mul(kIter, TK), TK), ctx.mul(ctx.cdiv(K, TK), TK)) == Truth::True;
      proven += ctx.proveEQ(ctx.floorDiv(ctx.mul(M, K), K), M) == Truth::True;
      proven += ctx.proveEQ(ctx.floorDiv(TM, ctx.constant(4)), ctx.constant(tm / 4)) == Truth::True;
      proven += ctx.proveGT(ctx.constant(16), ctx.constant(8)) == Truth::True;
      proven += ctx.proveLE(M, N) == Truth::Unknown;
      proven += ctx.proveEQ(ctx.mul(ctx.floorDiv(M, TM), TM), M) == Truth::Unknown;
      proven += !print(ctx.add(row, ctx.mul(col, K))).empty();
    }
  }
  auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start).count();
  CHECK(proven == 10 * 3 * 10);
  INFO("300 shape queries took " << elapsed << " us");
  CHECK(elapsed < 200000);
}
