// Macros and their expansion with C rules: argument pre-expansion, `#`
// stringising, `##` pasting, `__VA_ARGS__`/`__VA_OPT__`, rescanning, and the
// rule that a macro does not expand inside its own expansion. Expansion works
// on a stack of token contexts, one per macro being rescanned, and is bounded
// in depth and in work so that no input can make it recurse or loop without
// end. Internal to the preprocess library.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/StringSaver.h>

#include <deque>
#include <vector>

#include "preprocess/PPToken.h"

namespace croqc {
class DiagnosticEngine;
}

namespace croqc::pp {

struct Macro {
  llvm::StringRef name;
  /// The name in its `#define`; null for a `-D` macro.
  const char* defLoc = nullptr;
  bool functionLike = false;
  bool variadic = false;
  /// The variadic parameter, if any, is last (`__VA_ARGS__` or a GNU name).
  std::vector<llvm::StringRef> params;
  std::vector<PPToken> body;
  /// The body contains `##`, so even an object-like expansion needs work.
  bool hasPaste = false;
  /// Greater than zero while the macro's expansion is being rescanned.
  unsigned disabled = 0;

  /// The C rule for a benign redefinition: same kind, parameters, tokens and
  /// whitespace separation.
  bool sameDefinition(const Macro& other) const;
};

/// The macros in scope. Definitions are never freed, so a `#undef` or a
/// redefinition in the middle of an expansion leaves no dangling pointer.
class MacroTable {
 public:
  Macro* lookup(llvm::StringRef name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
  }
  Macro* define(Macro macro);
  void undefine(llvm::StringRef name) { byName_.erase(name); }
  bool empty() const { return byName_.empty(); }

 private:
  std::deque<Macro> storage_;
  llvm::StringMap<Macro*> byName_;
};

/// Where an expansion reads the tokens that follow its macro names: the
/// source file (arguments may span lines) or a list (a `#if` line, an
/// argument being pre-expanded).
class TokenStream {
 public:
  virtual ~TokenStream() = default;
  /// The next token, or false at the end.
  virtual bool next(PPToken& tok) = 0;
  /// Whether the next token is `(`; consumes nothing.
  virtual bool peekIsLParen() = 0;
};

class TokenListStream final : public TokenStream {
 public:
  explicit TokenListStream(llvm::ArrayRef<PPToken> tokens) : tokens_(tokens) {}
  bool next(PPToken& tok) override {
    if (pos_ >= tokens_.size()) return false;
    tok = tokens_[pos_++];
    return true;
  }
  bool peekIsLParen() override { return pos_ < tokens_.size() && tokens_[pos_].isPunct('('); }

 private:
  llvm::ArrayRef<PPToken> tokens_;
  size_t pos_ = 0;
};

class MacroExpander {
 public:
  /// Limits that keep every input finite: nesting of expansions (contexts and
  /// argument pre-expansions together), tokens produced by one outermost
  /// invocation, and tokens produced in the whole file.
  static constexpr unsigned kMaxDepth = 256;
  static constexpr size_t kMaxInvocationTokens = size_t{1} << 18;
  static constexpr size_t kMaxFileTokens = size_t{1} << 21;

  MacroExpander(MacroTable& macros, DiagnosticEngine& diags, const SourceView& view,
                llvm::StringSaver& saver)
      : macros_(macros), diags_(diags), view_(view), saver_(saver) {}

  /// Expands the invocation of `macro` named by `name`, reading arguments and
  /// rescanned tokens from `source` as needed, and appends the result to
  /// `out`. Stops as soon as the expansion no longer needs `source`. The
  /// caller has checked that a function-like macro is followed by `(`.
  void expandInvocation(const PPToken& name, TokenStream& source, std::vector<PPToken>& out);

  /// Expands every token of `in` (the rest of a `#if` line) into `out`.
  void expandAll(TokenStream& in, std::vector<PPToken>& out);

 private:
  struct Budget;
  struct Context;
  struct Frame;
  struct Args;

  void expand(TokenStream& base, bool drainBase, const PPToken* first, std::vector<PPToken>& out,
              unsigned depth, Budget& budget);
  /// The next token of the innermost unfinished context; finished contexts
  /// are popped, which enables their macros again. False when none is left.
  bool fetchFromContexts(Frame& frame, PPToken& tok);
  /// Like fetchFromContexts, then from the frame's base.
  bool fetch(Frame& frame, PPToken& tok);
  bool peekLParen(Frame& frame);
  void paint(PPToken& tok) const;
  bool collectArgs(const Macro& macro, const PPToken& name, Frame& frame, Args& args);
  bool checkArgCount(const Macro& macro, const PPToken& name, Args& args);
  void substitute(const Macro& macro, const Args& args, std::vector<PPToken>& result,
                  unsigned depth, Budget& budget);
  /// Whether any token of `arg` names a macro that could expand.
  bool mayExpand(llvm::ArrayRef<PPToken> arg) const;
  PPToken stringize(llvm::ArrayRef<PPToken> arg, bool leadingSpace);
  void paste(const PPToken& lhs, const PPToken& rhs, std::vector<PPToken>& result);
  /// Counts tokens against the limits; false once they are exceeded.
  bool spend(size_t tokens, const PPToken& at, Budget& budget);

  MacroTable& macros_;
  DiagnosticEngine& diags_;
  const SourceView& view_;
  llvm::StringSaver& saver_;
  /// How many contexts hold a disabled macro, in all frames together; while
  /// zero, nothing needs painting.
  unsigned disabledContexts_ = 0;
  size_t fileTokens_ = 0;
  bool fileLimitReported_ = false;
};

}  // namespace croqc::pp
