// The CUDA emitter: prints a KIR module as one `.cu` file (host code copied
// through with `#line` markers, kernels, host wrappers) that nvcc compiles
// against the croq runtime (runtime/include/croq). For `--target=cpu` the same
// text, with the kernel launches and dynamic shared memory spelled for the
// CPU emulation runtime (runtime/include/croq/cpu), is C++ for a host
// compiler.
#pragma once

#include <llvm/ADT/StringRef.h>

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc {
namespace kir {
class Module;
}

namespace codegen {

struct CudaEmitOptions {
  /// The `.co` file, for `#line` markers and comments.
  llvm::StringRef sourceName;
  /// The name the generated file will have (for `#line` back to it).
  llvm::StringRef outputName = "generated.cu";
  llvm::StringRef version;
  /// Print for the CPU emulation runtime: kernels launch through
  /// `croq::cpu::launch` and take dynamic shared memory from
  /// `croq::cpu::dynamic_shared_memory()`; everything else is the CUDA text,
  /// which the runtime's `cuda_runtime.h` makes plain C++.
  bool cpuTarget = false;
};

void emitCuda(const kir::Module& module, const llvm::SourceMgr& sm, const CudaEmitOptions& options,
              llvm::raw_ostream& os);

}  // namespace codegen
}  // namespace croqc
