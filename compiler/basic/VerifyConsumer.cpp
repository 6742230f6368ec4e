// The `-verify` consumer: expectations are parsed from comments once, then
// each diagnostic (and each of its notes) consumes the first unmatched
// expectation with the same severity, line and message substring.
#include "basic/VerifyConsumer.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

namespace croqc {

struct VerifyConsumer::Expectation {
  Severity severity;
  unsigned line;
  std::string text;
  unsigned commentLine;
  bool matched = false;
};

VerifyConsumer::VerifyConsumer(llvm::SourceMgr& sm, unsigned bufferId, llvm::raw_ostream& os) : sm_(sm), os_(os) {
  llvm::StringRef buffer = sm.getMemoryBuffer(bufferId)->getBuffer();
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i <= buffer.size(); ++i) {
    if (i < buffer.size() && buffer[i] != '\n') continue;
    llvm::StringRef text = buffer.slice(lineStart, i);
    size_t at = 0;
    while ((at = text.find("expected-", at)) != llvm::StringRef::npos) {
      // A directive starts a word: `unexpected-` is no directive.
      bool wordStart = at == 0 || !(llvm::isAlnum(text[at - 1]) || text[at - 1] == '-' || text[at - 1] == '_');
      llvm::StringRef rest = text.drop_front(at + 9);
      at += 9;
      if (!wordStart) continue;
      llvm::StringRef name = rest.take_while([](char c) { return llvm::isAlnum(c) || c == '-' || c == '_'; });
      Severity severity;
      if (name == "no-diagnostics") {
        if (!noDiagnosticsLine_) noDiagnosticsLine_ = line;
        at += name.size();
        continue;
      }
      if (name == "error") severity = Severity::Error;
      else if (name == "warning") severity = Severity::Warning;
      else if (name == "note") severity = Severity::Note;
      else {
        malformed_.push_back("line " + std::to_string(line) + ": unknown directive `expected-" + name.str() +
                             "` (expected-error, expected-warning, expected-note or expected-no-diagnostics)");
        at += name.size();
        continue;
      }
      rest = rest.drop_front(name.size());
      unsigned target = line;
      if (rest.consume_front("@")) {
        bool plus = rest.consume_front("+");
        bool minus = !plus && rest.consume_front("-");
        unsigned n = 0;
        if (rest.consumeInteger(10, n)) {
          malformed_.push_back("line " + std::to_string(line) + ": bad line offset after `@`");
          continue;
        }
        target = plus ? line + n : minus ? line - n : n;
      }
      rest = rest.ltrim();
      if (!rest.consume_front("{{")) {
        malformed_.push_back("line " + std::to_string(line) + ": expected `{{` after the expectation");
        continue;
      }
      size_t close = rest.find("}}");
      if (close == llvm::StringRef::npos) {
        malformed_.push_back("line " + std::to_string(line) + ": missing `}}`");
        continue;
      }
      expected_.push_back({severity, target, rest.take_front(close).str(), line});
      // The expected text may itself mention `expected-`: scan on after it.
      at = text.size() - rest.size() + close + 2;
    }
    lineStart = i + 1;
    ++line;
  }
}

VerifyConsumer::~VerifyConsumer() = default;

void VerifyConsumer::match(Severity severity, llvm::SMLoc loc, const std::string& message) {
  unsigned line = 0;
  if (loc.isValid() && sm_.FindBufferContainingLoc(loc) != 0) line = sm_.getLineAndColumn(loc).first;
  for (Expectation& e : expected_) {
    if (!e.matched && e.severity == severity && e.line == line && message.find(e.text) != std::string::npos) {
      e.matched = true;
      return;
    }
  }
  unexpected_.push_back("line " + std::to_string(line) + ": " + severityName(severity).str() + ": " + message);
}

void VerifyConsumer::handle(const Diagnostic& diag) {
  match(diag.severity, diag.loc, diag.message);
  for (const DiagnosticNote& n : diag.notes) match(Severity::Note, n.loc, n.message);
}

void VerifyConsumer::finish(unsigned, unsigned) {
  for (const std::string& m : malformed_) os_ << "verify: malformed expectation: " << m << "\n";
  for (const Expectation& e : expected_)
    if (!e.matched)
      os_ << "verify: expected " << severityName(e.severity) << " on line " << e.line << " not seen: \"" << e.text
          << "\" (written on line " << e.commentLine << ")\n";
  for (const std::string& u : unexpected_) os_ << "verify: unexpected diagnostic: " << u << "\n";
  // As in clang: a file that expects nothing says so, and only then.
  bool directivesAgree = true;
  if (expected_.empty() && !noDiagnosticsLine_) {
    os_ << "verify: no expected directives found: add `expected-no-diagnostics` to a file that expects none\n";
    directivesAgree = false;
  } else if (!expected_.empty() && noDiagnosticsLine_) {
    os_ << "verify: `expected-no-diagnostics` (line " << noDiagnosticsLine_
        << ") in a file that also expects diagnostics\n";
    directivesAgree = false;
  }
  bool anyUnmatched = false;
  for (const Expectation& e : expected_) anyUnmatched = anyUnmatched || !e.matched;
  passed_ = directivesAgree && malformed_.empty() && unexpected_.empty() && !anyUnmatched;
}

}  // namespace croqc
