// The MMA atoms of target/MmaAtoms.def that lowering has a pattern for. The
// atom itself (its M, N, K, types and the SM that has it) is the table's row,
// chosen for the target by target::targetMmaAtom; a pattern is the lowering
// of one atom: fragment layouts and loads (croq/device/mma_layout.h and
// mma_tile.h for warps, the swizzled descriptors of croq/device/wgmma_tile.h
// for warpgroups) and the instruction (croq/device/mma_sync.h,
// croq/device/wgmma_instructions.h). Adding an MMA shape is one row there and
// one entry here with its pattern.
#pragma once

#include <llvm/ADT/STLExtras.h>

#include <optional>

#include "target/Target.h"

namespace croqc::lower {

/// `: group` MMAs (croq/device/mma_sync.h): mma.sync m16n8k16 and m16n8k8 on
/// f16 / bf16, m16n8k32 on e4m3 / e5m2, m16n8k8 and m16n8k4 on tf32,
/// m16n8k32, m16n8k16 and m8n8k16 on s8 / u8, m8n8k4 on f16; mma.sp.sync.
inline constexpr target::MmaAtomId kWarpMmaPatterns[] = {
    target::MmaAtomId::MmaSyncF16_m16n8k16, target::MmaAtomId::MmaSyncBF16_m16n8k16,
    target::MmaAtomId::MmaSyncF8_m16n8k32,  target::MmaAtomId::MmaSyncTF32_m16n8k8,
    target::MmaAtomId::MmaSyncI8_m16n8k32,  target::MmaAtomId::MmaSyncF16_m16n8k8,
    target::MmaAtomId::MmaSyncF16_m8n8k4,   target::MmaAtomId::MmaSyncBF16_m16n8k8,
    target::MmaAtomId::MmaSyncTF32_m16n8k4, target::MmaAtomId::MmaSyncI8_m16n8k16,
    target::MmaAtomId::MmaSyncI8_m8n8k16,
    // 2:4 sparse (mma.sp.sync): m16n8k32 and m16n8k16 on f16 / bf16,
    // m16n8k64 on e4m3 / e5m2 (sm_89 on).
    target::MmaAtomId::MmaSyncSpF16_m16n8k32, target::MmaAtomId::MmaSyncSpBF16_m16n8k32,
    target::MmaAtomId::MmaSyncSpF16_m16n8k16, target::MmaAtomId::MmaSyncSpBF16_m16n8k16,
    target::MmaAtomId::MmaSyncSpF8_m16n8k64,
};

/// `: group-4` MMAs: wgmma.mma_async m64nNk16 on f16 / bf16, m64nNk32 on
/// e4m3 / e5m2 (A and B of one type); their 2:4 sparse forms
/// wgmma.mma_async.sp m64nNk32 and m64nNk64 (A from shared memory).
inline constexpr target::MmaAtomId kWarpgroupMmaPatterns[] = {
    target::MmaAtomId::WgmmaF16,   target::MmaAtomId::WgmmaBF16,   target::MmaAtomId::WgmmaF8,
    target::MmaAtomId::WgmmaSpF16, target::MmaAtomId::WgmmaSpBF16, target::MmaAtomId::WgmmaSpF8,
};

/// The atom an MMA of `scope` with A `a`, B `b` and an `acc` accumulator
/// (none: not known yet) lowers onto on `target`: the table's atom for the
/// target when lowering has a pattern for it, else null.
inline const target::MmaAtom* loweredMmaAtom(target::MmaScope scope, TokenKind a, TokenKind b,
                                             std::optional<TokenKind> acc,
                                             const target::TargetInfo& target, bool sparse = false) {
  const target::MmaAtom* atom = target::targetMmaAtom(scope, a, b, acc, target, sparse);
  if (!atom) return nullptr;
  llvm::ArrayRef<target::MmaAtomId> patterns =
      scope == target::MmaScope::Warp ? llvm::ArrayRef(kWarpMmaPatterns) : llvm::ArrayRef(kWarpgroupMmaPatterns);
  return llvm::is_contained(patterns, atom->id) ? atom : nullptr;
}

}  // namespace croqc::lower
