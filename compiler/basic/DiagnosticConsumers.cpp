// Renderers for diagnostics: clang-style text through llvm::SourceMgr, and
// JSON lines for tools.
#include <llvm/Support/JSON.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/WithColor.h>
#include <llvm/Support/raw_ostream.h>

#include "basic/Diagnostic.h"

namespace croqc {
namespace {

llvm::SourceMgr::DiagKind toLLVM(Severity s) {
  switch (s) {
    case Severity::Note: return llvm::SourceMgr::DK_Note;
    case Severity::Warning: return llvm::SourceMgr::DK_Warning;
    case Severity::Error: return llvm::SourceMgr::DK_Error;
  }
  return llvm::SourceMgr::DK_Error;
}

class TextConsumer final : public DiagnosticConsumer {
 public:
  TextConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os, bool color)
      : sm_(sm), os_(os), color_(color) {}

  void handle(const Diagnostic& d) override {
    print(d.severity, d.loc, d.message, d.ranges);
    for (const DiagnosticNote& n : d.notes) print(Severity::Note, n.loc, n.message, {});
    if (!d.hint.empty()) {
      if (color_) os_.changeColor(llvm::raw_ostream::GREEN, true);
      os_ << "  hint: ";
      if (color_) os_.resetColor();
      os_ << d.hint << "\n";
    }
  }

  void finish(unsigned errors, unsigned warnings) override {
    if (errors == 0 && warnings == 0) return;
    auto plural = [](unsigned n, const char* word) {
      return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
    };
    if (warnings) os_ << plural(warnings, "warning") << (errors ? " and " : "");
    if (errors) os_ << plural(errors, "error");
    os_ << " generated.\n";
  }

 private:
  void print(Severity sev, llvm::SMLoc loc, const std::string& msg, llvm::ArrayRef<llvm::SMRange> ranges) {
    if (loc.isValid() && sm_.FindBufferContainingLoc(loc) != 0) {
      sm_.PrintMessage(os_, loc, toLLVM(sev), msg, ranges, {}, color_);
      return;
    }
    if (color_) os_.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
    os_ << "croqc: ";
    if (color_) {
      auto colour = sev == Severity::Error     ? llvm::raw_ostream::RED
                    : sev == Severity::Warning ? llvm::raw_ostream::MAGENTA
                                               : llvm::raw_ostream::BLACK;
      os_.changeColor(colour, true);
    }
    os_ << severityName(sev) << ": ";
    if (color_) os_.changeColor(llvm::raw_ostream::SAVEDCOLOR, true);
    os_ << msg << "\n";
    if (color_) os_.resetColor();
  }

  llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  bool color_;
};

class JsonConsumer final : public DiagnosticConsumer {
 public:
  JsonConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os) : sm_(sm), os_(os) {}

  void handle(const Diagnostic& d) override {
    llvm::json::Object obj = place(d.loc);
    obj["severity"] = severityName(d.severity).str();
    obj["kind"] = diagKindInfo(d.kind).name;
    obj["message"] = d.message;
    obj["hint"] = d.hint;
    llvm::json::Array notes;
    for (const DiagnosticNote& n : d.notes) {
      llvm::json::Object note = place(n.loc);
      note["kind"] = diagKindInfo(n.kind).name;
      note["message"] = n.message;
      notes.push_back(std::move(note));
    }
    obj["notes"] = std::move(notes);
    os_ << llvm::json::Value(std::move(obj)) << "\n";
  }

 private:
  llvm::json::Object place(llvm::SMLoc loc) {
    llvm::json::Object obj;
    unsigned buf = loc.isValid() ? sm_.FindBufferContainingLoc(loc) : 0;
    if (buf == 0) {
      obj["file"] = nullptr;
      obj["line"] = nullptr;
      obj["column"] = nullptr;
      return obj;
    }
    auto [line, col] = sm_.getLineAndColumn(loc, buf);
    obj["file"] = sm_.getMemoryBuffer(buf)->getBufferIdentifier().str();
    obj["line"] = static_cast<int64_t>(line);
    obj["column"] = static_cast<int64_t>(col);
    return obj;
  }

  llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
};

}  // namespace

std::unique_ptr<DiagnosticConsumer> makeTextConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os, bool color) {
  return std::make_unique<TextConsumer>(sm, os, color);
}

std::unique_ptr<DiagnosticConsumer> makeJsonConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os) {
  return std::make_unique<JsonConsumer>(sm, os);
}

}  // namespace croqc
