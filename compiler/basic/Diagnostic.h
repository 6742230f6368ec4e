// Diagnostics: kinds (DiagnosticKinds.def), the engine that formats and counts
// them, and the consumer interface that renders them (text, JSON, -verify).
#pragma once

#include <fmt/format.h>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
}  // namespace llvm

template <>
struct fmt::formatter<llvm::StringRef> : fmt::formatter<fmt::string_view> {
  template <typename Ctx>
  auto format(llvm::StringRef s, Ctx& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};

namespace croqc {

enum class Severity : std::uint8_t { Note, Warning, Error };

llvm::StringRef severityName(Severity s);

enum class DiagKind : std::uint16_t {
#define DIAG(Name, Sev, Message, Hint) Name,
#include "basic/DiagnosticKinds.def"
#undef DIAG
};

struct DiagKindInfo {
  const char* name;
  Severity severity;
  const char* message;
  const char* hint;
};

const DiagKindInfo& diagKindInfo(DiagKind kind);
llvm::ArrayRef<DiagKindInfo> allDiagKinds();

struct DiagnosticNote {
  DiagKind kind;
  llvm::SMLoc loc;
  std::string message;
};

/// One finding, fully formatted. `loc` may be invalid for findings that have no
/// place in a source file (a missing input file, a bad command-line flag).
struct Diagnostic {
  DiagKind kind;
  Severity severity;
  llvm::SMLoc loc;
  std::vector<llvm::SMRange> ranges;
  std::string message;
  std::string hint;
  std::vector<DiagnosticNote> notes;
};

class DiagnosticConsumer {
 public:
  virtual ~DiagnosticConsumer();
  virtual void handle(const Diagnostic& diag) = 0;
  /// Called once after the last diagnostic; a consumer may print a summary.
  virtual void finish(unsigned errors, unsigned warnings) {}
};

/// Clang-style text: `file:line:col: error: message`, the source line, a caret
/// under the range, then notes and the hint.
std::unique_ptr<DiagnosticConsumer> makeTextConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os,
                                                     bool color);
/// One JSON object per line: severity, kind, file, line, column, message,
/// hint, notes.
std::unique_ptr<DiagnosticConsumer> makeJsonConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os);

class DiagnosticEngine;

/// Collects ranges and notes for one diagnostic and hands it to the engine
/// when it goes out of scope.
class DiagnosticBuilder {
 public:
  DiagnosticBuilder(DiagnosticEngine* engine, Diagnostic diag)
      : engine_(engine), diag_(std::move(diag)) {}
  DiagnosticBuilder(DiagnosticBuilder&& other) noexcept
      : engine_(other.engine_), diag_(std::move(other.diag_)) {
    other.engine_ = nullptr;
  }
  DiagnosticBuilder(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder& operator=(const DiagnosticBuilder&) = delete;
  ~DiagnosticBuilder();

  DiagnosticBuilder& range(llvm::SMRange r) {
    if (r.isValid()) diag_.ranges.push_back(r);
    return *this;
  }
  template <typename... Args>
  DiagnosticBuilder& note(llvm::SMLoc loc, DiagKind kind, const Args&... args);
  /// Replaces the hint of the kind's .def entry.
  DiagnosticBuilder& hint(std::string text) {
    diag_.hint = std::move(text);
    return *this;
  }

 private:
  DiagnosticEngine* engine_;
  Diagnostic diag_;
};

class DiagnosticEngine {
 public:
  DiagnosticEngine(llvm::SourceMgr& sm, DiagnosticConsumer& consumer) : sm_(sm), consumer_(&consumer) {}

  template <typename... Args>
  DiagnosticBuilder report(llvm::SMLoc loc, DiagKind kind, const Args&... args) {
    const DiagKindInfo& info = diagKindInfo(kind);
    Diagnostic d{kind, info.severity, loc, {}, format(info.message, args...),
                 format(info.hint, args...), {}};
    return DiagnosticBuilder(this, std::move(d));
  }

  template <typename... Args>
  static std::string format(const char* fmtString, const Args&... args) {
    if (!*fmtString) return {};
    return fmt::format(fmt::runtime(fmtString), args...);
  }

  void setWarningsAsErrors(bool on) { warningsAsErrors_ = on; }
  /// `-w`: warnings are dropped (before `-Werror` could make them errors).
  void setIgnoreWarnings(bool on) { ignoreWarnings_ = on; }
  /// 0 means no limit.
  void setErrorLimit(unsigned limit) { errorLimit_ = limit; }
  void setConsumer(DiagnosticConsumer& consumer) { consumer_ = &consumer; }

  unsigned errorCount() const { return errors_; }
  unsigned warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ != 0; }
  /// True once an error past the limit was dropped (and the "too many errors"
  /// note printed); nothing more is reported, so phases may stop early.
  bool shouldStop() const { return stopped_; }
  /// Tells the consumer that no more diagnostics will come.
  void finish();

  llvm::SourceMgr& sourceMgr() { return sm_; }

 private:
  friend class DiagnosticBuilder;
  void emit(Diagnostic diag);

  llvm::SourceMgr& sm_;
  DiagnosticConsumer* consumer_;
  bool warningsAsErrors_ = false;
  bool ignoreWarnings_ = false;
  unsigned errorLimit_ = 0;
  unsigned errors_ = 0;
  unsigned warnings_ = 0;
  bool stopped_ = false;
  /// Location and text of each error and warning reported: a phase that
  /// meets the same problem again (a value lowered once per use) reports it
  /// once.
  std::set<std::pair<const char*, std::string>> reported_;
};

template <typename... Args>
DiagnosticBuilder& DiagnosticBuilder::note(llvm::SMLoc loc, DiagKind kind, const Args&... args) {
  diag_.notes.push_back({kind, loc, DiagnosticEngine::format(diagKindInfo(kind).message, args...)});
  return *this;
}

}  // namespace croqc
