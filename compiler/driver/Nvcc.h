// The last step of `croqc FILE.co -o EXE` and `-c`: writes the generated CUDA
// to a temporary file and runs nvcc on it (no shell: the arguments go to the
// process as a list), with the croq runtime on the include path.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>

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

}  // namespace driver
}  // namespace croqc
