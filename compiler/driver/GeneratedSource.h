// The generated source on its way through nvcc or the host compiler: a
// temporary file, kept beside the output when `--save-temps` asks or the
// compiler fails (so that its messages name a file that exists), and the
// `-MD` depfile, rewritten to name the `.co` file instead of the temporary.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <functional>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"

namespace croqc {
class DiagnosticEngine;
namespace driver {
struct Options;

/// Where `--save-temps` keeps the generated file of `options.input`: beside
/// `output`, named after the input (`dir/kernel.croqc.cu`).
std::string keptSourcePath(const Options& options, llvm::StringRef output);

/// Compiles the generated `source` (a file ending in `.extension`) with the
/// command `makeArgs(path)` makes for it: writes it to a temporary file,
/// adds `-MD -MF -MT` for a depfile, runs the compiler with its messages
/// captured, keeps the file as `options.keptSourcePath` when `--save-temps`
/// asks or the compiler failed (its messages then name the kept file), and
/// writes the depfile with the `.co` file in place of the temporary.
bool compileGeneratedSource(const Options& options, llvm::StringRef source, llvm::StringRef extension,
                            const std::function<std::vector<std::string>(const std::string&)>& makeArgs,
                            llvm::StringRef output, DiagKind failedKind, DiagnosticEngine& diags);

/// Writes the depfile of `-MD` (`-MF` or OUTPUT.d) for an output that
/// depends on the `.co` file alone (`-S`, `--emit=cuda`).
bool writeSourceOnlyDepfile(const Options& options, llvm::StringRef output, DiagnosticEngine& diags);

/// Writes `contents` to `path` as croqc writes its outputs (OutputFile.h);
/// false after reporting why it could not.
bool writeFileReporting(llvm::StringRef path, llvm::StringRef contents, DiagnosticEngine& diags);

/// `-I` for the input's directory (so that it finds its own headers), then
/// the command line's `-I` directories, for nvcc or the host compiler.
void addInputIncludes(const Options& options, std::vector<std::string>& args);

/// `-o output`, then the command line's `-L` directories and `-l` libraries.
void addOutputAndLibraries(const Options& options, llvm::StringRef output, std::vector<std::string>& args);

/// The `-O` level and `-g` flags for nvcc or the host compiler.
void addOptimizationFlags(const Options& options, bool nvcc, std::vector<std::string>& args);

}  // namespace driver
}  // namespace croqc
