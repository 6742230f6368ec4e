// Conditional directives: `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`,
// `#endif`. Excluded branches are skipped line by line, counting nested
// conditionals without a stack, so any nesting depth is fine.
#include "basic/Diagnostic.h"
#include "preprocess/PPExpression.h"
#include "preprocess/PreprocessorImpl.h"

namespace croqc::pp {

void Preprocessor::handleIf(const DirectiveLine& line) {
  const llvm::StringRef directive = line.name()->text;
  bool value = false;
  if (directive == "if") {
    value = evaluate(line);
  } else if (const PPToken* name = macroName(line)) {
    value = (macros_.lookup(name->text) != nullptr) == (directive == "ifdef");
    warnExtraTokens(line, 2);
  }
  conditionals_.push_back({directive, line.hash, value, nullptr});
  if (!value) skipExcluded();
}

void Preprocessor::handleElseInTakenBranch(const DirectiveLine& line) {
  const llvm::StringRef directive = line.name()->text;
  if (conditionals_.empty()) {
    diags_.report(view_.loc(line.hash), DiagKind::err_pp_unmatched_conditional, directive)
        .range(directiveRange(line));
    return;
  }
  Conditional& cond = conditionals_.back();
  if (cond.elseHash) {
    reportAfterElse(line, cond);
  } else if (directive == "else") {
    cond.elseHash = line.hash;
    warnExtraTokens(line, 1);
  }
  skipExcluded();
}

void Preprocessor::handleEndif(const DirectiveLine& line) {
  if (conditionals_.empty()) {
    diags_.report(view_.loc(line.hash), DiagKind::err_pp_unmatched_conditional, "endif")
        .range(directiveRange(line));
    return;
  }
  conditionals_.pop_back();
  warnExtraTokens(line, 1);
}

void Preprocessor::reportAfterElse(const DirectiveLine& line, const Conditional& cond) {
  diags_.report(view_.loc(line.hash), DiagKind::err_pp_else_after_else, line.name()->text)
      .range(directiveRange(line))
      .note(view_.loc(cond.elseHash), DiagKind::note_pp_else_here);
}

bool Preprocessor::evaluate(const DirectiveLine& line) {
  std::vector<PPToken> raw(line.tokens.begin() + 1, line.tokens.end());
  // The operand of `defined` is not expanded.
  for (size_t i = 0; i + 1 < raw.size(); ++i) {
    if (!raw[i].isIdentifier("defined")) continue;
    size_t operand = raw[i + 1].isPunct('(') ? i + 2 : i + 1;
    if (operand < raw.size()) raw[operand].noExpand = true;
  }
  const unsigned errorsBefore = diags_.errorCount();
  std::vector<PPToken> expanded;
  TokenListStream stream(raw);
  expander_.expandAll(stream, expanded);
  if (diags_.errorCount() != errorsBefore) return false;
  return evaluateCondition(expanded, line.name()->text, line.end, macros_, diags_, view_)
      .value_or(false);
}

void Preprocessor::skipExcluded() {
  unsigned depth = 0;
  while (cur_ < end_) {
    const char* lineStart = cur_;
    const char* hash = scan::skipBlanks(cur_, end_);
    if (hash >= end_ || *hash != '#') {
      cur_ = scan::skipLine(cur_, end_);
      appendNewlinesIn(lineStart, cur_);
      continue;
    }
    DirectiveLine line;
    line.lineStart = lineStart;
    line.hash = hash;
    line.end = scan::findDirectiveEnd(hash + 1, end_);
    line.next = line.end < end_ ? line.end + 1 : end_;
    appendNewlinesIn(lineStart, line.next);
    cur_ = line.next;
    atLineStart_ = true;
    const llvm::StringRef name = directiveName(hash + 1, line.end);
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      ++depth;
      continue;
    }
    if (depth > 0) {
      if (name == "endif") --depth;
      continue;
    }
    if (name != "endif" && name != "else" && name != "elif") continue;
    tokenizeDirective(hash + 1, line.end, line.tokens);
    Conditional& cond = conditionals_.back();
    if (name == "endif") {
      conditionals_.pop_back();
      warnExtraTokens(line, 1);
      return;
    }
    if (cond.elseHash) {
      reportAfterElse(line, cond);
      continue;
    }
    if (name == "else") {
      cond.elseHash = hash;
      warnExtraTokens(line, 1);
      if (!cond.taken) {
        cond.taken = true;
        return;
      }
      continue;
    }
    if (!cond.taken && evaluate(line)) {
      cond.taken = true;
      return;
    }
  }
}

llvm::StringRef Preprocessor::directiveName(const char* p, const char* end) {
  while (p < end) {
    const char* q = scan::skipContinuation(p, end);
    if (q != p) {
      p = q;
    } else if (scan::isHorizontalSpace(*p)) {
      ++p;
    } else if (*p == '/' && p + 1 < end && p[1] == '*') {
      p = scan::skipBlockComment(p, end);
    } else {
      break;
    }
  }
  const char* q = p;
  while (q < end && scan::isIdentChar(*q)) ++q;
  return llvm::StringRef(p, static_cast<size_t>(q - p));
}

void Preprocessor::reportUnterminatedConditionals() {
  if (conditionals_.empty()) return;
  constexpr size_t kMaxNotes = 4;
  const Conditional& innermost = conditionals_.back();
  auto diag = diags_.report(view_.loc(end_), DiagKind::err_pp_unterminated_conditional,
                            innermost.directive);
  for (size_t i = conditionals_.size(), shown = 0; i-- > 0 && shown < kMaxNotes; ++shown)
    diag.note(view_.loc(conditionals_[i].hash), DiagKind::note_pp_conditional_here,
              conditionals_[i].directive);
}

}  // namespace croqc::pp
