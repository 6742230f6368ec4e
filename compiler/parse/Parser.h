// The recursive-descent parser for `__co__` code (spec Appendix A).
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include "lex/Token.h"

namespace croqc {

class DiagnosticEngine;

namespace ast {
class ASTContext;
class Program;
}  // namespace ast

/// Parses a whole file. Syntax errors are reported to `diags`; the parser
/// recovers at the next `;` or `}` so that one run reports every independent
/// error. Always returns a Program (holding what could be parsed), allocated in
/// `ctx`. `tokens` must end with an `eof` token.
ast::Program* parseProgram(llvm::ArrayRef<Token> tokens, ast::ASTContext& ctx, DiagnosticEngine& diags);

}  // namespace croqc
