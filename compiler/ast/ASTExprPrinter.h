// Expressions in the notation of `--emit=ast`, which diagnostics and
// lowering's messages quote too: on one line, fully parenthesised so that
// precedence is visible (`((a + b) * c)`), literals as spelled.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

namespace llvm {
class raw_ostream;
}  // namespace llvm

namespace croqc::ast {

class Expr;

/// Prints one expression (`<null>` for none).
void printExpr(const Expr* expr, llvm::raw_ostream& os);

/// Prints expressions separated by `, `.
void printExprList(llvm::ArrayRef<Expr*> items, llvm::raw_ostream& os);

/// Prints `s` as a double-quoted string with C escapes.
void printQuoted(llvm::StringRef s, llvm::raw_ostream& os);

}  // namespace croqc::ast
