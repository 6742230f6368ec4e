// Unit tests of the preprocessor (spec section 2.4): directives, macro
// expansion with C rules, line preservation, location mapping, command-line
// macros, every diagnostic kind, and inputs that must neither crash nor hang.
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"
#include "preprocess/Preprocessor.h"

using namespace croqc;

namespace {

struct Captured {
  DiagKind kind;
  Severity severity;
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
  std::string hint;
  std::vector<DiagnosticNote> notes;
  std::vector<llvm::SMRange> ranges;
};

class CapturingConsumer final : public DiagnosticConsumer {
 public:
  explicit CapturingConsumer(llvm::SourceMgr& sm) : sm_(sm) {}
  void handle(const Diagnostic& d) override {
    Captured c{d.kind, d.severity, 0, 0, d.message, d.hint, d.notes, d.ranges};
    if (d.loc.isValid() && sm_.FindBufferContainingLoc(d.loc) != 0) {
      auto [line, column] = sm_.getLineAndColumn(d.loc);
      c.line = line;
      c.column = column;
    }
    diags.push_back(std::move(c));
  }
  std::vector<Captured> diags;

 private:
  llvm::SourceMgr& sm_;
};

/// Preprocesses `source` (with `-D`/`-U` commands) and keeps everything
/// needed to check the result.
struct Run {
  explicit Run(std::string text, std::vector<MacroCommand> commands = {})
      : source(std::move(text)) {
    buffer =
        sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(source, "test.co"), llvm::SMLoc());
    ok = preprocess(buffer, commands, engine, out);
  }

  const char* start() const { return sm.getMemoryBuffer(buffer)->getBufferStart(); }
  /// Offset in the original buffer that output offset `offset` maps to.
  size_t originalOffset(size_t offset) const {
    return static_cast<size_t>(out.originalLoc(offset).getPointer() - start());
  }
  unsigned originalLine(size_t offset) const { return sm.FindLineNumber(out.originalLoc(offset)); }
  size_t count(DiagKind kind) const {
    return static_cast<size_t>(std::count_if(consumer.diags.begin(), consumer.diags.end(),
                                             [&](const Captured& c) { return c.kind == kind; }));
  }
  const Captured& only(DiagKind kind) const {
    REQUIRE(count(kind) == 1);
    return *std::find_if(consumer.diags.begin(), consumer.diags.end(),
                         [&](const Captured& c) { return c.kind == kind; });
  }
  size_t errors() const { return engine.errorCount(); }
  std::string lineMarkers() const {
    std::string s;
    llvm::raw_string_ostream os(s);
    out.printWithLineMarkers(os, "dir/test.co", sm);
    return os.str();
  }

  std::string source;
  llvm::SourceMgr sm;
  CapturingConsumer consumer{sm};
  DiagnosticEngine engine{sm, consumer};
  PreprocessedSource out;
  unsigned buffer = 0;
  bool ok = false;
};

size_t lineCount(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

/// The output with directive lines and blank lines dropped, lines joined by
/// `|`: convenient for checking expansions.
std::string codeLines(const std::string& text) {
  std::string result;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (!result.empty()) result += '|';
    result += line;
  }
  return result;
}

}  // namespace

// --- Pass-through and object-like macros ------------------------------------

TEST_CASE("text without directives is copied byte for byte", "[preprocess]") {
  const std::string src =
      "#include <cstdio>\n"
      "// a comment with N\n"
      "__co__ void f(f32 [M] a) { auto x = #a; }\n"
      "int main() { printf(\"%d\\n\", 1'000); /* block */ }";
  Run r(src);
  CHECK(r.ok);
  CHECK(r.out.text == src);
  CHECK(r.consumer.diags.empty());
}

TEST_CASE("object-like macros expand in host and __co__ code", "[preprocess]") {
  Run r(
      "#define TILE 64\n"
      "int host = TILE;\n"
      "__co__ void k(f16 [TILE, TILE] a) { foreach i in [TILE / 16] {} }\n");
  CHECK(r.ok);
  CHECK(r.out.text ==
        "#define TILE 64\n"
        "int host = 64;\n"
        "__co__ void k(f16 [64, 64] a) { foreach i in [64 / 16] {} }\n");
}

TEST_CASE("macros do not expand in literals or comments", "[preprocess]") {
  const std::string body =
      "s = \"N\"; c = 'N'; r = R\"(N \" N)\"; d = R\"x(N )\" N)x\"; u = u8\"N\";\n"
      "// N\n"
      "/* N\n N */ N\n";
  Run r("#define N 7\n" + body);
  CHECK(r.ok);
  CHECK(r.out.text ==
        "#define N 7\n"
        "s = \"N\"; c = 'N'; r = R\"(N \" N)\"; d = R\"x(N )\" N)x\"; u = u8\"N\";\n"
        "// N\n"
        "/* N\n N */ 7\n");
}

TEST_CASE("digit separators and suffixes do not hide the rest of the line", "[preprocess]") {
  Run r("#define N 2\nint x = 1'000 + N; auto s = \"a\"_s + N;\n");
  CHECK(codeLines(r.out.text) == "int x = 1'000 + 2; auto s = \"a\"_s + 2;");
}

TEST_CASE("#undef ends a macro", "[preprocess]") {
  Run r("#define A 1\nA\n#undef A\nA\n");
  CHECK(r.ok);
  CHECK(r.out.text == "#define A 1\n1\n#undef A\nA\n");
}

TEST_CASE("a redefinition with the same body is silent", "[preprocess]") {
  Run r("#define A (1 + 2)\n#define A (1 + 2) // same\n#define A  (1  +  2)\n");
  CHECK(r.ok);
  CHECK(r.consumer.diags.empty());
}

TEST_CASE("expansions never glue onto their neighbours", "[preprocess]") {
  Run r("#define P +\n#define E\n#define ID x\na = +P; b = -E-; c = ID1; d = ID ID; e = /E*/;\n");
  CHECK(codeLines(r.out.text) == "a = + +; b = - -; c = ID1; d = x x; e = / */;");
}

// --- Function-like macros -----------------------------------------------------

TEST_CASE("function-like macros take arguments with nested parentheses", "[preprocess]") {
  Run r(
      "#define ADD(a, b) ((a) + (b))\n"
      "#define ZERO() 0\n"
      "#define ONE(x) [x]\n"
      "ADD(f(1, 2), (3, 4)) ZERO() ONE() ONE( ) ADD(,)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "((f(1, 2)) + ((3, 4))) 0 [] [] (() + ())");
}

TEST_CASE("a function-like macro name without `(` is left alone", "[preprocess]") {
  Run r("#define F(x) x\nint F; F + 1; F\n(2)\n");
  CHECK(r.ok);
  CHECK(r.out.text == "#define F(x) x\nint F; F + 1; 2\n\n");
}

TEST_CASE("a call spanning lines keeps the line count and later lines in place", "[preprocess]") {
  const std::string src =
      "#define SUM(a, b, c) (a + b + c)\n"
      "x = SUM(1,\n"
      "        2, // two\n"
      "        3) + 4;\n"
      "y = 5;\n";
  Run r(src);
  CHECK(r.ok);
  CHECK(r.out.text == "#define SUM(a, b, c) (a + b + c)\nx = (1 + 2 + 3)\n\n + 4;\ny = 5;\n");
  CHECK(lineCount(r.out.text) == lineCount(src));
  // `+ 4;` and `y` are still on their original lines.
  CHECK(r.originalLine(r.out.text.find("+ 4")) == 4);
  CHECK(r.originalLine(r.out.text.find("y = 5")) == 5);
}

TEST_CASE("rescanning follows the C standard's examples", "[preprocess]") {
  Run r(
      "#define f(a) a*g\n"
      "#define g(a) f(a)\n"
      "f(2)(9)\n"
      "#define h(x) x(1)\n"
      "#define id(x) x\n"
      "h(id)\n"
      "#define obj fn\n"
      "#define fn(x) <x>\n"
      "obj(3)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "2*9*g|1|<3>");
}

TEST_CASE("self-referential macros terminate", "[preprocess]") {
  Run r(
      "#define A A\n"
      "#define B C\n"
      "#define C B\n"
      "#define foo foo + 1\n"
      "#define f(x) f(x) + x\n"
      "#define g(x) x g\n"
      "A B C foo f(f(1)) g(1)(2)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "A B C foo + 1 f(f(1) + 1) + f(1) + 1 1 g(2)");
}

TEST_CASE("arguments are expanded before substitution, except for # and ##", "[preprocess]") {
  Run r(
      "#define N 4\n"
      "#define STR(x) #x\n"
      "#define XSTR(x) STR(x)\n"
      "#define CAT(a, b) a ## b\n"
      "#define XCAT(a, b) CAT(a, b)\n"
      "STR(N) XSTR(N) CAT(N, 2) XCAT(N, 2)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "\"N\" \"4\" N2 42");
}

TEST_CASE("stringising escapes literals and normalises spaces", "[preprocess]") {
  Run r("#define S(x) #x\nS(  a   +\tb ) S(\"q\\n\" 'c') S()\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "\"a + b\" \"\\\"q\\\\n\\\" 'c'\" \"\"");
}

TEST_CASE("token pasting handles empty arguments and re-lexes the result", "[preprocess]") {
  Run r(
      "#define CAT(a, b) a ## b\n"
      "#define CAT3(a, b, c) a ## b ## c\n"
      "#define x1 ok\n"
      "#define OBJ pre ## fix\n"
      "CAT(x, 1) CAT(, y) CAT(z, ) CAT(,) CAT3(a, , c) CAT(<, <) OBJ CAT(1, .5)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "ok y z  ac << prefix 1.5");
}

TEST_CASE("variadic macros: __VA_ARGS__, GNU comma elision, __VA_OPT__, named", "[preprocess]") {
  Run r(
      "#define V(fmt, ...) call(fmt, __VA_ARGS__)\n"
      "#define G(fmt, ...) call(fmt , ## __VA_ARGS__)\n"
      "#define O(fmt, ...) call(fmt __VA_OPT__(,) __VA_ARGS__)\n"
      "#define N(args...) [args]\n"
      "V(a, 1, (2, 3)) G(b) G(b, 1) O(c) O(c, 2) N(1, 2) V(d)\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) ==
        "call(a, 1, (2, 3)) call(b) call(b , 1) call(c) call(c, 2) [1, 2] call(d,)");
}

// --- Conditionals ----------------------------------------------------------

TEST_CASE("#if/#elif/#else/#endif keep the taken branch and blank the rest", "[preprocess]") {
  const std::string src =
      "#define MODE 2\n"
      "#if MODE == 1\n"
      "one\n"
      "#elif MODE == 2\n"
      "two\n"
      "#else\n"
      "other\n"
      "#endif\n"
      "end\n";
  Run r(src);
  CHECK(r.ok);
  CHECK(r.out.text == "#define MODE 2\n\n\n\ntwo\n\n\n\nend\n");
  CHECK(lineCount(r.out.text) == lineCount(src));
}

TEST_CASE("#ifdef and #ifndef test whether a macro is defined", "[preprocess]") {
  Run r(
      "#define YES\n"
      "#ifdef YES\na\n#endif\n"
      "#ifdef NO\nb\n#else\nc\n#endif\n"
      "#ifndef NO\nd\n#endif\n"
      "#ifndef YES\ne\n#endif\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "a|c|d");
}

TEST_CASE("nested conditionals inside excluded branches are skipped whole", "[preprocess]") {
  Run r(
      "#if 0\n"
      "#if 1\nx\n#else\ny\n#endif\n"
      "#error not reported\n"
      "#bogus not reported\n"
      "/*\n#endif inside a comment\n*/\n"
      "#else\nz\n#endif\n");
  CHECK(r.ok);
  CHECK(r.consumer.diags.empty());
  CHECK(codeLines(r.out.text) == "z");
}

TEST_CASE("#if expressions follow C arithmetic", "[preprocess]") {
  auto truth = [](const std::string& expr) {
    Run r("#if " + expr + "\nyes\n#else\nno\n#endif\n");
    INFO(expr);
    REQUIRE(r.consumer.diags.empty());
    return codeLines(r.out.text) == "yes";
  };
  CHECK(truth("1 + 2 * 3 == 7"));
  CHECK(truth("(1 + 2) * 3 == 9"));
  CHECK(truth("10 / 3 == 3 && 10 % 3 == 1 && -7 / 2 == -3"));
  CHECK(truth("1 << 4 == 16 && 256 >> 4 == 16 && -16 >> 2 == -4"));
  CHECK(truth("(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5 && ~0 == -1"));
  CHECK(truth("!0 && !!5 && (0 || 3)"));
  CHECK(truth("1 ? 2 : 3 == 2"));
  CHECK(truth("0 ? 1 : 0 ? 2 : 3"));
  CHECK(truth("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 != 2"));
  CHECK_FALSE(truth("-1 < 0u"));  // the comparison is unsigned
  CHECK(truth("0x10 == 16 && 010 == 8 && 0b101 == 5 && 1'000 == 1000 && 10ull == 10"));
  CHECK(truth("'A' == 65 && '\\n' == 10 && '\\x41' == 65"));
  CHECK(truth("UNDEFINED_NAME == 0 && true && !false"));
  CHECK(truth("0 && 1 / 0") == false);
  CHECK(truth("1 || 1 / 0"));
  CHECK(truth("-9223372036854775807 - 1 < 0"));
  CHECK(truth("18446744073709551615 == -1"));
}

TEST_CASE("defined works with and without parentheses and does not expand", "[preprocess]") {
  Run r(
      "#define X Y\n"
      "#define F(a) a\n"
      "#if defined X && defined(X) && defined ( F ) && !defined Y && !defined(Z)\nyes\n#endif\n"
      "#if F(1) + X == 1\nmacro\n#endif\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "yes|macro");
}

TEST_CASE("#elif is not evaluated once a branch has been taken", "[preprocess]") {
  Run r("#if 1\na\n#elif 1 / 0\nb\n#elif (\nc\n#endif\n");
  CHECK(r.ok);
  CHECK(r.consumer.diags.empty());
  CHECK(codeLines(r.out.text) == "a");
}

// --- Directives that pass through ----------------------------------------------

TEST_CASE("include, define, undef, pragma and line lines are copied verbatim", "[preprocess]") {
  const std::string src =
      "  #  include \"x.h\"\n"
      "#define LONG 1 + \\\n"
      "  2\n"
      "#undef OTHER\n"
      "#pragma once\n"
      "#line 40 \"other.co\"\n"
      "# 12 \"gnu.co\"\n"
      "#\n"
      "LONG\n";
  Run r(src);
  CHECK(r.ok);
  CHECK(r.out.text ==
        "  #  include \"x.h\"\n#define LONG 1 + \\\n  2\n#undef OTHER\n#pragma once\n"
        "#line 40 \"other.co\"\n# 12 \"gnu.co\"\n\n1 + 2\n");
}

TEST_CASE("line continuations and comments inside directives", "[preprocess]") {
  Run r(
      "#define A /* two\n lines */ 1 // tail \\\n   still the comment\n"
      "#if A == \\\n 1\nyes\n#endif\n"
      "A\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == " lines */ 1 // tail \\|   still the comment|yes|1");
  CHECK(lineCount(r.out.text) == 8);
}

TEST_CASE("#pragma croq intrinsic records prefixes and namespaces", "[preprocess]") {
  Run r(
      "#pragma croq intrinsic prefix hw_\n"
      "#pragma omp parallel\n"
      "__co__ void f() {\n"
      "#pragma croq intrinsic namespace arch\n"
      "}\n");
  CHECK(r.ok);
  REQUIRE(r.out.intrinsicPragmas.size() == 2);
  CHECK(r.out.intrinsicPragmas[0].kind == "prefix");
  CHECK(r.out.intrinsicPragmas[0].name == "hw_");
  CHECK(r.sm.FindLineNumber(r.out.intrinsicPragmas[0].loc) == 1);
  CHECK(r.out.intrinsicPragmas[1].kind == "namespace");
  CHECK(r.out.intrinsicPragmas[1].name == "arch");
  CHECK(r.sm.FindLineNumber(r.out.intrinsicPragmas[1].loc) == 4);
  CHECK(r.out.text.find("#pragma croq intrinsic namespace arch\n") != std::string::npos);
}

TEST_CASE("a `#` operator inside a line is not a directive", "[preprocess]") {
  Run r("#define P lhs\n__co__ void f() { auto n = #P; auto m = P # P; }\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "__co__ void f() { auto n = #lhs; auto m = lhs # lhs; }");
}

TEST_CASE("CRLF line endings work", "[preprocess]") {
  Run r("#define N 3\r\n#if N == 3\r\nyes N\r\n#endif\r\n");
  CHECK(r.ok);
  CHECK(r.out.text == "#define N 3\r\n\nyes 3\r\n\n");
}

TEST_CASE("directives inside a macro call take effect", "[preprocess]") {
  Run r(
      "#define F(a, b) a + b\n"
      "F(1,\n"
      "#ifdef NOPE\n"
      "  100\n"
      "#else\n"
      "  2\n"
      "#endif\n"
      ") end\n");
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "1 + 2| end");
  CHECK(lineCount(r.out.text) == 8);
  CHECK(r.originalLine(r.out.text.find(" end")) == 8);
}

// --- Command line ------------------------------------------------------------

TEST_CASE("-D and -U apply in command-line order", "[preprocess]") {
  const std::vector<MacroCommand> commands = {
      {false, "A", "1"}, {false, "B", "2"}, {true, "A", "1"},         {false, "C", "1"},
      {true, "B", "1"},  {false, "B", "3"}, {false, "F(x)", "x * 2"}, {false, "E", ""},
  };
  Run r("A B C F(4) [E]\n#ifdef A\nbad\n#endif\n", commands);
  CHECK(r.ok);
  CHECK(codeLines(r.out.text) == "A 3 1 4 * 2 []");
}

TEST_CASE("an invalid -D or -U name is an error without a location", "[preprocess]") {
  Run r("x\n", {{false, "1BAD", "1"}, {true, "F(x)", "1"}, {false, "defined", "1"}});
  CHECK_FALSE(r.ok);
  CHECK(r.count(DiagKind::err_pp_bad_cmdline_macro_name) == 3);
  CHECK(r.consumer.diags[0].line == 0);
  CHECK(r.consumer.diags[0].message == "invalid macro name `1BAD` in `-D`");
}

// --- Locations -----------------------------------------------------------------

TEST_CASE("originalLoc maps verbatim text exactly and expansions to the call", "[preprocess]") {
  const std::string src =
      "#define TWO(a, b) a b\n"
      "x = TWO(left,\n"
      "  right); y\n"
      "#if 0\n"
      "skipped\n"
      "#endif\n"
      "z";
  Run r(src);
  const std::string& out = r.out.text;
  // Verbatim text maps one to one.
  CHECK(r.originalOffset(out.find("x =")) == src.find("x ="));
  CHECK(r.originalOffset(out.find("#define") + 3) == 3);
  // Every character of an expansion maps to the start of the call.
  const size_t expansion = out.find("left right");
  REQUIRE(expansion != std::string::npos);
  for (size_t i = 0; i < std::string("left right").size(); ++i)
    CHECK(r.originalOffset(expansion + i) == src.find("TWO(left"));
  // Text after a multi-line call maps back exactly.
  CHECK(r.originalOffset(out.find("; y")) == src.find("; y"));
  CHECK(r.originalOffset(out.find('z')) == src.find('z'));
  CHECK(r.originalLine(out.find('z')) == 7);
  // Every output line start maps to the same line in the original.
  size_t line = 1;
  for (size_t pos = 0; pos < out.size(); pos = out.find('\n', pos) + 1, ++line) {
    INFO("line " << line);
    CHECK(r.originalLine(pos) == line);
    if (out.find('\n', pos) == std::string::npos) break;
  }
  // Offsets at or past the end map to the end of the buffer.
  CHECK(r.originalOffset(out.size()) == src.size());
  CHECK(r.originalOffset(out.size() + 100) == src.size());
}

TEST_CASE("printWithLineMarkers starts with a marker and stays aligned", "[preprocess]") {
  Run r("#define F(a, b) a + b\nF(1,\n  2)\n#if 0\nx\n#endif\nlast\n");
  const std::string printed = r.lineMarkers();
  CHECK(printed.rfind("#line 1 \"dir/test.co\"\n", 0) == 0);
  // No other marker is needed since the output keeps every line in place.
  CHECK(std::count(printed.begin(), printed.end(), '#') == 2);
  CHECK(printed.substr(printed.find('\n') + 1) == r.out.text);

  PreprocessedSource shifted = r.out;
  shifted.text = "a\nb\n";
  const char* base = r.start();
  shifted.segments = {{0, base, false},
                      {2, base + r.source.find("last"), false},
                      {4, base + r.source.size(), false}};
  std::string s;
  llvm::raw_string_ostream os(s);
  shifted.printWithLineMarkers(os, "f.co", r.sm);
  CHECK(os.str() == "#line 1 \"f.co\"\na\n#line 7 \"f.co\"\nb\n");
}

// --- Diagnostics -------------------------------------------------------------

TEST_CASE("unterminated #if reports at the end with a note at the #if", "[preprocess][diag]") {
  Run r("x\n  #if 1\ny\n#ifdef Q\n");
  CHECK_FALSE(r.ok);
  const Captured& d = r.only(DiagKind::err_pp_unterminated_conditional);
  CHECK(d.message == "unterminated `#ifdef`: the file ends before its `#endif`");
  CHECK(d.line == 5);
  REQUIRE(d.notes.size() == 2);
  CHECK(d.notes[0].kind == DiagKind::note_pp_conditional_here);
  CHECK(r.sm.getLineAndColumn(d.notes[0].loc) == std::make_pair(4u, 1u));
  CHECK(r.sm.getLineAndColumn(d.notes[1].loc) == std::make_pair(2u, 3u));
}

TEST_CASE("#else, #elif and #endif without #if", "[preprocess][diag]") {
  Run r("#else\n#elif 1\n  #endif\n");
  CHECK(r.count(DiagKind::err_pp_unmatched_conditional) == 3);
  CHECK(r.consumer.diags[0].message == "`#else` without a matching `#if`");
  CHECK(r.consumer.diags[1].message == "`#elif` without a matching `#if`");
  CHECK(r.consumer.diags[2].line == 3);
  CHECK(r.consumer.diags[2].column == 3);
}

TEST_CASE("#elif or #else after #else", "[preprocess][diag]") {
  Run r("#if 0\n#else\n#elif 1\n#else\n#endif\n#if 1\n#else\n#else\n#endif\n");
  CHECK(r.count(DiagKind::err_pp_else_after_else) == 3);
  const Captured& d = r.consumer.diags[0];
  CHECK(d.message == "`#elif` after the `#else` of the same conditional");
  CHECK(d.line == 3);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].kind == DiagKind::note_pp_else_here);
  CHECK(r.sm.FindLineNumber(d.notes[0].loc) == 2);
}

TEST_CASE("redefinition with a different body warns with the previous place",
          "[preprocess][diag]") {
  Run r("#define A 1\n#define A 2\nA\n", {{false, "B", "1"}});
  CHECK(r.ok);  // a warning only
  const Captured& d = r.only(DiagKind::warn_pp_macro_redefined);
  CHECK(d.severity == Severity::Warning);
  CHECK(d.message == "macro `A` redefined with a different body");
  CHECK(d.line == 2);
  CHECK(d.column == 9);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].kind == DiagKind::note_pp_previous_definition);
  CHECK(r.sm.getLineAndColumn(d.notes[0].loc) == std::make_pair(1u, 9u));
  CHECK(codeLines(r.out.text) == "2");

  Run c("#define B 2\n", {{false, "B", "1"}});
  const Captured& fromCommandLine = c.only(DiagKind::warn_pp_macro_redefined);
  REQUIRE(fromCommandLine.notes.size() == 1);
  CHECK(fromCommandLine.notes[0].kind == DiagKind::note_pp_previous_definition_cmdline);
}

TEST_CASE("wrong argument count names the parameters", "[preprocess][diag]") {
  Run r("#define F(a, b) a\n#define V(a, ...) a\nx = F(1);\nF(1, 2, 3) V()\n");
  CHECK_FALSE(r.ok);
  REQUIRE(r.count(DiagKind::err_pp_macro_arg_count) == 2);
  const Captured& d = r.consumer.diags[0];
  CHECK(d.message == "macro `F` takes 2 arguments, but the call passes 1 argument");
  CHECK(d.hint == "the parameters are `F(a, b)`");
  CHECK(d.line == 3);
  CHECK(d.column == 5);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].kind == DiagKind::note_pp_macro_defined_here);
  CHECK(r.consumer.diags[1].message ==
        "macro `F` takes 2 arguments, but the call passes 3 arguments");
  // The call is left as written.
  CHECK(r.out.text.find("x = F(1);") != std::string::npos);
  Run v("#define V(a, b, ...) a\nV(1)\n");
  CHECK(v.only(DiagKind::err_pp_macro_arg_count).message ==
        "macro `V` takes at least 2 arguments, but the call passes 1 argument");
}

TEST_CASE("unterminated macro argument list", "[preprocess][diag]") {
  Run r("#define F(a) a\nok\n  F(1, (2)\n more\n");
  CHECK_FALSE(r.ok);
  const Captured& d = r.only(DiagKind::err_pp_unterminated_macro_call);
  CHECK(d.line == 3);
  CHECK(d.column == 3);
  CHECK(lineCount(r.out.text) == 4);
  Run inIf("#define F(a) a\n#if F(1\n#endif\n");
  CHECK(inIf.count(DiagKind::err_pp_unterminated_macro_call) == 1);
}

TEST_CASE("invalid #if expressions", "[preprocess][diag]") {
  struct Case {
    const char* expr;
    DiagKind kind;
    unsigned column;
  };
  const Case cases[] = {
      {"", DiagKind::err_pp_expected_expression, 5},
      {"1 +", DiagKind::err_pp_expected_expression, 8},
      {"1 2", DiagKind::err_pp_extra_expression_tokens, 7},
      {"(1", DiagKind::err_pp_expected_rparen, 7},
      {"1 ? 2", DiagKind::err_pp_expected_colon, 10},
      {"\"str\"", DiagKind::err_pp_invalid_expression_token, 5},
      {"1.5", DiagKind::err_pp_invalid_integer, 5},
      {"0x", DiagKind::err_pp_invalid_integer, 5},
      {"12abc", DiagKind::err_pp_invalid_integer, 5},
      {"99999999999999999999", DiagKind::err_pp_integer_too_large, 5},
      {"4 / 0", DiagKind::err_pp_division_by_zero, 7},
      {"4 % (2 - 2)", DiagKind::err_pp_division_by_zero, 7},
      {"defined", DiagKind::err_pp_defined_without_identifier, 12},
      {"defined(1)", DiagKind::err_pp_defined_without_identifier, 13},
      {"defined(X", DiagKind::err_pp_defined_missing_rparen, 14},
      {"= 1", DiagKind::err_pp_expected_expression, 5},
      {"__has_include(<cuda_fp8.h>)", DiagKind::err_pp_compiler_query, 5},
      {"1 && __has_builtin(__builtin_expect)", DiagKind::err_pp_compiler_query, 10},
  };
  for (const Case& c : cases) {
    Run r(std::string("#if ") + c.expr + "\nbody\n#endif\n");
    INFO(c.expr);
    CHECK_FALSE(r.ok);
    REQUIRE(r.consumer.diags.size() == 1);
    CHECK(r.consumer.diags[0].kind == c.kind);
    CHECK(r.consumer.diags[0].line == 1);
    CHECK(r.consumer.diags[0].column == c.column);
    CHECK(codeLines(r.out.text).empty());  // an invalid condition is false
  }
  Run div("#if 4 / 0\n#endif\n");
  CHECK(div.consumer.diags[0].message ==
        "division by zero in `#if`: the right operand of `/` is 0");
  Run paren("#elif\n#if (1\n#endif\n");
  const Captured& p = paren.only(DiagKind::err_pp_expected_rparen);
  REQUIRE(p.notes.size() == 1);
  CHECK(p.notes[0].kind == DiagKind::note_pp_lparen_here);
  Run colon("#if 1 ? 2\n#endif\n");
  REQUIRE(colon.consumer.diags[0].notes.size() == 1);
  CHECK(colon.consumer.diags[0].notes[0].kind == DiagKind::note_pp_question_here);
}

TEST_CASE("missing or invalid macro names", "[preprocess][diag]") {
  Run r(
      "#define\n#undef\n#ifdef\n#endif\n#ifndef  \n#endif\n#define 3 x\n#undef \"s\"\n#define "
      "defined 1\n");
  CHECK(r.count(DiagKind::err_pp_missing_macro_name) == 4);
  CHECK(r.consumer.diags[0].message == "missing macro name after `#define`");
  CHECK(r.consumer.diags[0].hint == "write `#define NAME`");
  CHECK(r.consumer.diags[0].column == 8);
  CHECK(r.count(DiagKind::err_pp_macro_name_not_identifier) == 2);
  CHECK(r.count(DiagKind::err_pp_defined_as_macro_name) == 1);
}

TEST_CASE("bad parameter lists", "[preprocess][diag]") {
  Run r(
      "#define A(x, x) x\n"
      "#define B(x y) x\n"
      "#define C(x,\n"
      "#define D(1) 1\n"
      "#define E(..., x) 1\n"
      "#define F(x) ## x\n"
      "#define G(x) x ##\n"
      "#define H(x) (x)\n");
  CHECK(r.count(DiagKind::err_pp_duplicate_macro_param) == 1);
  CHECK(r.count(DiagKind::err_pp_bad_macro_param) == 4);
  CHECK(r.count(DiagKind::err_pp_paste_at_edge) == 2);
  CHECK(r.consumer.diags[1].message ==
        "expected a parameter name, `...` or `)` in the parameter list of macro `B`, found `y`");
  CHECK(r.consumer.diags[1].column == 13);
  Run ok("#define H(x, ...) x\nH(1)\n");
  CHECK(ok.ok);
}

TEST_CASE("#error and #warning report their text at their line", "[preprocess][diag]") {
  Run r("ok\n  #error \"tile size\" must be 64\n#warning check   this\n");
  CHECK_FALSE(r.ok);
  const Captured& e = r.only(DiagKind::err_pp_error_directive);
  CHECK(e.severity == Severity::Error);
  CHECK(e.message == "`#error` \"tile size\" must be 64");
  CHECK(e.line == 2);
  CHECK(e.column == 3);
  const Captured& w = r.only(DiagKind::warn_pp_warning_directive);
  CHECK(w.severity == Severity::Warning);
  CHECK(w.message == "`#warning` check this");
  CHECK(lineCount(r.out.text) == 3);
}

TEST_CASE("unknown directives, including a `#` operator at a line start", "[preprocess][diag]") {
  Run r("#foo bar\n__co__ void f() {\n  auto n =\n    #p;\n}\n");
  CHECK(r.count(DiagKind::err_pp_unknown_directive) == 2);
  CHECK(r.consumer.diags[0].message == "unknown preprocessor directive `#foo`");
  CHECK(r.consumer.diags[1].line == 4);
  CHECK(r.consumer.diags[1].column == 5);
  CHECK(lineCount(r.out.text) == 5);
}

TEST_CASE("extra tokens after directives warn", "[preprocess][diag]") {
  Run r("#ifdef A B\n#else C\n#endif D\n#undef A B\n");
  CHECK(r.ok);
  CHECK(r.count(DiagKind::warn_pp_extra_tokens) == 4);
  CHECK(r.consumer.diags[0].message == "extra tokens at the end of `#ifdef` are ignored");
  CHECK(r.consumer.diags[0].column == 10);
}

TEST_CASE("malformed #pragma croq", "[preprocess][diag]") {
  Run r(
      "#pragma croq intrinsic suffix x\n#pragma croq\n#pragma croq intrinsic prefix\n"
      "#pragma croq intrinsic prefix a b\n");
  CHECK(r.count(DiagKind::err_pp_bad_croq_pragma) == 4);
  CHECK(r.consumer.diags[0].message ==
        "malformed `#pragma croq`: expected `prefix` or `namespace`, found `suffix`");
  CHECK(r.consumer.diags[0].column == 24);
  CHECK(r.out.intrinsicPragmas.empty());
}

TEST_CASE("a kept directive inside a macro call warns", "[preprocess][diag]") {
  Run r("#define F(a) a\nF(1\n#define G 2\n) G\n");
  CHECK(r.ok);
  const Captured& d = r.only(DiagKind::warn_pp_directive_in_macro_args);
  CHECK(d.message ==
        "`#define` inside the call of macro `F` takes effect but is not copied to the output");
  CHECK(codeLines(r.out.text) == "1| 2");
}

TEST_CASE("every preprocessor diagnostic kind has an example that produces it",
          "[preprocess][diag]") {
  const std::string exponential =
      "#define A B B B B B B B B\n#define B C C C C C C C C\n#define C D D D D D D D D\n"
      "#define D E E E E E E E E\n#define E x x x x x x x x\n";
  std::string manyCalls = exponential;
  for (int i = 0; i < 30; ++i) manyCalls += "A A A A A A A A A A\n";
  std::string deepChain;
  for (int i = 0; i < 300; ++i)
    deepChain += "#define M" + std::to_string(i) + " M" + std::to_string(i + 1) + "\n";
  deepChain += "M0\n";
  std::string doubling = "#define D0 x x\n";
  for (int i = 1; i < 24; ++i)
    doubling += "#define D" + std::to_string(i) + " D" + std::to_string(i - 1) + " D" +
                std::to_string(i - 1) + "\n";
  doubling += "D23\n";

  struct Example {
    DiagKind kind;
    std::string source;
    std::vector<MacroCommand> commands;
  };
  const std::vector<Example> examples = {
      {DiagKind::err_pp_unknown_directive, "#foo\n", {}},
      {DiagKind::warn_pp_extra_tokens, "#if 1\n#endif X\n", {}},
      {DiagKind::warn_pp_directive_in_macro_args, "#define F(a) a\nF(\n#pragma once\n)\n", {}},
      {DiagKind::err_pp_error_directive, "#error stop\n", {}},
      {DiagKind::warn_pp_warning_directive, "#warning careful\n", {}},
      {DiagKind::err_pp_bad_croq_pragma, "#pragma croq x\n", {}},
      {DiagKind::err_pp_missing_macro_name, "#undef\n", {}},
      {DiagKind::err_pp_macro_name_not_identifier, "#ifdef 1\n#endif\n", {}},
      {DiagKind::err_pp_defined_as_macro_name, "#undef defined\n", {}},
      {DiagKind::err_pp_bad_macro_param, "#define F(a,) a\n", {}},
      {DiagKind::err_pp_duplicate_macro_param, "#define F(a, a) a\n", {}},
      {DiagKind::err_pp_paste_at_edge, "#define A ## b\n", {}},
      {DiagKind::warn_pp_macro_redefined, "#define A 1\n#define A 2\n", {}},
      {DiagKind::note_pp_previous_definition, "#define A 1\n#define A 2\n", {}},
      {DiagKind::note_pp_previous_definition_cmdline, "#define A 2\n", {{false, "A", "1"}}},
      {DiagKind::err_pp_bad_cmdline_macro_name, "", {{true, "-x", "1"}}},
      {DiagKind::err_pp_macro_arg_count, "#define F(a) a\nF(1, 2)\n", {}},
      {DiagKind::note_pp_macro_defined_here, "#define F(a) a\nF(1, 2)\n", {}},
      {DiagKind::err_pp_unterminated_macro_call, "#define F(a) a\nF(1\n", {}},
      {DiagKind::err_pp_expansion_too_deep, deepChain, {}},
      {DiagKind::err_pp_expansion_too_large, doubling, {}},
      {DiagKind::err_pp_file_expansion_too_large, manyCalls, {}},
      {DiagKind::err_pp_unmatched_conditional, "#endif\n", {}},
      {DiagKind::err_pp_else_after_else, "#if 1\n#else\n#else\n#endif\n", {}},
      {DiagKind::note_pp_else_here, "#if 1\n#else\n#else\n#endif\n", {}},
      {DiagKind::err_pp_unterminated_conditional, "#ifndef X\n", {}},
      {DiagKind::note_pp_conditional_here, "#ifndef X\n", {}},
      {DiagKind::err_pp_expected_expression, "#if 1 *\n#endif\n", {}},
      {DiagKind::err_pp_expected_rparen, "#if (1 2\n#endif\n", {}},
      {DiagKind::note_pp_lparen_here, "#if (1 2\n#endif\n", {}},
      {DiagKind::err_pp_expected_colon, "#if 1 ? 2 3\n#endif\n", {}},
      {DiagKind::note_pp_question_here, "#if 1 ? 2 3\n#endif\n", {}},
      {DiagKind::err_pp_extra_expression_tokens, "#if 1 )\n#endif\n", {}},
      {DiagKind::err_pp_invalid_expression_token, "#if 'ab\n#endif\n", {}},
      {DiagKind::err_pp_invalid_integer, "#if 1e5\n#endif\n", {}},
      {DiagKind::err_pp_integer_too_large, "#if 0x1ffffffffffffffff\n#endif\n", {}},
      {DiagKind::err_pp_division_by_zero, "#define Z 0\n#if 1 % Z\n#endif\n", {}},
      {DiagKind::err_pp_defined_without_identifier, "#if defined + 1\n#endif\n", {}},
      {DiagKind::err_pp_compiler_query, "#if __has_include(<cuda.h>)\n#endif\n", {}},
      {DiagKind::err_pp_defined_missing_rparen, "#if defined(A B)\n#endif\n", {}},
      {DiagKind::err_pp_expression_too_deep, "#if " + std::string(300, '~') + "1\n#endif\n", {}},
  };
  const llvm::ArrayRef<DiagKindInfo> kinds = allDiagKinds();
  for (size_t i = 0; i < kinds.size(); ++i) {
    const std::string name = kinds[i].name;
    if (name.find("_pp_") == std::string::npos) continue;
    const auto kind = static_cast<DiagKind>(i);
    INFO(name);
    auto example = std::find_if(examples.begin(), examples.end(),
                                [&](const Example& e) { return e.kind == kind; });
    REQUIRE(example != examples.end());
    Run r(example->source, example->commands);
    const bool found =
        std::any_of(r.consumer.diags.begin(), r.consumer.diags.end(), [&](const Captured& c) {
          return c.kind == kind ||
                 std::any_of(c.notes.begin(), c.notes.end(),
                             [&](const DiagnosticNote& n) { return n.kind == kind; });
        });
    CHECK(found);
    // Every message follows the house style: lower-case start, no final period.
    for (const Captured& c : r.consumer.diags) {
      if (c.kind == DiagKind::err_pp_error_directive ||
          c.kind == DiagKind::warn_pp_warning_directive)
        continue;
      CHECK_FALSE(c.message.empty());
      CHECK_FALSE((c.message[0] >= 'A' && c.message[0] <= 'Z'));
      CHECK(c.message.back() != '.');
    }
  }
}

// --- Robustness ----------------------------------------------------------------

TEST_CASE("10,000-deep #if nesting, taken and skipped", "[preprocess][robust]") {
  constexpr int kDepth = 10000;
  std::string taken, skipped;
  for (int i = 0; i < kDepth; ++i) taken += "#if 1\n";
  taken += "x\n";
  for (int i = 0; i < kDepth; ++i) taken += "#endif\n";
  skipped = "#if 0\n" + taken + "#endif\n";
  Run a(taken);
  CHECK(a.ok);
  CHECK(codeLines(a.out.text) == "x");
  Run b(skipped);
  CHECK(b.ok);
  CHECK(codeLines(b.out.text).empty());
  Run c(taken.substr(0, kDepth * 6));
  CHECK(c.count(DiagKind::err_pp_unterminated_conditional) == 1);
  CHECK(c.consumer.diags[0].notes.size() == 4);
}

TEST_CASE("mutually recursive and exponential macros stop", "[preprocess][robust]") {
  std::string chain;
  for (int i = 0; i < 400; ++i)
    chain += "#define M" + std::to_string(i) + " M" + std::to_string(i + 1) + "\n";
  chain += "M0\n";
  Run deep(chain);
  CHECK(deep.count(DiagKind::err_pp_expansion_too_deep) == 1);

  std::string doubling = "#define D0 x x\n";
  for (int i = 1; i < 40; ++i)
    doubling += "#define D" + std::to_string(i) + " D" + std::to_string(i - 1) + " D" +
                std::to_string(i - 1) + "\n";
  doubling += "D39\n";
  Run big(doubling);
  CHECK(big.count(DiagKind::err_pp_expansion_too_large) == 1);

  std::string nested = "#define F(x) x\n";
  for (int i = 0; i < 10000; ++i) nested += "F(";
  nested += "1";
  for (int i = 0; i < 10000; ++i) nested += ")";
  nested += "\n";
  Run calls(nested);  // re-reading the arguments at each level exhausts the work limit
  CHECK(calls.count(DiagKind::err_pp_expansion_too_large) == 1);

  std::string nested300 = "#define F(x) x\n";
  for (int i = 0; i < 300; ++i) nested300 += "F(";
  nested300 += "1" + std::string(300, ')') + "\n";
  Run calls300(nested300);
  CHECK(calls300.count(DiagKind::err_pp_expansion_too_deep) == 1);
}

TEST_CASE("deep #if expressions are an error, not a stack overflow", "[preprocess][robust]") {
  Run parens("#if " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n#endif\n");
  CHECK(parens.count(DiagKind::err_pp_expression_too_deep) == 1);
  Run unary("#if " + std::string(100000, '!') + "1\n#endif\n");
  CHECK(unary.count(DiagKind::err_pp_expression_too_deep) == 1);
  std::string ternary = "#if ";
  for (int i = 0; i < 100000; ++i) ternary += "1 ? ";
  Run t(ternary + "\n#endif\n");
  CHECK(t.count(DiagKind::err_pp_expression_too_deep) == 1);
}

TEST_CASE("a 1 MB line and unterminated constructs", "[preprocess][robust]") {
  std::string huge = "#define N 1\n";
  for (int i = 0; i < 100000; ++i) huge += "N + abc ";
  huge += "\n";
  Run r(huge);
  CHECK(r.ok);
  CHECK(r.out.text.size() > 700000);

  for (const char* src :
       {"\"abc", "'x", "/* never closed", "R\"(raw", "R\"delim(", "#define F(x) x\nF(", "#if",
        "#if (", "#define", "#define F(", "a \\", "#define A \\", "// c \\", "#pragma croq",
        "#error", "F(", "#", "\xEF\xBB\xBF#define B 1\nB"}) {
    INFO(src);
    Run u(src);
    CHECK(u.out.segments.back().outOffset == u.out.text.size());
  }
  Run bom("\xEF\xBB\xBF#define B 1\nB");
  CHECK(bom.out.text == "#define B 1\n1");
}

TEST_CASE("random bytes never crash or hang", "[preprocess][robust]") {
  std::mt19937 rng(12345);
  const std::string alphabet = "#()\\\"'/*\n ,.#AFx01_R?:+-<>!&|=dfineflu";
  for (int round = 0; round < 300; ++round) {
    std::string src;
    const int length = static_cast<int>(rng() % 400);
    for (int i = 0; i < length; ++i) {
      if (rng() % 4 == 0)
        src += static_cast<char>(rng() % 256);
      else
        src += alphabet[rng() % alphabet.size()];
    }
    if (round % 3 == 0) src = "#define A(x) x A(\n#define F(...) #__VA_ARGS__ ## A\n" + src;
    Run r(src);
    // Output offsets are in order and map into the buffer.
    for (size_t i = 1; i < r.out.segments.size(); ++i)
      REQUIRE(r.out.segments[i - 1].outOffset <= r.out.segments[i].outOffset);
    for (size_t i = 0; i <= r.out.text.size(); i += 7) {
      const char* p = r.out.originalLoc(i).getPointer();
      REQUIRE(p >= r.start());
      REQUIRE(p <= r.start() + r.source.size());
    }
  }
}

TEST_CASE("a 2,000-line file preprocesses quickly", "[preprocess][perf]") {
  std::string src =
      "#define TILE_M 64\n#define TILE_N 128\n#define CDIV(a, b) (((a) + (b) - 1) / (b))\n"
      "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n";
  for (int i = 0; i < 500; ++i) {
    src += "#if TILE_M * 2 == TILE_N && defined(CDIV)\n";
    src += "  parallel p by [CDIV(M, TILE_M), CDIV(N, TILE_N)] { x = MAX(a" + std::to_string(i) +
           ", b); }\n";
    src += "#endif\n";
    src += "// a comment mentioning TILE_M and \"strings with TILE_N\"\n";
  }
  auto best = std::chrono::nanoseconds::max();
  for (int i = 0; i < 5; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Run r(src);
    auto t1 = std::chrono::steady_clock::now();
    REQUIRE(r.ok);
    best = std::min(best, std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0));
  }
  const auto ms = std::chrono::duration<double, std::milli>(best).count();
  INFO("2,000 lines took " << ms << " ms");
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CROQC_TEST_SANITIZED 1  // `make sanitize`: optimised, but ASan costs several times
#endif
#endif
#if defined(NDEBUG) && !defined(CROQC_TEST_SANITIZED)
  CHECK(ms < 5.0);
#else
  CHECK(ms < 250.0);  // unoptimised, or sanitised
#endif
}
