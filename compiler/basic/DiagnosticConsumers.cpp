// Renderers for diagnostics: clang-style text through llvm::SourceMgr, and
// JSON lines for tools.
#include <llvm/Support/Format.h>
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
      : sm_(sm), os_(os), color_(color) {
    // The caller decided (`--color`); a stream only colours when enabled.
    if (color_) os_.enable_colors(true);
  }

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
    os_ << msg;
    if (color_) os_.resetColor();
    os_ << "\n";
  }

  llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  bool color_;
};

/// Writes one JSON object per line. Hand-written because LLVM 14's JSON.h does
/// not compile as C++20 with libstdc++ 12.
class JsonConsumer final : public DiagnosticConsumer {
 public:
  JsonConsumer(llvm::SourceMgr& sm, llvm::raw_ostream& os) : sm_(sm), os_(os) {}

  void handle(const Diagnostic& d) override {
    os_ << '{';
    place(d.loc);
    os_ << ",\"severity\":";
    string(severityName(d.severity));
    os_ << ",\"kind\":";
    string(diagKindInfo(d.kind).name);
    os_ << ",\"message\":";
    string(d.message);
    os_ << ",\"hint\":";
    string(d.hint);
    os_ << ",\"notes\":[";
    for (size_t i = 0; i < d.notes.size(); ++i) {
      const DiagnosticNote& n = d.notes[i];
      os_ << (i ? ",{" : "{");
      place(n.loc);
      os_ << ",\"kind\":";
      string(diagKindInfo(n.kind).name);
      os_ << ",\"message\":";
      string(n.message);
      os_ << '}';
    }
    os_ << "]}\n";
    os_.flush();
  }

 private:
  /// `"file":...,"line":...,"column":...`, null for a diagnostic without a place.
  void place(llvm::SMLoc loc) {
    unsigned buf = loc.isValid() ? sm_.FindBufferContainingLoc(loc) : 0;
    if (buf == 0) {
      os_ << "\"file\":null,\"line\":null,\"column\":null";
      return;
    }
    auto [line, col] = sm_.getLineAndColumn(loc, buf);
    os_ << "\"file\":";
    string(sm_.getMemoryBuffer(buf)->getBufferIdentifier());
    os_ << ",\"line\":" << line << ",\"column\":" << col;
  }

  /// A JSON string (RFC 8259 escapes; other bytes as they are, so UTF-8 passes).
  void string(llvm::StringRef s) {
    os_ << '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': os_ << "\\\""; break;
        case '\\': os_ << "\\\\"; break;
        case '\n': os_ << "\\n"; break;
        case '\t': os_ << "\\t"; break;
        case '\r': os_ << "\\r"; break;
        default:
          if (c < 0x20) {
            os_ << llvm::format("\\u%04x", c);
          } else {
            os_ << c;
          }
      }
    }
    os_ << '"';
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
