// The last step of `croqc FILE.co --target=cpu -o EXE` and `-c`: writes the
// generated C++ to a temporary file and runs the host C++ compiler on it ($CXX,
// else g++, c++ or clang++ on PATH; no shell) with the CPU emulation runtime's
// CUDA shims (runtime/include/croq/cpu/cuda) first on the include path.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>
#include <vector>

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Options;

/// The host compiler ($CXX with the options it carries, else g++, c++ or
/// clang++ on PATH) and the CPU runtime's include directories.
struct HostToolchain {
  std::vector<std::string> compiler;
  std::string runtime, shims;
};

/// That toolchain, or nullopt after reporting what is missing.
std::optional<HostToolchain> findHostToolchain(DiagnosticEngine& diags);

/// The command that compiles the generated `cppFile` to `output` with the
/// toolchain: the CUDA shims first on the include path, OpenMP, the
/// optimisation flags, the include and library options of the command line.
std::vector<std::string> hostCompilerCommand(const Options& options, const HostToolchain& toolchain,
                                             const std::string& cppFile, llvm::StringRef output);

/// Compiles `source` (emitted for the CPU target) to `output`: an
/// executable, or an object with `-c`. Returns false after reporting why it
/// could not.
bool compileWithHostCompiler(const Options& options, llvm::StringRef source, llvm::StringRef output,
                             DiagnosticEngine& diags);

}  // namespace driver
}  // namespace croqc
