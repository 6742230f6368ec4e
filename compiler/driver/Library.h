// Library mode and several inputs in one run (docs/cli.md, "Library mode"):
// the header and `extern "C"` entries of a `.co` file, `main` suppression,
// archives, and the orchestration of `croqc a.co b.co ...`.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <string>
#include <vector>

#include "driver/Driver.h"

namespace llvm {
class SourceMgr;
}  // namespace llvm

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Compilation;
struct Options;

/// Whether the host code of the compiled file defines `main`.
bool definesMain(const Compilation& compilation);

/// `--suppress-main`: the macro that renames `main` of `input`
/// (`croq_suppressed_main_<stem>`), added to `options.macros`.
void addMainSuppression(Options& options);

/// Library mode after a successful pipeline: appends the `extern "C"`
/// entries to the generated source. False when an entry cannot be made
/// (reported as an error when `reportProblems`; otherwise the file is just
/// not a library).
bool appendLibraryEntries(Compilation& compilation, bool reportProblems);

/// Writes the library header to `header` (a file croqc did not write is
/// left alone, with a warning, unless the user named it with `--header`).
bool writeLibraryHeader(const Compilation& compilation, llvm::StringRef header, bool headerNamed);

/// The header's default place: beside `output`, named after the input.
std::string defaultHeaderPath(const Options& options, llvm::StringRef output);

/// `ar rcs archive objects...`; false after a diagnostic.
bool writeArchive(const std::vector<std::string>& objects, llvm::StringRef archive, bool verbose,
                  DiagnosticEngine& diags);

/// Compiles one `.co` file as `options` say (the single-input driver).
using CompileFile = ExitCode (*)(const Options& options, llvm::SourceMgr& sm, DiagnosticEngine& diags);

/// Several `.co` inputs: `-c`, `-S` and `--emit` give one output per input
/// (beside it); an executable or a shared library links the objects of all
/// of them; `--lib -o X.a` archives them.
ExitCode compileSeveral(const Options& options, llvm::SourceMgr& sm, DiagnosticEngine& diags, CompileFile compile);

}  // namespace driver
}  // namespace croqc
