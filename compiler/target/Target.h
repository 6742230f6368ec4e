// Descriptions of the targets croqc compiles for (cpu, sm_80, sm_86, sm_89,
// sm_90, sm_90a) and the rules that depend on them, as data plus small pure
// queries: limits of a CTA, feature columns, the legal tensor-core MMA atoms
// (spec 13.11), which one a tile maps onto and which atoms a target has,
// swizzle widths (12.9), legal copy directions (12.4) and thread-count rules
// (8.2). Nothing here reports diagnostics: every query returns a reason
// enum and the values, and sema words the message.
//
// The tables are target/Targets.def and target/MmaAtoms.def.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>

#include "lex/Token.h"

namespace croqc::target {

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------

enum class TargetId : std::uint8_t {
#define TARGET(Id, ...) Id,
#include "target/Targets.def"
};

/// The shared-memory swizzle widths in bytes (spec 12.9), narrowest first.
inline constexpr unsigned kSwizzleWidths[] = {32, 64, 128};

/// The dynamic shared memory a kernel may use without opting in to more
/// (cudaFuncAttributeMaxDynamicSharedMemorySize), on every CUDA arch.
inline constexpr std::int64_t kDefaultSharedBytes = 48 * 1024;

struct TargetInfo {
  TargetId id;
  /// The name on the command line: "cpu", "sm_80", ..., "sm_90a".
  llvm::StringRef name;
  /// The one nvcc argument selecting the architecture ("" for cpu).
  llvm::StringRef nvccGencode;
  bool isGpu;
  /// 80, 86, 89, 90; 0 for cpu (which emulates every atom and skips SM checks).
  unsigned smVersion;
  unsigned maxThreadsPerCta;
  /// Opt-in dynamic shared memory one CTA may use, in bytes.
  unsigned maxSharedBytesPerCta;
  unsigned maxRegistersPerThread;
  unsigned warpSize;
  /// `group-4` (warpgroups of 4 warps) exists.
  bool hasWarpgroups;
  bool hasWgmma;
  bool hasTma;
  /// `cp.async` (global -> shared copies that complete in groups) exists.
  bool hasCpAsync;
  bool hasClusters;
  /// f8_e4m3 / f8_e5m2 tensor-core MMAs exist.
  bool hasFp8Mma;
  /// Bit i set: kSwizzleWidths[i] is supported.
  unsigned swizzleMask;

  unsigned warpgroupSize() const { return 4 * warpSize; }
  /// Whether `.swiz<bytes>` may be used; 0 (no swizzle) always may.
  bool supportsSwizzle(std::uint64_t bytes) const;
};

/// Every target, in Targets.def order.
llvm::ArrayRef<TargetInfo> allTargets();
const TargetInfo& targetInfo(TargetId id);
/// The target called exactly `name` ("cpu", "sm_86", "sm_90a", ...), or null.
const TargetInfo* lookupTarget(llvm::StringRef name);
/// For a name lookupTarget rejected, the target the user probably meant
/// (`SM_90A` -> `sm_90a`, `sm89` -> `sm_89`, `sm_87` -> `sm_86`), or "".
llvm::StringRef suggestTarget(llvm::StringRef name);

// ---------------------------------------------------------------------------
// Thread counts (spec 8.2)
// ---------------------------------------------------------------------------

enum class ThreadCountFailure : std::uint8_t {
  None,
  Zero,                   // no threads
  WarpgroupsUnavailable,  // `group-4` on a target without warpgroups
  ExceedsMax,             // more than TargetInfo::maxThreadsPerCta
  NotWarpMultiple,        // `group` present: not a multiple of warpSize
  NotWarpgroupMultiple,   // `group-4` present: not a multiple of warpgroupSize()
};
llvm::StringRef threadCountFailureName(ThreadCountFailure failure);

/// Checks the thread count of one CTA (the product of every group-4 x 128,
/// group x 32 and thread extent) given which cooperation levels the parallel
/// nest uses. Failures are reported in the order of the enum.
ThreadCountFailure checkCtaThreadCount(const TargetInfo& target, std::uint64_t threads,
                                       bool usesGroup, bool usesGroup4);

// ---------------------------------------------------------------------------
// Element-type sets and N sets used by the MMA table
// ---------------------------------------------------------------------------

namespace detail {
inline constexpr TokenKind kElementTypeKinds[] = {
#define TOKEN(Name, Desc)
#define KEYWORD(Name, Spelling)
#define ELEMTYPE(Name, Spelling) TokenKind::Name,
#define MEMBER(Name, Spelling)
#define PUNCT(Name, Spelling)
#include "lex/TokenKinds.def"
};
static_assert(std::size(kElementTypeKinds) <= 64, "ElemTypeSet holds at most 64 element types");

constexpr int elementTypeIndex(TokenKind kind) {
  for (unsigned i = 0; i < std::size(kElementTypeKinds); ++i)
    if (kElementTypeKinds[i] == kind) return static_cast<int>(i);
  return -1;
}
}  // namespace detail

/// A set of element types (TokenKind::ty_*).
class ElemTypeSet {
 public:
  constexpr ElemTypeSet() = default;
  constexpr ElemTypeSet(std::initializer_list<TokenKind> kinds) {
    for (TokenKind kind : kinds) bits_ |= bit(kind);
  }
  constexpr bool contains(TokenKind kind) const { return (bits_ & bit(kind)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool intersects(ElemTypeSet other) const { return (bits_ & other.bits_) != 0; }
  /// Members in TokenKinds.def order.
  llvm::SmallVector<TokenKind, 4> members() const;

 private:
  static constexpr std::uint64_t bit(TokenKind kind) {
    int index = detail::elementTypeIndex(kind);
    return index < 0 ? 0 : std::uint64_t{1} << index;
  }
  std::uint64_t bits_ = 0;
};

/// A set of MMA N extents, each a multiple of 8 in 8..256.
class NSet {
 public:
  static constexpr unsigned kGranule = 8;
  static constexpr unsigned kMax = 256;

  constexpr NSet() = default;
  static constexpr NSet fixed(unsigned n) { return range(n, n, kGranule); }
  /// {min, min + step, ..., <= max}; values that are not multiples of 8 or
  /// lie outside 8..256 are dropped.
  static constexpr NSet range(unsigned min, unsigned max, unsigned step) {
    NSet set;
    for (unsigned n = min; step != 0 && n <= max; n += step)
      if (n % kGranule == 0 && n >= kGranule && n <= kMax)
        set.mask_ |= std::uint32_t{1} << (n / kGranule - 1);
    return set;
  }
  constexpr NSet operator|(NSet other) const {
    NSet set;
    set.mask_ = mask_ | other.mask_;
    return set;
  }

  bool contains(std::uint64_t n) const;
  bool empty() const { return mask_ == 0; }
  bool isSingle() const;
  /// Smallest and largest member (0 for an empty set).
  unsigned min() const;
  unsigned max() const;
  llvm::SmallVector<unsigned, 32> values() const;

 private:
  std::uint32_t mask_ = 0;
};

/// "8..256 step 8", "8", "8..24 step 8, 32..256 step 16", "8, 16, 32".
std::string describeNSet(NSet set);
/// "f16", "f16 or f32", "s8, u8 or s4" (spellings of the members).
std::string describeTypeSet(ElemTypeSet set);

// ---------------------------------------------------------------------------
// MMA atoms (spec 13.11)
// ---------------------------------------------------------------------------

enum class MmaScope : std::uint8_t { Warp, Warpgroup };
enum class MmaInstr : std::uint8_t { Wmma, MmaSync, Wgmma };
/// Where an MMA operand lives when the MMA executes (bit values).
enum class OperandSource : std::uint8_t { Registers = 1, Shared = 2 };

enum class MmaAtomId : std::uint16_t {
#define MMA_ATOM(Name, ...) Name,
#include "target/MmaAtoms.def"
};

/// One row of MmaAtoms.def; see that file for the columns.
struct MmaAtom {
  MmaAtomId id;
  llvm::StringRef name;
  MmaScope scope;
  MmaInstr instr;
  ElemTypeSet aTypes;
  ElemTypeSet bTypes;
  ElemTypeSet accTypes;
  unsigned m;
  NSet n;
  unsigned k;
  unsigned minSm;
  bool sparse;
  std::uint8_t aSources;  // OperandSource bits
  std::uint8_t bSources;
  /// A shared-memory operand may be stored MN-major.
  bool mnMajorOk;
  /// croqc tiles onto this atom (false: a listed alternative, never chosen).
  bool primary;

  bool allowsASource(OperandSource s) const {
    return (aSources & static_cast<std::uint8_t>(s)) != 0;
  }
  bool allowsBSource(OperandSource s) const {
    return (bSources & static_cast<std::uint8_t>(s)) != 0;
  }
};

llvm::ArrayRef<MmaAtom> allMmaAtoms();
const MmaAtom& mmaAtom(MmaAtomId id);

/// "warp", "warpgroup".
llvm::StringRef mmaScopeName(MmaScope scope);
/// The PTX instruction: "wmma.mma.sync", "mma.sync" / "mma.sp.sync",
/// "wgmma.mma_async" / "wgmma.mma_async.sp".
llvm::StringRef mmaInstrName(MmaInstr instr, bool sparse);

/// The accumulator type of `mma.fill` without an explicit type (spec 13.2),
/// from the A operand type: f16 -> f16; s8/u8 (and s4/u4/bin1) -> s32;
/// bf16/tf32/f32/fp8 -> f32; f64 -> f64. None for types no MMA takes.
std::optional<TokenKind> defaultAccumulatorType(TokenKind operandType);

/// One MMA execution as the checker sees it, per cooperating unit (one warp
/// for `: group`, one warpgroup for `: group-4`), with M, N, K derived from
/// the layout suffix (spec 13.4). K counts unpacked elements for sparse A.
struct MmaQuery {
  MmaScope scope = MmaScope::Warp;
  /// As written; `f32` counts as `tf32` and `f8` as `f8_e4m3`.
  TokenKind aType = TokenKind::ty_f16;
  TokenKind bType = TokenKind::ty_f16;
  /// The accumulator's element type; none: defaultAccumulatorType(aType).
  std::optional<TokenKind> accType;
  std::uint64_t m = 0;
  std::uint64_t n = 0;
  std::uint64_t k = 0;
  bool sparse = false;
  /// Where A and B come from; unset: not checked.
  std::optional<OperandSource> aSource;
  std::optional<OperandSource> bSource;
  /// A shared operand stored MN-major: A of `mma.col.*` (`[K, M]`), B of
  /// `mma.*.col` (`[K, N]`). Only checked for operands not in registers.
  bool aMnMajor = false;
  bool bMnMajor = false;
};

/// Why no atom fits, in the order the checks run.
enum class MmaFailure : std::uint8_t {
  None,
  TypeCombination,  // no atom of this scope and sparsity takes (A, B)
  AccumulatorType,  // accType is not in atom->accTypes
  NeedsNewerSm,     // atom->minSm (requiredSm) > the target's SM
  NeedsWgmma,       // a WGMMA atom on a target without WGMMA (sm_90 without `a`)
  MNotMultiple,     // warp: M is not a positive multiple of atom M
  MNotWarpgroupM,   // warpgroup: M is not atom M (64)
  NNotMultiple,     // warp: N is not a positive multiple of atom N
  NOutOfRange,      // warpgroup: N < atom->n.min() or N > atom->n.max()
  NNotAllowed,      // warpgroup: N in range but not in atom->n
  KNotMultiple,     // K is not a positive multiple of atom K
  OperandSource,    // failingOperand comes from a place the atom cannot read
  OperandLayout,    // failingOperand is MN-major but the atom is KMajorOnly
};
llvm::StringRef mmaFailureName(MmaFailure failure);

struct MmaSelection {
  MmaFailure failure = MmaFailure::TypeCombination;
  /// The chosen atom; on failure the atom the query was checked against
  /// (null only for TypeCombination).
  const MmaAtom* atom = nullptr;
  /// Canonical operand types and the resolved accumulator type.
  TokenKind aType = TokenKind::ty_f16;
  TokenKind bType = TokenKind::ty_f16;
  TokenKind accType = TokenKind::ty_f16;
  /// The shape of one instruction (m16n8k16; m64n128k16: a WGMMA's N is the
  /// tile's N) and how many of them tile M, N and K.
  unsigned instrM = 0;
  unsigned instrN = 0;
  unsigned instrK = 0;
  std::uint64_t countM = 0;
  std::uint64_t countN = 0;
  std::uint64_t countK = 0;
  /// NeedsNewerSm: the SM version the atom needs.
  unsigned requiredSm = 0;
  /// OperandSource / OperandLayout: 'a' or 'b'.
  char failingOperand = 0;

  bool ok() const { return failure == MmaFailure::None; }
  std::uint64_t atomCount() const { return countM * countN * countK; }
};

/// Chooses the Primary atom for `query` on `target` and how many atoms tile
/// the shape; for a warp tile the Primary atom does not divide, the first
/// Alternate mma.sync atom (MmaAtoms.def order) that does. Otherwise says
/// precisely why the MMA does not fit the Primary atom.
MmaSelection selectMma(const MmaQuery& query, const TargetInfo& target);

/// The mma.sync shapes a warp MMA of the query's types and accumulator may
/// tile onto on `target` ("m16n8k16, m16n8k8 or m8n8k4"; empty when none).
std::string describeWarpAtoms(const MmaQuery& query, const TargetInfo& target);

/// The dense Primary atom of `scope` that takes A of `aType` and B of
/// `bType` (canonicalised as in MmaQuery) into an `accType` accumulator (none:
/// any the atom takes) and that `target` has: its SM version reaches the
/// atom's and, for a WGMMA atom, the HasWgmma column is set (cpu has every
/// atom). Null when there is none. This is the atom lowering tiles onto;
/// selectMma says why a given MMA does not fit it. `sparse`: the 2:4 sparse
/// atom (`mma.*.sp`).
const MmaAtom* targetMmaAtom(MmaScope scope, TokenKind aType, TokenKind bType,
                             std::optional<TokenKind> accType, const TargetInfo& target, bool sparse = false);

/// The first GPU row of Targets.def (the oldest SM) that has `atom`, or null
/// when none has: what a diagnostic points at when the target lacks it.
const TargetInfo* firstTargetWithAtom(const MmaAtom& atom);

/// "m64n64k16".
std::string formatMmaShape(std::uint64_t m, std::uint64_t n, std::uint64_t k);
/// "[f16(a)f16(b)f32(c)f32(d): m64n64k16]" (spellings as given).
std::string formatMmaConfig(TokenKind a, TokenKind b, TokenKind c, TokenKind d, std::uint64_t m,
                            std::uint64_t n, std::uint64_t k);
/// The same for a query: types as written; C and D are accType, or the
/// default accumulator of aType, or aType when there is none.
std::string formatMmaConfig(const MmaQuery& query);

// ---------------------------------------------------------------------------
// Swizzle (spec 12.9, 21.3)
// ---------------------------------------------------------------------------

/// 32, 64 or 128.
bool isSwizzleWidth(std::uint64_t bytes);
/// The byte width meant by `.swiz<arg>`: 32/64/128 as written, the CuTe-style
/// modes 1/2/3 as 32/64/128, 0 as no swizzle (0). None for anything else.
std::optional<unsigned> swizzleBytesFromArgument(std::uint64_t arg);
/// The swizzle a WGMMA shared operand needs: the byte size of one row of its
/// contiguous dimension (the K tile of a K-major operand: 64 f16 -> 128,
/// 32 -> 64, 16 -> 32). None when the row is not 32, 64 or 128 bytes.
std::optional<unsigned> requiredWgmmaSwizzle(unsigned elemBytes, std::uint64_t rowElems);

// ---------------------------------------------------------------------------
// Copy directions (spec 12.4)
// ---------------------------------------------------------------------------

enum class CopyEngine : std::uint8_t { Dma, Tma };
enum class MemorySpace : std::uint8_t { Global, Shared, Local };

enum class CopyFailure : std::uint8_t {
  None,
  GlobalToGlobal,      // dma global -> global on a GPU (sync or async)
  AsyncUnsupported,    // dma .async other than global -> shared
  TmaUnavailable,      // tma on a target without TMA
  TmaNotGlobalShared,  // tma between anything but global and shared
  TmaAsyncStore,       // tma shared -> global with .async (stores are sync)
};
llvm::StringRef copyFailureName(CopyFailure failure);
/// "global", "shared", "local".
llvm::StringRef memorySpaceName(MemorySpace space);

/// Whether a `dma.*` / `tma.*` copy from `from` to `to` is legal on `target`
/// (None) or why not. On cpu every synchronous dma direction is legal;
/// the async and tma rules are those of the GPUs.
CopyFailure copyDirectionLegal(CopyEngine engine, bool async, MemorySpace from, MemorySpace to,
                               const TargetInfo& target);

}  // namespace croqc::target
