// Unit tests of the atoms each target has (target::targetMmaAtom and
// target::firstTargetWithAtom): the atom lowering tiles onto per target row,
// and the feature columns of Targets.def agreeing with the SM versions of
// MmaAtoms.def (HasFp8Mma: the fp8 mma.sync atom; HasWgmma: the WGMMA atoms).
#include <catch2/catch.hpp>

#include "target/Target.h"

using namespace croqc;
using namespace croqc::target;
namespace kinds {
using enum croqc::TokenKind;
}
using namespace kinds;

TEST_CASE("each target row has the atoms its SM and columns allow", "[target][mma]") {
  for (const TargetInfo& t : allTargets()) {
    INFO(t.name.str());
    const MmaAtom* f16 = targetMmaAtom(MmaScope::Warp, ty_f16, ty_f16, ty_f32, t);
    REQUIRE(f16);
    CHECK(f16->id == MmaAtomId::MmaSyncF16_m16n8k16);
    CHECK((targetMmaAtom(MmaScope::Warp, ty_f8_e4m3, ty_f8_e5m2, std::nullopt, t) != nullptr) == t.hasFp8Mma);
    CHECK((targetMmaAtom(MmaScope::Warpgroup, ty_f16, ty_f16, ty_f32, t) != nullptr) == t.hasWgmma);
    CHECK((targetMmaAtom(MmaScope::Warpgroup, ty_f8_e4m3, ty_f8_e4m3, ty_f32, t) != nullptr) == t.hasWgmma);
  }
  const TargetInfo& sm89 = *lookupTarget("sm_89");
  const MmaAtom* f8 = targetMmaAtom(MmaScope::Warp, ty_f8_e4m3, ty_f8_e4m3, ty_f32, sm89);
  REQUIRE(f8);
  CHECK(f8->id == MmaAtomId::MmaSyncF8_m16n8k32);
  CHECK(f8->k == 32);
  // An accumulator the atom does not take, an operand type no atom takes.
  CHECK_FALSE(targetMmaAtom(MmaScope::Warp, ty_bf16, ty_bf16, ty_f16, sm89));
  CHECK_FALSE(targetMmaAtom(MmaScope::Warp, ty_f16, ty_bf16, std::nullopt, sm89));
  // `f8` is `f8_e4m3`; `f32` operands are `tf32`.
  CHECK(targetMmaAtom(MmaScope::Warp, ty_f8, ty_f8, std::nullopt, sm89) == f8);
  CHECK(targetMmaAtom(MmaScope::Warp, ty_f32, ty_f32, std::nullopt, sm89)->id == MmaAtomId::MmaSyncTF32_m16n8k8);
}

TEST_CASE("the first target with an atom is the oldest row that has it", "[target][mma]") {
  CHECK(firstTargetWithAtom(mmaAtom(MmaAtomId::MmaSyncF16_m16n8k16))->name == "sm_80");
  CHECK(firstTargetWithAtom(mmaAtom(MmaAtomId::MmaSyncF8_m16n8k32))->name == "sm_89");
  // sm_90 has SM 90 but no WGMMA: the first is sm_90a.
  CHECK(firstTargetWithAtom(mmaAtom(MmaAtomId::WgmmaF16))->name == "sm_90a");
  CHECK(firstTargetWithAtom(mmaAtom(MmaAtomId::MmaSyncF64_m16n8k4))->name == "sm_90");
}

TEST_CASE("every GPU row has cp.async (sm_80 on) and the cpu emulates it", "[target]") {
  for (const TargetInfo& t : allTargets()) {
    INFO(t.name.str());
    CHECK(t.hasCpAsync);
    CHECK((t.isGpu ? t.smVersion >= 80 : true));
  }
}
