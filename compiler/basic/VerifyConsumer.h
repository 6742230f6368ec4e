// `-verify`: a diagnostic consumer that checks diagnostics against
// expectations written in the source, clang style:
//
//   x = 1;  // expected-error {{already declared}}
//   // expected-warning@+1 {{may lose precision}}
//   // expected-note@12 {{declared here}}
//
// Each expectation names a severity, an optional line (`@+N`, `@-N` relative
// to the comment's line, `@N` absolute) and a substring of the message. A run
// passes when every diagnostic matches one expectation and every expectation
// is matched. A file that expects no diagnostic says `expected-no-diagnostics`
// (and then expects nothing else); a file with neither fails, and so does a
// misspelt directive (`expected-eror`).
#pragma once

#include <memory>

#include "basic/Diagnostic.h"

namespace croqc {

class VerifyConsumer : public DiagnosticConsumer {
 public:
  /// Reads the expectations from buffer `bufferId` of `sm`.
  VerifyConsumer(llvm::SourceMgr& sm, unsigned bufferId, llvm::raw_ostream& os);
  ~VerifyConsumer() override;

  void handle(const Diagnostic& diag) override;
  void finish(unsigned errors, unsigned warnings) override;
  /// True when every diagnostic was expected, every expectation was seen, and
  /// the file has expectations or else says `expected-no-diagnostics`.
  bool passed() const { return passed_; }

 private:
  struct Expectation;
  void match(Severity severity, llvm::SMLoc loc, const std::string& message);

  llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  std::vector<Expectation> expected_;
  std::vector<std::string> unexpected_;
  std::vector<std::string> malformed_;
  /// The line of the first `expected-no-diagnostics`, 0 when there is none.
  unsigned noDiagnosticsLine_ = 0;
  bool passed_ = false;
};

}  // namespace croqc
