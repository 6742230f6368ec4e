#include "driver/GeneratedSource.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/Regex.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>

#include "basic/Diagnostic.h"
#include "driver/Nvcc.h"
#include "driver/Options.h"
#include "driver/OutputFile.h"

namespace croqc::driver {
namespace {

/// Replaces every occurrence of `from` in `text` by `to`.
std::string replaceAll(std::string text, llvm::StringRef from, llvm::StringRef to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from.data(), 0, from.size()); at != std::string::npos;
       at = text.find(from.data(), at + to.size(), from.size()))
    text.replace(at, from.size(), to.str());
  return text;
}

/// A path as make reads it in a depfile: spaces escaped.
std::string makeEscaped(llvm::StringRef path) { return replaceAll(path.str(), " ", "\\ "); }

std::string depfilePathFor(const Options& opts, llvm::StringRef output) {
  return opts.depfilePath.empty() ? (output + ".d").str() : opts.depfilePath;
}

/// The name the generated file gets in `#line` markers when it is not kept.
llvm::StringRef genericName(llvm::StringRef extension) {
  return extension == "cpp" ? "croqc-generated.cpp" : "croqc-generated.cu";
}

/// The `.co` line that generated line `line` (1-based) of `source` came
/// from: the nearest `// NAME.co:N:` comment above it (the emitter puts one
/// before the code of every statement), or 0.
unsigned originalLine(llvm::StringRef source, unsigned line) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  source.split(lines, '\n');
  static const llvm::Regex kOrigin("^ *// [^ :]+\\.co:([0-9]+):");
  for (unsigned i = std::min<unsigned>(line, lines.size()); i > 0; --i) {
    llvm::SmallVector<llvm::StringRef, 2> m;
    if (lines[i - 1].startswith("#line")) return 0;  // host code: nvcc already names the .co line
    if (kOrigin.match(lines[i - 1], &m)) return static_cast<unsigned>(std::stoul(m[1].str()));
  }
  return 0;
}

/// The compiler's messages, each error or warning in the kept file followed
/// by a line naming the `.co` line it came from.
std::string annotateMessages(llvm::StringRef text, llvm::StringRef kept, llvm::StringRef source,
                             llvm::StringRef input) {
  // nvcc: `file(12): error: ...`; gcc: `file:12:5: error: ...`.
  static const llvm::Regex kMessage("^(.*)(\\(([0-9]+)\\)|:([0-9]+):[0-9]+): (error|warning)");
  std::string out;
  llvm::SmallVector<llvm::StringRef, 0> lines;
  text.split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i].str();
    if (i + 1 < lines.size()) out += "\n";
    llvm::SmallVector<llvm::StringRef, 6> m;
    if (!kMessage.match(lines[i], &m) || m[1] != kept) continue;
    unsigned generated = static_cast<unsigned>(std::stoul((m[3].empty() ? m[4] : m[3]).str()));
    if (unsigned original = originalLine(source, generated))
      out += llvm::formatv("{0}:{1}: note: line {2} of `{3}` is the code generated for this line\n", input,
                           original, generated, kept)
                 .str();
  }
  return out;
}

}  // namespace

bool writeFileReporting(llvm::StringRef path, llvm::StringRef contents, DiagnosticEngine& diags) {
  if (std::optional<std::string> failure = writeOutputFile(path, contents)) {
    diags.report({}, DiagKind::err_cannot_write_file, path == "-" ? "<stdout>" : path.str(), *failure);
    return false;
  }
  return true;
}

std::string keptSourcePath(const Options& opts, llvm::StringRef output) {
  llvm::StringRef stem = opts.input == "-" ? "stdin" : llvm::sys::path::stem(opts.input);
  llvm::SmallString<256> path(llvm::sys::path::parent_path(output));
  llvm::sys::path::append(path, stem + (opts.target == Target::Cpu ? ".croqc.cpp" : ".croqc.cu"));
  return std::string(path);
}

bool compileGeneratedSource(const Options& opts, llvm::StringRef source, llvm::StringRef extension,
                            const std::function<std::vector<std::string>(const std::string&)>& makeArgs,
                            llvm::StringRef output, DiagKind failedKind, DiagnosticEngine& diags) {
  // The depfile, a kept source and the messages name the file the build
  // finally makes, not the temporary the compiler writes.
  llvm::StringRef named = opts.buildOutput.empty() ? output : llvm::StringRef(opts.buildOutput);
  llvm::SmallString<256> temp;
  if (!writeTemporarySource(extension, source, temp, diags)) return false;
  std::string tempPath(temp);
  TemporaryFile removeTemp(tempPath);
  llvm::SmallString<256> log;
  if (llvm::sys::fs::createTemporaryFile("croqc", "log", log)) log.clear();
  std::optional<TemporaryFile> removeLog;
  if (!log.empty()) removeLog.emplace(log);
  llvm::SmallString<256> tempDeps;
  if (opts.depfile && llvm::sys::fs::createTemporaryFile("croqc", "d", tempDeps)) tempDeps.clear();
  std::optional<TemporaryFile> removeDeps;
  if (!tempDeps.empty()) removeDeps.emplace(tempDeps);

  std::vector<std::string> args = makeArgs(tempPath);
  if (!tempDeps.empty()) {
    // Before the input file, where both nvcc and g++ take options.
    std::vector<std::string> depArgs = {"-MD", "-MF", std::string(tempDeps), "-MT", named.str()};
    auto at = std::find(args.begin(), args.end(), tempPath);
    args.insert(at, depArgs.begin(), depArgs.end());
  }
  if (opts.verbose) printCommand(args);
  llvm::Optional<llvm::StringRef> redirects[] = {llvm::None, llvm::StringRef(log), llvm::StringRef(log)};
  ChildResult child = runChild(args, log.empty() ? llvm::ArrayRef<llvm::Optional<llvm::StringRef>>{}
                                                 : llvm::ArrayRef<llvm::Optional<llvm::StringRef>>(redirects));
  dieOfForwardedSignal(child, output);
  int status = child.status;
  if (child.startFailed || status < 0) {
    llvm::sys::fs::remove(output);
    diags.report({}, DiagKind::err_tool_failed, args.front(),
                 child.error.empty() ? "it could not be started" : child.error);
    return false;
  }

  // Keep the generated file when asked, or when the compiler's messages
  // would otherwise name a file that no longer exists.
  bool keep = opts.saveTemps || status != 0;
  std::string kept = opts.keptSourcePath.empty() ? keptSourcePath(opts, named) : opts.keptSourcePath;
  if (keep) {
    if (!writeFileReporting(kept, source, diags)) keep = false;
  }
  if (!log.empty()) {
    if (auto messages = llvm::MemoryBuffer::getFile(log)) {
      std::string text = (*messages)->getBuffer().str();
      if (keep) {
        text = replaceAll(replaceAll(text, tempPath, kept), genericName(extension), kept);
        text = annotateMessages(text, kept, source, opts.input);
      }
      llvm::errs() << text;
    }
  }
  if (keep) llvm::errs() << "croqc: the generated " << (extension == "cpp" ? "C++" : "CUDA") << " is kept in `"
                         << kept << "`" << (status != 0 ? " (the messages above refer to it)" : "") << "\n";
  if (status != 0) {
    llvm::sys::fs::remove(output);
    diags.report({}, failedKind, status);
    return false;
  }
  if (!tempDeps.empty()) {
    auto deps = llvm::MemoryBuffer::getFile(tempDeps);
    std::string text = deps ? (*deps)->getBuffer().str() : named.str() + ":\n";
    std::string input = makeEscaped(opts.input);
    text = replaceAll(text, tempPath, input);
    if (!writeFileReporting(depfilePathFor(opts, named), text, diags)) return false;
  }
  return true;
}

bool writeSourceOnlyDepfile(const Options& opts, llvm::StringRef output, DiagnosticEngine& diags) {
  if (!opts.depfile || opts.input == "-") return true;
  std::string text = makeEscaped(output) + ": " + makeEscaped(opts.input) + "\n";
  std::string path = depfilePathFor(opts, output);
  return writeFileReporting(path, text, diags);
}

}  // namespace croqc::driver
