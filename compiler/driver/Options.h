// The croqc command line: what the user asked for, parsed with CLI11 after a
// pre-pass that maps Croqtile's own spellings (`-e`, `-es`, `-arch=`, `-rtc=`,
// `-t cute`, ...) onto croqc's. Problems found while parsing are not printed
// here: they are handed back as deferred diagnostics, because how they are
// rendered (`--diagnostics-format`, `--color`, `--error-limit`, `-Werror`)
// depends on the rest of the command line.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "basic/Color.h"
#include "preprocess/Preprocessor.h"
#include "target/Target.h"

namespace croqc {
class DiagnosticEngine;
}  // namespace croqc

namespace croqc::driver {

/// What croqc produces. `Executable` is the default action (no `-E`,
/// `--emit`, `-S` or `-c`).
enum class Action : std::uint8_t {
  Executable,  // .co -> .cu -> nvcc -> executable
  Object,      // -c
  Assembly,    // -S
  Preprocess,  // -E
  EmitTokens,  // --emit=tokens
  EmitAST,     // --emit=ast, -e
  EmitSema,    // --emit=sema
  EmitKir,     // --emit=kir
  EmitCuda,    // --emit=cuda, -es
};

enum class Target : std::uint8_t { Cuda, Cpu };
/// Spec section 17.4; accepted now, used by code generation later.
enum class RuntimeCheck : std::uint8_t { None, Entry, Low, Medium, High, All };
enum class DiagnosticsFormat : std::uint8_t { Text, Json };

struct Options {
  /// The input file; "-" reads stdin; empty when none was given.
  std::string input;
  /// `-o`; empty means the default (stdout for text outputs); "-" is stdout.
  std::string output;
  Action action = Action::Executable;
  /// The spelling that chose `action` (`-E`, `--emit=ast`, ...), for messages.
  std::string actionSpelling;

  /// Further inputs for nvcc (`.cu`, `.cpp`, `.o`, `.a`), `-l`, `-L`,
  /// `--Xnvcc`, `--nvcc`.
  std::vector<std::string> extraInputs;
  std::vector<std::string> libraries;
  std::vector<std::string> libraryDirs;
  std::vector<std::string> nvccArgs;
  std::string nvccPath;

  /// `-D` and `-U` in command-line order.
  std::vector<MacroCommand> macros;
  std::vector<std::string> includeDirs;

  Target target = Target::Cuda;
  /// A GPU row of target/Targets.def (`--arch`).
  target::TargetId arch = target::TargetId::Sm86;
  RuntimeCheck runtimeCheck = RuntimeCheck::Entry;

  ColorMode color = ColorMode::Auto;
  DiagnosticsFormat diagnosticsFormat = DiagnosticsFormat::Text;
  bool warningsAsErrors = false;
  unsigned errorLimit = 20;  // 0: no limit
  bool verbose = false;
  /// `-verify`: check diagnostics against `expected-*` comments in the input.
  bool verify = false;

  /// Pass names, validated against the pipeline.
  std::vector<std::string> printAfter;
  std::string stopAfter;
  /// Hidden: crash on purpose inside this pass, to test the crash handler.
  std::string debugCrashIn;

  bool showHelp = false;
  bool showVersion = false;
  bool listPasses = false;
};

/// A problem found on the command line, reported once the diagnostic engine
/// is configured.
using DeferredDiagnostic = std::function<void(DiagnosticEngine&)>;

struct CommandLine {
  Options options;
  /// The `--help` text (always rendered; printed only when asked for).
  std::string helpText;
  std::vector<DeferredDiagnostic> problems;
};

/// Parses `args` (without the program name).
CommandLine parseCommandLine(llvm::ArrayRef<std::string> args);

llvm::StringRef targetName(Target target);
llvm::StringRef archName(target::TargetId arch);
llvm::StringRef runtimeCheckName(RuntimeCheck level);

}  // namespace croqc::driver
