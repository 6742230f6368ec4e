// Unit tests of the parser: precedence, every statement form, drift
// spellings, error recovery and robustness.
#include <catch2/catch.hpp>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "ast/AST.h"
#include "ast/ASTDumper.h"
#include "basic/Diagnostic.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "preprocess/Preprocessor.h"

using namespace croqc;

namespace {

struct ParseResult {
  std::string dump;
  std::string diagnostics;
  unsigned errors = 0;
};

ParseResult parseSource(const std::string& source) {
  llvm::SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, "t.co"), llvm::SMLoc());
  ParseResult r;
  llvm::raw_string_ostream diagOS(r.diagnostics);
  auto consumer = makeTextConsumer(sm, diagOS, false);
  DiagnosticEngine diags(sm, *consumer);
  PreprocessedSource pp;
  preprocess(id, {}, diags, pp);
  std::vector<Token> tokens = lex(pp, diags);
  ast::ASTContext ctx;
  ast::Program* program = parseProgram(tokens, ctx, diags);
  llvm::raw_string_ostream dumpOS(r.dump);
  ast::dumpAST(*program, sm, dumpOS);
  r.errors = diags.errorCount();
  return r;
}

/// Parses `body` as the body of a `__co__` function and returns the dump.
ParseResult parseBody(const std::string& body) {
  return parseSource("__co__ void f(global f16 [M, K] a, global f16 [N, K] b, global f16 [M, N] c) {\n" + body +
                     "\n}\n");
}

/// The dump of a single expression, written as the value of a binding.
std::string exprDump(const std::string& expr) {
  ParseResult r = parseBody("x = " + expr + ";");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  size_t at = r.dump.find("AssignStmt");
  REQUIRE(at != std::string::npos);
  size_t eq = r.dump.find(" = ", at);
  size_t end = r.dump.find('\n', eq);
  return r.dump.substr(eq + 3, end - eq - 3);
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("bitwise operators bind tighter than arithmetic and comparison", "[parser][expr]") {
  CHECK(exprDump("a & 3 == 0") == "((a & 3) == 0)");
  CHECK(exprDump("a + b & c") == "(a + (b & c))");
  CHECK(exprDump("a * b + c * d") == "((a * b) + (c * d))");
  CHECK(exprDump("a - b - c") == "((a - b) - c)");
  CHECK(exprDump("a < b && c >= d || e") == "(((a < b) && (c >= d)) || e)");
  CHECK(exprDump("a << 2 + 1") == "(a << (2 + 1))");
}

TEST_CASE("compose and extent", "[parser][expr]") {
  CHECK(exprDump("block_m # thr_m") == "(block_m # thr_m)");
  CHECK(exprDump("#p * 2") == "((#p) * 2)");
  CHECK(exprDump("a # b # c") == "((a # b) # c)");
  CHECK(exprDump("128 / #tile") == "(128 / (#tile))");
  CHECK(exprDump("a #+ b #* c") == "(a #+ (b #* c))");
}

TEST_CASE("negative literals and unary operators", "[parser][expr]") {
  CHECK(exprDump("-1") == "-1");
  CHECK(exprDump("-2.0f") == "-2.0f");
  CHECK(exprDump("-inf") == "-inf");
  CHECK(exprDump("0 - x") == "(0 - x)");
  CHECK(exprDump("!ok") == "(!ok)");
  CHECK(exprDump("~m") == "(~m)");
  CHECK(exprDump("c ? a : b ? d : e") == "(c ? a : (b ? d : e))");
}

TEST_CASE("views, members and element access", "[parser][expr]") {
  CHECK(exprDump("lhs.subspan(64, 16).at(i, k)") == "lhs.subspan(64, 16).at(i, k)");
  CHECK(exprDump("lhs.chunkat(_, iv)") == "lhs.chunkat(_, iv)");
  CHECK(exprDump("x.view(17, 3 : 7, 2).from(1, 2)") == "x.view(17, 3 : 7, 2).from(1, 2)");
  CHECK(exprDump("f.data.at(i)") == "f.data.at(i)");
  CHECK(exprDump("x.span(0)") == "x.span(0)");
  CHECK(exprDump("q.span[(0) / 2, (1) + 1]") == "q.span[(0 / 2), (1 + 1)]");
  CHECK(exprDump("Q.subspan(1, S, 1, D).at(b, 0, h, 0).sqz()") == "Q.subspan(1, S, 1, D).at(b, 0, h, 0).sqz()");
  CHECK(exprDump("buf[stage].chunkat(_, w)") == "buf[stage].chunkat(_, w)");
  CHECK(exprDump("v_buf[bn == 0 ? stage : prev]") == "v_buf[((bn == 0) ? stage : prev)]");
  CHECK(exprDump("y(1:-1:2)") == "y(1:-1:2)");
}

TEST_CASE("calls, casts, sizes and tuples", "[parser][expr]") {
  CHECK(exprDump("cdiv(M, 64)") == "cdiv(M, 64)");
  CHECK(exprDump("call warp_topk<8, f32>(&x.at(0), |v.span|)") == "call warp_topk<8, f32>((&x.at(0)), |v.span|)");
  CHECK(exprDump("call croq::cuda::setreg_dec(24)") == "call croq::cuda::setreg_dec(24)");
  CHECK(exprDump("__to<f32>(i)") == "__to<f32>(i)");
  CHECK(exprDump("__to<\"__fp16*\">(nullptr)") == "__to<\"__fp16*\">(nullptr)");
  CHECK(exprDump("|f16|") == "|f16|");
  CHECK(exprDump("|a & b|") == "|(a & b)|");
  CHECK(exprDump("{1, {2, 3}}") == "{1, {2, 3}}");
  CHECK(exprDump("[N, H, W] / {#q, 16, 512}") == "([N, H, W] / {(#q), 16, 512})");
  CHECK(exprDump("__max(a, 0.0f)") == "__max(a, 0.0f)");
  CHECK(exprDump("select(#y % 2, lfB, lfA)") == "select(((#y) % 2), lfB, lfA)");
}

TEST_CASE("compound assignment is an operator followed by =", "[parser][stmt]") {
  ParseResult r = parseBody("mutable int acc = 0; acc += 1; acc <<= 2; out.at(i, j) -= a.at(i) * b.at(j);");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "AssignStmt <2:22> acc += 1"));
  CHECK(contains(r.dump, "acc <<= 2"));
  CHECK(contains(r.dump, "out.at(i, j) -= (a.at(i) * b.at(j))"));
}

TEST_CASE("the seed single-warp kernel parses", "[parser][seed]") {
  ParseResult r = parseSource(R"(#define MATMUL_TILE_M 16
#define MATMUL_TILE_N 16
#define MATMUL_TILE_K 16
#define MATMUL_MMA_M 16
#define MATMUL_MMA_N 16
#define MATMUL_MMA_K 16
__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, MATMUL_TILE_M), cdiv(N, MATMUL_TILE_N)] : block {
    shared f16 [MATMUL_TILE_M, MATMUL_TILE_N] output_s;
    parallel {warp_m, warp_n} by [cdiv(MATMUL_TILE_M, MATMUL_MMA_M), cdiv(MATMUL_TILE_N, MATMUL_MMA_N)] : group {
      mc = mma.fill 0.0;
      foreach {iv_k} in [cdiv(K, MATMUL_TILE_K)] {
        lhs_load_s = dma.copy lhs.subspan(MATMUL_TILE_M, MATMUL_TILE_K).at(block_m, iv_k) => shared;
        rhs_load_s = dma.copy rhs.subspan(MATMUL_TILE_N, MATMUL_TILE_K).at(block_n, iv_k) => shared;
        foreach iv_warp_k in [cdiv(MATMUL_TILE_K, MATMUL_MMA_K)] {
          ma = mma.load lhs_load_s.chunkat(warp_m, iv_warp_k);
          mb = mma.load rhs_load_s.chunkat(warp_n, iv_warp_k);
          mma.row.row mc, ma, mb;
        }
      }
      mma.store mc, output_s.subspan(MATMUL_MMA_M, MATMUL_MMA_N).at(warp_m, warp_n);
    }
    dma.copy output_s => output.subspan(MATMUL_TILE_M, MATMUL_TILE_N).at(block_m, block_n);
  }
}
)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "CoFunction <7:1> matmul -> void"));
  CHECK(contains(r.dump, "Param <7:20> global f16 [M, K] lhs"));
  CHECK(contains(r.dump, "Binding <8:12> {block_m, block_n} by [cdiv(M, 16), cdiv(N, 16)] : block"));
  CHECK(contains(r.dump, "DmaStmt <13:9> dma.copy future=lhs_load_s"));
  CHECK(contains(r.dump, "to: shared"));
  CHECK(contains(r.dump, "MmaExecStmt <18:11> row.row"));
  CHECK(contains(r.dump, "MmaFillStmt <11:7> result=mc"));
}

TEST_CASE("parallel forms", "[parser][stmt]") {
  ParseResult r = parseBody(R"(
[[launch_bounds(_, 1)]] [[maxnreg(168)]]
parallel.async<s> idx = {p, q} by [4, 8] : block(tag), t by 128 : thread { yield; }
parallel by 2 : group-4 parallel t by 128 : thread { sync.shared; }
parallel b by 8 : block<cooperative> { sync.barrier : device; })");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "ParallelStmt <3:1> async stream=s"));
  CHECK(contains(r.dump, "Attribute <3:1> launch_bounds(_, 1)"));
  CHECK(contains(r.dump, "Attribute <3:25> maxnreg(168)"));
  CHECK(contains(r.dump, "Binding <4:19> idx = {p, q} by [4, 8] : block(tag)"));
  CHECK(contains(r.dump, "Binding <4:56> t by 128 : thread"));
  CHECK(contains(r.dump, "by 2 : group-4"));
  CHECK(contains(r.dump, "b by 8 : block <cooperative>"));
  CHECK(contains(r.dump, "SyncStmt <6:40> barrier : device"));
}

TEST_CASE("iteration forms", "[parser][stmt]") {
  ParseResult r = parseBody(R"(
with idx = {x, y} in [10, 10], k in [K] where x <-> k { }
foreach tile_k(1:) { }
foreach y(1:-1:2), c = z(::2) : unroll(4), vectorize(y, 4) { }
foreach {m, n, k} in [a, b, c] : unroll { }
foreach i in 128 { break; continue; }
while (i < 4) i = i + 1;
apply {i, j} in acc.span { acc.at(i, j) = -inf; })");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "Binding <3:6> idx = {x, y} in [10, 10]"));
  CHECK(contains(r.dump, "Where <3:47> x <-> k"));
  CHECK(contains(r.dump, "Binding <4:9> tile_k range(1:)"));
  CHECK(contains(r.dump, "ForeachStmt <5:1> unroll(4) vectorize(y, 4)"));
  CHECK(contains(r.dump, "Binding <5:20> c = z range(::2)"));
  CHECK(contains(r.dump, "ApplyStmt <9:1> {i, j} in acc.span"));
}

TEST_CASE("copy statements in both spellings", "[parser][dma]") {
  ParseResult r = parseBody(R"(
f = dma.copy.async.swiz<128>.zfill lhs.view(WM, TK).from(r, k) => sA.subspan(rows, TK);
g = tma.copy.async<full[s]>.swiz<3> lhs.subspan(64, 64).at(m, k) => lhs_s[s];
tma.copy.swiz<3> lhs.subspan(WM, TK).at(bm, k).zfill => lhs_s;
h = tma.load.async.evict_first.swiz<128> a.chunkat(i) => shared after f;
dma.transp<0, 2, 1> x => y;
dma.pad<{1, 0, 3}, {0, 1, 2}, {0, 0, 0}, 0> x => local;
lf = dma.any;
w = dma.copy.sp<2:4> x => z;)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "dma.copy future=f async .swiz<128> .zfill"));
  CHECK(contains(r.dump, "tma.copy future=g async event=full[s] .swiz<3>"));
  CHECK(contains(r.dump, "tma.copy .swiz<3> .zfill"));
  CHECK(contains(r.dump, "after: f"));
  CHECK(contains(r.dump, "config: 0, 2, 1"));
  CHECK(contains(r.dump, "to: local"));
  CHECK(contains(r.dump, "dma.any future=lf"));
  CHECK(contains(r.dump, ".sp<2, 4>"));
}

TEST_CASE("MMA statements", "[parser][mma]") {
  ParseResult r = parseBody(R"(
mc = mma.fill.f32 0.0f;
mma.fill mc, 0.0f;
ma = mma.load.frag.swiz<128> lhs_s.chunkat(_, iv);
mma.load lhs_s, ma;
[[schedule(k_tiles(1, 0))]] mma.row.col mc, ma, mb;
q = mma.row.row.async acc, q_s, k_s;
mma.row.row.sp mc, ma, mb, me;
mma.row.row.scale mc, ma, mb, sa.view(64, 1).from(r, k), sb;
mma.store.transp mc, out_s;
mma.store.mask mc, out, rows, cols;
mma.scale mc, sa, sb;
mma.commit;
mma.wait<1>;)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "MmaFillStmt <3:1> result=mc type=f32"));
  CHECK(contains(r.dump, "acc: mc"));
  CHECK(contains(r.dump, "MmaLoadStmt <5:1> result=ma frag swiz<128>"));
  CHECK(contains(r.dump, "into: ma"));
  CHECK(contains(r.dump, "Attribute <7:1> schedule k_tiles(1, 0)"));
  CHECK(contains(r.dump, "MmaExecStmt <7:1> row.col"));
  CHECK(contains(r.dump, "row.row async result=q"));
  CHECK(contains(r.dump, "row.row sp"));
  CHECK(contains(r.dump, "extra: sa.view(64, 1).from(r, k), sb"));
  CHECK(contains(r.dump, "MmaStoreStmt <11:1> transp"));
  CHECK(contains(r.dump, "mask: rows, cols"));
  CHECK(contains(r.dump, "MmaCommitStmt <14:1>"));
  CHECK(contains(r.dump, "MmaWaitStmt <15:1> 1"));
}

TEST_CASE("declarations", "[parser][decl]") {
  ParseResult r = parseBody(R"(
int a = 1, b = 2;
mutable int sum = 0;
f16 acc = 0.0f;
s32 r;
sp : [7, 8];
mdspan<2> q : [M, N];
ituple t = {1, 2};
shared f16 [64, 64] ring[STAGES];
local s32 [K] v {-1};
frag f32 [64] m {-inf};
shared event full[2], empty[2] = ready;
f32 [lhs.span] out;)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "ScalarDeclStmt <3:1> int"));
  CHECK(contains(r.dump, "Declarator <3:12> b = 2"));
  CHECK(contains(r.dump, "ScalarDeclStmt <4:1> mutable int"));
  CHECK(contains(r.dump, "MdspanDeclStmt <7:1> sp : [7, 8]"));
  CHECK(contains(r.dump, "MdspanDeclStmt <8:1> q rank=2 : [M, N]"));
  CHECK(contains(r.dump, "ItupleDeclStmt <9:1> t = {1, 2}"));
  CHECK(contains(r.dump, "SpannedDeclStmt <10:1> shared f16 [64, 64]"));
  CHECK(contains(r.dump, "Declarator <10:21> ring[STAGES]"));
  CHECK(contains(r.dump, "Declarator <11:15> v {-1}"));
  CHECK(contains(r.dump, "FragDeclStmt <12:1> f32 [64]"));
  CHECK(contains(r.dump, "Declarator <13:23> empty[2] = ready"));
}

TEST_CASE("events, futures and control", "[parser][stmt]") {
  ParseResult r = parseBody(R"(
wait full[stage];
trigger empty[s], full[s] after f0, f1;
trigger full.at(order++);
swap(lf0, lf1);
rotate a, b, c;
inthreads.async (p1 == 0 && t == 0) { }
if (call pred(x)) return; else { }
__cpp__(R"x(asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");)x");
asm volatile("mov.u32 %0, %1;" : "=r"(x) : "r"(y) : "memory");
__asm__("bar.sync 1, 256;" ::: "memory");
print!("b.span = ", b.span);
println("x=", x);
assert(M % 16 == 0, "M must be a multiple of 16");
reduce_max(m, acc, 1);
all_reduce_sum(l);
copy(dst, src);)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "TriggerStmt <4:1> empty[s], full[s] after f0, f1"));
  CHECK(contains(r.dump, "full.at((order++))"));
  CHECK(contains(r.dump, "SwapStmt <6:1> swap lf0, lf1"));
  CHECK(contains(r.dump, "SwapStmt <7:1> rotate a, b, c"));
  CHECK(contains(r.dump, "InthreadsStmt <8:1> async ((p1 == 0) && (t == 0))"));
  CHECK(contains(r.dump, "IfStmt <9:1> call pred(x)"));
  CHECK(contains(r.dump, "CppStmt <10:1> \"asm volatile"));
  CHECK(contains(r.dump, "out: \"=r\" (x)"));
  CHECK(contains(r.dump, "clobber: \"memory\""));
  CHECK(contains(r.dump, "PrintStmt <13:1> print!(\"b.span = \", b.span)"));
  CHECK(contains(r.dump, "AssertStmt <15:1> ((M % 16) == 0)"));
  CHECK(contains(r.dump, "FragOpStmt <16:1> reduce_max(m, acc, 1)"));
}

TEST_CASE("host code, device functions and return types", "[parser][top]") {
  ParseResult r = parseSource(R"(#include <cstdio>
__device__ int twice(int x) { return 2 * x; }
__co__ s32 [4, 8] ele_add(s32 [4, 8] lhs, s32 [4, 8] rhs) {
  s32 [lhs.span] output;
  parallel {i, j} by [4, 8] { output.at(i, j) = lhs.at(i, j) + rhs.at(i, j); }
  return output;
}
__co__ auto g(global f32 [?, ??] x, int n, stream s, f16 mdspan<2> y) { }
int main() { return 0; }
)");
  INFO(r.diagnostics);
  REQUIRE(r.errors == 0);
  CHECK(contains(r.dump, "HostCode <1:1>"));
  CHECK(contains(r.dump, "DeviceCode <2:1> device_text twice"));
  CHECK(contains(r.dump, "CoFunction <3:1> ele_add -> s32 [4, 8]"));
  CHECK(contains(r.dump, "Param <8:15> global f32 [?, ??] x"));
  CHECK(contains(r.dump, "Param <8:37> int n"));
  CHECK(contains(r.dump, "Param <8:44> stream s"));
  CHECK(contains(r.dump, "Param <8:54> f16 mdspan<2> y"));
  CHECK(contains(r.dump, "ReturnStmt <6:3> output"));
}

TEST_CASE("errors are located and recovery continues", "[parser][errors]") {
  ParseResult r = parseBody(R"(x = 1
y = (2 + ;
parallel p by 4 : grop { }
mma.bogus mc;
z = 3;)");
  CHECK(r.errors == 4);
  CHECK(contains(r.diagnostics, "t.co:2:6: error: expected `;` after the assignment, found `y`"));
  CHECK(contains(r.diagnostics, "t.co:3:10: error: expected an expression, found `;`"));
  CHECK(contains(r.diagnostics, "t.co:4:19: error: expected a parallel level, found `grop`"));
  CHECK(contains(r.diagnostics, "t.co:5:4: error: unknown MMA operation `mma.bogus`"));
  CHECK(contains(r.dump, "AssignStmt <6:1> z = 3"));
}

TEST_CASE("specific syntax errors", "[parser][errors]") {
  CHECK(contains(parseBody("parallel p by 2 : group - 4 { }").diagnostics, "`group - 4` is not a parallel level"));
  CHECK(contains(parseSource("__co__ void f(int n);\n").diagnostics, "forward declarations"));
  CHECK(contains(parseSource("__co__ void f() {\n  x = 1;\n").diagnostics, "is not closed before the end"));
  CHECK(contains(parseBody("a = b = c;").diagnostics, "an assignment cannot be used as a value"));
  CHECK(contains(parseBody("mma.row mc, a, b;").diagnostics, "names only the layout of A"));
  CHECK(contains(parseBody("dma.any;").diagnostics, "must be bound to a name"));
  CHECK(contains(parseBody("f = dma.copy.bogus x => y;").diagnostics, "`.bogus` is not a modifier of a copy"));
  CHECK(contains(parseBody("[[unroll]] parallel p by 2 { }").diagnostics, "unknown attribute `[[unroll]]`"));
  CHECK(contains(parseBody("[[maxnreg(4)]] x = 1;").diagnostics, "must precede a `parallel`"));
  CHECK(contains(parseBody("asm goto(\"\");").diagnostics, "`asm goto` is not supported"));
  CHECK(contains(parseBody("sync.bogus;").diagnostics, "unknown synchronisation `sync.bogus`"));
  CHECK(contains(parseBody("x = (1 + 2;").diagnostics, "expected `)` to close `(`"));
  CHECK(contains(parseBody("x = (1 + 2;").diagnostics, "note: `(` opened here"));
  CHECK(contains(parseSource("__co__ f() { }\n").diagnostics, "expected the return type"));
}

TEST_CASE("deep nesting is reported, not a crash", "[parser][robustness]") {
  std::string deep = "x = " + std::string(10000, '(') + "1" + std::string(10000, ')') + ";";
  ParseResult r = parseBody(deep);
  CHECK(r.errors >= 1);
  CHECK(contains(r.diagnostics, "nesting is deeper than 256 levels"));

  std::string blocks = std::string(10000, '{') + std::string(10000, '}');
  ParseResult b = parseBody(blocks);
  CHECK(b.errors >= 1);

  std::string prefixes = "x = " + std::string(10000, '!') + "a;";
  CHECK(parseBody(prefixes).errors >= 1);
}

TEST_CASE("truncated input at every position never crashes", "[parser][robustness]") {
  const std::string src = R"(__co__ void f(global f16 [M, K] a) {
  parallel {i, j} by [cdiv(M, 16), 2] : block {
    shared f16 [16, 16] s;
    f = dma.copy.async a.subspan(16, 16).at(i, j) => s;
    wait f;
    mc = mma.fill.f32 0.0f;
    foreach k(1:) : unroll { mma.row.row mc, s, s; }
  }
}
)";
  // Every prefix that cuts into the function leaves it unclosed: an error,
  // never a crash; the whole text parses clean.
  const size_t bodyStart = src.find("__co__") + 6;
  const size_t lastBrace = src.rfind('}');
  for (size_t n = bodyStart; n < lastBrace; ++n) {
    ParseResult r = parseSource(src.substr(0, n));
    INFO("truncated at " << n);
    CHECK(r.errors >= 1);
  }
  CHECK(parseSource(src).errors == 0);
}
