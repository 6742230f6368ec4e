// libFuzzer target: every input must go through preprocess, lex, parse and
// sema without crashing, hanging or tripping a sanitizer. Like the driver's
// pipeline, each phase runs only if the ones before it reported no error.
// Diagnostics are rendered to a discarding stream so the renderer is
// exercised too. `utils/run-fuzzer` builds and runs it.
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <cstdint>

#include "ast/AST.h"
#include "basic/Diagnostic.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "preprocess/Preprocessor.h"
#include "sema/Sema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace croqc;
  llvm::SourceMgr sm;
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.co"), llvm::SMLoc());
  auto consumer = makeTextConsumer(sm, llvm::nulls(), false);
  DiagnosticEngine diags(sm, *consumer);
  PreprocessedSource pp;
  preprocess(id, {MacroCommand{false, "FUZZ", "1"}}, diags, pp);
  if (!diags.hasErrors()) {
    std::vector<Token> tokens = lex(pp, diags);
    if (!diags.hasErrors()) {
      ast::ASTContext ctx;
      ast::Program* program = parseProgram(tokens, ctx, diags);
      if (program && !diags.hasErrors()) {
        sema::SemaOptions options;
        options.arch = "sm_90a";
        sema::analyze(*program, options, diags);
      }
    }
  }
  diags.finish();
  return 0;
}
