#include "driver/WorkScript.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <vector>

#include "basic/Diagnostic.h"
#include "driver/HostCompiler.h"
#include "driver/Nvcc.h"
#include "driver/Options.h"

namespace croqc::driver {
namespace {

// Stand-ins for the script's variables in a command croqc makes.
constexpr const char* kSourceVar = "\x01source";
constexpr const char* kOutputVar = "\x01output";

std::string absolute(llvm::StringRef path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

/// One word for bash: as it is when it has no special characters, else in
/// single quotes.
std::string shellWord(llvm::StringRef word) {
  if (word == kSourceVar) return "\"$src\"";
  if (word == kOutputVar) return "\"$out\"";
  bool plain = !word.empty() && llvm::all_of(word, [](char c) {
    return llvm::isAlnum(c) || llvm::StringRef("_./=:,+@%-").contains(c);
  });
  if (plain) return word.str();
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// A name for files in the script: the input's stem with only portable
/// characters.
std::string programName(const Options& opts) {
  std::string stem = opts.input == "-" ? std::string("stdin") : llvm::sys::path::stem(opts.input).str();
  for (char& c : stem)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.') c = '_';
  return stem.empty() || stem[0] == '-' || stem[0] == '.' ? "program" + stem : stem;
}

/// A here-document delimiter that no line of `source` equals.
std::string heredocDelimiter(llvm::StringRef source) {
  llvm::SmallVector<llvm::StringRef, 0> lines;
  source.split(lines, '\n');
  std::string delimiter = "CROQC_GENERATED_SOURCE";
  while (llvm::is_contained(lines, delimiter) || llvm::is_contained(lines, delimiter + "\r")) delimiter += "_";
  return delimiter;
}

}  // namespace

std::optional<std::string> makeWorkScript(const Options& given, llvm::StringRef source, DiagnosticEngine& diags) {
  // The script may run from another directory: every path becomes absolute.
  Options opts = given;
  opts.action = Action::Executable;
  if (opts.input != "-") opts.input = absolute(opts.input);
  for (std::string& dir : opts.includeDirs) dir = absolute(dir);
  for (std::string& dir : opts.libraryDirs) dir = absolute(dir);
  for (std::string& file : opts.extraInputs) file = absolute(file);

  bool cpu = opts.target == Target::Cpu;
  std::vector<std::string> command;
  std::string compilerLine;
  if (cpu) {
    std::optional<HostToolchain> toolchain = findHostToolchain(diags);
    if (!toolchain) return std::nullopt;
    toolchain->runtime = absolute(toolchain->runtime);
    toolchain->shims = absolute(toolchain->shims);
    command = hostCompilerCommand(opts, *toolchain, kSourceVar, kOutputVar);
    command.erase(command.begin(), command.begin() + static_cast<long>(toolchain->compiler.size()));
    std::string fallback;
    for (const std::string& word : toolchain->compiler) fallback += (fallback.empty() ? "" : " ") + shellWord(word);
    compilerLine = "if [ -n \"${CXX:-}\" ]; then read -ra compiler <<< \"$CXX\"; else compiler=(" + fallback + "); fi";
  } else {
    std::optional<std::string> runtime = findRuntimeInclude();
    if (!runtime) {
      diags.report({}, DiagKind::err_runtime_not_found);
      return std::nullopt;
    }
    // Without an nvcc here, the one on the PATH where the script runs.
    std::string nvcc = findNvccProgram(opts).value_or("nvcc");
    command = nvccCommand(opts, nvcc, absolute(*runtime), kSourceVar, kOutputVar);
    command.erase(command.begin());
    compilerLine = "compiler=(\"${NVCC:-" + shellWord(nvcc) + "}\")";
  }

  const std::string name = programName(opts);
  const std::string extension = cpu ? "cpp" : "cu";
  const std::string delimiter = heredocDelimiter(source);
  std::string script;
  llvm::raw_string_ostream os(script);
  os << "#!/usr/bin/env bash\n"
     << "# Builds and runs " << shellWord(given.input == "-" ? "<stdin>" : llvm::sys::path::filename(given.input))
     << " as croqc " << CROQC_VERSION << " generated it for " << (cpu ? "the CPU" : archName(opts.arch))
     << " (`croqc -gs`).\n"
     << "#   bash SCRIPT [--execute] [ARG...]   build it in a temporary directory and run it with ARGs\n"
     << "#   bash SCRIPT --compile-link [EXE]   build the executable EXE (default: " << name << ")\n"
     << "#   bash SCRIPT --compile-module [OBJ] compile it to the object OBJ (default: " << name << ".o)\n"
     << "# " << (cpu ? "CXX" : "NVCC") << " names another compiler; EXTRA_TARGET_CFLAGS adds options to it.\n"
     << "set -euo pipefail\n\n"
     << "usage() {\n"
     << "  echo \"usage: $0 [--execute [ARG...] | --compile-link [EXE] | --compile-module [OBJ]]\"\n"
     << "}\n"
     << "action=--execute\n"
     << "if [ $# -gt 0 ]; then action=$1; shift; fi\n"
     << "case \"$action\" in\n"
     << "  --execute|--compile-link|--compile-module) ;;\n"
     << "  -h|--help) usage; exit 0 ;;\n"
     << "  *) echo \"$0: unknown action '$action'\" >&2; usage >&2; exit 2 ;;\n"
     << "esac\n\n"
     << "work=$(mktemp -d \"${TMPDIR:-/tmp}/croqc-" << name << ".XXXXXX\")\n"
     << "trap 'rm -rf \"$work\"' EXIT\n"
     << "src=$work/" << name << "." << extension << "\n"
     << "cat > \"$src\" <<'" << delimiter << "'\n"
     << source << (source.endswith("\n") || source.empty() ? "" : "\n") << delimiter << "\n\n"
     << compilerLine << "\n"
     << "read -ra extra <<< \"${EXTRA_TARGET_CFLAGS:-}\"\n"
     << "# compile OUT [OPTION...]\n"
     << "compile() {\n"
     << "  local out=$1\n"
     << "  shift\n"
     << "  \"${compiler[@]}\"";
  for (const std::string& word : command) os << " " << shellWord(word);
  os << " ${extra[@]+\"${extra[@]}\"} \"$@\"\n"
     << "}\n\n"
     << "case \"$action\" in\n"
     << "  --execute)\n"
     << "    compile \"$work/" << name << "\"\n"
     << "    \"$work/" << name << "\" \"$@\" ;;\n"
     << "  --compile-link) compile \"${1:-" << name << "}\" ;;\n"
     << "  --compile-module) compile \"${1:-" << name << ".o}\" -c ;;\n"
     << "esac\n";
  os.flush();
  return script;
}

}  // namespace croqc::driver
