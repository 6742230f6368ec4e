// libFuzzer target: every input must go through preprocess, lex and parse
// (and every later front-end phase as it is added) without crashing, hanging
// or tripping a sanitizer. Diagnostics are rendered to a discarding stream so
// the renderer is exercised too.
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

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace croqc;
  llvm::SourceMgr sm;
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.co"), llvm::SMLoc());
  auto consumer = makeTextConsumer(sm, llvm::nulls(), false);
  DiagnosticEngine diags(sm, *consumer);
  PreprocessedSource pp;
  preprocess(id, {MacroCommand{false, "FUZZ", "1"}}, diags, pp);
  std::vector<Token> tokens = lex(pp, diags);
  ast::ASTContext ctx;
  parseProgram(tokens, ctx, diags);
  diags.finish();
  return 0;
}
