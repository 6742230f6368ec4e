// The last step of `croqc FILE.co -o EXE` and `-c`: writes the generated CUDA
// to a temporary file and runs nvcc on it (no shell: the arguments go to the
// process as a list), with the croq runtime on the include path.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/Optional.h>
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

/// The nvcc croqc runs: `--nvcc=`, $NVCC, nvcc on PATH or in /usr/local/cuda.
std::optional<std::string> findNvccProgram(const Options& options);

/// The command that compiles the generated `cuFile` to `output` with
/// `nvcc`, the croq runtime headers in `runtime`: the target's gencode, the
/// optimisation flags, the include and library options of the command line.
std::vector<std::string> nvccCommand(const Options& options, const std::string& nvcc, const std::string& runtime,
                                     const std::string& cuFile, llvm::StringRef output);

/// The directory holding `croq/croq.h`: $CROQC_RUNTIME_INCLUDE, or found
/// from croqc's own location (the build tree's `runtime/include`, or an
/// installed `include/` beside `bin/`). Also used for `--target=cpu`.
std::optional<std::string> findRuntimeInclude();

/// A temporary file that is removed when this goes out of scope, or when
/// croqc is killed by a signal before that.
class TemporaryFile {
 public:
  explicit TemporaryFile(llvm::StringRef path);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

 private:
  std::string path_;
};

/// Writes `contents` to a new temporary file ending in `.extension` and puts
/// its path in `path`; false after a diagnostic. The caller removes it (with
/// a TemporaryFile); it is removed on a signal from the start.
bool writeTemporarySource(llvm::StringRef extension, llvm::StringRef contents, llvm::SmallVectorImpl<char>& path,
                          DiagnosticEngine& diags);

/// `-v`: prints `croqc: running PROGRAM ARGS...` on stderr.
void printCommand(const std::vector<std::string>& args);

/// How a child process ended: its exit status (-1 if it did not start or
/// died), whether it could not be started and why, and the termination
/// signal croqc received (and passed on to it) while waiting, 0 if none.
struct ChildResult {
  int status = -1;
  bool startFailed = false;
  std::string error;
  int signal = 0;
};

/// Runs `args` (args[0] is the program, no shell) with the given standard
/// stream redirects and waits for it; SIGINT, SIGTERM and SIGHUP that croqc
/// gets meanwhile are passed on to it.
ChildResult runChild(const std::vector<std::string>& args,
                     llvm::ArrayRef<llvm::Optional<llvm::StringRef>> redirects);

/// After a signal was passed on to a child: removes `output` and lets croqc
/// die of the same signal (its temporary files removed). Returns only when
/// no signal came.
void dieOfForwardedSignal(const ChildResult& child, llvm::StringRef output);

/// Runs `args` (args[0] is the program, no shell), printing the command with
/// `-v`. A compiler that fails leaves no `output` and is reported with
/// `failedKind` (its exit status as the argument). If croqc gets SIGINT,
/// SIGTERM or SIGHUP meanwhile, the signal is passed on to the compiler,
/// croqc waits for it to end, and then dies of the same signal (its
/// temporary files removed), so that nothing writes after croqc is gone.
bool runCompiler(const std::vector<std::string>& args, bool verbose, llvm::StringRef output, DiagKind failedKind,
                 DiagnosticEngine& diags);

}  // namespace driver
}  // namespace croqc
