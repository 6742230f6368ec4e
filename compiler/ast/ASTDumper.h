// `--emit=ast`: a stable, deterministic, indented dump of the AST. Statements
// and declarations are tree nodes with their `line:col`; expressions are
// printed on one line, fully parenthesised, so precedence is visible.
#pragma once

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc::ast {

class Expr;
class Program;

void dumpAST(const Program& program, const llvm::SourceMgr& sm, llvm::raw_ostream& os);

/// Prints one expression in the dump's notation (also used in diagnostics).
void printExpr(const Expr* expr, llvm::raw_ostream& os);

}  // namespace croqc::ast
