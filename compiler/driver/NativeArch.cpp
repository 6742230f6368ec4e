#include "driver/NativeArch.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>

#include <optional>
#include <string>
#include <vector>

#include "driver/Nvcc.h"

namespace croqc::driver {
namespace {

constexpr unsigned kProbeSeconds = 20;

std::optional<std::string> findNvidiaSmi() {
  if (llvm::Optional<std::string> env = llvm::sys::Process::GetEnv("NVIDIA_SMI"); env && !env->empty())
    return *env;
  if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("nvidia-smi")) return *p;
  return std::nullopt;
}

std::string firstLine(llvm::StringRef text) { return text.ltrim().split('\n').first.trim().str(); }

std::string readAll(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf = llvm::MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

}  // namespace

std::variant<NativeGpu, NoNativeGpu> probeNativeGpu() {
  std::optional<std::string> smi = findNvidiaSmi();
  if (!smi) return NoNativeGpu{"`nvidia-smi` is not on the PATH", "", ""};

  const NoNativeGpu noTemporary{"croqc could not make a temporary file for the output of `nvidia-smi`", "", ""};
  llvm::SmallString<128> outPath, errPath;
  if (llvm::sys::fs::createTemporaryFile("croqc-smi", "txt", outPath)) return noTemporary;
  TemporaryFile outFile(outPath);
  if (llvm::sys::fs::createTemporaryFile("croqc-smi", "txt", errPath)) return noTemporary;
  TemporaryFile errFile(errPath);

  std::vector<llvm::StringRef> args = {*smi, "--query-gpu=compute_cap,name", "--format=csv,noheader"};
  llvm::Optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(outPath),
                                                 llvm::StringRef(errPath)};
  std::string error;
  bool failedToStart = false;
  int status = llvm::sys::ExecuteAndWait(*smi, args, llvm::None, redirects, kProbeSeconds, 0, &error,
                                         &failedToStart);
  if (failedToStart) return NoNativeGpu{"`" + *smi + "` could not be started: " + error, "", ""};
  if (status == -2) return NoNativeGpu{"`" + *smi + "` did not answer within " + std::to_string(kProbeSeconds) + " s", "", ""};
  if (status != 0) {
    std::string why = firstLine(readAll(outPath));
    if (why.empty()) why = firstLine(readAll(errPath));
    return NoNativeGpu{"`nvidia-smi` failed (exit status " + std::to_string(status) + ")" +
                           (why.empty() ? std::string() : ": " + why),
                       "", ""};
  }

  std::string line = firstLine(readAll(outPath));
  auto [cap, name] = llvm::StringRef(line).split(',');
  cap = cap.trim();
  name = name.trim();
  auto [majorText, minorText] = cap.split('.');
  unsigned major = 0, minor = 0;
  if (line.empty() || majorText.getAsInteger(10, major) || minorText.getAsInteger(10, minor))
    return NoNativeGpu{line.empty() ? "`nvidia-smi` lists no GPU"
                                    : "`nvidia-smi` printed `" + line + "`, which is not a compute capability",
                       "", ""};
  std::string row = "sm_" + std::to_string(major) + std::to_string(minor) + (major == 9 && minor == 0 ? "a" : "");
  const target::TargetInfo* info = target::lookupTarget(row);
  if (!info || !info->isGpu) return NoNativeGpu{"", name.str(), cap.str()};
  return NativeGpu{info->id, name.str(), cap.str()};
}

}  // namespace croqc::driver
