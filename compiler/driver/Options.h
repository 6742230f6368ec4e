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
  WorkScript,  // --generate-script, -gs: a bash script that builds and runs the program
};

enum class Target : std::uint8_t { Cuda, Cpu };
/// Spec section 17.4; accepted now, used by code generation later.
enum class RuntimeCheck : std::uint8_t { None, Entry, Low, Medium, High, All };
enum class DiagnosticsFormat : std::uint8_t { Text, Json };
/// How u32 metadata of sparse MMAs is laid out (`--sparse-metadata`): as
/// `prepack` writes it, or regrouped as `prepack_v2` writes it.
enum class SparseMetadata : std::uint8_t { Prepack, PrepackV2 };

struct Options {
  /// The input file; "-" reads stdin; empty when none was given.
  std::string input;
  /// Further `.co` inputs: each is compiled on its own, then linked or
  /// archived together (`croqc a.co b.co -o exe`, `--lib a.co b.co -o l.a`).
  std::vector<std::string> moreInputs;
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

  /// Library mode (`--lib`): `main` suppressed, position-independent code,
  /// a header and `extern "C"` entries (codegen/LibraryInterface.h); the
  /// output is an object, an archive (`-o X.a`) or a shared library
  /// (`-o X.so`). `-c` on a file without `main` also writes the header.
  bool library = false;
  /// `--suppress-main`: `main` of the host code is renamed away.
  bool suppressMain = false;
  /// `-fPIC` / `-fpic`.
  bool pic = false;
  /// `--header=FILE`: where the library header goes (default: the object's
  /// name with `.h`).
  std::string headerPath;
  /// `-O0`..`-O3` for nvcc or the host compiler (empty: their default).
  std::string optLevel;
  /// `-g`: debug information for host code, line information for kernels.
  bool debugInfo = false;
  /// `--save-temps`: keep the generated CUDA next to the output.
  bool saveTemps = false;
  /// `-MD` (and `-MF FILE`): write a Makefile depfile for the output.
  bool depfile = false;
  std::string depfilePath;
  /// Set by the driver: the name the generated file has when it is kept
  /// (`--save-temps`, or after a failed nvcc), for its `#line` markers.
  std::string keptSourcePath;
  /// Set by the driver: the file a build finally makes. nvcc and the host
  /// compiler write a temporary that becomes it; the depfile and a kept
  /// generated source are named after this one.
  std::string buildOutput;
  /// Set by the driver for `--lib -o X.so`: link a shared library.
  bool sharedLibrary = false;

  /// `-D` and `-U` in command-line order.
  std::vector<MacroCommand> macros;
  std::vector<std::string> includeDirs;

  Target target = Target::Cuda;
  /// A GPU row of target/Targets.def (`--arch`).
  target::TargetId arch = target::TargetId::Sm86;
  RuntimeCheck runtimeCheck = RuntimeCheck::Entry;
  /// `--block-group`: see lower::LowerOptions::blockGroup.
  unsigned blockGroup = 8;
  SparseMetadata sparseMetadata = SparseMetadata::Prepack;

  ColorMode color = ColorMode::Auto;
  DiagnosticsFormat diagnosticsFormat = DiagnosticsFormat::Text;
  /// `-w`.
  bool ignoreWarnings = false;
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
  /// Hidden: break the KIR lowering made (every kernel launches no
  /// threads), to test that the KIR verifier stops the compilation.
  bool debugMalformKir = false;

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
