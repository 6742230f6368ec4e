// The `--emit=tokens` printer.
#include "driver/TokenDump.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

namespace croqc::driver {
namespace {

void printEscaped(llvm::StringRef text, llvm::raw_ostream& os) {
  for (unsigned char c : text) {
    switch (c) {
      case '\\': os << "\\\\"; break;
      case '\'': os << "\\'"; break;
      case '\n': os << "\\n"; break;
      case '\t': os << "\\t"; break;
      case '\r': os << "\\r"; break;
      default:
        if (llvm::isPrint(c)) {
          os << c;
        } else {
          os << "\\x" << llvm::hexdigit(c >> 4, /*LowerCase=*/true) << llvm::hexdigit(c & 15, true);
        }
    }
  }
}

}  // namespace

void dumpTokens(llvm::ArrayRef<Token> tokens, const llvm::SourceMgr& sm, llvm::raw_ostream& os) {
  for (const Token& tok : tokens) {
    if (tok.loc.isValid()) {
      auto [line, col] = sm.getLineAndColumn(tok.loc);
      os << line << ':' << col;
    } else {
      os << "?:?";
    }
    os << ' ' << tokenKindName(tok.kind) << " '";
    if (isHostRegion(tok.kind)) {
      printEscaped(tok.text.take_until([](char c) { return c == '\n'; }), os);
      if (tok.text.contains('\n')) os << "\\n";
      os << "' length=" << tok.text.size() << '\n';
    } else {
      printEscaped(tok.text, os);
      os << "'\n";
    }
  }
}

}  // namespace croqc::driver
