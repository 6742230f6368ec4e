// The front end as the fuzz targets run it: like the driver's pipeline,
// each phase runs only if the ones before it reported no error, and
// diagnostics are rendered to a discarding stream so that the renderer is
// exercised too. Preprocessing and lexing happen once per input; each
// `check(arch)` parses the tokens into a fresh AST and runs sema for `arch`,
// so that one input can be taken through several targets.
#pragma once

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ast/AST.h"
#include "basic/Diagnostic.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "preprocess/Preprocessor.h"
#include "sema/Sema.h"
#include "sema/SemaTypes.h"

namespace croqc::fuzz {

/// The name the fuzz input has in diagnostics and `#line` markers.
inline constexpr const char* kInputName = "fuzz.co";

class FrontEnd {
 public:
  FrontEnd(const std::uint8_t* data, std::size_t size) {
    llvm::StringRef text(reinterpret_cast<const char*>(data), size);
    unsigned id = sm_.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, kInputName), llvm::SMLoc());
    consumer_ = makeTextConsumer(sm_, llvm::nulls(), false);
    DiagnosticEngine diags(sm_, *consumer_);
    preprocess(id, {MacroCommand{false, "FUZZ", "1"}}, diags, pp_);
    if (!diags.hasErrors()) {
      tokens_ = lex(pp_, diags);
      lexed_ = !diags.hasErrors();
    }
    diags.finish();
  }

  /// True if preprocessing and lexing reported no error.
  bool lexed() const { return lexed_; }

  /// One parse and sema of the input for `arch`.
  struct Checked {
    std::unique_ptr<DiagnosticEngine> diags;
    std::unique_ptr<ast::ASTContext> context;
    ast::Program* program = nullptr;
    std::unique_ptr<sema::SemaResult> sema;
    /// True if parse and sema reported no error.
    bool ok = false;
  };

  Checked check(llvm::StringRef arch) {
    Checked c;
    c.diags = std::make_unique<DiagnosticEngine>(sm_, *consumer_);
    if (!lexed_) return c;
    c.context = std::make_unique<ast::ASTContext>();
    c.program = parseProgram(tokens_, *c.context, *c.diags);
    if (!c.program || c.diags->hasErrors()) return c;
    sema::SemaOptions options;
    options.arch = arch;
    c.sema = sema::analyze(*c.program, options, *c.diags);
    c.ok = c.sema && !c.diags->hasErrors();
    return c;
  }

  llvm::SourceMgr& sourceMgr() { return sm_; }

 private:
  llvm::SourceMgr sm_;
  std::unique_ptr<DiagnosticConsumer> consumer_;
  PreprocessedSource pp_;
  std::vector<Token> tokens_;
  bool lexed_ = false;
};

}  // namespace croqc::fuzz
