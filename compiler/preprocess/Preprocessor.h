// The Croqtile preprocessor (spec section 2.4): macros, conditionals and
// `#error`, applied to host and `__co__` code alike. `#include`, `#define`,
// `#undef` and `#pragma` lines stay in the output so that nvcc sees them too;
// conditional directives and excluded lines become empty lines, so the output
// has the line structure of the input.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc {

class DiagnosticEngine;

/// One `-D NAME[=VALUE]` or `-U NAME`, in command-line order.
struct MacroCommand {
  bool undefine = false;
  std::string name;
  std::string value = "1";  // `-D NAME` defines NAME as 1, like a C compiler
};

/// A `#pragma croq intrinsic prefix|namespace NAME` seen in the source.
struct IntrinsicPragma {
  llvm::SMLoc loc;
  std::string kind;  // "prefix" or "namespace"
  std::string name;
};

/// The preprocessed text and the way back from its offsets to the original
/// source buffer.
class PreprocessedSource {
 public:
  /// A run of output that starts at `outOffset`. A verbatim run maps offset
  /// `outOffset + i` to `origLoc + i`; an expansion run (a macro's
  /// replacement) maps every offset to the invocation, `origLoc`.
  struct Segment {
    size_t outOffset;
    const char* origLoc;
    bool expansion;
  };

  std::string text;
  /// Sorted by outOffset. The last is an empty run at `text.size()` that maps
  /// to the end of the original buffer.
  std::vector<Segment> segments;
  std::vector<IntrinsicPragma> intrinsicPragmas;

  /// The location in the original buffer that output offset `offset` came
  /// from. Offsets at or past the end map to the end of the original buffer.
  llvm::SMLoc originalLoc(size_t offset) const;

  /// `-E` output: the text with `#line N "file"` markers wherever the output
  /// line no longer matches the original line.
  void printWithLineMarkers(llvm::raw_ostream& os, llvm::StringRef fileName,
                            const llvm::SourceMgr& sm) const;
};

/// Preprocesses buffer `bufferId` of `diags.sourceMgr()`. Returns false if an
/// error was reported (the output is then still filled as far as it got).
bool preprocess(unsigned bufferId, llvm::ArrayRef<MacroCommand> commandLine, DiagnosticEngine& diags,
                PreprocessedSource& out);

}  // namespace croqc
