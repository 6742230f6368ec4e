// The lexer: turns preprocessed text into tokens. Host code is kept as opaque
// region tokens; `__co__` functions are tokenised (spec section 1).
#pragma once

#include <vector>

#include "lex/Token.h"

namespace croqc {

class DiagnosticEngine;
class PreprocessedSource;

/// Lexes the whole file. The result always ends with an `eof` token. Lexical
/// errors are reported to `diags` and produce `error` tokens, so the parser
/// can continue.
///
/// Modes: text outside `__co__` functions becomes `host_text` tokens (one per
/// maximal run); `__device__` / `__co_device__` definitions at file scope
/// become `device_text` / `co_device_text` tokens covering the definition up
/// to its matching `}` (or `;` for a declaration); `__cok__ { ... }` becomes a
/// `cok_text` token. `__co__` at file scope switches to `__co__` mode until the
/// function's braces close. Inside `__co__` mode, a line whose first token is
/// `#` followed by a directive name is one `directive` token.
std::vector<Token> lex(const PreprocessedSource& source, DiagnosticEngine& diags);

}  // namespace croqc
