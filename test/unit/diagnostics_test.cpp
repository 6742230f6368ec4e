// The diagnostics engine and its consumers: text rendering (place, source
// line, caret, ranges, notes, hint, summary), JSON lines, -Werror, the error
// limit and the counts. Driver kinds are used as examples because their
// messages are stable; the rendering does not depend on the kind.
#include <catch2/catch.hpp>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <string>

#include "basic/Diagnostic.h"

using namespace croqc;

namespace {

constexpr const char* kSource =
    "__co__ void f() {\n"
    "  foo bar;\n"
    "}\n";

/// A source file, an engine and a consumer writing into a string.
struct Fixture {
  explicit Fixture(bool json = false, bool color = false) {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(kSource, "kernel.co"), llvm::SMLoc());
    consumer = json ? makeJsonConsumer(sm, os) : makeTextConsumer(sm, os, color);
    diags = std::make_unique<DiagnosticEngine>(sm, *consumer);
  }

  /// The location of `text` in the source.
  llvm::SMLoc at(llvm::StringRef text) const {
    llvm::StringRef buffer = sm.getMemoryBuffer(1)->getBuffer();
    size_t offset = buffer.find(text);
    REQUIRE(offset != llvm::StringRef::npos);
    return llvm::SMLoc::getFromPointer(buffer.data() + offset);
  }
  llvm::SMRange rangeOf(llvm::StringRef text) const {
    llvm::SMLoc start = at(text);
    return {start, llvm::SMLoc::getFromPointer(start.getPointer() + text.size())};
  }

  std::string output() {
    os.flush();
    return out;
  }

  llvm::SourceMgr sm;
  std::string out;
  llvm::raw_string_ostream os{out};
  std::unique_ptr<DiagnosticConsumer> consumer;
  std::unique_ptr<DiagnosticEngine> diags;
};

}  // namespace

TEST_CASE("text: file:line:col, message, source line and caret", "[diagnostics][text]") {
  Fixture f;
  f.diags->report(f.at("bar"), DiagKind::err_unknown_argument, "bar");
  CHECK(f.output() ==
        "kernel.co:2:7: error: unknown argument `bar`\n"
        "  foo bar;\n"
        "      ^\n"
        "  hint: `croqc --help` lists the options\n");
}

TEST_CASE("text: a range is underlined", "[diagnostics][text]") {
  Fixture f;
  f.diags->report(f.at("foo"), DiagKind::err_output_is_input, "x").range(f.rangeOf("foo bar"));
  CHECK(f.output() ==
        "kernel.co:2:3: error: output file `x` is the input file\n"
        "  foo bar;\n"
        "  ^~~~~~~\n"
        "  hint: choose another name with `-o`\n");
}

TEST_CASE("text: notes follow the diagnostic, the hint comes last", "[diagnostics][text]") {
  Fixture f;
  f.diags->report(f.at("bar"), DiagKind::err_input_is_directory, "d")
      .note(f.at("__co__"), DiagKind::note_too_many_errors)
      .hint("try again");
  CHECK(f.output() ==
        "kernel.co:2:7: error: `d` is a directory, not a source file\n"
        "  foo bar;\n"
        "      ^\n"
        "kernel.co:1:1: note: too many errors emitted, stopping now\n"
        "__co__ void f() {\n"
        "^\n"
        "  hint: try again\n");
}

TEST_CASE("text: no hint line when the kind has none", "[diagnostics][text]") {
  Fixture f;
  f.diags->report(f.at("}"), DiagKind::err_cannot_open_file, "a.co", "No such file or directory");
  CHECK(f.output() ==
        "kernel.co:3:1: error: cannot open `a.co`: No such file or directory\n"
        "}\n"
        "^\n");
}

TEST_CASE("text: a diagnostic without a place is prefixed with croqc", "[diagnostics][text]") {
  Fixture f;
  f.diags->report({}, DiagKind::err_no_input_file);
  CHECK(f.output() ==
        "croqc: error: no input file\n"
        "  hint: usage: `croqc FILE.co [options]`; `croqc --help` lists the options\n");
}

TEST_CASE("text: the summary counts errors and warnings", "[diagnostics][text]") {
  SECTION("nothing reported prints nothing") {
    Fixture f;
    f.diags->finish();
    CHECK(f.output().empty());
  }
  SECTION("one error") {
    Fixture f;
    f.diags->report({}, DiagKind::err_no_input_file);
    f.diags->finish();
    CHECK(llvm::StringRef(f.output()).endswith("\n1 error generated.\n"));
  }
  SECTION("warnings and errors, plural") {
    Fixture f;
    f.diags->report({}, DiagKind::warn_print_after_not_reached, "lex", "preprocess");
    f.diags->report({}, DiagKind::err_no_input_file);
    f.diags->report({}, DiagKind::err_no_input_file);
    f.diags->finish();
    CHECK(llvm::StringRef(f.output()).endswith("\n1 warning and 2 errors generated.\n"));
  }
}

TEST_CASE("text: colour only when asked for", "[diagnostics][text]") {
  Fixture plain(/*json=*/false, /*color=*/false);
  plain.diags->report(plain.at("bar"), DiagKind::err_no_input_file);
  CHECK(plain.output().find('\x1b') == std::string::npos);

  Fixture colored(/*json=*/false, /*color=*/true);
  colored.diags->report(colored.at("bar"), DiagKind::err_no_input_file);
  colored.diags->report({}, DiagKind::err_no_input_file);
  std::string out = colored.output();
  CHECK(out.find("\x1b[0;1;31merror: ") != std::string::npos);
  // Every line is back to the default colour before it ends.
  CHECK(out.find("\x1b[0m\n") != std::string::npos);
  CHECK(out.find("\n\x1b[0m") == std::string::npos);
}

TEST_CASE("json: one object per line with every field", "[diagnostics][json]") {
  Fixture f(/*json=*/true);
  f.diags->report(f.at("bar"), DiagKind::err_unknown_argument, "bar").note(f.at("foo"), DiagKind::note_too_many_errors);
  f.diags->report({}, DiagKind::err_no_input_file).hint("");
  CHECK(f.output() ==
        "{\"file\":\"kernel.co\",\"line\":2,\"column\":7,\"severity\":\"error\","
        "\"kind\":\"err_unknown_argument\",\"message\":\"unknown argument `bar`\","
        "\"hint\":\"`croqc --help` lists the options\",\"notes\":[{\"file\":\"kernel.co\",\"line\":2,"
        "\"column\":3,\"kind\":\"note_too_many_errors\",\"message\":\"too many errors emitted, stopping now\"}]}\n"
        "{\"file\":null,\"line\":null,\"column\":null,\"severity\":\"error\",\"kind\":\"err_no_input_file\","
        "\"message\":\"no input file\",\"hint\":\"\",\"notes\":[]}\n");
}

TEST_CASE("json: strings are escaped", "[diagnostics][json]") {
  Fixture f(/*json=*/true);
  f.diags->report({}, DiagKind::err_command_line, "a \"quoted\"\\path\nnext\ttab\x01");
  CHECK(f.output().find(R"("message":"a \"quoted\"\\path\nnext\ttab\u0001")") != std::string::npos);
}

TEST_CASE("json: no summary line", "[diagnostics][json]") {
  Fixture f(/*json=*/true);
  f.diags->report({}, DiagKind::err_no_input_file);
  f.diags->finish();
  CHECK(llvm::StringRef(f.output()).count('\n') == 1);
}

TEST_CASE("-Werror promotes warnings to errors", "[diagnostics][werror]") {
  Fixture f;
  f.diags->setWarningsAsErrors(true);
  f.diags->report({}, DiagKind::warn_print_after_not_reached, "lex", "preprocess");
  CHECK(f.diags->errorCount() == 1);
  CHECK(f.diags->warningCount() == 0);
  CHECK(f.diags->hasErrors());
  CHECK(f.output() ==
        "croqc: error: `--print-after=lex` has no effect: the pipeline stops after pass `preprocess` "
        "[-Werror]\n");
}

TEST_CASE("without -Werror a warning is not an error", "[diagnostics][werror]") {
  Fixture f;
  f.diags->report({}, DiagKind::warn_print_after_not_reached, "lex", "preprocess");
  CHECK(f.diags->errorCount() == 0);
  CHECK(f.diags->warningCount() == 1);
  CHECK_FALSE(f.diags->hasErrors());
  CHECK(llvm::StringRef(f.output()).startswith("croqc: warning: "));
}

TEST_CASE("the error limit stops reporting after N errors", "[diagnostics][limit]") {
  Fixture f;
  f.diags->setErrorLimit(2);
  f.diags->report({}, DiagKind::warn_print_after_not_reached, "lex", "preprocess");
  f.diags->report({}, DiagKind::err_unknown_argument, "-a");
  f.diags->report({}, DiagKind::err_unknown_argument, "-b");
  // Reaching the limit is not yet too many: nothing was left out.
  CHECK_FALSE(f.diags->shouldStop());
  CHECK(f.output().find("too many errors") == std::string::npos);
  f.diags->report({}, DiagKind::err_unknown_argument, "-c");
  CHECK(f.diags->shouldStop());
  f.diags->report({}, DiagKind::err_unknown_argument, "-d");
  f.diags->report({}, DiagKind::warn_print_after_not_reached, "parse", "lex");
  CHECK(f.diags->errorCount() == 2);
  CHECK(f.diags->warningCount() == 1);
  std::string out = f.output();
  CHECK(out.find("`-b`") != std::string::npos);
  CHECK(out.find("`-c`") == std::string::npos);
  CHECK(out.find("`-d`") == std::string::npos);
  CHECK(out.find("`--print-after=parse`") == std::string::npos);
  CHECK(llvm::StringRef(out).endswith("croqc: note: too many errors emitted, stopping now\n"
                                      "  hint: raise the limit with `--error-limit=N` (0 means no limit)\n"));
}

TEST_CASE("warnings do not count towards the error limit", "[diagnostics][limit]") {
  Fixture f;
  f.diags->setErrorLimit(1);
  for (int i = 0; i < 5; ++i) f.diags->report({}, DiagKind::warn_print_after_not_reached, "lex", "preprocess");
  f.diags->report({}, DiagKind::err_no_input_file);
  CHECK(f.diags->warningCount() == 5);
  CHECK(f.diags->errorCount() == 1);
  CHECK_FALSE(f.diags->shouldStop());
}

TEST_CASE("an error limit of 0 means no limit", "[diagnostics][limit]") {
  Fixture f;
  f.diags->setErrorLimit(0);
  for (int i = 0; i < 100; ++i) f.diags->report({}, DiagKind::err_no_input_file);
  CHECK(f.diags->errorCount() == 100);
  CHECK_FALSE(f.diags->shouldStop());
}

TEST_CASE("the consumer can be replaced", "[diagnostics]") {
  Fixture f;
  std::string other;
  llvm::raw_string_ostream otherStream(other);
  std::unique_ptr<DiagnosticConsumer> json = makeJsonConsumer(f.sm, otherStream);
  f.diags->setConsumer(*json);
  f.diags->report({}, DiagKind::err_no_input_file);
  otherStream.flush();
  CHECK(f.output().empty());
  CHECK(llvm::StringRef(other).startswith("{"));
}

TEST_CASE("every kind is registered consistently", "[diagnostics][registry]") {
  for (const DiagKindInfo& info : allDiagKinds()) {
    INFO(info.name);
    llvm::StringRef name(info.name);
    llvm::StringRef message(info.message);
    // The prefix of the name says the severity.
    switch (info.severity) {
      case Severity::Error: CHECK(name.startswith("err_")); break;
      case Severity::Warning: CHECK(name.startswith("warn_")); break;
      case Severity::Note: CHECK(name.startswith("note_")); break;
    }
    // Message style (STYLE.md): there is a message, it does not end in a period.
    CHECK_FALSE(message.empty());
    CHECK_FALSE(message.endswith("."));
  }
  CHECK(llvm::StringRef(diagKindInfo(DiagKind::err_no_input_file).name) == "err_no_input_file");
}
