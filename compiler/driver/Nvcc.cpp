#include "driver/Nvcc.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/raw_ostream.h>

#include <signal.h>

#include <iterator>

#include <optional>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"
#include "driver/GeneratedSource.h"
#include "driver/Options.h"

namespace croqc::driver {

std::optional<std::string> findNvccProgram(const Options& opts) {
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

std::vector<std::string> nvccCommand(const Options& opts, const std::string& nvcc, const std::string& runtime,
                                     const std::string& cuFile, llvm::StringRef output) {
  std::vector<std::string> args = {nvcc, "-std=c++17"};
  addOptimizationFlags(opts, /*nvcc=*/true, args);
  args.push_back(target::targetInfo(opts.arch).nvccGencode.str());
  if (opts.pic || opts.sharedLibrary) args.push_back("-Xcompiler=-fPIC");
  if (opts.sharedLibrary) args.push_back("-shared");
  args.push_back("-I" + runtime);
  addInputIncludes(opts, args);
  for (const std::string& a : opts.nvccArgs) args.push_back(a);
  if (opts.action == Action::Object) args.push_back("-c");
  // The generated file ends in `.cu`; nvcc picks each input's language from
  // its extension.
  args.push_back(cuFile);
  for (const std::string& f : opts.extraInputs) args.push_back(f);
  addOutputAndLibraries(opts, output, args);
  return args;
}

bool compileWithNvcc(const Options& opts, llvm::StringRef cudaSource, llvm::StringRef output,
                     DiagnosticEngine& diags) {
  std::optional<std::string> nvcc = findNvccProgram(opts);
  if (!nvcc) {
    diags.report({}, DiagKind::err_nvcc_not_found);
    return false;
  }
  std::optional<std::string> runtime = findRuntimeInclude();
  if (!runtime) {
    diags.report({}, DiagKind::err_runtime_not_found);
    return false;
  }
  auto makeArgs = [&](const std::string& cuFile) { return nvccCommand(opts, *nvcc, *runtime, cuFile, output); };
  return compileGeneratedSource(opts, cudaSource, "cu", makeArgs, output, DiagKind::err_nvcc_failed, diags);
}

void addInputIncludes(const Options& opts, std::vector<std::string>& args) {
  llvm::SmallString<256> inputDir(opts.input == "-" ? "." : opts.input);
  llvm::sys::path::remove_filename(inputDir);
  args.push_back("-I" + (inputDir.empty() ? std::string(".") : std::string(inputDir)));
  for (const std::string& dir : opts.includeDirs) args.push_back("-I" + dir);
}

void addOutputAndLibraries(const Options& opts, llvm::StringRef output, std::vector<std::string>& args) {
  args.push_back("-o");
  args.push_back(output.str());
  for (const std::string& dir : opts.libraryDirs) args.push_back("-L" + dir);
  for (const std::string& lib : opts.libraries) args.push_back("-l" + lib);
}

void addOptimizationFlags(const Options& opts, bool nvcc, std::vector<std::string>& args) {
  args.push_back(opts.optLevel.empty() ? (nvcc ? "-O3" : "-O2") : "-O" + opts.optLevel);
  if (opts.debugInfo) args.push_back("-g");
  // Line information for kernels (profilers, cuda-gdb backtraces) costs no
  // performance, unlike `-G`.
  if (nvcc) args.push_back("-lineinfo");
}

TemporaryFile::TemporaryFile(llvm::StringRef path) : path_(path.str()) { llvm::sys::RemoveFileOnSignal(path_); }

TemporaryFile::~TemporaryFile() {
  llvm::sys::fs::remove(path_);
  llvm::sys::DontRemoveFileOnSignal(path_);
}

bool writeTemporarySource(llvm::StringRef extension, llvm::StringRef contents, llvm::SmallVectorImpl<char>& path,
                          DiagnosticEngine& diags) {
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("croqc", extension, path)) {
    diags.report({}, DiagKind::err_cannot_write_file, "<temporary ." + extension.str() + " file>", ec.message());
    return false;
  }
  llvm::StringRef name(path.data(), path.size());
  llvm::sys::RemoveFileOnSignal(name);
  std::error_code ec;
  llvm::raw_fd_ostream os(name, ec);
  if (ec) {
    diags.report({}, DiagKind::err_cannot_write_file, name.str(), ec.message());
    return false;
  }
  os << contents;
  os.close();
  if (os.has_error()) {
    diags.report({}, DiagKind::err_cannot_write_file, name.str(), os.error().message());
    os.clear_error();
    return false;
  }
  return true;
}

void printCommand(const std::vector<std::string>& args) {
  llvm::errs() << "croqc: running";
  for (const std::string& a : args) llvm::errs() << " " << a;
  llvm::errs() << "\n";
}


namespace {

/// The compiler croqc waits for, and the first termination signal croqc got
/// while waiting (0: none). Only the handler below and runCompiler use them.
volatile sig_atomic_t childPid = 0;
volatile sig_atomic_t pendingSignal = 0;
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void forwardSignal(int sig) {
  if (pendingSignal == 0) pendingSignal = sig;
  if (childPid > 0) ::kill(static_cast<pid_t>(childPid), sig);
}

/// Forwards termination signals to the child for as long as it lives; on
/// destruction puts the previous handlers back.
class SignalForwarding {
 public:
  SignalForwarding() {
    pendingSignal = 0;
    struct sigaction action = {};
    action.sa_handler = forwardSignal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kForwardedSignals); ++i) sigaction(kForwardedSignals[i], &action, &previous_[i]);
  }
  ~SignalForwarding() {
    childPid = 0;
    for (size_t i = 0; i < std::size(kForwardedSignals); ++i) sigaction(kForwardedSignals[i], &previous_[i], nullptr);
  }
  void started(llvm::sys::procid_t pid) {
    childPid = static_cast<sig_atomic_t>(pid);
    // A signal that came before the child existed.
    if (pendingSignal != 0) ::kill(pid, pendingSignal);
  }

 private:
  struct sigaction previous_[std::size(kForwardedSignals)];
};

}  // namespace

ChildResult runChild(const std::vector<std::string>& args,
                     llvm::ArrayRef<llvm::Optional<llvm::StringRef>> redirects) {
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  ChildResult result;
  SignalForwarding forwarding;
  llvm::sys::ProcessInfo child =
      llvm::sys::ExecuteNoWait(args.front(), argRefs, llvm::None, redirects, 0, &result.error, &result.startFailed);
  if (!result.startFailed && child.Pid > 0) {
    forwarding.started(child.Pid);
    llvm::sys::ProcessInfo done = llvm::sys::Wait(child, 0, /*WaitUntilTerminates=*/true, &result.error);
    result.status = done.ReturnCode;
  }
  result.signal = pendingSignal;
  return result;
}

void dieOfForwardedSignal(const ChildResult& child, llvm::StringRef output) {
  if (child.signal == 0) return;
  // The previous handlers (LLVM's: remove the temporary files) are back.
  llvm::sys::fs::remove(output);
  ::raise(child.signal);
}

bool runCompiler(const std::vector<std::string>& args, bool verbose, llvm::StringRef output, DiagKind failedKind,
                 DiagnosticEngine& diags) {
  if (verbose) printCommand(args);
  ChildResult child = runChild(args, {});
  dieOfForwardedSignal(child, output);
  if (child.startFailed || child.status < 0) {
    llvm::sys::fs::remove(output);
    diags.report({}, DiagKind::err_tool_failed, args.front(),
                 child.error.empty() ? "it could not be started" : child.error);
    return false;
  }
  if (child.status != 0) {
    llvm::sys::fs::remove(output);
    diags.report({}, failedKind, child.status);
    return false;
  }
  return true;
}

}  // namespace croqc::driver
