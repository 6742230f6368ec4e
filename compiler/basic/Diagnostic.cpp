// The diagnostic kind table and the engine that counts, promotes and limits
// diagnostics before handing them to a consumer.
#include "basic/Diagnostic.h"

#include <llvm/ADT/ArrayRef.h>

namespace croqc {

namespace {
const DiagKindInfo kDiagKinds[] = {
#define DIAG(Name, Sev, Message, Hint) {#Name, Severity::Sev, Message, Hint},
#include "basic/DiagnosticKinds.def"
#undef DIAG
};
}  // namespace

llvm::StringRef severityName(Severity s) {
  switch (s) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

const DiagKindInfo& diagKindInfo(DiagKind kind) { return kDiagKinds[static_cast<unsigned>(kind)]; }

llvm::ArrayRef<DiagKindInfo> allDiagKinds() { return kDiagKinds; }

DiagnosticConsumer::~DiagnosticConsumer() = default;

DiagnosticBuilder::~DiagnosticBuilder() {
  if (engine_) engine_->emit(std::move(diag_));
}

void DiagnosticEngine::emit(Diagnostic diag) {
  if (stopped_) return;
  if (diag.severity == Severity::Warning && ignoreWarnings_) return;
  if (diag.severity == Severity::Warning && warningsAsErrors_) {
    diag.severity = Severity::Error;
    diag.message += " [-Werror]";
  }
  if (diag.severity != Severity::Note && diag.loc.isValid() &&
      !reported_.emplace(diag.loc.getPointer(), diag.message).second)
    return;
  if (diag.severity == Severity::Error && errorLimit_ != 0 && errors_ >= errorLimit_) {
    // Like clang: the note comes with the first error past the limit, so it
    // only appears when something was actually left out.
    const DiagKindInfo& info = diagKindInfo(DiagKind::note_too_many_errors);
    consumer_->handle(Diagnostic{DiagKind::note_too_many_errors, Severity::Note, {}, {}, info.message,
                                 info.hint, {}});
    stopped_ = true;
    return;
  }
  if (diag.severity == Severity::Error) ++errors_;
  if (diag.severity == Severity::Warning) ++warnings_;
  consumer_->handle(diag);
}

void DiagnosticEngine::finish() { consumer_->finish(errors_, warnings_); }

}  // namespace croqc
