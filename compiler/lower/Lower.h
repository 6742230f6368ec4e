// Lowering: from the checked AST and what sema knows about it to KIR. Each
// `__co__` function becomes a host wrapper and one kernel per top-level
// `parallel`; parallel levels become thread-index arithmetic and masks,
// views become tiles (offset, strides, valid extents), copies become
// cooperative or asynchronous tile copies with their barriers, and MMA
// statements become `mma.sync.m16n8k16` atoms.
//
// The work is split by area, one file per step:
//   Lower.cpp          functions, host wrappers, buffers, statements
//   LowerParallel.cpp  parallel levels -> thread mapping and masks
//   LowerExpr.cpp      expressions and symbolic values -> KIR expressions
//   LowerView.cpp      views -> tiles and element addresses
//   LowerCopy.cpp      dma copies, futures, waits, swap/rotate
//   LowerMma.cpp       mma.fill/load/exec/store -> atoms
#pragma once

#include <llvm/ADT/StringRef.h>

#include <memory>

#include "kir/KIR.h"

namespace croqc {
class DiagnosticEngine;
namespace ast {
class Program;
}
namespace sema {
class SemaResult;
}

namespace lower {

struct LowerOptions {
  /// A target of target/Targets.def: a GPU row (`sm_86`, `sm_90a`, ...), whose
  /// feature columns pick each construct's lowering, or `cpu`: the GPU
  /// lowering (sm_86's, with sm_90a's warpgroup MMAs), run by the CPU
  /// emulation runtime
  /// (runtime/include/croq/cpu); `tma` copies become the plain copies they
  /// stand for, and what that runtime cannot emulate (inline PTX) is
  /// reported as an error.
  llvm::StringRef arch = "sm_86";
  /// Emit the wrapper's entry shape checks (`--runtime-check=entry`).
  bool entryChecks = true;
  /// The blocks of a kernel whose block level is two-dimensional are visited
  /// in groups of this many along the first dimension (all of a group's
  /// first-dimension indices for one second-dimension index, then the next),
  /// so that the blocks resident at once read fewer distinct tiles; 1 keeps
  /// the hardware's order. Kernels with `__cpp__` or inline asm keep the
  /// hardware's order (their code may read `blockIdx` itself).
  unsigned blockGroup = 8;
  /// u32 metadata of sparse MMAs is in the layout of croq/sparse.h's
  /// `prepack_v2` (`--sparse-metadata=prepack-v2`), not `prepack`'s.
  bool sparseMetaPrepackV2 = false;
};

/// Lowers `program`. Constructs croqc cannot lower yet are reported as
/// errors naming the construct; the result is null when any error was
/// reported.
std::unique_ptr<kir::Module> lowerProgram(const ast::Program& program, sema::SemaResult& sema,
                                          const LowerOptions& options, DiagnosticEngine& diags);

// The KIR passes that follow lowering, in the order the pipeline runs them
// (`--list-passes`); each is printable with `--print-after=PASS`.

/// `wgmma-zero-init`: a warpgroup accumulator filled with zero and then
/// accumulated into by WGMMA starts from that WGMMA's scale-d instead of the
/// fill, which inside a loop makes ptxas serialize WGMMA
/// (LowerAccumulators.cpp).
void zeroAccumulatorsByScaleD(kir::Module& module);

/// `wgmma-operand-fences`: puts an operand fence of each row of an
/// accumulator that asynchronous WGMMAs use before every fill, store and
/// scale of it (`kir::asyncAccumulatorAccessed`), and marks each kernel
/// `accumulatorsFenced`. Runs after `wgmma-zero-init`, whose fills it sees
/// as that pass left them (LowerAccumulatorFences.cpp).
void fenceAsyncAccumulators(kir::Module& module);

/// `wgmma-register-operands`: retires the asynchronous WGMMAs that read a
/// fragment's registers (sparse metadata, register A) before the fragment
/// is reloaded or its scope ends, with a `wgmma.wait` and an operand fence
/// of it, and warns where it does (LowerWgmmaRegisters.cpp).
void retireWgmmaRegisterOperands(kir::Module& module, DiagnosticEngine& diags);

/// `scale-loads`: moves the loads of block-scaling row factors
/// (`acc.scale.load`) above the WGMMAs, commits and waits before them, so
/// that their latency overlaps the MMAs (LowerScaleLoads.cpp).
void loadScaleFactorsEarly(kir::Module& module);

/// `wgmma-arrive`: drops a `wgmma.arrive` (wgmma.fence) that only WGMMAs of
/// the same shapes and compiler-only operand fences separate from the one
/// before it in the same statement list (LowerWgmmaArrive.cpp).
void dropRedundantWgmmaArrives(kir::Module& module);

/// `barriers`: drops the CTA barrier at the end of a loop body when the next
/// iteration and the code after the loop both reach another CTA barrier
/// before touching memory other threads see, and the barriers at a kernel's
/// end (LowerBarriers.cpp).
void elideBarriers(kir::Module& module);

/// `shared-layout`: gives every shared buffer its byte offset (buffers whose
/// lifetimes a CTA barrier separates may share bytes; those sized at the
/// launch come last), and sizes each kernel's shared memory
/// (LowerShared.cpp).
void placeSharedMemory(kir::Module& module);

}  // namespace lower
}  // namespace croqc
