// Renderers for diagnostics: clang-style text through llvm::SourceMgr, and
// JSON lines for tools.
#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/FormatVariadic.h>
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

/// `text` as a terminal may show it: the bytes a terminal would act on (C0
/// controls but tab, DEL, the C1 controls U+0080-U+009F, bytes that are not
/// UTF-8) written as `<U+001B>` or `<FF>`, so that a source file cannot
/// send escape sequences through croqc's diagnostics. `offsets`, if given,
/// gets the offset in the result of each byte of `text` and of its end.
std::string escapeForTerminal(llvm::StringRef text, std::vector<unsigned>* offsets) {
  std::string out;
  out.reserve(text.size());
  if (offsets) offsets->assign(text.size() + 1, 0);
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t length = 1;
    std::string shown;
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) shown = llvm::formatv("<U+{0:X-4}>", unsigned(c)).str();
    } else {
      unsigned expected = llvm::getNumBytesForUTF8(c);
      const auto* begin = reinterpret_cast<const llvm::UTF8*>(text.data() + i);
      if (expected < 2 || i + expected > text.size() || !llvm::isLegalUTF8Sequence(begin, begin + expected)) {
        shown = llvm::formatv("<{0:X-2}>", unsigned(c)).str();
      } else {
        length = expected;
        auto next = static_cast<unsigned char>(text[i + 1]);
        if (c == 0xc2 && next < 0xa0) shown = llvm::formatv("<U+{0:X-4}>", unsigned(next)).str();
      }
    }
    for (size_t k = 0; offsets && k < length; ++k) (*offsets)[i + k] = static_cast<unsigned>(out.size());
    out += shown.empty() ? text.substr(i, length).str() : shown;
    i += length;
  }
  if (offsets) offsets->back() = static_cast<unsigned>(out.size());
  return out;
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
      os_ << escapeForTerminal(d.hint, nullptr) << "\n";
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
      llvm::SMDiagnostic d = sm_.GetMessage(loc, toLLVM(sev), msg, ranges, {});
      std::vector<unsigned> offsets;
      std::string line = escapeForTerminal(d.getLineContents(), &offsets);
      auto column = [&](int c) { return c < 0 ? c : static_cast<int>(offsets[std::min<size_t>(c, offsets.size() - 1)]); };
      std::vector<std::pair<unsigned, unsigned>> shownRanges;
      for (auto [first, last] : d.getRanges()) shownRanges.emplace_back(column(first), column(last));
      llvm::SMDiagnostic shown(sm_, d.getLoc(), d.getFilename(), d.getLineNo(), column(d.getColumnNo()), d.getKind(),
                               escapeForTerminal(d.getMessage(), nullptr), line, shownRanges);
      sm_.PrintMessage(os_, shown, color_);
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
    os_ << escapeForTerminal(msg, nullptr);
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
