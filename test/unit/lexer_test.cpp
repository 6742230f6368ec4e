// Unit tests of the lexer (spec section 1): host-mode region scanning, every
// token class of `__co__` mode, literal decoding, diagnostics with their
// locations, and robustness on hostile input.
#include <catch2/catch.hpp>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "basic/Diagnostic.h"
#include "lex/Lexer.h"
#include "preprocess/Preprocessor.h"

using namespace croqc;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define LEXER_TEST_SANITIZED 1
#endif
#endif

namespace {

class CollectingConsumer final : public DiagnosticConsumer {
 public:
  void handle(const Diagnostic& d) override { diags.push_back(d); }
  std::vector<Diagnostic> diags;
};

/// Lexes `code` as if the preprocessor had left it unchanged: one verbatim
/// segment pointing at a SourceMgr buffer with the same text.
struct Lexed {
  llvm::SourceMgr sm;
  CollectingConsumer consumer;
  DiagnosticEngine engine{sm, consumer};
  PreprocessedSource pp;
  std::vector<Token> toks;

  explicit Lexed(llvm::StringRef code) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(code, "test.co");
    const char* start = buffer->getBufferStart();
    sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    pp.text = code.str();
    pp.segments.push_back({0, start, false});
    toks = lex(pp, engine);
  }

  const std::vector<Diagnostic>& diags() const { return consumer.diags; }

  /// "line:col" of a location.
  std::string pos(llvm::SMLoc loc) const {
    auto [line, col] = sm.getLineAndColumn(loc);
    return std::to_string(line) + ":" + std::to_string(col);
  }

  /// Kind names of all tokens but the final eof, space separated.
  std::string kinds() const {
    std::string s;
    for (size_t i = 0; i + 1 < toks.size(); ++i) s += (i ? " " : "") + tokenKindName(toks[i].kind).str();
    return s;
  }

  /// The i-th token's text.
  std::string text(size_t i) const { return toks.at(i).text.str(); }

  std::vector<std::string> diagKinds() const {
    std::vector<std::string> names;
    for (const Diagnostic& d : diags()) names.push_back(diagKindInfo(d.kind).name);
    return names;
  }
};

/// Lexes `body` inside `__co__ void f() { ... }` and returns the kind names of
/// the body's tokens.
struct Body {
  explicit Body(const std::string& body) : lexed("__co__ void f() {\n" + body + "\n}\n") {
    // __co__ void f ( ) {  ...  } host_text eof
    REQUIRE(lexed.toks.size() >= 9);
    first = 6;
    last = lexed.toks.size() - 3;  // the closing `}`
    REQUIRE(lexed.toks[last].is(TokenKind::r_brace));
  }
  std::string kinds() const {
    std::string s;
    for (size_t i = first; i < last; ++i) s += (i > first ? " " : "") + tokenKindName(lexed.toks[i].kind).str();
    return s;
  }
  const Token& tok(size_t i) const { return lexed.toks.at(first + i); }
  size_t count() const { return last - first; }
  const std::vector<Diagnostic>& diags() const { return lexed.diags(); }
  std::string pos(llvm::SMLoc loc) const { return lexed.pos(loc); }

  Lexed lexed;
  size_t first = 0, last = 0;
};

Token makeToken(TokenKind kind, llvm::StringRef text) {
  Token t;
  t.kind = kind;
  t.text = text;
  return t;
}

}  // namespace

// --- token kind tables -------------------------------------------------------

TEST_CASE("token kind names and spellings", "[lexer][token]") {
  CHECK(tokenKindName(TokenKind::kw_parallel) == "kw_parallel");
  CHECK(tokenKindSpelling(TokenKind::kw_parallel) == "parallel");
  CHECK(tokenKindSpelling(TokenKind::kw_group4) == "group-4");
  CHECK(tokenKindSpelling(TokenKind::arrow) == "=>");
  CHECK(tokenKindSpelling(TokenKind::m_span_as) == ".span_as");
  CHECK(tokenKindSpelling(TokenKind::ty_f8_e4m3) == "f8_e4m3");
  CHECK(tokenKindSpelling(TokenKind::identifier) == "identifier");
  CHECK(tokenKindName(TokenKind::eof) == "eof");
  CHECK(tokenKindName(TokenKind::swaparrow) == "swaparrow");
}

TEST_CASE("token kind classes", "[lexer][token]") {
  CHECK(isKeyword(TokenKind::kw_co));
  CHECK(isKeyword(TokenKind::kw_inf));
  CHECK(isKeyword(TokenKind::ty_f16));
  CHECK_FALSE(isKeyword(TokenKind::identifier));
  CHECK_FALSE(isKeyword(TokenKind::m_span));
  CHECK(isElementType(TokenKind::ty_u1));
  CHECK(isElementType(TokenKind::ty_f4_e2m1));
  CHECK_FALSE(isElementType(TokenKind::kw_half));
  CHECK(isMemberToken(TokenKind::m_remap));
  CHECK(isMemberToken(TokenKind::m_span));
  CHECK_FALSE(isMemberToken(TokenKind::period));
  CHECK(isHostRegion(TokenKind::host_text));
  CHECK(isHostRegion(TokenKind::device_text));
  CHECK(isHostRegion(TokenKind::co_device_text));
  CHECK(isHostRegion(TokenKind::cok_text));
  CHECK_FALSE(isHostRegion(TokenKind::directive));
}

// --- host mode ---------------------------------------------------------------

TEST_CASE("empty input is just eof", "[lexer][host]") {
  Lexed l("");
  REQUIRE(l.toks.size() == 1);
  CHECK(l.toks[0].is(TokenKind::eof));
  CHECK(l.diags().empty());
}

TEST_CASE("host code is one verbatim host_text token", "[lexer][host]") {
  const char* code = "#include <cstdio>\nint main() { printf(\"hi\\n\"); return 0; }\n";
  Lexed l(code);
  CHECK(l.kinds() == "host_text");
  CHECK(l.text(0) == code);
  CHECK(l.diags().empty());
}

TEST_CASE("a __co__ function between host runs", "[lexer][host][co]") {
  Lexed l("int x;\n__co__ void f(s32 [4] a) { }\nint main() {}\n");
  CHECK(l.kinds() ==
        "host_text kw_co kw_void identifier l_paren ty_s32 l_square int_literal r_square identifier r_paren "
        "l_brace r_brace host_text");
  CHECK(l.text(0) == "int x;\n");
  CHECK(l.toks.back().is(TokenKind::eof));
  CHECK(l.toks[l.toks.size() - 2].text == "\nint main() {}\n");
  CHECK(l.diags().empty());
}

TEST_CASE("__co__ is only found as a whole identifier outside literals and comments", "[lexer][host]") {
  Lexed l(
      "int my__co__x, __co__y;\n"
      "const char* s = \"__co__ {\";\n"
      "const char c = '{';\n"
      "// __co__ void f() {}\n"
      "/* __co__ { */\n"
      "const char* r = R\"x(__co__ \" { )\" )x\";\n"
      "#define CO __co__ \\\n  { __co__\n"
      "int n = 1'000'000;\n"
      "__co__ void f() {}\n");
  CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  CHECK(l.diags().empty());
}

TEST_CASE("braces in host strings, chars and comments do not change the depth", "[lexer][host]") {
  Lexed l(
      "struct S { const char* a = \"}}}\"; char b = '}'; /* } */ // }\n };\n"
      "__co__ void f() {}\n");
  CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  CHECK(l.diags().empty());
}

TEST_CASE("__co__ inside a host scope is an error and stays host text", "[lexer][host][diag]") {
  Lexed l("namespace ns {\nstruct S {\n  __co__ void f() {}\n};\n}\n");
  CHECK(l.kinds() == "host_text");
  REQUIRE(l.diags().size() == 1);
  const Diagnostic& d = l.diags()[0];
  CHECK(d.kind == DiagKind::err_region_not_at_file_scope);
  CHECK(d.message == "`__co__` functions must be declared at file scope, but this one is inside 2 open brace(s)");
  CHECK(!d.hint.empty());
  CHECK(l.pos(d.loc) == "3:3");
  REQUIRE(d.notes.size() == 1);
  CHECK(l.pos(d.notes[0].loc) == "1:14");
}

TEST_CASE("__device__ definitions at file scope become device_text", "[lexer][host][device]") {
  Lexed l(
      "template <int N>\nstatic inline __device__ int sq(int x) { if (x) { return x * x; } return N; }\n"
      "__co__ void f() {}\n");
  CHECK(l.kinds() == "host_text device_text host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  CHECK(l.text(0) == "template <int N>\nstatic inline ");
  CHECK(l.text(1) == "__device__ int sq(int x) { if (x) { return x * x; } return N; }");
  CHECK(l.text(2) == "\n");
  CHECK(l.diags().empty());
}

TEST_CASE("__device__ declarations and variables end at the semicolon", "[lexer][host][device]") {
  Lexed l(
      "__device__ int g(int);\n"
      "__device__ int table[3] = {1, 2, 3};\n"
      "__device__ float h(S s = S{1}) { return 0; }\n"
      "__device__ const char* msg = \"};\";\n");
  REQUIRE(l.kinds() == "device_text host_text device_text host_text device_text host_text device_text host_text");
  CHECK(l.text(0) == "__device__ int g(int);");
  CHECK(l.text(2) == "__device__ int table[3] = {1, 2, 3};");
  CHECK(l.text(4) == "__device__ float h(S s = S{1}) { return 0; }");
  CHECK(l.text(6) == "__device__ const char* msg = \"};\";");
  CHECK(l.diags().empty());
}

TEST_CASE("__device__ inside a struct or namespace is host text", "[lexer][host][device]") {
  Lexed l("struct V { __device__ float get() const { return 1.0f; } };\nnamespace n { __device__ int k; }\n");
  CHECK(l.kinds() == "host_text");
  CHECK(l.diags().empty());
}

TEST_CASE("__co_device__ functions become co_device_text", "[lexer][host][device]") {
  Lexed l("__co_device__ void add(f32 [N] a, f32 [N] b) {\n  // } in a comment\n  b = a;\n}\nint x;\n");
  CHECK(l.kinds() == "co_device_text host_text");
  CHECK(l.text(0) == "__co_device__ void add(f32 [N] a, f32 [N] b) {\n  // } in a comment\n  b = a;\n}");
  CHECK(l.diags().empty());
}

TEST_CASE("__co_device__ inside a scope is an error", "[lexer][host][device][diag]") {
  Lexed l("struct S {\n  __co_device__ void f() {}\n};\n");
  CHECK(l.kinds() == "host_text");
  REQUIRE(l.diagKinds() == std::vector<std::string>{"err_region_not_at_file_scope"});
  CHECK(l.pos(l.diags()[0].loc) == "2:3");
}

TEST_CASE("__cok__ blocks become cok_text", "[lexer][host][cok]") {
  Lexed l("int a;\n__cok__ {\n  extern \"C\" __global__ void k() { }\n}\nint b;\n");
  CHECK(l.kinds() == "host_text cok_text host_text");
  CHECK(l.text(1) == "__cok__ {\n  extern \"C\" __global__ void k() { }\n}");
  CHECK(l.diags().empty());
}

TEST_CASE("__cok__ without a brace is an error", "[lexer][host][cok][diag]") {
  Lexed l("__cok__ int x;\n");
  CHECK(l.kinds() == "host_text");
  REQUIRE(l.diags().size() == 1);
  CHECK(l.diags()[0].kind == DiagKind::err_expected_brace_after_cok);
  CHECK(l.diags()[0].message == "expected `{` after `__cok__`, found `int`");
  CHECK(l.pos(l.diags()[0].loc) == "1:1");
}

TEST_CASE("__cok__ inside a scope is an error", "[lexer][host][cok][diag]") {
  Lexed l("void f() {\n  __cok__ { }\n}\n");
  REQUIRE(l.diagKinds() == std::vector<std::string>{"err_region_not_at_file_scope"});
  CHECK(l.diags()[0].message.find("`__cok__` blocks") == 0);
}

TEST_CASE("end of file inside a device function is reported", "[lexer][host][device][diag]") {
  Lexed l("int a;\n__device__ void f() {\n  if (x) {\n");
  CHECK(l.kinds() == "host_text device_text");
  REQUIRE(l.diagKinds() == std::vector<std::string>{"err_unterminated_host_region"});
  CHECK(l.diags()[0].message == "end of file inside the `__device__` function that starts here");
  CHECK(l.pos(l.diags()[0].loc) == "2:1");
}

TEST_CASE("end of file inside host comments and literals does not crash", "[lexer][host][diag]") {
  SECTION("block comment") {
    Lexed l("int a; /* never closed");
    CHECK(l.kinds() == "host_text");
    REQUIRE(l.diagKinds() == std::vector<std::string>{"err_unterminated_block_comment"});
    CHECK(l.pos(l.diags()[0].loc) == "1:8");
  }
  SECTION("raw string") {
    Lexed l("auto s = R\"d(never closed )\" __co__");
    CHECK(l.kinds() == "host_text");
    REQUIRE(l.diagKinds() == std::vector<std::string>{"err_unterminated_raw_string"});
    CHECK(l.diags()[0].message == "unterminated raw string literal: no `)d\"` before the end of the file");
  }
  SECTION("string and char") {
    Lexed l("auto s = \"abc\nauto c = '\n__co__ void f() {}\nchar x = '");
    CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  }
  SECTION("directive continued at end of file") {
    Lexed l("#define X \\");
    CHECK(l.kinds() == "host_text");
  }
}

TEST_CASE("look-ahead after a region does not report a comment twice", "[lexer][host][diag]") {
  SECTION("after a device function") {
    Lexed l("__device__ void f() {} /* open");
    CHECK(l.kinds() == "device_text host_text");
    CHECK(l.diagKinds() == std::vector<std::string>{"err_unterminated_block_comment"});
  }
  SECTION("after __cok__") {
    Lexed l("__cok__ /* open");
    CHECK(l.diagKinds() == std::vector<std::string>{"err_expected_brace_after_cok", "err_unterminated_block_comment"});
    CHECK(l.diags()[0].message == "expected `{` after `__cok__`, found end of file");
  }
}

TEST_CASE("preprocessor lines in host code are skipped with their continuations", "[lexer][host]") {
  Lexed l("#define OPEN {\\\n  {\n#  pragma once\n__co__ void f() {}\n");
  CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  CHECK(l.diags().empty());
}

// --- __co__ mode boundaries ----------------------------------------------------

TEST_CASE("__co__ mode ends when the body's braces close", "[lexer][co]") {
  Lexed l("__co__ void f() { if (a) { { } } }\n__co__ auto g() { }\n");
  CHECK(l.kinds() ==
        "kw_co kw_void identifier l_paren r_paren l_brace kw_if l_paren identifier r_paren l_brace l_brace "
        "r_brace r_brace r_brace host_text kw_co kw_auto identifier l_paren r_paren l_brace r_brace host_text");
  CHECK(l.text(15) == "\n");
}

TEST_CASE("a prototype ends __co__ mode at its semicolon", "[lexer][co]") {
  Lexed l("__co__ void f(int x);\nint main() { return 0; }\n");
  CHECK(l.kinds() == "kw_co kw_void identifier l_paren kw_int identifier r_paren semi host_text");
  CHECK(l.text(8) == "\nint main() { return 0; }\n");
}

TEST_CASE("end of file inside a __co__ function is not a lexer error", "[lexer][co]") {
  Lexed l("__co__ void f() {\n  parallel p by 4 {\n");
  CHECK(l.kinds() == "kw_co kw_void identifier l_paren r_paren l_brace kw_parallel identifier kw_by int_literal l_brace");
  CHECK(l.toks.back().is(TokenKind::eof));
  CHECK(l.diags().empty());
}

// --- identifiers, keywords, members -----------------------------------------

TEST_CASE("every keyword lexes as its kind", "[lexer][keyword]") {
  std::vector<std::pair<std::string, TokenKind>> words;
#define KEYWORD(Name, Spelling) words.push_back({Spelling, TokenKind::Name});
#include "lex/TokenKinds.def"
  std::string body;
  for (auto& [spelling, kind] : words) body += spelling + " ";
  Body b(body);
  REQUIRE(b.count() == words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    INFO(words[i].first);
    CHECK(b.tok(i).kind == words[i].second);
    CHECK(b.tok(i).text == words[i].first);
  }
  CHECK(b.diags().empty());
}

TEST_CASE("every element type is a reserved element-type token", "[lexer][keyword]") {
  std::vector<std::pair<std::string, TokenKind>> types;
#define ELEMTYPE(Name, Spelling) types.push_back({Spelling, TokenKind::Name});
#include "lex/TokenKinds.def"
  REQUIRE(types.size() == 29);
  for (auto& [spelling, kind] : types) {
    Body b(spelling + " [4] x;");
    INFO(spelling);
    CHECK(b.tok(0).kind == kind);
    CHECK(isElementType(b.tok(0).kind));
  }
}

TEST_CASE("every member token includes its dot", "[lexer][member]") {
  std::vector<std::pair<std::string, TokenKind>> members;
#define MEMBER(Name, Spelling) members.push_back({Spelling, TokenKind::Name});
#include "lex/TokenKinds.def"
  REQUIRE(members.size() == 36);
  for (auto& [spelling, kind] : members) {
    Body b("x" + spelling + "(1)");
    INFO(spelling);
    REQUIRE(b.count() == 5);
    CHECK(b.tok(1).kind == kind);
    CHECK(b.tok(1).text == spelling);
    CHECK_FALSE(b.tok(1).leadingSpace);
  }
}

TEST_CASE("identifiers are not keywords", "[lexer][keyword]") {
  Body b("parallelx _p __lib_foo Int print2 f16x u128 __exp group4 __co_device__ infinity x_1");
  CHECK(b.kinds() ==
        "identifier identifier identifier identifier identifier identifier identifier identifier identifier "
        "identifier identifier identifier");
}

TEST_CASE("member words: longest word, otherwise period and a normal word", "[lexer][member]") {
  CHECK(Body("mma.fill.f16").kinds() == "kw_mma m_fill period ty_f16");
  CHECK(Body("sync.shared").kinds() == "kw_sync period kw_shared");
  CHECK(Body("a.span_as([4])").kinds() == "identifier m_span_as l_paren l_square int_literal r_square r_paren");
  CHECK(Body("a.span").kinds() == "identifier m_span");
  CHECK(Body("a.spanx").kinds() == "identifier period identifier");
  CHECK(Body("mma.load.frag").kinds() == "kw_mma m_load period kw_frag");
  CHECK(Body("trigger.block").kinds() == "kw_trigger period kw_block");
  CHECK(Body("dma.copy.async").kinds() == "kw_dma m_copy m_async");
  CHECK(Body("a . span").kinds() == "identifier period identifier");
  CHECK(Body("x.chunkat(p).at(0)").kinds() ==
        "identifier m_chunkat l_paren identifier r_paren m_at l_paren int_literal r_paren");
}

TEST_CASE("group-4 is one token only when written without spaces", "[lexer][keyword]") {
  CHECK(Body("group-4").kinds() == "kw_group4");
  CHECK(Body("group-4").tok(0).text == "group-4");
  CHECK(Body("group - 4").kinds() == "kw_group minus int_literal");
  CHECK(Body("group -4").kinds() == "kw_group minus int_literal");
  CHECK(Body("group- 4").kinds() == "kw_group minus int_literal");
  CHECK(Body("group-42").kinds() == "kw_group minus int_literal");
  CHECK(Body("group-4x").kinds() == "kw_group minus error");  // `4x`: bad suffix
  CHECK(Body(": group-4,").kinds() == "colon kw_group4 comma");
}

// --- punctuation ---------------------------------------------------------------

TEST_CASE("every punctuator lexes as its kind", "[lexer][punct]") {
  std::vector<std::pair<std::string, TokenKind>> puncts;
#define PUNCT(Name, Spelling) puncts.push_back({Spelling, TokenKind::Name});
#include "lex/TokenKinds.def"
  for (auto& [spelling, kind] : puncts) {
    if (spelling == "{" || spelling == "}") continue;  // change __co__ mode depth
    Body b("a " + spelling + " b");
    INFO(spelling);
    REQUIRE(b.count() == 3);
    CHECK(b.tok(1).kind == kind);
    CHECK(b.tok(1).text == spelling);
  }
}

TEST_CASE("multi-character operators take the longest match", "[lexer][punct]") {
  CHECK(Body("a<->b").kinds() == "identifier swaparrow identifier");
  CHECK(Body("a<-1").kinds() == "identifier less minus int_literal");
  CHECK(Body("a=>b").kinds() == "identifier arrow identifier");
  CHECK(Body("a===b").kinds() == "identifier equalequal equal identifier");
  CHECK(Body("a+=1").kinds() == "identifier plus equal int_literal");
  CHECK(Body("a<<=b").kinds() == "identifier lessless equal identifier");
  CHECK(Body("x::y").kinds() == "identifier coloncolon identifier");
  CHECK(Body("[??, ?]").kinds() == "l_square questionquestion comma question r_square");
  CHECK(Body("i#+j #-k #*l #/m #%n").kinds() ==
        "identifier hashplus identifier hashminus identifier hashstar identifier hashslash identifier "
        "hashpercent identifier");
  CHECK(Body("[[launch_bounds(64)]]").kinds() ==
        "l_attr identifier l_paren int_literal r_paren r_attr");
  CHECK(Body("a[b[1]]").kinds() == "identifier l_square identifier l_square int_literal r_attr");
  CHECK(Body("i++ --j a&&b|c||d^~e!f").kinds() ==
        "identifier plusplus minusminus identifier identifier ampamp identifier pipe identifier pipepipe "
        "identifier caret tilde identifier exclaim identifier");
}

TEST_CASE("#p is the extent operator, and #// starts a comment", "[lexer][punct]") {
  CHECK(Body("x = #p;").kinds() == "identifier equal hash identifier semi");
  CHECK(Body("a # b").kinds() == "identifier hash identifier");
  CHECK(Body("#p + 1").kinds() == "hash identifier plus int_literal");
  CHECK(Body("a #// comment").kinds() == "identifier hash");
}

// --- integer literals ---------------------------------------------------------

TEST_CASE("integer literals and their decoded values", "[lexer][literal]") {
  Body b("0 7 1024 0x1F 0XffU 10u 10L 10ll 10ULL 10llu 2147483648");
  CHECK(b.kinds() ==
        "int_literal int_literal int_literal int_literal int_literal int_literal int_literal int_literal "
        "int_literal int_literal int_literal");
  CHECK(b.diags().empty());
  CHECK(b.tok(3).text == "0x1F");
  CHECK(b.tok(8).text == "10ULL");
  CHECK(decodeIntLiteral(b.tok(0).text).value == 0);
  CHECK(decodeIntLiteral(b.tok(2).text).value == 1024);
  CHECK(decodeIntLiteral(b.tok(3).text).value == 31);
  auto ff = decodeIntLiteral(b.tok(4).text);
  CHECK(ff.value == 255);
  CHECK(ff.isUnsigned);
  CHECK(ff.longCount == 0);
  auto ull = decodeIntLiteral(b.tok(8).text);
  CHECK(ull.isUnsigned);
  CHECK(ull.longCount == 2);
  auto llu = decodeIntLiteral(b.tok(9).text);
  CHECK(llu.isUnsigned);
  CHECK(llu.longCount == 2);
  auto l = decodeIntLiteral(b.tok(6).text);
  CHECK_FALSE(l.isUnsigned);
  CHECK(l.longCount == 1);
  CHECK(decodeIntLiteral(b.tok(10).text).value == 2147483648ull);
}

TEST_CASE("decodeIntLiteral reports 64-bit overflow", "[lexer][literal]") {
  CHECK(decodeIntLiteral("18446744073709551615").value == 18446744073709551615ull);
  CHECK_FALSE(decodeIntLiteral("18446744073709551615").overflow);
  CHECK(decodeIntLiteral("18446744073709551616").overflow);
  CHECK(decodeIntLiteral("0xFFFFFFFFFFFFFFFF").value == ~0ull);
  CHECK_FALSE(decodeIntLiteral("0xFFFFFFFFFFFFFFFF").overflow);
  CHECK(decodeIntLiteral("0x10000000000000000").overflow);
}

TEST_CASE("an integer literal that does not fit in 64 bits is left to the parser", "[lexer][literal]") {
  Body b("x = 99999999999999999999;");
  CHECK(b.kinds() == "identifier equal int_literal semi");
  CHECK(b.diags().empty());
  CHECK(decodeIntLiteral(b.tok(2).text).overflow);
}

TEST_CASE("octal-looking integer literals are errors with a hint", "[lexer][literal][diag]") {
  Body b("a = 017;\nb = 09;\nc = 00;\nd = 0;");
  CHECK(b.kinds() ==
        "identifier equal error semi identifier equal error semi identifier equal error semi identifier equal "
        "int_literal semi");
  REQUIRE(b.diags().size() == 3);
  CHECK(b.diags()[0].kind == DiagKind::err_octal_literal);
  CHECK(b.diags()[0].message == "octal literals are not supported: `017` has a leading `0`");
  CHECK(b.diags()[0].hint == "write `17`, or `15` for the octal value");
  CHECK(b.pos(b.diags()[0].loc) == "2:5");
  CHECK(b.diags()[1].hint == "write `9`");
  CHECK(b.diags()[2].hint == "write `0`");
}

TEST_CASE("invalid integer suffixes are errors", "[lexer][literal][diag]") {
  Body b("10f 12abc 0x1g 10lll 10uu");
  CHECK(b.kinds() == "error error error error error");
  REQUIRE(b.diags().size() == 5);
  for (const Diagnostic& d : b.diags()) CHECK(d.kind == DiagKind::err_invalid_int_suffix);
  CHECK(b.diags()[0].message == "invalid suffix `f` on integer literal `10f`");
  CHECK(b.diags()[0].hint == "write `10.0f` for an `f32` literal");
  CHECK(b.diags()[1].message == "invalid suffix `abc` on integer literal `12abc`");
  CHECK(b.diags()[2].message == "invalid suffix `g` on integer literal `0x1g`");
  CHECK(b.pos(b.diags()[1].loc) == "2:5");
}

TEST_CASE("a hex literal without digits is an error", "[lexer][literal][diag]") {
  Body b("0x + 0xZ");
  CHECK(b.kinds() == "error plus error");
  REQUIRE(b.lexed.diagKinds() == std::vector<std::string>{"err_hex_no_digits", "err_hex_no_digits"});
  CHECK(b.diags()[1].message == "hexadecimal literal `0xZ` has no digits");
}

// --- floating literals --------------------------------------------------------

TEST_CASE("floating literals and their decoded values", "[lexer][literal]") {
  Body b("1.5 2.0f 0.25F 100.125 inf 007.5");
  CHECK(b.kinds() == "float_literal float_literal float_literal float_literal kw_inf float_literal");
  CHECK(b.diags().empty());
  CHECK(decodeFloatLiteral(b.tok(0).text).value == 1.5);
  CHECK_FALSE(decodeFloatLiteral(b.tok(0).text).isF32);
  CHECK(decodeFloatLiteral(b.tok(1).text).value == 2.0);
  CHECK(decodeFloatLiteral(b.tok(1).text).isF32);
  CHECK(decodeFloatLiteral(b.tok(2).text).isF32);
  CHECK(decodeFloatLiteral(b.tok(3).text).value == 100.125);
  CHECK(decodeFloatLiteral(b.tok(5).text).value == 7.5);
}

TEST_CASE("decodeFloatLiteral handles signs and inf", "[lexer][literal]") {
  CHECK(decodeFloatLiteral("-2.0").value == -2.0);
  CHECK(decodeFloatLiteral("-2.5f").isF32);
  CHECK(decodeFloatLiteral("-2.5f").value == -2.5);
  CHECK(std::isinf(decodeFloatLiteral("inf").value));
  CHECK(decodeFloatLiteral("inf").value > 0);
  CHECK(decodeFloatLiteral("-inf").value < 0);
  CHECK_FALSE(decodeFloatLiteral("inf").isF32);
  CHECK(decodeFloatLiteral("0.1").value == 0.1);
}

TEST_CASE("a minus sign is never part of a literal", "[lexer][literal]") {
  CHECK(Body("-1").kinds() == "minus int_literal");
  CHECK(Body("-2.0f").kinds() == "minus float_literal");
  CHECK(Body("{-inf}").kinds() == "l_brace minus kw_inf r_brace");
  CHECK(Body("a-1").kinds() == "identifier minus int_literal");
}

TEST_CASE("exponent floats are errors whose hint spells the value out", "[lexer][literal][diag]") {
  Body b("1e-5 2.5e3f 1E5 3.0e+2 1.e5");
  CHECK(b.kinds() == "error error error error error");
  REQUIRE(b.diags().size() == 5);
  CHECK(b.diags()[0].kind == DiagKind::err_float_exponent);
  CHECK(b.diags()[0].message == "floating literals have no exponent form: `1e-5`");
  CHECK(b.diags()[0].hint == "write `0.00001`");
  CHECK(b.diags()[1].hint == "write `2500.0f`");
  CHECK(b.diags()[2].hint == "write `100000.0`");
  CHECK(b.diags()[3].hint == "write `300.0`");
  CHECK(b.diags()[4].hint == "write `100000.0`");
  CHECK(b.pos(b.diags()[1].loc) == "2:6");
}

TEST_CASE("floats without an integer part or a fraction are errors", "[lexer][literal][diag]") {
  Body b("a = .5;\nb = 1.;\nc = 2.f;\nd = .25f;");
  CHECK(b.kinds() ==
        "identifier equal error semi identifier equal error semi identifier equal error semi identifier equal "
        "error semi");
  REQUIRE(b.lexed.diagKinds() == std::vector<std::string>{"err_float_missing_integer", "err_float_missing_fraction",
                                                          "err_float_missing_fraction", "err_float_missing_integer"});
  CHECK(b.diags()[0].hint == "write `0.5`");
  CHECK(b.diags()[1].message == "`1.` is not a floating literal: digits must follow the `.`");
  CHECK(b.diags()[1].hint == "write `1.0`");
  CHECK(b.diags()[2].hint == "write `2.0f`");
  CHECK(b.diags()[3].hint == "write `0.25f`");
  CHECK(b.pos(b.diags()[1].loc) == "3:5");
}

TEST_CASE("invalid floating suffixes are errors", "[lexer][literal][diag]") {
  Body b("1.5q 2.0ff");
  CHECK(b.kinds() == "error error");
  REQUIRE(b.lexed.diagKinds() == std::vector<std::string>{"err_invalid_float_suffix", "err_invalid_float_suffix"});
  CHECK(b.diags()[1].message == "invalid suffix `ff` on floating literal `2.0ff`");
}

TEST_CASE("an integer before a member word stays an integer", "[lexer][literal]") {
  CHECK(Body("1.x").kinds() == "int_literal period identifier");
  CHECK(Body("1.span").kinds() == "int_literal m_span");
}

// --- strings -------------------------------------------------------------------

TEST_CASE("string literals keep their quotes and decode escapes", "[lexer][string]") {
  Body b(R"(print("a\tb\n", "q\"\\", "\0\'\r\x41" "x");)");
  CHECK(b.kinds() == "kw_print l_paren string_literal comma string_literal comma string_literal string_literal r_paren semi");
  CHECK(b.diags().empty());
  CHECK(b.tok(2).text == R"("a\tb\n")");
  CHECK(decodeStringLiteral(b.tok(2)) == "a\tb\n");
  CHECK(decodeStringLiteral(b.tok(4)) == "q\"\\");
  CHECK(decodeStringLiteral(b.tok(6)) == std::string("\0'\rA", 4));
  CHECK(decodeStringLiteral(b.tok(7)) == "x");
  CHECK(decodeStringLiteral(makeToken(TokenKind::string_literal, "\"\"")) == "");
}

TEST_CASE("comment markers and braces inside strings are text", "[lexer][string]") {
  Body b(R"(print("// { /* } */");)");
  CHECK(b.kinds() == "kw_print l_paren string_literal r_paren semi");
  CHECK(decodeStringLiteral(b.tok(2)) == "// { /* } */");
}

TEST_CASE("an unterminated string is an error at its opening quote", "[lexer][string][diag]") {
  Body b("print(\"abc);\nx = 1;");
  CHECK(b.kinds() == "kw_print l_paren error identifier equal int_literal semi");
  REQUIRE(b.lexed.diagKinds() == std::vector<std::string>{"err_unterminated_string"});
  CHECK(b.pos(b.diags()[0].loc) == "2:7");
  CHECK(b.tok(2).text == "\"abc);");
}

TEST_CASE("bad escapes in strings are reported", "[lexer][string][diag]") {
  Body b(R"("\q" "\x" "\x123" "\x0041")");
  CHECK(b.kinds() == "string_literal string_literal string_literal string_literal");
  REQUIRE(b.lexed.diagKinds() ==
          std::vector<std::string>{"warn_unknown_escape", "err_hex_escape_no_digits", "err_hex_escape_out_of_range"});
  CHECK(b.diags()[0].severity == Severity::Warning);
  CHECK(b.diags()[0].message == "unknown escape sequence `\\q` in string literal");
  CHECK(b.pos(b.diags()[0].loc) == "2:2");
  CHECK(b.diags()[2].message == "hex escape sequence `\\x123` does not fit in a byte");
  CHECK(decodeStringLiteral(b.tok(0)) == "q");
  CHECK(decodeStringLiteral(b.tok(3)) == "A");
}

TEST_CASE("raw strings", "[lexer][string]") {
  Body b("__cpp__(R\"(int a = \"x\"; })\");\n__cpp__(R\"cu(a )\" b\n c)cu\");");
  CHECK(b.kinds() == "kw_cpp l_paren raw_string_literal r_paren semi kw_cpp l_paren raw_string_literal r_paren semi");
  CHECK(b.diags().empty());
  CHECK(decodeStringLiteral(b.tok(2)) == "int a = \"x\"; }");
  CHECK(decodeStringLiteral(b.tok(7)) == "a )\" b\n c");
  CHECK(b.tok(7).text == "R\"cu(a )\" b\n c)cu\"");
}

TEST_CASE("raw string errors", "[lexer][string][diag]") {
  SECTION("unterminated") {
    Lexed l("__co__ void f() {\n  __cpp__(R\"x(never closed)\");\n}\n");
    CHECK(l.kinds() == "kw_co kw_void identifier l_paren r_paren l_brace kw_cpp l_paren error");
    REQUIRE(l.diagKinds() == std::vector<std::string>{"err_unterminated_raw_string"});
    CHECK(l.pos(l.diags()[0].loc) == "2:11");
  }
  SECTION("bad delimiter") {
    Body b("__cpp__(R\"a b(x)a b\");");
    REQUIRE(b.lexed.diagKinds().at(0) == "err_raw_string_bad_delimiter");
    CHECK(b.diags()[0].message == "invalid raw string delimiter `a b`");
    CHECK(b.tok(2).is(TokenKind::error));
  }
}

// --- comments, directives, spacing ----------------------------------------------

TEST_CASE("comments are skipped in __co__ code", "[lexer][comment]") {
  Body b("a // b c\n/* d\n e */ f/**/g");
  CHECK(b.kinds() == "identifier identifier identifier");
  CHECK(b.tok(1).leadingSpace);
  CHECK(b.tok(2).leadingSpace);
}

TEST_CASE("an unterminated block comment is an error at its start", "[lexer][comment][diag]") {
  Lexed l("__co__ void f() {\n  x; /* open\n");
  CHECK(l.kinds() == "kw_co kw_void identifier l_paren r_paren l_brace identifier semi");
  REQUIRE(l.diagKinds() == std::vector<std::string>{"err_unterminated_block_comment"});
  CHECK(l.pos(l.diags()[0].loc) == "2:6");
}

TEST_CASE("directive lines in __co__ code are single tokens", "[lexer][directive]") {
  Body b("#define N 4\n  # pragma unroll\n#define LONG(a) \\\n  a + 1\n#if N\n#endif\nx = #p;\n#p + 1;");
  CHECK(b.kinds() == "directive directive directive directive directive identifier equal hash identifier semi hash "
                     "identifier plus int_literal semi");
  CHECK(b.tok(0).text == "#define N 4");
  CHECK(b.tok(1).text == "# pragma unroll");
  CHECK(b.tok(2).text == "#define LONG(a) \\\n  a + 1");
  CHECK(b.tok(3).text == "#if N");
}

TEST_CASE("a directive line with braces does not change the __co__ depth", "[lexer][directive]") {
  Lexed l("__co__ void f() {\n#define OPEN {\n}\nint x;\n");
  CHECK(l.kinds() == "kw_co kw_void identifier l_paren r_paren l_brace directive r_brace host_text");
}

TEST_CASE("leadingSpace marks whitespace, comments and line starts", "[lexer][space]") {
  Body b("print!(a,b) x\ny/**/z");
  REQUIRE(b.count() == 10);
  CHECK(b.tok(0).leadingSpace);        // starts a line
  CHECK_FALSE(b.tok(1).leadingSpace);  // !
  CHECK_FALSE(b.tok(2).leadingSpace);  // (
  CHECK_FALSE(b.tok(5).leadingSpace);  // b
  CHECK(b.tok(7).leadingSpace);        // x
  CHECK(b.tok(8).leadingSpace);        // y, new line
  CHECK(b.tok(9).leadingSpace);        // z after a comment
}

TEST_CASE("token locations are line:col in the original buffer", "[lexer][loc]") {
  Lexed l("int a;\n__co__ void f(int n) {\n  parallel p by 8 {\n    x = 1.5f;\n  }\n}\n");
  const std::vector<Token>& t = l.toks;
  CHECK(l.pos(t[0].loc) == "1:1");
  CHECK(l.pos(t[0].endLoc) == "2:1");
  CHECK(l.pos(t[1].loc) == "2:1");
  CHECK(l.pos(t[1].endLoc) == "2:7");
  auto find = [&](llvm::StringRef text) -> const Token& {
    for (const Token& tok : t)
      if (tok.text == text) return tok;
    FAIL("no token " << text.str());
    return t[0];
  };
  CHECK(l.pos(find("parallel").loc) == "3:3");
  CHECK(l.pos(find("parallel").endLoc) == "3:11");
  CHECK(l.pos(find("1.5f").loc) == "4:9");
  CHECK(l.pos(find("1.5f").endLoc) == "4:13");
  CHECK(l.pos(t.back().loc) == "7:1");
}

TEST_CASE("tokens from a macro expansion start and end at the macro's use", "[lexer][loc]") {
  // Original: "__co__ void f() { x = N; }" with N expanding to "4 + 1".
  llvm::SourceMgr sm;
  CollectingConsumer consumer;
  DiagnosticEngine engine(sm, consumer);
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy("__co__ void f() { x = N; }", "m.co");
  const char* orig = buffer->getBufferStart();
  sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  PreprocessedSource pp;
  pp.text = "__co__ void f() { x = 4 + 1; }";
  pp.segments = {{0, orig, false}, {22, orig + 22, true}, {27, orig + 23, false}};
  std::vector<Token> toks = lex(pp, engine);
  REQUIRE(toks.size() == 14);
  for (size_t i : {8, 9, 10}) {
    INFO(toks[i].text.str());
    CHECK(toks[i].loc.getPointer() == orig + 22);
    CHECK(toks[i].endLoc.getPointer() == orig + 22);
  }
  CHECK(toks[11].is(TokenKind::semi));
  CHECK(toks[11].loc.getPointer() == orig + 23);
  CHECK(toks[11].endLoc.getPointer() == orig + 24);
}

TEST_CASE("CRLF line endings", "[lexer][space]") {
  Lexed l("int a;\r\n__co__ void f() {\r\n#define X 1\r\n  x = 1;\r\n}\r\n");
  CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace directive identifier equal "
                     "int_literal semi r_brace host_text");
  CHECK(l.text(7) == "#define X 1");
  CHECK(l.diags().empty());
}

// --- invalid characters ----------------------------------------------------------

TEST_CASE("invalid characters: one error per run, lexing goes on", "[lexer][diag]") {
  Body b("a $ b @@ c `d`");
  CHECK(b.kinds() == "identifier error identifier error identifier error identifier error");
  REQUIRE(b.diags().size() == 4);
  for (const Diagnostic& d : b.diags()) CHECK(d.kind == DiagKind::err_invalid_char);
  CHECK(b.diags()[0].message == "invalid character `$` in `__co__` code");
  CHECK(b.diags()[1].message == "invalid characters `@`, `@` in `__co__` code");
  CHECK(b.pos(b.diags()[0].loc) == "2:3");
  CHECK(b.pos(b.diags()[1].loc) == "2:7");
  CHECK(b.tok(3).text == "@@");
}

TEST_CASE("invalid non-ASCII, NUL and quote characters", "[lexer][diag]") {
  SECTION("typographic quotes") {
    Body b("print(\xE2\x80\x9Chi\xE2\x80\x9D);");
    CHECK(b.kinds() == "kw_print l_paren error identifier error r_paren semi");
    REQUIRE(b.diags().size() == 2);
    CHECK(b.diags()[0].message == "invalid character U+201C in `__co__` code");
    CHECK(b.diags()[0].hint == "replace the typographic quote with a plain `\"`");
  }
  SECTION("NUL and invalid UTF-8") {
    Body b(std::string("a \0\xFF b", 6));
    CHECK(b.kinds() == "identifier error identifier");
    REQUIRE(b.diags().size() == 1);
    CHECK(b.diags()[0].message == "invalid characters U+0000, byte 0xFF in `__co__` code");
  }
  SECTION("char literal quote") {
    Body b("x = 'a';");
    CHECK(b.kinds() == "identifier equal error identifier error semi");
    CHECK(b.diags()[0].hint.find("character literals") == 0);
  }
  SECTION("backslash") {
    Body b("a \\ b");
    CHECK(b.kinds() == "identifier error identifier");
  }
  SECTION("a long run is shortened") {
    Body b("$$$$$$$$$$");
    REQUIRE(b.diags().size() == 1);
    CHECK(b.diags()[0].message == "invalid characters `$`, `$`, `$`, `$`, `$`, `$` and 4 more in `__co__` code");
  }
}

TEST_CASE("every lexer diagnostic kind has a message without a final period", "[lexer][diag]") {
  for (const DiagKindInfo& info : allDiagKinds()) {
    std::string msg = info.message;
    INFO(info.name);
    REQUIRE(!msg.empty());
    CHECK(msg.back() != '.');
  }
}

// --- robustness and speed ---------------------------------------------------------

TEST_CASE("binary garbage neither crashes nor hangs", "[lexer][robust]") {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    std::string s(1 + rng() % 400, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    if (round % 2) s = "__co__ void f() {" + s;
    if (round % 3 == 0) s = "x;\n" + s;
    Lexed l(s);
    REQUIRE(!l.toks.empty());
    CHECK(l.toks.back().is(TokenKind::eof));
    size_t covered = 0;
    for (const Token& t : l.toks) covered += t.text.size();
    CHECK(covered <= s.size());
  }
}

TEST_CASE("random token soup neither crashes nor hangs", "[lexer][robust]") {
  const char* pieces[] = {"__co__", "__device__", "__cok__", "__co_device__", "{", "}", ";", "\"", "'", "R\"x(",
                          ")x\"", "/*", "*/", "//", "\n", "#", "#define", "\\", "1.", ".5", "0x", "1e5", "group-4",
                          ".span", "$", " ", "(", ")", "\xE2\x80", "a"};
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::string s;
    for (int i = 0, n = rng() % 60; i < n; ++i) s += pieces[rng() % (sizeof(pieces) / sizeof(*pieces))];
    Lexed l(s);
    CHECK(l.toks.back().is(TokenKind::eof));
    for (const Token& t : l.toks) {
      CHECK(t.loc.isValid());
      CHECK(t.endLoc.getPointer() >= t.loc.getPointer());
    }
  }
}

TEST_CASE("a 1 MB line and 10,000 nested braces", "[lexer][robust]") {
  SECTION("long host line") {
    Lexed l(std::string(1 << 20, 'x') + "\n__co__ void f() {}\n");
    CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  }
  SECTION("long __co__ line") {
    std::string line;
    for (int i = 0; i < 100000; ++i) line += "a+1.5 ";
    Body b(line);
    CHECK(b.count() == 300000);
  }
  SECTION("nested braces in __co__") {
    std::string body = std::string(10000, '{') + std::string(10000, '}');
    Lexed l("__co__ void f() {" + body + "}\nint x;\n");
    CHECK(l.toks.size() == 6 + 20000 + 1 + 2);
    CHECK(l.toks[l.toks.size() - 2].is(TokenKind::host_text));
  }
  SECTION("nested braces in host and device code") {
    std::string nest = std::string(10000, '{') + std::string(10000, '}');
    Lexed l("int a = " + nest + ";\n__device__ void g() " + nest + "\n__co__ void f() {}\n");
    CHECK(l.kinds() == "host_text device_text host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  }
  SECTION("unbalanced closing braces in host code") {
    Lexed l("}}}}\n__co__ void f() {}\n");
    CHECK(l.kinds() == "host_text kw_co kw_void identifier l_paren r_paren l_brace r_brace host_text");
  }
}

TEST_CASE("a 2,000-line file lexes in well under 5 ms", "[lexer][perf]") {
  std::string src = "#include <cstdio>\n// a host comment with { braces }\nint helper(int x) { return x + 1; }\n";
  src += "__co__ void kernel(global f16 [M, K] lhs, global f16 [N, K] rhs, global f32 [M, N] out) {\n";
  while (std::count(src.begin(), src.end(), '\n') < 1990) {
    src +=
        "  parallel {bm, bn} by [cdiv(M, 64), cdiv(N, 64)] : block {\n"
        "    shared f16 [64, 32] ls; // tile\n"
        "    foreach k in [cdiv(K, 32)] {\n"
        "      dma.copy.async lhs.chunkat(bm, k) => ls;\n"
        "      mc = mma.fill.f32 0.0f;\n"
        "      mma.row.col mc, ma, mb;\n"
        "    }\n"
        "    mma.store mc, out.subspan(64, 64).at(bm, bn);\n"
        "  }\n";
  }
  src += "}\nint main() { return 0; }\n";
  double best = 1e9;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    Lexed l(src);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    best = std::min(best, ms);
    REQUIRE(l.diags().empty());
  }
  INFO("best of 5: " << best << " ms");
#if defined(NDEBUG) && !defined(LEXER_TEST_SANITIZED)
  CHECK(best < 5.0);
#else
  WARN("unoptimised build: " << best << " ms, not checked");
#endif
}
