// The pass pipeline: the ordered list of passes croqc runs on a file, and the
// runner behind `--print-after`, `--stop-after`, `--list-passes` and `-v`.
// The list itself, readable top to bottom, is in Pipeline.cpp.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

#include <memory>
#include <string>
#include <vector>

#include "driver/Options.h"
#include "lex/Token.h"
#include "preprocess/Preprocessor.h"

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace croqc {
class DiagnosticEngine;
namespace ast {
class ASTContext;
class Program;
}  // namespace ast
namespace sema {
class SemaResult;
}  // namespace sema
namespace kir {
class Module;
}  // namespace kir
}  // namespace croqc

namespace croqc::driver {

/// Everything the passes produce. Each pass reads what the passes before it
/// filled in and fills in its own part.
struct Compilation {
  Compilation(const Options& options, DiagnosticEngine& diags, unsigned mainBuffer);
  ~Compilation();

  const Options& options;
  DiagnosticEngine& diags;
  /// The input file in `diags.sourceMgr()`.
  unsigned mainBuffer;

  PreprocessedSource preprocessed;                  // preprocess
  std::vector<Token> tokens;                        // lex
  std::unique_ptr<ast::ASTContext> astContext;      // parse
  ast::Program* program = nullptr;                  // parse
  std::unique_ptr<sema::SemaResult> sema;           // sema
  std::unique_ptr<kir::Module> kir;                 // lower
  std::string cudaSource;                           // codegen
  /// A pass found a bug of croqc's (the KIR verifier's findings): the
  /// compilation ends as an internal error.
  bool internalError = false;
};

struct Pass {
  llvm::StringRef name;
  /// One line for `--list-passes`.
  llvm::StringRef description;
  /// Runs the pass; false if it reported an error.
  bool (*run)(Compilation&);
  /// Prints the pass's result (`--print-after`, and `-E` / `--emit`).
  void (*print)(const Compilation&, llvm::raw_ostream&);
};

/// The passes in the order they run.
llvm::ArrayRef<Pass> passPipeline();
/// The pass named `name`, or null.
const Pass* findPass(llvm::StringRef name);
/// `--list-passes`: one line per pass, name and description.
void listPasses(llvm::raw_ostream& os);

enum class PipelineResult { Success, Errors, Crashed };

/// Runs the passes in order up to and including `last` (or all of them when
/// `last` is null). Stops early after a pass that reported errors. Prints
/// after the passes named by `--print-after` (to `dumpStream`) and, with
/// `-v`, each pass and its time on stderr. A pass that crashes is reported as
/// an internal compiler error naming the pass.
PipelineResult runPipeline(Compilation& compilation, const Pass* last, llvm::raw_ostream& dumpStream);

}  // namespace croqc::driver
