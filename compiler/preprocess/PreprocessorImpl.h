// The preprocessor's state and its walk over one buffer. Internal to the
// preprocess library; the walk is split by concern: text and output
// (Preprocessor.cpp), directives and the command line (Directives.cpp),
// conditionals (Conditionals.cpp).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/StringSaver.h>

#include <vector>

#include "preprocess/MacroExpander.h"
#include "preprocess/PPToken.h"
#include "preprocess/Preprocessor.h"

namespace croqc::pp {

/// One open `#if`/`#ifdef`/`#ifndef`.
struct Conditional {
  llvm::StringRef directive;
  const char* hash;
  /// A branch has been taken (or is being processed).
  bool taken = false;
  /// The `#` of this conditional's `#else`, once seen.
  const char* elseHash = nullptr;
};

/// A directive line as found in the buffer.
struct DirectiveLine {
  const char* lineStart;  // the line's first character
  const char* hash;
  const char* end;              // the `\n` that ends it, or the buffer's end
  const char* next;             // where the following line starts
  std::vector<PPToken> tokens;  // after the `#`; tokens[0] is the name

  const PPToken* name() const { return tokens.empty() ? nullptr : &tokens[0]; }
  const char* afterName() const {
    return tokens.empty() ? hash + 1 : tokens[0].loc + tokens[0].text.size();
  }
};

/// Preprocesses one buffer into a PreprocessedSource.
class Preprocessor {
 public:
  Preprocessor(llvm::StringRef buffer, DiagnosticEngine& diags, PreprocessedSource& out)
      : diags_(diags),
        out_(out),
        view_{buffer.begin(), buffer.end()},
        cur_(buffer.begin()),
        end_(buffer.end()),
        saver_(allocator_),
        expander_(macros_, diags, view_, saver_) {}

  void run(llvm::ArrayRef<MacroCommand> commandLine);

 private:
  /// The source after a macro name, as the expander reads it.
  class SourceTokens final : public TokenStream {
   public:
    explicit SourceTokens(Preprocessor& pp) : pp_(pp) {}
    bool next(PPToken& tok) override { return pp_.nextSourceToken(tok); }
    bool peekIsLParen() override { return pp_.peekSourceLParen(); }

   private:
    Preprocessor& pp_;
  };

  // Output
  void addSegment(size_t outOffset, const char* orig, bool expansion);
  void appendVerbatim(const char* from, const char* to);
  /// Emits one newline for each newline in `[from, to)`, each mapped to the
  /// newline it stands for.
  void appendNewlinesIn(const char* from, const char* to, size_t skip = 0);
  /// Prints an expansion in place of the invocation `[invocation, cur_)`.
  void appendExpansion(const std::vector<PPToken>& tokens, const char* invocation);

  // Text
  /// The main loop: verbatim text, macro calls, and directives at line starts.
  void scanText();
  /// Expands the macro whose name is `[nameStart, cur_)`.
  void expandFromSource(const char* nameStart);
  /// The next token of the source for a macro call's arguments; directives
  /// met on the way are run.
  bool nextSourceToken(PPToken& tok);
  bool skipTrivia();
  /// Whether the next source token is `(`; a directive line on the way
  /// means it is not.
  bool peekSourceLParen() const;

  // Directives
  void handleDirective(const char* lineStart, const char* hash);
  void keepLine(const DirectiveLine& line);
  void removeLine(const DirectiveLine& line);
  llvm::SMRange directiveRange(const DirectiveLine& line) const;
  void warnExtraTokens(const DirectiveLine& line, size_t expected);
  /// The macro name operand of `#define`, `#undef`, `#ifdef`, `#ifndef`.
  const PPToken* macroName(const DirectiveLine& line);
  bool checkMacroName(const PPToken& name, llvm::StringRef directive);
  void handleDefine(const DirectiveLine& line);
  /// Parses `NAME[(params)] body` from `tokens[first]` on.
  bool parseDefinition(llvm::ArrayRef<PPToken> tokens, size_t first, Macro& macro);
  /// Parses a parameter list from `k`, just after its `(`, to its `)`.
  bool parseParams(llvm::ArrayRef<PPToken> tokens, size_t& k, Macro& macro,
                   llvm::StringMap<int>& paramIndex);
  void defineMacro(Macro macro);
  void handleUndef(const DirectiveLine& line);
  /// Records `#pragma croq intrinsic prefix|namespace NAME`; other pragmas
  /// are nvcc's.
  void handlePragma(const DirectiveLine& line);
  void handleDiagnosticDirective(const DirectiveLine& line);

  // Conditionals
  void handleIf(const DirectiveLine& line);
  /// `#elif` or `#else` reached while processing a branch: that branch was
  /// the one taken, so the rest of the conditional is skipped.
  void handleElseInTakenBranch(const DirectiveLine& line);
  void handleEndif(const DirectiveLine& line);
  void reportAfterElse(const DirectiveLine& line, const Conditional& cond);
  /// Evaluates the condition of a `#if`/`#elif` line; false after an error.
  bool evaluate(const DirectiveLine& line);
  /// Skips the lines of an excluded branch of the innermost conditional up
  /// to the directive that ends the branch: a true `#elif`, an `#else` when
  /// no branch was taken yet, or the `#endif`. Nested conditionals inside
  /// are only counted.
  void skipExcluded();
  /// The directive name in `[p, end)`, without tokenising the whole line.
  static llvm::StringRef directiveName(const char* p, const char* end);
  void reportUnterminatedConditionals();

  // Command line
  void applyCommandLine(llvm::ArrayRef<MacroCommand> commands);

  DiagnosticEngine& diags_;
  PreprocessedSource& out_;
  SourceView view_;
  const char* cur_;
  const char* end_;
  bool atLineStart_ = true;
  /// Greater than zero while a macro call read from the source is being
  /// expanded: what it covers is replaced by its expansion.
  unsigned suppressOutput_ = 0;
  llvm::StringRef invocation_;      // the macro whose call is being read
  std::vector<PPToken> expansion_;  // scratch for expandFromSource
  std::vector<Conditional> conditionals_;
  llvm::BumpPtrAllocator allocator_;
  llvm::StringSaver saver_;
  MacroTable macros_;
  MacroExpander expander_;
};

}  // namespace croqc::pp
