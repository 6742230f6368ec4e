// `-gs` (Croqtile's work-script): instead of building the program, croqc
// writes a bash script that holds the generated source and the command that
// builds it, so that `croqc -gs FILE.co | bash -s -- --execute` builds and
// runs it, as Croqtile's `choreo -gs` does.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Options;

/// The work-script of the generated `source` (CUDA C++, or the CPU target's
/// C++): run with `--execute` or no argument it builds the program in a
/// temporary directory and runs it with the remaining arguments;
/// `--compile-link [EXE]` and `--compile-module [OBJ]` build an executable
/// or an object. Paths in it are absolute, so it runs from any directory.
/// nullopt after reporting that the runtime or the host compiler is missing.
std::optional<std::string> makeWorkScript(const Options& options, llvm::StringRef source, DiagnosticEngine& diags);

}  // namespace driver
}  // namespace croqc
