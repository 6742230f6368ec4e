// `--emit=tokens`: a stable, one-token-per-line dump of the lexer's output.
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include "lex/Token.h"

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc::driver {

/// Prints each token as `line:col kind 'text'`, the text escaped (`\n`, `\t`,
/// `\\`, `\'`, `\xHH`). Host regions (`host_text`, `device_text`,
/// `co_device_text`, `cok_text`) print only the first line of their text
/// (with its `\n`, so that a region starting with a newline shows as `'\n'`)
/// and then `length=N`, the length of the whole region in bytes:
///
///   1:1 host_text '#include <cstdio>\n' length=120
///   5:1 kw_co '__co__'
void dumpTokens(llvm::ArrayRef<Token> tokens, const llvm::SourceMgr& sm, llvm::raw_ostream& os);

}  // namespace croqc::driver
