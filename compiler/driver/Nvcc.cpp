#include "driver/Nvcc.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"
#include "driver/GeneratedSource.h"
#include "driver/Options.h"

namespace croqc::driver {
namespace {

std::optional<std::string> findNvcc(const Options& opts) {
  if (!opts.nvccPath.empty()) {
    if (!llvm::sys::fs::exists(opts.nvccPath)) return std::nullopt;
    return opts.nvccPath;
  }
  if (llvm::Optional<std::string> env = llvm::sys::Process::GetEnv("NVCC"); env && !env->empty()) return *env;
  if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("nvcc")) return *p;
  for (const char* candidate : {"/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc"})
    if (llvm::sys::fs::can_execute(candidate)) return std::string(candidate);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> findRuntimeInclude() {
  auto has = [](llvm::StringRef dir) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, "croq", "croq.h");
    return llvm::sys::fs::exists(p);
  };
  if (llvm::Optional<std::string> env = llvm::sys::Process::GetEnv("CROQC_RUNTIME_INCLUDE"); env && has(*env))
    return *env;
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable("croqc", &anchor);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
  // bin/croqc (installed) or build/tools/croqc/croqc (build tree).
  for (int up = 0; up < 4 && !dir.empty(); ++up) {
    for (const char* rel : {"runtime/include", "include"}) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, rel);
      if (has(candidate)) return std::string(candidate);
    }
    dir = llvm::sys::path::parent_path(dir);
  }
  return std::nullopt;
}

bool compileWithNvcc(const Options& opts, llvm::StringRef cudaSource, llvm::StringRef output,
                     DiagnosticEngine& diags) {
  std::optional<std::string> nvcc = findNvcc(opts);
  if (!nvcc) {
    diags.report({}, DiagKind::err_nvcc_not_found);
    return false;
  }
  std::optional<std::string> runtime = findRuntimeInclude();
  if (!runtime) {
    diags.report({}, DiagKind::err_runtime_not_found);
    return false;
  }
  auto makeArgs = [&](const std::string& cuFile) {
    std::vector<std::string> args = {*nvcc, "-std=c++17"};
    addOptimizationFlags(opts, /*nvcc=*/true, args);
    if (opts.arch == Arch::Sm90a) {
      args.push_back("-gencode=arch=compute_90a,code=sm_90a");
    } else {
      // SASS for sm_86 plus PTX, so that the same binary also runs (JIT
      // compiled) on newer GPUs.
      args.push_back("-gencode=arch=compute_86,code=[sm_86,compute_86]");
    }
    if (opts.pic || opts.sharedLibrary) args.push_back("-Xcompiler=-fPIC");
    if (opts.sharedLibrary) args.push_back("-shared");
    args.push_back("-I" + *runtime);
    llvm::SmallString<256> inputDir(opts.input == "-" ? "." : opts.input);
    llvm::sys::path::remove_filename(inputDir);
    args.push_back("-I" + (inputDir.empty() ? std::string(".") : std::string(inputDir)));
    for (const std::string& dir : opts.includeDirs) args.push_back("-I" + dir);
    for (const std::string& a : opts.nvccArgs) args.push_back(a);
    if (opts.action == Action::Object) args.push_back("-c");
    // The temporary file ends in `.cu`; nvcc picks each input's language from
    // its extension.
    args.push_back(cuFile);
    for (const std::string& f : opts.extraInputs) args.push_back(f);
    args.push_back("-o");
    args.push_back(output.str());
    for (const std::string& dir : opts.libraryDirs) args.push_back("-L" + dir);
    for (const std::string& lib : opts.libraries) args.push_back("-l" + lib);
    return args;
  };
  return compileGeneratedSource(opts, cudaSource, "cu", makeArgs, output, DiagKind::err_nvcc_failed, diags);
}

void addOptimizationFlags(const Options& opts, bool nvcc, std::vector<std::string>& args) {
  args.push_back(opts.optLevel.empty() ? (nvcc ? "-O3" : "-O2") : "-O" + opts.optLevel);
  if (opts.debugInfo) args.push_back("-g");
  // Line information for kernels (profilers, cuda-gdb backtraces) costs no
  // performance, unlike `-G`.
  if (nvcc) args.push_back("-lineinfo");
}

bool writeTemporarySource(llvm::StringRef extension, llvm::StringRef contents, llvm::SmallVectorImpl<char>& path,
                          DiagnosticEngine& diags) {
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("croqc", extension, path)) {
    diags.report({}, DiagKind::err_cannot_write_file, "<temporary ." + extension.str() + " file>", ec.message());
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(llvm::StringRef(path.data(), path.size()), ec);
  if (ec) {
    diags.report({}, DiagKind::err_cannot_write_file, std::string(path.data(), path.size()), ec.message());
    return false;
  }
  os << contents;
  return true;
}

void printCommand(const std::vector<std::string>& args) {
  llvm::errs() << "croqc: running";
  for (const std::string& a : args) llvm::errs() << " " << a;
  llvm::errs() << "\n";
}

bool runCompiler(const std::vector<std::string>& args, bool verbose, llvm::StringRef output, DiagKind failedKind,
                 DiagnosticEngine& diags) {
  if (verbose) printCommand(args);
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string error;
  bool failed = false;
  int status = llvm::sys::ExecuteAndWait(args.front(), argRefs, llvm::None, {}, 0, 0, &error, &failed);
  if (failed || status < 0) {
    diags.report({}, DiagKind::err_tool_failed, args.front(), error.empty() ? "it could not be started" : error);
    return false;
  }
  if (status != 0) {
    llvm::sys::fs::remove(output);
    diags.report({}, failedKind, status);
    return false;
  }
  return true;
}

}  // namespace croqc::driver
