#include "driver/HostCompiler.h"

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
#include "driver/Nvcc.h"
#include "driver/Options.h"

namespace croqc::driver {
namespace {

/// The host compiler command: the program and any arguments that $CXX
/// carries along with it (`CXX="ccache g++"`, `CXX="clang++ -stdlib=libc++"`).
struct HostCompiler {
  std::string program;
  std::vector<std::string> args;
};

std::optional<HostCompiler> findHostCompiler() {
  if (llvm::Optional<std::string> env = llvm::sys::Process::GetEnv("CXX"); env && !env->empty()) {
    llvm::SmallVector<llvm::StringRef, 4> words;
    llvm::StringRef(*env).split(words, ' ', -1, /*KeepEmpty=*/false);
    if (words.empty()) return std::nullopt;
    HostCompiler cxx;
    if (llvm::sys::path::has_parent_path(words[0])) {
      cxx.program = words[0].str();
    } else if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName(words[0])) {
      cxx.program = *p;
    } else {
      return std::nullopt;
    }
    if (!llvm::sys::fs::can_execute(cxx.program)) return std::nullopt;
    for (size_t i = 1; i < words.size(); ++i) cxx.args.push_back(words[i].str());
    return cxx;
  }
  for (const char* name : {"g++", "c++", "clang++"})
    if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName(name)) return HostCompiler{*p, {}};
  return std::nullopt;
}

}  // namespace

std::optional<HostToolchain> findHostToolchain(DiagnosticEngine& diags) {
  std::optional<HostCompiler> cxx = findHostCompiler();
  if (!cxx) {
    diags.report({}, DiagKind::err_cxx_not_found);
    return std::nullopt;
  }
  std::optional<std::string> runtime = findRuntimeInclude();
  llvm::SmallString<256> shims(runtime ? *runtime : "");
  llvm::sys::path::append(shims, "croq", "cpu", "cuda");
  llvm::SmallString<256> shimRuntime(shims);
  llvm::sys::path::append(shimRuntime, "cuda_runtime.h");
  if (!runtime || !llvm::sys::fs::exists(shimRuntime)) {
    diags.report({}, DiagKind::err_runtime_not_found);
    return std::nullopt;
  }
  HostToolchain toolchain;
  toolchain.compiler.push_back(cxx->program);
  toolchain.compiler.insert(toolchain.compiler.end(), cxx->args.begin(), cxx->args.end());
  toolchain.runtime = *runtime;
  toolchain.shims = std::string(shims);
  return toolchain;
}

std::vector<std::string> hostCompilerCommand(const Options& opts, const HostToolchain& toolchain,
                                             const std::string& cppFile, llvm::StringRef output) {
  std::vector<std::string> args = toolchain.compiler;
  args.push_back("-std=c++17");
  addOptimizationFlags(opts, /*nvcc=*/false, args);
  // OpenMP runs the blocks of a launch on every core; without it they run
  // one after another, with the same results.
  args.push_back("-fopenmp");
  if (opts.pic || opts.sharedLibrary) args.push_back("-fPIC");
  if (opts.sharedLibrary) args.push_back("-shared");
  // The shims (cuda_runtime.h, cuda_fp16.h, ...) come before anything else
  // named like them.
  args.push_back("-I" + toolchain.shims);
  args.push_back("-I" + toolchain.runtime);
  addInputIncludes(opts, args);
  if (opts.action == Action::Object) args.push_back("-c");
  args.push_back(cppFile);
  for (const std::string& f : opts.extraInputs) {
    // CUDA sources given alongside are C++ for the CPU runtime too.
    if (llvm::StringRef(f).endswith(".cu")) {
      for (const std::string& a : {std::string("-x"), std::string("c++"), f, std::string("-x"), std::string("none")})
        args.push_back(a);
    } else {
      args.push_back(f);
    }
  }
  addOutputAndLibraries(opts, output, args);
  return args;
}

bool compileWithHostCompiler(const Options& opts, llvm::StringRef source, llvm::StringRef output,
                             DiagnosticEngine& diags) {
  std::optional<HostToolchain> toolchain = findHostToolchain(diags);
  if (!toolchain) return false;
  auto makeArgs = [&](const std::string& cppFile) { return hostCompilerCommand(opts, *toolchain, cppFile, output); };
  return compileGeneratedSource(opts, source, "cpp", makeArgs, output, DiagKind::err_cxx_failed, diags);
}

}  // namespace croqc::driver
