// Unit tests of the target descriptions (compiler/target): target lookup and
// limits, element-type properties, every kind of row of the MMA table with
// legal and illegal shapes and the exact failure reason, default
// accumulators, swizzle widths, copy directions, thread counts and the
// `[f16(a)f16(b)f32(c)f32(d): m64n64k16]` notation.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "target/ElementTypes.h"
#include "target/Target.h"

using namespace croqc;
using namespace croqc::target;
// The element-type enumerators unqualified (`ty_f16`); through a namespace so
// that `TokenKind::pipe` does not clash with ::pipe from <unistd.h>.
namespace kinds {
using enum croqc::TokenKind;
}
using namespace kinds;

namespace {

const TargetInfo& sm86() { return *lookupTarget("sm_86"); }
const TargetInfo& sm90a() { return *lookupTarget("sm_90a"); }
const TargetInfo& cpu() { return *lookupTarget("cpu"); }

MmaQuery warp(TokenKind a, TokenKind b, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  MmaQuery q;
  q.scope = MmaScope::Warp;
  q.aType = a;
  q.bType = b;
  q.m = m;
  q.n = n;
  q.k = k;
  return q;
}

MmaQuery warpgroup(TokenKind a, TokenKind b, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  MmaQuery q = warp(a, b, m, n, k);
  q.scope = MmaScope::Warpgroup;
  return q;
}

MmaQuery withAcc(MmaQuery q, TokenKind acc) {
  q.accType = acc;
  return q;
}

MmaQuery sparse(MmaQuery q) {
  q.sparse = true;
  return q;
}

MmaFailure failureOf(const MmaQuery& q, const TargetInfo& t) { return selectMma(q, t).failure; }

}  // namespace

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------

TEST_CASE("targets are looked up by exact name", "[target]") {
  REQUIRE(allTargets().size() == 6);
  for (const TargetInfo& t : allTargets()) {
    CHECK(lookupTarget(t.name) == &t);
    CHECK(&targetInfo(t.id) == &t);
  }
  for (const char* name : {"cpu", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) CHECK(lookupTarget(name) != nullptr);
  CHECK(lookupTarget("SM_86") == nullptr);
  CHECK(lookupTarget("") == nullptr);
  CHECK(lookupTarget("sm_75") == nullptr);
  CHECK(lookupTarget("sm_100a") == nullptr);
}

TEST_CASE("near-miss target names get a suggestion", "[target]") {
  CHECK(suggestTarget("sm90") == "sm_90");
  CHECK(suggestTarget("SM_90A") == "sm_90a");
  CHECK(suggestTarget("90a") == "sm_90a");
  CHECK(suggestTarget("SM86") == "sm_86");
  CHECK(suggestTarget("sm89") == "sm_89");
  CHECK(suggestTarget("sm-80") == "sm_80");
  CHECK(suggestTarget("sm_87") == "sm_86");
  CHECK(suggestTarget("CPU") == "cpu");
  CHECK(suggestTarget("cpus") == "cpu");
  CHECK(suggestTarget("sm_75") == "");
  CHECK(suggestTarget("sm_100a") == "");
  CHECK(suggestTarget("sm_8") == "");
  CHECK(suggestTarget("hopper-x") == "");
}

TEST_CASE("target descriptions carry the hardware limits", "[target]") {
  const TargetInfo& a = sm86();
  CHECK(a.id == TargetId::Sm86);
  CHECK(a.isGpu);
  CHECK(a.nvccGencode == "-gencode=arch=compute_86,code=[sm_86,compute_86]");
  CHECK(a.smVersion == 86);
  CHECK(a.maxThreadsPerCta == 1024);
  CHECK(a.maxSharedBytesPerCta == 101376);
  CHECK(a.maxRegistersPerThread == 255);
  CHECK(a.warpSize == 32);
  CHECK(a.warpgroupSize() == 128);
  CHECK_FALSE(a.hasWarpgroups);
  CHECK_FALSE(a.hasWgmma);
  CHECK_FALSE(a.hasTma);
  CHECK_FALSE(a.hasClusters);
  CHECK_FALSE(a.hasFp8Mma);

  const TargetInfo& h = sm90a();
  CHECK(h.id == TargetId::Sm90a);
  CHECK(h.nvccGencode == "-gencode=arch=compute_90a,code=sm_90a");
  CHECK(h.smVersion == 90);
  CHECK(h.maxSharedBytesPerCta == 232448);
  CHECK(h.maxThreadsPerCta == 1024);
  CHECK(h.hasWarpgroups);
  CHECK(h.hasWgmma);
  CHECK(h.hasTma);
  CHECK(h.hasClusters);
  CHECK(h.hasFp8Mma);

  // Hopper without the arch-specific features: no WGMMA, no warpgroups, but
  // TMA (bulk tensor copies are sm_90 instructions).
  const TargetInfo& g = *lookupTarget("sm_90");
  CHECK(g.smVersion == 90);
  CHECK(g.maxSharedBytesPerCta == 232448);
  CHECK(g.nvccGencode == "-gencode=arch=compute_90,code=[sm_90,compute_90]");
  CHECK_FALSE(g.hasWarpgroups);
  CHECK_FALSE(g.hasWgmma);
  CHECK(g.hasTma);
  CHECK(g.hasFp8Mma);

  const TargetInfo& ampere = *lookupTarget("sm_80");
  CHECK(ampere.maxSharedBytesPerCta == 166912);
  CHECK_FALSE(ampere.hasFp8Mma);
  CHECK(lookupTarget("sm_89")->hasFp8Mma);
  CHECK_FALSE(lookupTarget("sm_89")->hasWgmma);

  const TargetInfo& c = cpu();
  CHECK_FALSE(c.isGpu);
  CHECK(c.nvccGencode.empty());
  CHECK(c.hasWarpgroups);
}

TEST_CASE("every target supports the three swizzle widths", "[target][swizzle]") {
  for (const TargetInfo& t : allTargets()) {
    CHECK(t.supportsSwizzle(0));
    CHECK(t.supportsSwizzle(32));
    CHECK(t.supportsSwizzle(64));
    CHECK(t.supportsSwizzle(128));
    CHECK_FALSE(t.supportsSwizzle(16));
    CHECK_FALSE(t.supportsSwizzle(256));
    CHECK_FALSE(t.supportsSwizzle(3));
  }
}

// ---------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------

TEST_CASE("element types have spec 4.2 widths and classes", "[target][types]") {
  CHECK(elementBits(ty_f16) == 16);
  CHECK(elementBits(ty_bf16) == 16);
  CHECK(elementBits(ty_tf32) == 32);
  CHECK(elementBits(ty_f32) == 32);
  CHECK(elementBits(ty_f64) == 64);
  CHECK(elementBits(ty_f8) == 8);
  CHECK(elementBits(ty_f8_e5m2) == 8);
  CHECK(elementBits(ty_f6_e2m3) == 6);
  CHECK(elementBits(ty_f4_e2m1) == 4);
  CHECK(elementBits(ty_u1) == 1);
  CHECK(elementBits(ty_bin1) == 1);
  CHECK(elementBits(ty_s4) == 4);
  CHECK(elementBits(ty_u8) == 8);
  CHECK(elementBits(ty_s64) == 64);
  CHECK(elementBits(kw_parallel) == 0);
  CHECK(elementBits(identifier) == 0);

  CHECK(elementBytes(ty_f16) == 2);
  CHECK(elementBytes(ty_s4) == 1);
  CHECK(elementBytes(ty_tf32) == 4);
  CHECK(elementBytes(kw_parallel) == 0);

  CHECK(isFloatType(ty_f16));
  CHECK(isFloatType(ty_tf32));
  CHECK(isFloatType(ty_f8_ue8m0));
  CHECK_FALSE(isFloatType(ty_s32));
  CHECK_FALSE(isFloatType(kw_int));
  CHECK(isIntegerType(ty_u1));
  CHECK(isIntegerType(ty_bin1));
  CHECK(isIntegerType(ty_s16));
  CHECK_FALSE(isIntegerType(ty_bf16));
  CHECK_FALSE(isIntegerType(kw_int));

  CHECK(isSigned(ty_s8));
  CHECK(isSigned(ty_f32));
  CHECK(isSigned(ty_f8_e4m3));
  CHECK_FALSE(isSigned(ty_u8));
  CHECK_FALSE(isSigned(ty_bin1));
  CHECK_FALSE(isSigned(ty_f8_ue4m3));
  CHECK_FALSE(isSigned(kw_parallel));

  CHECK(isFp8Type(ty_f8));
  CHECK(isFp8Type(ty_f8_e5m2));
  CHECK_FALSE(isFp8Type(ty_f8_ue8m0));
}

TEST_CASE("every element type kind has properties", "[target][types]") {
  for (TokenKind kind : detail::kElementTypeKinds) {
    INFO(tokenKindSpelling(kind).str());
    CHECK(isElementType(kind));
    CHECK(elementBits(kind) > 0);
    CHECK(isFloatType(kind) != isIntegerType(kind));
  }
}

TEST_CASE("aliases and MMA operand canonicalisation", "[target][types]") {
  CHECK(canonicalElementType(ty_f8) == ty_f8_e4m3);
  CHECK(canonicalElementType(ty_f32) == ty_f32);
  CHECK(canonicalMmaOperandType(ty_f32) == ty_tf32);
  CHECK(canonicalMmaOperandType(ty_f8) == ty_f8_e4m3);
  CHECK(canonicalMmaOperandType(ty_f16) == ty_f16);
  CHECK(ptxTypeName(ty_f8) == "e4m3");
  CHECK(ptxTypeName(ty_f8_e5m2) == "e5m2");
  CHECK(ptxTypeName(ty_bf16) == "bf16");
  CHECK(ptxTypeName(ty_bin1) == "b1");
  CHECK(ptxTypeName(ty_s6) == "");
  CHECK(ptxTypeName(kw_parallel) == "");
}

// ---------------------------------------------------------------------------
// Sets
// ---------------------------------------------------------------------------

TEST_CASE("N sets: fixed values, ranges, steps and unions", "[target][mma]") {
  NSet all = NSet::range(8, 256, 8);
  CHECK(all.min() == 8);
  CHECK(all.max() == 256);
  CHECK(all.values().size() == 32);
  CHECK(all.contains(8));
  CHECK(all.contains(184));
  CHECK(all.contains(256));
  CHECK_FALSE(all.contains(0));
  CHECK_FALSE(all.contains(180));
  CHECK_FALSE(all.contains(264));
  CHECK_FALSE(all.isSingle());
  CHECK(describeNSet(all) == "8..256 step 8");

  NSet one = NSet::fixed(8);
  CHECK(one.isSingle());
  CHECK(one.min() == 8);
  CHECK(one.max() == 8);
  CHECK(describeNSet(one) == "8");

  NSet ints = NSet::range(8, 24, 8) | NSet::range(32, 256, 16);
  CHECK(ints.contains(24));
  CHECK(ints.contains(32));
  CHECK(ints.contains(48));
  CHECK_FALSE(ints.contains(40));
  CHECK(ints.contains(256));
  CHECK(ints.values().size() == 3 + 15);
  CHECK(describeNSet(ints) == "8..32 step 8, 48..256 step 16");

  NSet irregular = NSet::fixed(8) | NSet::fixed(16) | NSet::fixed(64) | NSet::fixed(96);
  CHECK(describeNSet(irregular) == "8, 16, 64, 96");
  CHECK(describeNSet(NSet()) == "");
  CHECK(NSet().min() == 0);
  // Values off the granule or outside 8..256 are dropped.
  CHECK(NSet::range(4, 12, 4).values() == llvm::SmallVector<unsigned, 32>{8});
}

TEST_CASE("element type sets", "[target][mma]") {
  ElemTypeSet set{ty_f16, ty_f32};
  CHECK(set.contains(ty_f16));
  CHECK(set.contains(ty_f32));
  CHECK_FALSE(set.contains(ty_bf16));
  CHECK_FALSE(set.contains(kw_parallel));
  CHECK(describeTypeSet(set) == "f16 or f32");
  CHECK(describeTypeSet({ty_f16}) == "f16");
  CHECK(describeTypeSet({ty_s8, ty_u8, ty_s4}) == "s4, u8 or s8");
  CHECK(ElemTypeSet().empty());
}

// ---------------------------------------------------------------------------
// The MMA table
// ---------------------------------------------------------------------------

TEST_CASE("the MMA table is well formed", "[target][mma]") {
  std::set<std::string> names;
  unsigned index = 0;
  for (const MmaAtom& atom : allMmaAtoms()) {
    INFO(atom.name.str());
    CHECK(static_cast<unsigned>(atom.id) == index++);
    CHECK(&mmaAtom(atom.id) == &atom);
    CHECK(names.insert(atom.name.str()).second);
    CHECK_FALSE(atom.aTypes.empty());
    CHECK_FALSE(atom.bTypes.empty());
    CHECK_FALSE(atom.accTypes.empty());
    CHECK_FALSE(atom.n.empty());
    CHECK(atom.m > 0);
    CHECK(atom.k > 0);
    CHECK(atom.aSources != 0);
    CHECK(atom.bSources != 0);
    if (atom.scope == MmaScope::Warp) {
      CHECK(atom.n.isSingle());
      CHECK(atom.instr != MmaInstr::Wgmma);
      CHECK(atom.allowsASource(OperandSource::Registers));
    } else {
      CHECK(atom.instr == MmaInstr::Wgmma);
      CHECK(atom.m == 64);
      CHECK(atom.minSm == 90);
      CHECK(atom.allowsASource(OperandSource::Shared));
      CHECK(atom.allowsASource(OperandSource::Registers));
      CHECK(atom.allowsBSource(OperandSource::Shared));
      CHECK_FALSE(atom.allowsBSource(OperandSource::Registers));
    }
    if (atom.instr == MmaInstr::Wmma) CHECK_FALSE(atom.primary);
  }
  // One Primary atom per scope, sparsity and operand-type pair.
  for (const MmaAtom& x : allMmaAtoms())
    for (const MmaAtom& y : allMmaAtoms()) {
      if (&x == &y || !x.primary || !y.primary) continue;
      bool overlap = x.scope == y.scope && x.sparse == y.sparse && x.aTypes.intersects(y.aTypes) &&
                     x.bTypes.intersects(y.bTypes);
      INFO(x.name.str() << " / " << y.name.str());
      CHECK_FALSE(overlap);
    }
}

TEST_CASE("default accumulator types follow spec 13.2", "[target][mma]") {
  CHECK(defaultAccumulatorType(ty_f16) == ty_f16);
  CHECK(defaultAccumulatorType(ty_bf16) == ty_f32);
  CHECK(defaultAccumulatorType(ty_tf32) == ty_f32);
  CHECK(defaultAccumulatorType(ty_f32) == ty_f32);
  CHECK(defaultAccumulatorType(ty_f8) == ty_f32);
  CHECK(defaultAccumulatorType(ty_f8_e4m3) == ty_f32);
  CHECK(defaultAccumulatorType(ty_f8_e5m2) == ty_f32);
  CHECK(defaultAccumulatorType(ty_s8) == ty_s32);
  CHECK(defaultAccumulatorType(ty_u8) == ty_s32);
  CHECK(defaultAccumulatorType(ty_s4) == ty_s32);
  CHECK(defaultAccumulatorType(ty_f64) == ty_f64);
  CHECK_FALSE(defaultAccumulatorType(ty_s32).has_value());
  CHECK_FALSE(defaultAccumulatorType(ty_u16).has_value());
  CHECK_FALSE(defaultAccumulatorType(kw_parallel).has_value());
}

TEST_CASE("warp f16 MMA splits into mma.sync m16n8k16 atoms", "[target][mma]") {
  // The tutorial's 16x16x16 tile: two atoms along N.
  MmaSelection s = selectMma(warp(ty_f16, ty_f16, 16, 16, 16), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncF16_m16n8k16);
  CHECK(s.atom->instr == MmaInstr::MmaSync);
  CHECK(s.accType == ty_f16);
  CHECK(s.instrM == 16);
  CHECK(s.instrN == 8);
  CHECK(s.instrK == 16);
  CHECK(s.countM == 1);
  CHECK(s.countN == 2);
  CHECK(s.countK == 1);
  CHECK(s.atomCount() == 2);

  // The reference rejects m32n32k32 on SM_86; croqc tiles it.
  s = selectMma(warp(ty_f16, ty_f16, 32, 32, 32), sm86());
  REQUIRE(s.ok());
  CHECK(s.countM == 2);
  CHECK(s.countN == 4);
  CHECK(s.countK == 2);
  CHECK(s.atomCount() == 16);

  s = selectMma(withAcc(warp(ty_f16, ty_f16, 64, 32, 64), ty_f32), sm86());
  REQUIRE(s.ok());
  CHECK(s.accType == ty_f32);
  CHECK(s.atomCount() == 4 * 4 * 4);

  // Warp MMA stays legal on sm_90a and on the cpu.
  CHECK(selectMma(warp(ty_f16, ty_f16, 16, 8, 16), sm90a()).ok());
  CHECK(selectMma(warp(ty_f16, ty_f16, 16, 8, 16), cpu()).ok());
}

TEST_CASE("warp MMA shape failures name the dimension", "[target][mma]") {
  // No f16 shape (m16n8k16, m16n8k8, m8n8k4) divides these: the failure is
  // the Primary atom's.
  MmaSelection s = selectMma(warp(ty_f16, ty_f16, 4, 8, 16), sm86());
  CHECK(s.failure == MmaFailure::MNotMultiple);
  REQUIRE(s.atom);
  CHECK(s.atom->id == MmaAtomId::MmaSyncF16_m16n8k16);
  CHECK(s.instrM == 16);
  CHECK(failureOf(warp(ty_f16, ty_f16, 0, 8, 16), sm86()) == MmaFailure::MNotMultiple);
  CHECK(failureOf(warp(ty_f16, ty_f16, 12, 8, 16), sm86()) == MmaFailure::MNotMultiple);
  CHECK(failureOf(warp(ty_f16, ty_f16, 16, 12, 16), sm86()) == MmaFailure::NNotMultiple);
  CHECK(failureOf(warp(ty_f16, ty_f16, 16, 0, 16), sm86()) == MmaFailure::NNotMultiple);
  s = selectMma(warp(ty_f16, ty_f16, 16, 8, 6), sm86());
  CHECK(s.failure == MmaFailure::KNotMultiple);
  CHECK(s.instrK == 16);
  CHECK(failureOf(warp(ty_f16, ty_f16, 16, 8, 2), sm86()) == MmaFailure::KNotMultiple);
  CHECK(failureOf(warp(ty_f16, ty_f16, 16, 8, 0), sm86()) == MmaFailure::KNotMultiple);
}

TEST_CASE("a warp tile the Primary atom does not divide takes the first smaller shape", "[target][mma]") {
  MmaSelection s = selectMma(warp(ty_f16, ty_f16, 16, 8, 8), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncF16_m16n8k8);
  CHECK(s.instrK == 8);
  s = selectMma(warp(ty_f16, ty_f16, 16, 8, 24), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncF16_m16n8k8);
  CHECK(s.countK == 3);
  s = selectMma(warp(ty_f16, ty_f16, 8, 8, 16), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncF16_m8n8k4);
  CHECK(s.countK == 4);
  CHECK(selectMma(warp(ty_f16, ty_f16, 24, 8, 4), sm86()).atom->id == MmaAtomId::MmaSyncF16_m8n8k4);
  CHECK(selectMma(withAcc(warp(ty_bf16, ty_bf16, 16, 8, 8), ty_f32), sm86()).atom->id ==
        MmaAtomId::MmaSyncBF16_m16n8k8);
  // bf16 has no m8n8k4: M = 8 fits no bf16 shape.
  CHECK(failureOf(warp(ty_bf16, ty_bf16, 8, 8, 16), sm86()) == MmaFailure::MNotMultiple);
  CHECK(selectMma(warp(ty_tf32, ty_tf32, 16, 8, 4), sm86()).atom->id == MmaAtomId::MmaSyncTF32_m16n8k4);
  s = selectMma(warp(ty_s8, ty_s8, 16, 16, 16), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncI8_m16n8k16);
  CHECK(s.countN == 2);
  CHECK(selectMma(warp(ty_u8, ty_u8, 8, 8, 16), sm86()).atom->id == MmaAtomId::MmaSyncI8_m8n8k16);
  CHECK(selectMma(warp(ty_s8, ty_s8, 8, 8, 64), sm86()).atom->id == MmaAtomId::MmaSyncI8_m8n8k16);
  // The m8n8k4 f16 accumulator may be f16 or f32, not s32.
  CHECK(failureOf(withAcc(warp(ty_f16, ty_f16, 8, 8, 4), ty_s32), sm86()) == MmaFailure::AccumulatorType);
  // Warpgroup tiles never fall back.
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 64, 8), sm90a()) == MmaFailure::KNotMultiple);
}

TEST_CASE("warp MMA rows of every operand type", "[target][mma]") {
  MmaSelection s = selectMma(warp(ty_bf16, ty_bf16, 16, 8, 16), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncBF16_m16n8k16);
  CHECK(s.accType == ty_f32);

  // f32 operands are tf32: m16n8k8.
  s = selectMma(warp(ty_f32, ty_f32, 16, 8, 8), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncTF32_m16n8k8);
  CHECK(s.aType == ty_tf32);
  CHECK(s.bType == ty_tf32);
  CHECK(s.accType == ty_f32);
  CHECK(failureOf(warp(ty_tf32, ty_tf32, 16, 8, 2), sm86()) == MmaFailure::KNotMultiple);

  // s8 x u8 mixes; K atom 32.
  s = selectMma(warp(ty_s8, ty_u8, 16, 16, 64), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncI8_m16n8k32);
  CHECK(s.accType == ty_s32);
  CHECK(s.countN == 2);
  CHECK(s.countK == 2);
  CHECK(failureOf(warp(ty_s8, ty_s8, 16, 8, 8), sm86()) == MmaFailure::KNotMultiple);

  s = selectMma(warp(ty_u4, ty_s4, 16, 8, 64), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncI4_m16n8k64);

  s = selectMma(warp(ty_f64, ty_f64, 8, 8, 4), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncF64_m8n8k4);
  CHECK(s.accType == ty_f64);
}

TEST_CASE("warp fp8 MMA needs SM89", "[target][mma]") {
  MmaSelection s = selectMma(warp(ty_f8_e4m3, ty_f8_e5m2, 16, 8, 32), sm86());
  CHECK(s.failure == MmaFailure::NeedsNewerSm);
  CHECK(s.requiredSm == 89);
  REQUIRE(s.atom);
  CHECK(s.atom->id == MmaAtomId::MmaSyncF8_m16n8k32);

  CHECK(selectMma(warp(ty_f8_e4m3, ty_f8_e5m2, 16, 8, 32), *lookupTarget("sm_89")).ok());
  CHECK(failureOf(warp(ty_f8_e4m3, ty_f8_e4m3, 16, 8, 32), *lookupTarget("sm_80")) == MmaFailure::NeedsNewerSm);

  s = selectMma(warp(ty_f8, ty_f8_e5m2, 16, 8, 32), sm90a());
  REQUIRE(s.ok());
  CHECK(s.aType == ty_f8_e4m3);
  CHECK(s.accType == ty_f32);
  CHECK(selectMma(withAcc(warp(ty_f8, ty_f8, 16, 8, 32), ty_f16), sm90a()).ok());
}

TEST_CASE("illegal operand type combinations", "[target][mma]") {
  MmaSelection s = selectMma(warp(ty_f16, ty_bf16, 16, 8, 16), sm86());
  CHECK(s.failure == MmaFailure::TypeCombination);
  CHECK(s.atom == nullptr);
  CHECK(s.aType == ty_f16);
  CHECK(s.bType == ty_bf16);
  CHECK(failureOf(warp(ty_s32, ty_s32, 16, 8, 16), sm86()) == MmaFailure::TypeCombination);
  CHECK(failureOf(warp(ty_f16, ty_f8, 16, 8, 16), sm86()) == MmaFailure::TypeCombination);
  CHECK(failureOf(warp(ty_s8, ty_f16, 16, 8, 32), sm86()) == MmaFailure::TypeCombination);
  CHECK(failureOf(warpgroup(ty_f64, ty_f64, 64, 64, 4), sm90a()) == MmaFailure::TypeCombination);
  CHECK(failureOf(warpgroup(ty_s4, ty_s4, 64, 64, 64), sm90a()) == MmaFailure::TypeCombination);
  // Sparse rows exist only for some types.
  CHECK(failureOf(sparse(warp(ty_tf32, ty_tf32, 16, 8, 16)), sm86()) ==
        MmaFailure::TypeCombination);
}

TEST_CASE("illegal accumulator types", "[target][mma]") {
  MmaSelection s = selectMma(withAcc(warp(ty_bf16, ty_bf16, 16, 8, 16), ty_f16), sm86());
  CHECK(s.failure == MmaFailure::AccumulatorType);
  CHECK(s.accType == ty_f16);
  REQUIRE(s.atom);
  CHECK(describeTypeSet(s.atom->accTypes) == "f32");
  CHECK(failureOf(withAcc(warp(ty_f16, ty_f16, 16, 8, 16), ty_s32), sm86()) ==
        MmaFailure::AccumulatorType);
  CHECK(failureOf(withAcc(warp(ty_s8, ty_s8, 16, 8, 32), ty_f32), sm86()) ==
        MmaFailure::AccumulatorType);
  CHECK(failureOf(withAcc(warpgroup(ty_tf32, ty_tf32, 64, 64, 8), ty_f16), sm90a()) ==
        MmaFailure::AccumulatorType);
  CHECK(failureOf(withAcc(warpgroup(ty_f16, ty_f16, 64, 64, 16), ty_f64), sm90a()) ==
        MmaFailure::AccumulatorType);
  // The accumulator type is checked before the shape.
  CHECK(failureOf(withAcc(warp(ty_bf16, ty_bf16, 3, 3, 3), ty_f16), sm86()) ==
        MmaFailure::AccumulatorType);
}

TEST_CASE("WGMMA f16 and bf16: M 64, N 8..256 step 8, K 16", "[target][mma]") {
  MmaSelection s = selectMma(warpgroup(ty_f16, ty_f16, 64, 128, 64), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaF16);
  CHECK(s.atom->instr == MmaInstr::Wgmma);
  CHECK(s.accType == ty_f16);
  CHECK(s.instrM == 64);
  CHECK(s.instrN == 128);
  CHECK(s.instrK == 16);
  CHECK(s.countM == 1);
  CHECK(s.countN == 1);
  CHECK(s.countK == 4);

  for (unsigned n = 8; n <= 256; n += 8) {
    INFO("n = " << n);
    CHECK(selectMma(withAcc(warpgroup(ty_f16, ty_f16, 64, n, 16), ty_f32), sm90a()).ok());
    CHECK(selectMma(warpgroup(ty_bf16, ty_bf16, 64, n, 16), sm90a()).ok());
  }
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 180, 16), sm90a()) == MmaFailure::NNotAllowed);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 4, 16), sm90a()) == MmaFailure::NOutOfRange);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 0, 16), sm90a()) == MmaFailure::NOutOfRange);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 264, 16), sm90a()) == MmaFailure::NOutOfRange);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 512, 16), sm90a()) == MmaFailure::NOutOfRange);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 128, 64, 16), sm90a()) == MmaFailure::MNotWarpgroupM);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 32, 64, 16), sm90a()) == MmaFailure::MNotWarpgroupM);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 64, 8), sm90a()) == MmaFailure::KNotMultiple);
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 64, 40), sm90a()) == MmaFailure::KNotMultiple);
}

TEST_CASE("WGMMA needs SM90", "[target][mma]") {
  MmaSelection s = selectMma(warpgroup(ty_f16, ty_f16, 64, 64, 16), sm86());
  CHECK(s.failure == MmaFailure::NeedsNewerSm);
  CHECK(s.requiredSm == 90);
  REQUIRE(s.atom);
  CHECK(s.atom->id == MmaAtomId::WgmmaF16);
  // sm_90 without `a` has the SM version but not the instruction.
  CHECK(failureOf(warpgroup(ty_f16, ty_f16, 64, 64, 16), *lookupTarget("sm_90")) == MmaFailure::NeedsWgmma);
  CHECK(selectMma(warp(ty_f16, ty_f16, 16, 8, 16), *lookupTarget("sm_90")).ok());
  // The cpu emulates WGMMA.
  CHECK(selectMma(warpgroup(ty_f16, ty_f16, 64, 64, 16), cpu()).ok());
}

TEST_CASE("WGMMA tf32, fp8, integer and bin1 rows", "[target][mma]") {
  MmaSelection s = selectMma(warpgroup(ty_f32, ty_f32, 64, 8, 32), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaTF32);
  CHECK(s.instrK == 8);
  CHECK(s.countK == 4);
  CHECK(failureOf(warpgroup(ty_tf32, ty_tf32, 64, 64, 4), sm90a()) == MmaFailure::KNotMultiple);

  s = selectMma(warpgroup(ty_f8_e5m2, ty_f8_e4m3, 64, 256, 128), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaF8);
  CHECK(s.instrK == 32);
  CHECK(s.accType == ty_f32);
  CHECK(selectMma(withAcc(warpgroup(ty_f8, ty_f8, 64, 64, 32), ty_f16), sm90a()).ok());
  CHECK(failureOf(warpgroup(ty_f8, ty_f8, 64, 64, 16), sm90a()) == MmaFailure::KNotMultiple);

  // Integers: 8, 16, 24, then multiples of 16 up to 256.
  s = selectMma(warpgroup(ty_u8, ty_s8, 64, 24, 32), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaI8);
  CHECK(s.accType == ty_s32);
  CHECK(selectMma(warpgroup(ty_s8, ty_s8, 64, 48, 64), sm90a()).ok());
  CHECK(selectMma(warpgroup(ty_s8, ty_s8, 64, 224, 32), sm90a()).ok());
  CHECK(selectMma(warpgroup(ty_s8, ty_s8, 64, 256, 32), sm90a()).ok());
  CHECK(failureOf(warpgroup(ty_s8, ty_s8, 64, 40, 32), sm90a()) == MmaFailure::NNotAllowed);
  CHECK(failureOf(warpgroup(ty_s8, ty_s8, 64, 200, 32), sm90a()) == MmaFailure::NNotAllowed);
  CHECK(describeNSet(mmaAtom(MmaAtomId::WgmmaI8).n) == "8..32 step 8, 48..256 step 16");

  s = selectMma(warpgroup(ty_bin1, ty_bin1, 64, 64, 512), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaB1);
  CHECK(s.countK == 2);
}

TEST_CASE("sparse MMA rows count K unpacked", "[target][mma]") {
  MmaSelection s = selectMma(sparse(warp(ty_f16, ty_f16, 16, 8, 32)), sm86());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncSpF16_m16n8k32);
  CHECK(s.atom->sparse);
  CHECK(mmaInstrName(s.atom->instr, s.atom->sparse) == "mma.sp.sync");
  CHECK(failureOf(sparse(warp(ty_f16, ty_f16, 16, 8, 8)), sm86()) == MmaFailure::KNotMultiple);
  CHECK(selectMma(sparse(warp(ty_f16, ty_f16, 16, 8, 16)), sm86()).atom->id == MmaAtomId::MmaSyncSpF16_m16n8k16);
  CHECK(selectMma(sparse(warp(ty_bf16, ty_bf16, 32, 16, 64)), sm86()).atomCount() == 8);
  // FP8 mma.sp.sync is m16n8k64 from sm_89 on, with an f32 accumulator.
  s = selectMma(sparse(warp(ty_f8_e4m3, ty_f8_e4m3, 16, 8, 128)), *lookupTarget("sm_89"));
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::MmaSyncSpF8_m16n8k64);
  CHECK(s.countK == 2);
  CHECK(selectMma(sparse(warp(ty_f8_e5m2, ty_f8_e5m2, 16, 8, 64)), sm90a()).ok());
  CHECK(failureOf(sparse(warp(ty_f8_e4m3, ty_f8_e4m3, 16, 8, 64)), sm86()) == MmaFailure::NeedsNewerSm);

  s = selectMma(sparse(warpgroup(ty_f16, ty_f16, 64, 128, 64)), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaSpF16);
  CHECK(s.instrK == 32);
  CHECK(s.countK == 2);
  CHECK(mmaInstrName(s.atom->instr, true) == "wgmma.mma_async.sp");
  CHECK(failureOf(sparse(warpgroup(ty_f16, ty_f16, 64, 128, 16)), sm90a()) ==
        MmaFailure::KNotMultiple);
  CHECK(selectMma(sparse(warpgroup(ty_bf16, ty_bf16, 64, 192, 32)), sm90a()).ok());
  s = selectMma(sparse(warpgroup(ty_f8_e4m3, ty_f8_e4m3, 64, 64, 64)), sm90a());
  REQUIRE(s.ok());
  CHECK(s.atom->id == MmaAtomId::WgmmaSpF8);
  CHECK(failureOf(sparse(warpgroup(ty_f8, ty_f8, 64, 64, 32)), sm90a()) ==
        MmaFailure::KNotMultiple);
  CHECK(selectMma(sparse(warpgroup(ty_s8, ty_u8, 64, 32, 64)), sm90a()).ok());
  CHECK(selectMma(sparse(warpgroup(ty_tf32, ty_tf32, 64, 32, 16)), sm90a()).ok());
  CHECK(failureOf(sparse(warpgroup(ty_f16, ty_f16, 64, 64, 32)), sm86()) ==
        MmaFailure::NeedsNewerSm);
  // A dense query never picks a sparse row and vice versa.
  CHECK_FALSE(selectMma(warpgroup(ty_f16, ty_f16, 64, 64, 32), sm90a()).atom->sparse);
}

TEST_CASE("WGMMA operand sources: A shared or registers, B shared only", "[target][mma]") {
  MmaQuery q = warpgroup(ty_f16, ty_f16, 64, 64, 16);
  q.aSource = OperandSource::Shared;
  q.bSource = OperandSource::Shared;
  CHECK(selectMma(q, sm90a()).ok());
  q.aSource = OperandSource::Registers;
  CHECK(selectMma(q, sm90a()).ok());
  q.bSource = OperandSource::Registers;
  MmaSelection s = selectMma(q, sm90a());
  CHECK(s.failure == MmaFailure::OperandSource);
  CHECK(s.failingOperand == 'b');

  MmaQuery w = warp(ty_f16, ty_f16, 16, 8, 16);
  w.aSource = OperandSource::Registers;
  w.bSource = OperandSource::Registers;
  CHECK(selectMma(w, sm86()).ok());
  w.aSource = OperandSource::Shared;
  s = selectMma(w, sm86());
  CHECK(s.failure == MmaFailure::OperandSource);
  CHECK(s.failingOperand == 'a');
}

TEST_CASE("MN-major shared operands only for 16-bit WGMMA", "[target][mma]") {
  MmaQuery q = warpgroup(ty_f16, ty_f16, 64, 64, 16);
  q.bMnMajor = true;  // mma.row.col with B as [K, N]
  q.aMnMajor = true;
  CHECK(selectMma(q, sm90a()).ok());

  MmaQuery t = warpgroup(ty_tf32, ty_tf32, 64, 64, 8);
  t.bMnMajor = true;
  MmaSelection s = selectMma(t, sm90a());
  CHECK(s.failure == MmaFailure::OperandLayout);
  CHECK(s.failingOperand == 'b');

  MmaQuery f8 = warpgroup(ty_f8, ty_f8, 64, 64, 32);
  f8.aMnMajor = true;
  s = selectMma(f8, sm90a());
  CHECK(s.failure == MmaFailure::OperandLayout);
  CHECK(s.failingOperand == 'a');
  // A register fragment has no shared-memory layout.
  f8.aSource = OperandSource::Registers;
  CHECK(selectMma(f8, sm90a()).ok());

  // mma.sync fragments are loaded by croqc in either layout.
  MmaQuery w = warp(ty_s8, ty_s8, 16, 8, 32);
  w.aMnMajor = w.bMnMajor = true;
  CHECK(selectMma(w, sm86()).ok());
}

TEST_CASE("MMA names", "[target][mma]") {
  CHECK(mmaScopeName(MmaScope::Warp) == "warp");
  CHECK(mmaScopeName(MmaScope::Warpgroup) == "warpgroup");
  CHECK(mmaInstrName(MmaInstr::MmaSync, false) == "mma.sync");
  CHECK(mmaInstrName(MmaInstr::Wgmma, false) == "wgmma.mma_async");
  CHECK(mmaInstrName(MmaInstr::Wmma, false) == "wmma.mma.sync");
  CHECK(mmaFailureName(MmaFailure::NOutOfRange) == "n-out-of-range");
  CHECK(mmaAtom(MmaAtomId::WgmmaF16).name == "WgmmaF16");
}

// ---------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------

TEST_CASE("MMA configurations print in the reference notation", "[target][format]") {
  CHECK(formatMmaShape(64, 64, 16) == "m64n64k16");
  CHECK(formatMmaConfig(ty_f16, ty_f16, ty_f16, ty_f16, 32, 32, 32) ==
        "[f16(a)f16(b)f16(c)f16(d): m32n32k32]");
  CHECK(formatMmaConfig(ty_f16, ty_f16, ty_f32, ty_f32, 64, 64, 16) ==
        "[f16(a)f16(b)f32(c)f32(d): m64n64k16]");
  CHECK(formatMmaConfig(warp(ty_f16, ty_f16, 32, 32, 32)) ==
        "[f16(a)f16(b)f16(c)f16(d): m32n32k32]");
  CHECK(formatMmaConfig(withAcc(warpgroup(ty_bf16, ty_bf16, 64, 180, 16), ty_f32)) ==
        "[bf16(a)bf16(b)f32(c)f32(d): m64n180k16]");
  CHECK(formatMmaConfig(warp(ty_f8_e4m3, ty_f8_e5m2, 16, 8, 32)) ==
        "[f8_e4m3(a)f8_e5m2(b)f32(c)f32(d): m16n8k32]");
  CHECK(formatMmaConfig(warp(ty_s8, ty_u8, 16, 8, 32)) == "[s8(a)u8(b)s32(c)s32(d): m16n8k32]");
  // Types as written (f32, not tf32); no default accumulator: the A type.
  CHECK(formatMmaConfig(warp(ty_f32, ty_f32, 16, 8, 8)) == "[f32(a)f32(b)f32(c)f32(d): m16n8k8]");
  CHECK(formatMmaConfig(warp(ty_s32, ty_s32, 16, 8, 8)) == "[s32(a)s32(b)s32(c)s32(d): m16n8k8]");
}

// ---------------------------------------------------------------------------
// Swizzle
// ---------------------------------------------------------------------------

TEST_CASE("swizzle widths and the tutorial's modes", "[target][swizzle]") {
  CHECK(isSwizzleWidth(32));
  CHECK(isSwizzleWidth(64));
  CHECK(isSwizzleWidth(128));
  CHECK_FALSE(isSwizzleWidth(0));
  CHECK_FALSE(isSwizzleWidth(16));
  CHECK_FALSE(isSwizzleWidth(256));

  CHECK(swizzleBytesFromArgument(0) == 0u);
  CHECK(swizzleBytesFromArgument(1) == 32u);
  CHECK(swizzleBytesFromArgument(2) == 64u);
  CHECK(swizzleBytesFromArgument(3) == 128u);
  CHECK(swizzleBytesFromArgument(32) == 32u);
  CHECK(swizzleBytesFromArgument(64) == 64u);
  CHECK(swizzleBytesFromArgument(128) == 128u);
  CHECK_FALSE(swizzleBytesFromArgument(4).has_value());
  CHECK_FALSE(swizzleBytesFromArgument(16).has_value());
  CHECK_FALSE(swizzleBytesFromArgument(256).has_value());
  CHECK_FALSE(swizzleBytesFromArgument(~std::uint64_t{0}).has_value());
}

TEST_CASE("WGMMA swizzle equals the K-tile row bytes", "[target][swizzle]") {
  CHECK(requiredWgmmaSwizzle(2, 64) == 128u);  // f16, TILE_K 64
  CHECK(requiredWgmmaSwizzle(2, 32) == 64u);
  CHECK(requiredWgmmaSwizzle(2, 16) == 32u);
  CHECK(requiredWgmmaSwizzle(1, 128) == 128u);  // fp8
  CHECK(requiredWgmmaSwizzle(4, 32) == 128u);   // tf32
  CHECK_FALSE(requiredWgmmaSwizzle(2, 8).has_value());
  CHECK_FALSE(requiredWgmmaSwizzle(2, 128).has_value());
  CHECK_FALSE(requiredWgmmaSwizzle(2, 24).has_value());
  CHECK_FALSE(requiredWgmmaSwizzle(2, 0).has_value());
  CHECK_FALSE(requiredWgmmaSwizzle(0, 64).has_value());
  CHECK_FALSE(requiredWgmmaSwizzle(2, std::uint64_t{1} << 63).has_value());
}

// ---------------------------------------------------------------------------
// Copy directions (spec 12.4)
// ---------------------------------------------------------------------------

TEST_CASE("dma directions on the GPU targets", "[target][copy]") {
  using enum MemorySpace;
  for (const TargetInfo* t : {&sm86(), &sm90a()}) {
    INFO(t->name.str());
    auto dma = [t](bool async, MemorySpace from, MemorySpace to) {
      return copyDirectionLegal(CopyEngine::Dma, async, from, to, *t);
    };
    CHECK(dma(false, Global, Shared) == CopyFailure::None);
    CHECK(dma(true, Global, Shared) == CopyFailure::None);
    CHECK(dma(false, Shared, Global) == CopyFailure::None);
    CHECK(dma(true, Shared, Global) == CopyFailure::AsyncUnsupported);
    CHECK(dma(false, Global, Local) == CopyFailure::None);
    CHECK(dma(true, Global, Local) == CopyFailure::AsyncUnsupported);
    CHECK(dma(false, Local, Global) == CopyFailure::None);
    CHECK(dma(true, Local, Global) == CopyFailure::AsyncUnsupported);
    CHECK(dma(false, Shared, Shared) == CopyFailure::None);
    CHECK(dma(true, Shared, Shared) == CopyFailure::AsyncUnsupported);
    CHECK(dma(false, Shared, Local) == CopyFailure::None);
    CHECK(dma(true, Shared, Local) == CopyFailure::AsyncUnsupported);
    CHECK(dma(false, Local, Shared) == CopyFailure::None);
    CHECK(dma(false, Local, Local) == CopyFailure::None);
    CHECK(dma(false, Global, Global) == CopyFailure::GlobalToGlobal);
    CHECK(dma(true, Global, Global) == CopyFailure::GlobalToGlobal);
  }
}

TEST_CASE("tma directions", "[target][copy]") {
  using enum MemorySpace;
  auto tma = [](bool async, MemorySpace from, MemorySpace to, const TargetInfo& t) {
    return copyDirectionLegal(CopyEngine::Tma, async, from, to, t);
  };
  CHECK(tma(false, Global, Shared, sm90a()) == CopyFailure::None);
  CHECK(tma(true, Global, Shared, sm90a()) == CopyFailure::None);
  CHECK(tma(false, Shared, Global, sm90a()) == CopyFailure::None);
  CHECK(tma(true, Shared, Global, sm90a()) == CopyFailure::TmaAsyncStore);
  CHECK(tma(false, Global, Global, sm90a()) == CopyFailure::TmaNotGlobalShared);
  CHECK(tma(true, Global, Local, sm90a()) == CopyFailure::TmaNotGlobalShared);
  CHECK(tma(false, Shared, Shared, sm90a()) == CopyFailure::TmaNotGlobalShared);
  CHECK(tma(false, Local, Global, sm90a()) == CopyFailure::TmaNotGlobalShared);
  CHECK(tma(false, Global, Shared, sm86()) == CopyFailure::TmaUnavailable);
  CHECK(tma(true, Global, Global, sm86()) == CopyFailure::TmaUnavailable);
  CHECK(tma(true, Global, Shared, cpu()) == CopyFailure::None);
}

TEST_CASE("cpu copies: any synchronous dma direction", "[target][copy]") {
  using enum MemorySpace;
  CHECK(copyDirectionLegal(CopyEngine::Dma, false, Global, Global, cpu()) == CopyFailure::None);
  CHECK(copyDirectionLegal(CopyEngine::Dma, true, Global, Shared, cpu()) == CopyFailure::None);
  CHECK(copyDirectionLegal(CopyEngine::Dma, true, Global, Global, cpu()) ==
        CopyFailure::AsyncUnsupported);
  CHECK(copyDirectionLegal(CopyEngine::Dma, true, Shared, Global, cpu()) ==
        CopyFailure::AsyncUnsupported);
}

TEST_CASE("copy names", "[target][copy]") {
  CHECK(memorySpaceName(MemorySpace::Global) == "global");
  CHECK(memorySpaceName(MemorySpace::Shared) == "shared");
  CHECK(memorySpaceName(MemorySpace::Local) == "local");
  CHECK(copyFailureName(CopyFailure::GlobalToGlobal) == "global-to-global");
  CHECK(copyFailureName(CopyFailure::TmaAsyncStore) == "tma-async-store");
}

// ---------------------------------------------------------------------------
// Thread counts (spec 8.2)
// ---------------------------------------------------------------------------

TEST_CASE("CTA thread counts", "[target][threads]") {
  CHECK(checkCtaThreadCount(sm86(), 1024, false, false) == ThreadCountFailure::None);
  CHECK(checkCtaThreadCount(sm86(), 1025, false, false) == ThreadCountFailure::ExceedsMax);
  CHECK(checkCtaThreadCount(sm86(), 2048, true, false) == ThreadCountFailure::ExceedsMax);
  CHECK(checkCtaThreadCount(sm86(), 0, false, false) == ThreadCountFailure::Zero);
  CHECK(checkCtaThreadCount(sm86(), 33, false, false) == ThreadCountFailure::None);
  CHECK(checkCtaThreadCount(sm86(), 96, true, false) == ThreadCountFailure::None);
  CHECK(checkCtaThreadCount(sm86(), 48, true, false) == ThreadCountFailure::NotWarpMultiple);
  CHECK(checkCtaThreadCount(sm86(), 128, false, true) == ThreadCountFailure::WarpgroupsUnavailable);
  CHECK(checkCtaThreadCount(sm90a(), 256, false, true) == ThreadCountFailure::None);
  CHECK(checkCtaThreadCount(sm90a(), 384, true, true) == ThreadCountFailure::None);
  CHECK(checkCtaThreadCount(sm90a(), 160, true, true) == ThreadCountFailure::NotWarpgroupMultiple);
  CHECK(checkCtaThreadCount(sm90a(), 1152, false, true) == ThreadCountFailure::ExceedsMax);
  CHECK(checkCtaThreadCount(cpu(), 128, false, true) == ThreadCountFailure::None);
  CHECK(threadCountFailureName(ThreadCountFailure::NotWarpgroupMultiple) ==
        "not-warpgroup-multiple");
}
