// The last step of `croqc FILE.co --target=cpu -o EXE` and `-c`: writes the
// generated C++ to a temporary file and runs the host C++ compiler on it ($CXX,
// else g++, c++ or clang++ on PATH; no shell) with the CPU emulation runtime's
// CUDA shims (runtime/include/croq/cpu/cuda) first on the include path.
#pragma once

#include <llvm/ADT/StringRef.h>

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Options;

/// Compiles `source` (emitted for the CPU target) to `output`: an
/// executable, or an object with `-c`. Returns false after reporting why it
/// could not.
bool compileWithHostCompiler(const Options& options, llvm::StringRef source, llvm::StringRef output,
                             DiagnosticEngine& diags);

}  // namespace driver
}  // namespace croqc
