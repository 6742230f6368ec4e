// `--emit=ast`: a stable, deterministic, indented dump of the AST. Statements
// and declarations are tree nodes with their `line:col`; expressions are
// printed on one line, fully parenthesised, so precedence is visible
// (ASTExprPrinter.h).
#pragma once

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc::ast {

class Program;

void dumpAST(const Program& program, const llvm::SourceMgr& sm, llvm::raw_ostream& os);

}  // namespace croqc::ast
