// Writing an output file atomically, so that a failed run never leaves a
// partial or empty file behind.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <system_error>

namespace croqc::driver {

/// Writes `contents` to `path` through a temporary file in the same directory
/// that is renamed over `path` once it is complete. On failure the temporary
/// is removed, `path` is left as it was, and the error is returned. The
/// temporary is also removed if croqc is killed by a signal meanwhile.
std::error_code writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

}  // namespace croqc::driver
