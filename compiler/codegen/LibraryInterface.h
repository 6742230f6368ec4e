// Library mode (`croqc --lib`, `croqc -c` on a file without `main`): what a
// caller outside croqc needs to use the `__co__` functions of a `.co` file.
//
//   - a header declaring each host wrapper with the `croq::` span types
//     (C++), and an `extern "C"` entry per function (C, C++, ctypes, torch
//     extensions): raw pointers, the shape symbols as `int`s and a
//     `cudaStream_t`;
//   - the definitions of those entries, appended to the generated file.
//
// The entry of `__co__ f` is `croq_f`. Its parameters, in order: one
// `void*` per spanned parameter (device memory for `global` parameters, host
// memory otherwise, as for the wrapper), the scalars, `void* result` (host
// memory for the returned data, when f returns data), one `int` per distinct
// shape symbol (`M`, `N`, ... in first-use order), and `cudaStream_t stream`
// unless f has a `stream` parameter of its own.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <string>

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace croqc {
namespace kir {
class Module;
}
namespace sema {
class SemaResult;
}

namespace codegen {

struct LibraryOptions {
  /// The `.co` file, for comments.
  llvm::StringRef sourceName;
  llvm::StringRef version;
};

/// Why no entry can be made for a function (a parameter whose shape is
/// neither constant nor one symbol per dimension), or empty when every
/// function has one. `function` names the first such function.
struct LibraryProblem {
  std::string function;
  std::string parameter;
};

/// The functions of `module` as a header (C++ declarations and C entries).
/// Returns false, filling `problem`, when an entry cannot be made.
bool emitLibraryHeader(const kir::Module& module, const sema::SemaResult& sema, const LibraryOptions& options,
                       llvm::raw_ostream& os, LibraryProblem& problem);

/// The definitions of the `extern "C"` entries, for the end of the
/// generated file.
bool emitLibraryEntries(const kir::Module& module, const sema::SemaResult& sema, const LibraryOptions& options,
                        llvm::raw_ostream& os, LibraryProblem& problem);

}  // namespace codegen
}  // namespace croqc
