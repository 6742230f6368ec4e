// The target and MMA tables (Targets.def, MmaAtoms.def) and the queries over
// them declared in Target.h.
#include "target/Target.h"

#include <fmt/format.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>

#include "target/ElementTypes.h"

namespace croqc::target {

// ---------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------

namespace {

constexpr unsigned swizzleMask(std::initializer_list<unsigned> widths) {
  unsigned mask = 0;
  for (unsigned width : widths)
    for (unsigned i = 0; i < std::size(kSwizzleWidths); ++i)
      if (kSwizzleWidths[i] == width) mask |= 1u << i;
  return mask;
}

#define SWIZZLES(...) swizzleMask({__VA_ARGS__})
const TargetInfo kTargets[] = {
#define TARGET(Id, Name, NvccGencode, IsGpu, SmVersion, MaxThreadsPerCta, MaxSharedBytesPerCta, \
               MaxRegistersPerThread, WarpSize, HasWarpgroups, HasWgmma, HasTma, HasCpAsync,     \
               HasClusters, HasFp8Mma, Swizzles)                                                 \
  {TargetId::Id,        Name,       NvccGencode,   IsGpu,  SmVersion,   MaxThreadsPerCta,       \
   MaxSharedBytesPerCta, MaxRegistersPerThread,    WarpSize, HasWarpgroups, HasWgmma, HasTma,   \
   HasCpAsync,           HasClusters, HasFp8Mma,   Swizzles},
#include "target/Targets.def"
};
#undef SWIZZLES

}  // namespace

bool TargetInfo::supportsSwizzle(std::uint64_t bytes) const {
  if (bytes == 0) return true;
  for (unsigned i = 0; i < std::size(kSwizzleWidths); ++i)
    if (kSwizzleWidths[i] == bytes) return (swizzleMask & (1u << i)) != 0;
  return false;
}

llvm::ArrayRef<TargetInfo> allTargets() { return kTargets; }

const TargetInfo& targetInfo(TargetId id) { return kTargets[static_cast<unsigned>(id)]; }

const TargetInfo* lookupTarget(llvm::StringRef name) {
  for (const TargetInfo& target : kTargets)
    if (target.name == name) return &target;
  return nullptr;
}

llvm::StringRef suggestTarget(llvm::StringRef name) {
  // Compare spellings without case, `_` and `-`: "SM_90" -> "sm90".
  std::string key;
  for (char c : name)
    if (c != '_' && c != '-') key += llvm::toLower(c);
  llvm::StringRef digits = key;
  digits.consume_front("sm");
  for (const TargetInfo& target : kTargets)
    if (target.isGpu && digits == llvm::StringRef(target.name).drop_front(3)) return target.name;
  // An sm_86 binary runs on every 8.x GPU from 8.6 on.
  if (digits == "87") return "sm_86";
  // Any other SM version (sm_75, sm_100a) has no target that runs on it.
  if (!digits.empty() && llvm::isDigit(digits.front())) return "";
  for (const TargetInfo& target : kTargets) {
    std::string candidate;
    for (char c : target.name)
      if (c != '_') candidate += c;
    if (key == candidate) return target.name;
  }
  llvm::StringRef best;
  unsigned bestDistance = 3;  // suggest only names within two edits
  for (const TargetInfo& target : kTargets) {
    unsigned distance = llvm::StringRef(name.lower()).edit_distance(target.name);
    if (distance < bestDistance) {
      best = target.name;
      bestDistance = distance;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Thread counts
// ---------------------------------------------------------------------------

llvm::StringRef threadCountFailureName(ThreadCountFailure failure) {
  switch (failure) {
    case ThreadCountFailure::None: return "none";
    case ThreadCountFailure::Zero: return "zero";
    case ThreadCountFailure::WarpgroupsUnavailable: return "warpgroups-unavailable";
    case ThreadCountFailure::ExceedsMax: return "exceeds-max";
    case ThreadCountFailure::NotWarpMultiple: return "not-warp-multiple";
    case ThreadCountFailure::NotWarpgroupMultiple: return "not-warpgroup-multiple";
  }
  return "?";
}

ThreadCountFailure checkCtaThreadCount(const TargetInfo& target, std::uint64_t threads,
                                       bool usesGroup, bool usesGroup4) {
  if (threads == 0) return ThreadCountFailure::Zero;
  if (usesGroup4 && !target.hasWarpgroups) return ThreadCountFailure::WarpgroupsUnavailable;
  if (threads > target.maxThreadsPerCta) return ThreadCountFailure::ExceedsMax;
  if (usesGroup && threads % target.warpSize != 0) return ThreadCountFailure::NotWarpMultiple;
  if (usesGroup4 && threads % target.warpgroupSize() != 0)
    return ThreadCountFailure::NotWarpgroupMultiple;
  return ThreadCountFailure::None;
}

// ---------------------------------------------------------------------------
// Element-type sets and N sets
// ---------------------------------------------------------------------------

llvm::SmallVector<TokenKind, 4> ElemTypeSet::members() const {
  llvm::SmallVector<TokenKind, 4> result;
  for (TokenKind kind : detail::kElementTypeKinds)
    if (contains(kind)) result.push_back(kind);
  return result;
}

bool NSet::contains(std::uint64_t n) const {
  if (n == 0 || n % kGranule != 0 || n > kMax) return false;
  return (mask_ >> (n / kGranule - 1)) & 1u;
}

bool NSet::isSingle() const { return mask_ != 0 && (mask_ & (mask_ - 1)) == 0; }

unsigned NSet::min() const {
  for (unsigned i = 0; i < kMax / kGranule; ++i)
    if ((mask_ >> i) & 1u) return (i + 1) * kGranule;
  return 0;
}

unsigned NSet::max() const {
  for (unsigned i = kMax / kGranule; i-- > 0;)
    if ((mask_ >> i) & 1u) return (i + 1) * kGranule;
  return 0;
}

llvm::SmallVector<unsigned, 32> NSet::values() const {
  llvm::SmallVector<unsigned, 32> result;
  for (unsigned i = 0; i < kMax / kGranule; ++i)
    if ((mask_ >> i) & 1u) result.push_back((i + 1) * kGranule);
  return result;
}

std::string describeNSet(NSet set) {
  // Greedy split into arithmetic runs; runs of three or more values print as
  // "min..max step s", shorter ones value by value.
  llvm::SmallVector<unsigned, 32> values = set.values();
  std::string out;
  auto append = [&out](const std::string& part) {
    if (!out.empty()) out += ", ";
    out += part;
  };
  size_t i = 0;
  while (i < values.size()) {
    size_t j = i + 1;
    if (j < values.size()) {
      unsigned step = values[j] - values[i];
      while (j + 1 < values.size() && values[j + 1] - values[j] == step) ++j;
      if (j - i >= 2) {
        append(fmt::format("{}..{} step {}", values[i], values[j], step));
        i = j + 1;
        continue;
      }
    }
    append(fmt::format("{}", values[i]));
    ++i;
  }
  return out;
}

std::string describeTypeSet(ElemTypeSet set) {
  llvm::SmallVector<TokenKind, 4> members = set.members();
  std::string out;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i != 0) out += i + 1 == members.size() ? " or " : ", ";
    out += tokenKindSpelling(members[i]).str();
  }
  return out;
}

// ---------------------------------------------------------------------------
// MMA atoms
// ---------------------------------------------------------------------------

namespace {

using enum TokenKind;

constexpr std::uint8_t kRegs = static_cast<std::uint8_t>(OperandSource::Registers);
constexpr std::uint8_t kSmem = static_cast<std::uint8_t>(OperandSource::Shared);

#define TYPES(...) ElemTypeSet({__VA_ARGS__})
#define N_FIXED(n) NSet::fixed(n)
#define N_RANGE(min, max, step) NSet::range(min, max, step)
#define MMA_SCOPE_Warp MmaScope::Warp
#define MMA_SCOPE_Warpgroup MmaScope::Warpgroup
#define MMA_SPARSITY_Dense false
#define MMA_SPARSITY_Sparse true
#define MMA_SOURCES_Regs kRegs
#define MMA_SOURCES_Smem kSmem
#define MMA_SOURCES_RegsOrSmem static_cast<std::uint8_t>(kRegs | kSmem)
#define MMA_LAYOUTS_AnyMajor true
#define MMA_LAYOUTS_KMajorOnly false
#define MMA_PICK_Primary true
#define MMA_PICK_Alternate false

const MmaAtom kMmaAtoms[] = {
#define MMA_ATOM(Name, Scope, Instr, ATypes, BTypes, AccTypes, M, N, K, MinSm, Sparsity, ASources, \
                 BSources, Layouts, Pick)                                                          \
  {MmaAtomId::Name,                                                                                \
   #Name,                                                                                          \
   MMA_SCOPE_##Scope,                                                                              \
   MmaInstr::Instr,                                                                                \
   ATypes,                                                                                         \
   BTypes,                                                                                         \
   AccTypes,                                                                                       \
   M,                                                                                              \
   N,                                                                                              \
   K,                                                                                              \
   MinSm,                                                                                          \
   MMA_SPARSITY_##Sparsity,                                                                        \
   MMA_SOURCES_##ASources,                                                                         \
   MMA_SOURCES_##BSources,                                                                         \
   MMA_LAYOUTS_##Layouts,                                                                          \
   MMA_PICK_##Pick},
#include "target/MmaAtoms.def"
};

#undef TYPES
#undef N_FIXED
#undef N_RANGE
#undef MMA_SCOPE_Warp
#undef MMA_SCOPE_Warpgroup
#undef MMA_SPARSITY_Dense
#undef MMA_SPARSITY_Sparse
#undef MMA_SOURCES_Regs
#undef MMA_SOURCES_Smem
#undef MMA_SOURCES_RegsOrSmem
#undef MMA_LAYOUTS_AnyMajor
#undef MMA_LAYOUTS_KMajorOnly
#undef MMA_PICK_Primary
#undef MMA_PICK_Alternate

/// The Primary atom of `scope` and sparsity that takes (a, b), or null.
const MmaAtom* findPrimaryAtom(MmaScope scope, bool sparse, TokenKind a, TokenKind b) {
  for (const MmaAtom& atom : kMmaAtoms)
    if (atom.primary && atom.scope == scope && atom.sparse == sparse && atom.aTypes.contains(a) &&
        atom.bTypes.contains(b))
      return &atom;
  return nullptr;
}

/// Whether `target` has the instruction of `atom`: its SM version reaches the
/// atom's and, for WGMMA, the HasWgmma column is set; cpu emulates every atom.
bool targetHasAtom(const TargetInfo& target, const MmaAtom& atom) {
  if (!target.isGpu) return true;
  return target.smVersion >= atom.minSm && (atom.instr != MmaInstr::Wgmma || target.hasWgmma);
}

}  // namespace

llvm::ArrayRef<MmaAtom> allMmaAtoms() { return kMmaAtoms; }

const MmaAtom& mmaAtom(MmaAtomId id) { return kMmaAtoms[static_cast<unsigned>(id)]; }

llvm::StringRef mmaScopeName(MmaScope scope) {
  switch (scope) {
    case MmaScope::Warp: return "warp";
    case MmaScope::Warpgroup: return "warpgroup";
  }
  return "?";
}

llvm::StringRef mmaInstrName(MmaInstr instr, bool sparse) {
  switch (instr) {
    case MmaInstr::Wmma: return "wmma.mma.sync";
    case MmaInstr::MmaSync: return sparse ? "mma.sp.sync" : "mma.sync";
    case MmaInstr::Wgmma: return sparse ? "wgmma.mma_async.sp" : "wgmma.mma_async";
  }
  return "?";
}

llvm::StringRef mmaFailureName(MmaFailure failure) {
  switch (failure) {
    case MmaFailure::None: return "none";
    case MmaFailure::TypeCombination: return "type-combination";
    case MmaFailure::AccumulatorType: return "accumulator-type";
    case MmaFailure::NeedsNewerSm: return "needs-newer-sm";
    case MmaFailure::NeedsWgmma: return "needs-wgmma";
    case MmaFailure::MNotMultiple: return "m-not-multiple";
    case MmaFailure::MNotWarpgroupM: return "m-not-warpgroup-m";
    case MmaFailure::NNotMultiple: return "n-not-multiple";
    case MmaFailure::NOutOfRange: return "n-out-of-range";
    case MmaFailure::NNotAllowed: return "n-not-allowed";
    case MmaFailure::KNotMultiple: return "k-not-multiple";
    case MmaFailure::OperandSource: return "operand-source";
    case MmaFailure::OperandLayout: return "operand-layout";
  }
  return "?";
}

std::optional<TokenKind> defaultAccumulatorType(TokenKind operandType) {
  TokenKind type = canonicalMmaOperandType(operandType);
  switch (type) {
    case ty_f16: return ty_f16;
    case ty_bf16:
    case ty_tf32:
    case ty_f8_e4m3:
    case ty_f8_e5m2: return ty_f32;
    case ty_s8:
    case ty_u8:
    case ty_s4:
    case ty_u4:
    case ty_bin1: return ty_s32;
    case ty_f64: return ty_f64;
    default: return std::nullopt;
  }
}

namespace {

MmaSelection finishSelection(const MmaQuery& query, MmaSelection sel);

/// The selection of `atom` (null: none takes the types) for `query`, or why
/// it does not fit.
MmaSelection selectAtom(const MmaQuery& query, const TargetInfo& target, const MmaAtom* atom) {
  MmaSelection sel;
  sel.aType = canonicalMmaOperandType(query.aType);
  sel.bType = canonicalMmaOperandType(query.bType);
  std::optional<TokenKind> acc = query.accType ? std::optional(canonicalElementType(*query.accType))
                                               : defaultAccumulatorType(sel.aType);
  sel.accType = acc.value_or(sel.aType);
  if (!atom) return sel;  // TypeCombination
  sel.atom = atom;

  auto fail = [&sel](MmaFailure failure) {
    sel.failure = failure;
    return sel;
  };
  if (!acc || !atom->accTypes.contains(*acc)) return fail(MmaFailure::AccumulatorType);
  if (target.isGpu && target.smVersion < atom->minSm) {
    sel.requiredSm = atom->minSm;
    return fail(MmaFailure::NeedsNewerSm);
  }
  if (target.isGpu && atom->instr == MmaInstr::Wgmma && !target.hasWgmma) return fail(MmaFailure::NeedsWgmma);

  sel.instrM = atom->m;
  sel.instrK = atom->k;
  if (atom->scope == MmaScope::Warp) {
    sel.instrN = atom->n.min();
    if (query.m == 0 || query.m % sel.instrM != 0) return fail(MmaFailure::MNotMultiple);
    if (query.n == 0 || query.n % sel.instrN != 0) return fail(MmaFailure::NNotMultiple);
  } else {
    if (query.m != atom->m) return fail(MmaFailure::MNotWarpgroupM);
    if (query.n < atom->n.min() || query.n > atom->n.max()) return fail(MmaFailure::NOutOfRange);
    if (!atom->n.contains(query.n)) return fail(MmaFailure::NNotAllowed);
    sel.instrN = static_cast<unsigned>(query.n);
  }
  if (query.k == 0 || query.k % sel.instrK != 0) return fail(MmaFailure::KNotMultiple);
  return finishSelection(query, sel);
}

}  // namespace

MmaSelection selectMma(const MmaQuery& query, const TargetInfo& target) {
  MmaSelection sel = selectAtom(query, target, findPrimaryAtom(query.scope, query.sparse,
                                                               canonicalMmaOperandType(query.aType),
                                                               canonicalMmaOperandType(query.bType)));
  bool shape = sel.failure == MmaFailure::MNotMultiple || sel.failure == MmaFailure::NNotMultiple ||
               sel.failure == MmaFailure::KNotMultiple;
  if (!shape || query.scope != MmaScope::Warp) return sel;
  // A warp tile the Primary atom does not divide: the first smaller mma.sync
  // shape of these types that divides it.
  for (const MmaAtom& atom : kMmaAtoms) {
    if (atom.primary || atom.scope != MmaScope::Warp || atom.instr != MmaInstr::MmaSync ||
        atom.sparse != query.sparse || !atom.aTypes.contains(sel.aType) || !atom.bTypes.contains(sel.bType) ||
        !atom.accTypes.contains(sel.accType) || !targetHasAtom(target, atom))
      continue;
    MmaSelection alt = selectAtom(query, target, &atom);
    if (alt.ok()) return alt;
  }
  return sel;
}

namespace {

MmaSelection finishSelection(const MmaQuery& query, MmaSelection sel) {
  const MmaAtom* atom = sel.atom;
  auto fail = [&sel](MmaFailure failure) {
    sel.failure = failure;
    return sel;
  };
  if (query.aSource && !atom->allowsASource(*query.aSource)) {
    sel.failingOperand = 'a';
    return fail(MmaFailure::OperandSource);
  }
  if (query.bSource && !atom->allowsBSource(*query.bSource)) {
    sel.failingOperand = 'b';
    return fail(MmaFailure::OperandSource);
  }
  if (!atom->mnMajorOk) {
    if (query.aMnMajor && query.aSource != OperandSource::Registers) {
      sel.failingOperand = 'a';
      return fail(MmaFailure::OperandLayout);
    }
    if (query.bMnMajor && query.bSource != OperandSource::Registers) {
      sel.failingOperand = 'b';
      return fail(MmaFailure::OperandLayout);
    }
  }

  sel.countM = query.m / sel.instrM;
  sel.countN = query.n / sel.instrN;
  sel.countK = query.k / sel.instrK;
  sel.failure = MmaFailure::None;
  return sel;
}

}  // namespace

std::string describeWarpAtoms(const MmaQuery& query, const TargetInfo& target) {
  TokenKind a = canonicalMmaOperandType(query.aType), b = canonicalMmaOperandType(query.bType);
  std::optional<TokenKind> acc = query.accType ? std::optional(canonicalElementType(*query.accType))
                                               : defaultAccumulatorType(a);
  llvm::SmallVector<std::string, 4> shapes;
  for (const MmaAtom& atom : kMmaAtoms)
    if (atom.scope == MmaScope::Warp && atom.instr == MmaInstr::MmaSync && atom.sparse == query.sparse &&
        atom.aTypes.contains(a) && atom.bTypes.contains(b) && (!acc || atom.accTypes.contains(*acc)) &&
        targetHasAtom(target, atom))
      shapes.push_back(formatMmaShape(atom.m, atom.n.min(), atom.k));
  std::string out;
  for (size_t i = 0; i < shapes.size(); ++i)
    out += (i == 0 ? "" : i + 1 == shapes.size() ? " or " : ", ") + shapes[i];
  return out;
}

const MmaAtom* targetMmaAtom(MmaScope scope, TokenKind aType, TokenKind bType,
                             std::optional<TokenKind> accType, const TargetInfo& target, bool sparse) {
  const MmaAtom* atom = findPrimaryAtom(scope, sparse, canonicalMmaOperandType(aType),
                                        canonicalMmaOperandType(bType));
  if (!atom || (accType && !atom->accTypes.contains(canonicalElementType(*accType)))) return nullptr;
  return targetHasAtom(target, *atom) ? atom : nullptr;
}

const TargetInfo* firstTargetWithAtom(const MmaAtom& atom) {
  for (const TargetInfo& target : allTargets())
    if (target.isGpu && targetHasAtom(target, atom)) return &target;
  return nullptr;
}

std::string formatMmaShape(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  return fmt::format("m{}n{}k{}", m, n, k);
}

std::string formatMmaConfig(TokenKind a, TokenKind b, TokenKind c, TokenKind d, std::uint64_t m,
                            std::uint64_t n, std::uint64_t k) {
  return fmt::format("[{}(a){}(b){}(c){}(d): {}]", tokenKindSpelling(a).str(),
                     tokenKindSpelling(b).str(), tokenKindSpelling(c).str(),
                     tokenKindSpelling(d).str(), formatMmaShape(m, n, k));
}

std::string formatMmaConfig(const MmaQuery& query) {
  TokenKind acc =
      query.accType ? *query.accType : defaultAccumulatorType(query.aType).value_or(query.aType);
  return formatMmaConfig(query.aType, query.bType, acc, acc, query.m, query.n, query.k);
}

// ---------------------------------------------------------------------------
// Swizzle
// ---------------------------------------------------------------------------

bool isSwizzleWidth(std::uint64_t bytes) { return llvm::is_contained(kSwizzleWidths, bytes); }

std::optional<unsigned> swizzleBytesFromArgument(std::uint64_t arg) {
  if (arg == 0) return 0u;
  if (arg >= 1 && arg <= std::size(kSwizzleWidths)) return kSwizzleWidths[arg - 1];
  if (isSwizzleWidth(arg)) return static_cast<unsigned>(arg);
  return std::nullopt;
}

std::optional<unsigned> requiredWgmmaSwizzle(unsigned elemBytes, std::uint64_t rowElems) {
  std::uint64_t rowBytes = std::uint64_t{elemBytes} * rowElems;
  if (rowElems != 0 && rowBytes / rowElems == elemBytes && isSwizzleWidth(rowBytes))
    return static_cast<unsigned>(rowBytes);
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Copy directions
// ---------------------------------------------------------------------------

llvm::StringRef copyFailureName(CopyFailure failure) {
  switch (failure) {
    case CopyFailure::None: return "none";
    case CopyFailure::GlobalToGlobal: return "global-to-global";
    case CopyFailure::AsyncUnsupported: return "async-unsupported";
    case CopyFailure::TmaUnavailable: return "tma-unavailable";
    case CopyFailure::TmaNotGlobalShared: return "tma-not-global-shared";
    case CopyFailure::TmaAsyncStore: return "tma-async-store";
  }
  return "?";
}

llvm::StringRef memorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::Global: return "global";
    case MemorySpace::Shared: return "shared";
    case MemorySpace::Local: return "local";
  }
  return "?";
}

CopyFailure copyDirectionLegal(CopyEngine engine, bool async, MemorySpace from, MemorySpace to,
                               const TargetInfo& target) {
  using enum MemorySpace;
  bool globalToShared = from == Global && to == Shared;
  if (engine == CopyEngine::Tma) {
    if (!target.hasTma) return CopyFailure::TmaUnavailable;
    if (globalToShared) return CopyFailure::None;
    if (from == Shared && to == Global)
      return async ? CopyFailure::TmaAsyncStore : CopyFailure::None;
    return CopyFailure::TmaNotGlobalShared;
  }
  if (async) {
    if (globalToShared) return CopyFailure::None;
    return from == Global && to == Global && target.isGpu ? CopyFailure::GlobalToGlobal
                                                          : CopyFailure::AsyncUnsupported;
  }
  if (from == Global && to == Global && target.isGpu) return CopyFailure::GlobalToGlobal;
  return CopyFailure::None;
}

}  // namespace croqc::target
