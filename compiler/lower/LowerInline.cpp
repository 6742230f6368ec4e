// Lowering of inline code: `__cpp__` text and `asm` statements inside
// `__co__` functions, and the checks that host code can run on the CPU
// target (no inline PTX, no CUDA API the CPU runtime lacks).
#include "lower/LowerImpl.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/FormatVariadic.h>

#include "basic/Words.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// Whether C++ text contains an `asm` statement (`asm`, `__asm`, `__asm__`
/// as a whole word): inline PTX, which only a GPU can run.
bool containsInlineAsm(llvm::StringRef code) {
  return containsWord(code, "asm") || containsWord(code, "__asm") || containsWord(code, "__asm__");
}

constexpr llvm::StringLiteral kInlinePtxHint =
    "write it in Croqtile or plain C++; inline PTX needs a GPU (`--target=cuda`)";

}  // namespace

void Lowerer::checkHostCodeForCpu(llvm::StringRef code, llvm::SMLoc loc) {
  static const llvm::StringMap<llvm::StringRef> kMissing = [] {
    llvm::StringMap<llvm::StringRef> m;
#define CUDA_INTRINSIC(name, what) m[#name] = what;
#include "target/CudaIntrinsics.def"
    return m;
  }();
  auto isWordChar = [](char ch) { return llvm::isAlnum(ch) || ch == '_'; };
  auto report = [&](size_t at, size_t len, const std::string& what, llvm::StringRef hint) {
    llvm::SMLoc start = llvm::SMLoc::getFromPointer(loc.getPointer() + at);
    cannotEmulate({start, llvm::SMLoc::getFromPointer(loc.getPointer() + at + len)}, what, hint);
  };
  // Identifiers of code only: comments, string and character literals and
  // preprocessor lines are skipped.
  bool lineStart = true;
  for (size_t i = 0; i < code.size();) {
    char ch = code[i];
    if (ch == '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (llvm::isSpace(ch)) {
      ++i;
      continue;
    }
    if (lineStart && ch == '#') {
      while (i < code.size() && code[i] != '\n') i += code[i] == '\\' ? 2 : 1;
      continue;
    }
    lineStart = false;
    if (code.substr(i).startswith("//")) {
      i = code.find('\n', i);
      if (i == llvm::StringRef::npos) break;
      continue;
    }
    if (code.substr(i).startswith("/*")) {
      size_t end = code.find("*/", i + 2);
      i = end == llvm::StringRef::npos ? code.size() : end + 2;
      continue;
    }
    if (ch == '"' || ch == '\'') {
      for (++i; i < code.size() && code[i] != ch && code[i] != '\n'; ++i)
        if (code[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (!isWordChar(ch) || llvm::isDigit(ch)) {
      ++i;
      continue;
    }
    size_t begin = i;
    while (i < code.size() && isWordChar(code[i])) ++i;
    llvm::StringRef word = code.slice(begin, i);
    size_t next = i;
    while (next < code.size() && llvm::isSpace(code[next])) ++next;
    bool call = next < code.size() && code[next] == '(';
    if (word == "asm" || word == "__asm" || word == "__asm__") {
      report(begin, word.size(), "inline PTX (`" + word.str() + "`) in host or `__device__` code", kInlinePtxHint);
    } else if (call) {
      auto it = kMissing.find(word);
      if (it != kMissing.end())
        report(begin, word.size(), "the CUDA device function `" + word.str() + "` (" + it->second.str() + ")",
               "the CPU runtime does not provide it; write the computation in plain C++ for code built with "
               "`--target=cpu`");
    }
  }
}

std::optional<std::string> Lowerer::numberNamedAsmOperands(const ast::AsmStmt& a) {
  // nvcc stops with an internal error on `%[name]`: each becomes the
  // operand's number (outputs first, then inputs), as GCC numbers them.
  auto number = [&](llvm::StringRef name) -> std::optional<size_t> {
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (a.outputs[i].symbolicName == name) return i;
    for (size_t i = 0; i < a.inputs.size(); ++i)
      if (a.inputs[i].symbolicName == name) return a.outputs.size() + i;
    return std::nullopt;
  };
  llvm::StringRef t = a.asmTemplate;
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    out += t[i];
    if (t[i] != '%' || i + 1 >= t.size()) continue;
    // `%%` is a literal percent; `%[name]` and `%c[name]` (with a modifier
    // letter) name an operand.
    if (t[i + 1] == '%') {
      out += t[++i];
      continue;
    }
    size_t open = llvm::isAlpha(t[i + 1]) && i + 2 < t.size() && t[i + 2] == '[' ? i + 2 : i + 1;
    if (t[open] != '[') continue;
    size_t close = t.find(']', open);
    if (close == llvm::StringRef::npos) continue;
    llvm::StringRef name = t.slice(open + 1, close);
    std::optional<size_t> n = number(name);
    if (!n) {
      diags_.report(a.loc(), DiagKind::err_asm_unknown_operand_name, name).range(a.range());
      return std::nullopt;
    }
    out += t.slice(i + 1, open).str() + std::to_string(*n);
    i = close;
  }
  return out;
}

void Lowerer::noteCppNamedBuffers(llvm::StringRef code) {
  // C++ text in a kernel names global and shared buffers as the `.co` source
  // does (`topk_ids[i]`, `atomicAdd(&s_counts[e], 1)`), where the kernel
  // has them under generated names.
  auto named = [&](const kir::Buffer* b) {
    return !b->sourceName.empty() && b->name != b->sourceName && containsWord(code, b->sourceName) &&
           !llvm::is_contained(kernel_->cppNamedBuffers, b);
  };
  for (const kir::Buffer* b : globalBuffers_)
    if (named(b)) kernel_->cppNamedBuffers.push_back(b);
  for (const kir::Buffer* b : kernel_->sharedBuffers)
    if (b->arrayDims.empty() && named(b)) kernel_->cppNamedBuffers.push_back(b);
}

void Lowerer::lowerCpp(const ast::Stmt* s) {
  if (const auto* c = llvm::dyn_cast<CppStmt>(s)) {
    if (cpuTarget() && containsInlineAsm(c->code)) {
      cannotEmulate(s->range(), "inline PTX (`asm`) in `__cpp__`", kInlinePtxHint);
      return;
    }
    if (c->code.contains("setmaxnreg")) checkRegisterRealloc(s->range());
    if (kernel_ && !host_) noteCppNamedBuffers(c->code);
    emit(StmtKind::Raw, s->loc())->text = c->code.str();
    return;
  }
  if (cpuTarget()) {
    cannotEmulate(s->range(), "an `asm` statement (inline PTX)", kInlinePtxHint);
    return;
  }
  const auto* a = llvm::cast<AsmStmt>(s);
  std::string text = a->isVolatile ? "asm volatile(" : "asm(";
  std::optional<std::string> positional = numberNamedAsmOperands(*a);
  if (!positional) return;
  std::string tmpl;
  for (char ch : *positional) {
    if (ch == '"' || ch == '\\') tmpl += '\\';
    if (ch == '\n') {
      tmpl += "\\n";
      continue;
    }
    tmpl += ch;
  }
  text += "\"" + tmpl + "\"";
  auto operands = [&](llvm::ArrayRef<AsmOperand> ops) {
    std::string r;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i) r += ", ";
      r += "\"" + ops[i].constraint.str() + "\"(" + printExpr(lowerExpr(ops[i].value)) + ")";
    }
    return r;
  };
  if (!a->outputs.empty() || !a->inputs.empty() || !a->clobbers.empty()) text += " : " + operands(a->outputs);
  if (!a->inputs.empty() || !a->clobbers.empty()) text += " : " + operands(a->inputs);
  if (!a->clobbers.empty()) {
    text += " : ";
    for (size_t i = 0; i < a->clobbers.size(); ++i) text += (i ? ", \"" : "\"") + a->clobbers[i].str() + "\"";
  }
  text += ");";
  emit(StmtKind::Raw, s->loc())->text = text;
}

}  // namespace croqc::lower
