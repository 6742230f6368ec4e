// Searching C++ and assembly text that croqc passes through (`__cpp__`,
// `asm`) for a name.
#pragma once

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>

namespace croqc {

/// Whether `word` occurs in `text` as a whole identifier: not preceded or
/// followed by a letter, digit or `_`.
inline bool containsWord(llvm::StringRef text, llvm::StringRef word) {
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (size_t at = text.find(word); at != llvm::StringRef::npos; at = text.find(word, at + 1)) {
    size_t end = at + word.size();
    if ((at == 0 || !isWordChar(text[at - 1])) && (end == text.size() || !isWordChar(text[end]))) return true;
  }
  return false;
}

}  // namespace croqc
