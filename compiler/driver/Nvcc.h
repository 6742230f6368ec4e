// The last step of `croqc FILE.co -o EXE` and `-c`: writes the generated CUDA
// to a temporary file and runs nvcc on it (no shell: the arguments go to the
// process as a list), with the croq runtime on the include path.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Options;

/// Compiles `cudaSource` to `output` (an executable, or an object with
/// `-c`). Returns false after reporting why it could not.
bool compileWithNvcc(const Options& options, llvm::StringRef cudaSource, llvm::StringRef output,
                     DiagnosticEngine& diags);

/// The directory holding `croq/croq.h`: $CROQC_RUNTIME_INCLUDE, or found
/// from croqc's own location (the build tree's `runtime/include`, or an
/// installed `include/` beside `bin/`). Also used for `--target=cpu`.
std::optional<std::string> findRuntimeInclude();

/// Writes `contents` to a new temporary file ending in `.extension` and puts
/// its path in `path`; false after a diagnostic. The caller removes it.
bool writeTemporarySource(llvm::StringRef extension, llvm::StringRef contents, llvm::SmallVectorImpl<char>& path,
                          DiagnosticEngine& diags);

/// `-v`: prints `croqc: running PROGRAM ARGS...` on stderr.
void printCommand(const std::vector<std::string>& args);

/// Runs `args` (args[0] is the program, no shell), printing the command with
/// `-v`. A compiler that fails leaves no `output` and is reported with
/// `failedKind` (its exit status as the argument).
bool runCompiler(const std::vector<std::string>& args, bool verbose, llvm::StringRef output, DiagKind failedKind,
                 DiagnosticEngine& diags);

}  // namespace driver
}  // namespace croqc
