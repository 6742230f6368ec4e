// Evaluation of `#if` / `#elif` conditions: C integer constant expressions
// in 64-bit arithmetic (signed unless an operand is unsigned), with
// `defined`, `true`/`false`, and 0 for any other identifier. Internal to the
// preprocess library.
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include <optional>

#include "preprocess/PPToken.h"

namespace croqc {
class DiagnosticEngine;
}

namespace croqc::pp {

class MacroTable;

/// Parentheses, unary operators and `?:` nested deeper than this are an
/// error, so that no condition recurses without bound.
constexpr unsigned kMaxConditionDepth = 256;

/// Evaluates `tokens`, the macro-expanded rest of a `#{directive}` line that
/// ends at `endOfLine`. Returns the truth value, or nothing after reporting
/// an error.
std::optional<bool> evaluateCondition(llvm::ArrayRef<PPToken> tokens, llvm::StringRef directive,
                                      const char* endOfLine, const MacroTable& macros,
                                      DiagnosticEngine& diags, const SourceView& view);

}  // namespace croqc::pp
