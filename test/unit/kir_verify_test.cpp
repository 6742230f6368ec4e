// Unit tests of the KIR verifier (compiler/kir/Verify.h): a well-formed
// module passes, and every rule it checks is broken once by a hand-built
// module, with the message that names the rule.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kir/KIR.h"
#include "kir/Verify.h"

using namespace croqc;
using namespace croqc::kir;

namespace {

/// One function `f` with one kernel `k` of 128 threads.
struct Fixture {
  Module m;
  Function* f = nullptr;
  Kernel* k = nullptr;

  Fixture() {
    auto fn = std::make_unique<Function>();
    fn->name = "f";
    auto kr = std::make_unique<Kernel>();
    kr->name = "k";
    kr->threads = 128;
    kr->sharedLaidOut = true;
    k = kr.get();
    fn->kernels.push_back(std::move(kr));
    f = fn.get();
    m.functions.push_back(std::move(fn));
  }

  Buffer* buffer(const char* name, Space space, std::int64_t elements) {
    Buffer* b = m.buffer();
    b->name = name;
    b->elem = TokenKind::ty_f32;
    b->space = space;
    b->shape = {m.intc(elements)};
    b->strides = {m.intc(1)};
    b->rowStride = elements;
    b->slotElements = elements;
    return b;
  }
  /// A shared buffer placed at `offset` (the kernel's shared memory grows to hold it).
  Buffer* shared(const char* name, std::int64_t elements, std::int64_t offset = 0) {
    Buffer* b = buffer(name, Space::Shared, elements);
    b->sharedOffset = offset;
    k->sharedBuffers.push_back(b);
    k->sharedBytes = std::max(k->sharedBytes, offset + elements * 4);
    return b;
  }
  Buffer* local(const char* name, std::int64_t elements) {
    Buffer* b = buffer(name, Space::Local, elements);
    add(StmtKind::LocalArray)->buffer = b;
    return b;
  }
  /// A local buffer declared at the start of the kernel.
  Buffer* localFirst(const char* name, std::int64_t elements) {
    Buffer* b = buffer(name, Space::Local, elements);
    Stmt* decl = m.stmt(StmtKind::LocalArray);
    decl->buffer = b;
    k->body.insert(k->body.begin(), decl);
    return b;
  }
  Fragment* fragment(FragRole role, bool warpgroup = false) {
    Fragment* fr = m.fragment();
    fr->name = role == FragRole::C ? "mc" : role == FragRole::A ? "ma" : role == FragRole::B ? "mb" : "me";
    fr->role = role;
    fr->warpgroup = warpgroup;
    return fr;
  }
  Tile tile(const Buffer* b) {
    Tile t;
    t.buffer = b;
    t.offset = m.intc(0);
    t.extents = {16};
    t.strides = {m.intc(1)};
    return t;
  }
  Stmt* add(StmtKind kind) {
    Stmt* s = m.stmt(kind);
    k->body.push_back(s);
    return s;
  }
  HostStmt& host(HostStmt::Kind kind) {
    f->wrapper.push_back(HostStmt{});
    f->wrapper.back().kind = kind;
    return f->wrapper.back();
  }
  std::vector<std::string> problems() { return verify(m); }
};

/// The verifier reports exactly one problem, containing `text`.
void expectOne(Fixture& fx, const std::string& text) {
  std::vector<std::string> problems = fx.problems();
  std::string reported;
  for (const std::string& p : problems) reported += "\n  " + p;
  INFO("expected: " << text << "\nreported:" << reported);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find(text) != std::string::npos);
}

}  // namespace

TEST_CASE("a well-formed kernel passes the verifier", "[kir][verify]") {
  Fixture fx;
  Buffer* s = fx.shared("tile", 256);
  Buffer* bar = fx.shared("bar", 2, 1024);
  bar->elem = TokenKind::ty_u64;
  fx.k->sharedBytes = 2048;
  Buffer* l = fx.local("acc", 8);
  Stmt* init = fx.add(StmtKind::MbarrierInit);
  init->buffer = bar;
  init->count = 1;
  Stmt* loop = fx.add(StmtKind::For);
  loop->var = "i";
  loop->lo = fx.m.intc(0);
  loop->hi = fx.m.var("n");
  Stmt* st = fx.m.stmt(StmtKind::Store);
  st->buffer = s;
  st->index = fx.m.var("i");
  st->value = fx.m.load(l, fx.m.intc(0));
  st->op = "=";
  loop->body.push_back(st);
  fx.add(StmtKind::Barrier);
  Stmt* copy = fx.add(StmtKind::Copy);
  copy->threads = 128;
  copy->dst = fx.tile(l);
  copy->src = fx.tile(s);
  fx.host(HostStmt::Kind::Launch).kernel = fx.k;
  CHECK(fx.problems().empty());
}

TEST_CASE("the verifier checks kernels and their statements' operands", "[kir][verify]") {
  Fixture fx;
  SECTION("threads") {
    fx.k->threads = 0;
    expectOne(fx, "kernel `k`: launches 0 threads per block");
  }
  SECTION("launch bound") {
    fx.k->launchBoundThreads = 64;
    expectOne(fx, "kernel `k`: has a launch bound of 64 threads below its 128 threads per block");
  }
  SECTION("register cap beside launch bounds") {
    fx.k->launchBoundThreads = 128;
    fx.k->maxRegisters = 40;
    expectOne(fx, "kernel `k`: has both a register cap and launch bounds, which nvcc rejects together");
  }
  SECTION("null statement") {
    fx.k->body.push_back(nullptr);
    expectOne(fx, "holds a null statement");
  }
  SECTION("loop") {
    Stmt* s = fx.add(StmtKind::For);
    s->lo = fx.m.intc(0);
    s->hi = fx.m.intc(4);
    s->var = "i";
    SECTION("variable") {
      s->var.clear();
      expectOne(fx, "loop has no induction variable");
    }
    SECTION("bounds") {
      s->hi = nullptr;
      expectOne(fx, "loop has no bounds");
    }
    SECTION("step") {
      s->step = 0;
      expectOne(fx, "loop steps by 0");
    }
  }
  SECTION("condition") {
    fx.add(StmtKind::While);
    expectOne(fx, "while loop has no condition");
  }
  SECTION("let") {
    Stmt* s = fx.add(StmtKind::Let);
    s->value = fx.m.intc(1);
    expectOne(fx, "let names no variable");
    s->var = "x";
    s->value = nullptr;
    expectOne(fx, "let has no value");
    s->value = fx.m.intc(1);
    s->type = ScalarType{ScalarType::Kind::Void, TokenKind::eof};
    expectOne(fx, "let `x` is of type `void`, which is not a scalar type");
  }
  SECTION("assignment") {
    Stmt* s = fx.add(StmtKind::Assign);
    s->var = "x";
    s->value = fx.m.intc(1);
    expectOne(fx, "assignment has no value or operator");
  }
  SECTION("store") {
    Stmt* s = fx.add(StmtKind::Store);
    s->index = fx.m.intc(0);
    s->value = fx.m.intc(0);
    s->op = "=";
    expectOne(fx, "store has no buffer");
    s->buffer = fx.shared("x", 4);
    s->index = nullptr;
    expectOne(fx, "store has no index");
    s->index = fx.m.intc(0);
    s->op.clear();
    expectOne(fx, "store has no value or operator");
  }
  SECTION("named barrier") {
    Stmt* s = fx.add(StmtKind::Barrier);
    s->count = 1;
    s->threads = 48;
    expectOne(fx, "barrier is a named barrier over a number of threads that is not whole warps");
  }
  SECTION("copy threads") {
    Stmt* s = fx.add(StmtKind::Copy);
    s->threads = 0;
    Buffer* b = fx.shared("x", 16);
    s->dst = fx.tile(b);
    s->src = fx.tile(fx.buffer("g", Space::Global, 16));
    expectOne(fx, "copy has no participating threads");
  }
  SECTION("async wait") {
    fx.add(StmtKind::AsyncWait);
    expectOne(fx, "async wait has no group count");
  }
  SECTION("fragment declaration") {
    fx.add(StmtKind::FragDecl);
    expectOne(fx, "fragment declaration declares no fragment");
  }
  SECTION("fragment fill") {
    Stmt* s = fx.add(StmtKind::FragFill);
    s->frag = fx.fragment(FragRole::C);
    expectOne(fx, "fragment fill has no value");
  }
  SECTION("accumulator element store") {
    fx.add(StmtKind::FragStore)->value = fx.m.intc(0);
    expectOne(fx, "accumulator element store has no element or value");
  }
  SECTION("expression statement") {
    fx.add(StmtKind::Eval);
    expectOne(fx, "expression statement has no expression");
  }
  SECTION("print") {
    fx.add(StmtKind::Print);
    expectOne(fx, "print has no format");
  }
  SECTION("rotation") {
    Stmt* s = fx.add(StmtKind::Rotate);
    s->args = {fx.m.var("a")};
    expectOne(fx, "rotation does not name two or more variables");
    s->args.push_back(fx.m.intc(1));
    expectOne(fx, "rotation does not name two or more variables");
    s->args.back() = fx.m.var("b");
    CHECK(fx.problems().empty());
  }
}

TEST_CASE("the verifier checks MMA fragments and their roles", "[kir][verify]") {
  Fixture fx;
  SECTION("missing fragment") {
    Stmt* s = fx.add(StmtKind::AtomLoad);
    s->i = s->j = fx.m.intc(0);
    s->src = fx.tile(fx.shared("a", 256));
    expectOne(fx, "atom load has no fragment");
  }
  SECTION("atom indices") {
    Stmt* s = fx.add(StmtKind::AtomLoad);
    s->frag = fx.fragment(FragRole::A);
    s->src = fx.tile(fx.shared("a", 256));
    expectOne(fx, "atom load has no atom indices");
  }
  SECTION("MMA roles") {
    Stmt* s = fx.add(StmtKind::AtomMma);
    s->frag = fx.fragment(FragRole::C);
    s->fragA = fx.fragment(FragRole::B);
    s->fragB = fx.fragment(FragRole::B);
    s->i = s->j = s->k = fx.m.intc(0);
    expectOne(fx, "atom MMA uses A operand fragment `mb`, whose role is B");
  }
  SECTION("sparse MMA metadata role") {
    Stmt* s = fx.add(StmtKind::AtomMma);
    s->frag = fx.fragment(FragRole::C);
    s->fragA = fx.fragment(FragRole::A);
    s->fragB = fx.fragment(FragRole::B);
    s->fragE = fx.fragment(FragRole::C);
    s->i = s->j = s->k = fx.m.intc(0);
    expectOne(fx, "atom MMA uses metadata fragment `mc`, whose role is C");
  }
  SECTION("atom store") {
    Stmt* s = fx.add(StmtKind::AtomStore);
    s->frag = fx.fragment(FragRole::A);
    s->i = s->j = fx.m.intc(0);
    s->dst = fx.tile(fx.shared("c", 256));
    expectOne(fx, "atom store uses fragment `ma`, whose role is A");
  }
  SECTION("accumulator scale load") {
    Stmt* s = fx.add(StmtKind::AccScaleLoad);
    s->frag = fx.fragment(FragRole::C);
    s->i = fx.m.intc(0);
    s->src = fx.tile(fx.shared("scale", 64));
    expectOne(fx, "accumulator scale load has no atom index, factor or name");
  }
  SECTION("accumulator scale") {
    Stmt* s = fx.add(StmtKind::AccScale);
    s->frag = fx.fragment(FragRole::C);
    s->fragB = fx.fragment(FragRole::C);
    expectOne(fx, "accumulator scale has no atom index or row factors");
  }
  SECTION("accumulator scale factors defined") {
    const kir::Fragment* c = fx.fragment(FragRole::C);
    Stmt* load = fx.m.stmt(StmtKind::AccScaleLoad);
    load->frag = c;
    load->i = fx.m.intc(0);
    load->value = fx.m.intc(1);
    load->src = fx.tile(fx.shared("scale", 64));
    load->var = "f";
    Stmt* scale = fx.m.stmt(StmtKind::AccScale);
    scale->frag = c;
    scale->fragB = fx.fragment(FragRole::C);
    scale->i = fx.m.intc(0);
    scale->var = "f";
    // Used before it is loaded.
    fx.k->body = {scale, load};
    expectOne(fx, "accumulator scale uses row factors `f` that no accumulator scale load before it in scope defines");
    // Loaded inside a loop that has ended.
    Stmt* loop = fx.m.stmt(StmtKind::Block);
    loop->body = {load};
    fx.k->body = {loop, scale};
    expectOne(fx, "accumulator scale uses row factors `f` that no accumulator scale load before it in scope defines");
    fx.k->body = {load, scale};
    CHECK(fx.problems().empty());
  }
  SECTION("accumulator array index") {
    Stmt* s = fx.add(StmtKind::FragFill);
    Fragment* c = fx.fragment(FragRole::C);
    c->arrayDims = {2, 3};
    s->frag = c;
    s->value = fx.m.intc(0);
    s->fragIndex = {fx.m.intc(1)};
    expectOne(fx, "fragment fill indexes accumulator array `mc` with 1 indices; it has 2 dimensions");
  }
  SECTION("WGMMA") {
    Stmt* s = fx.add(StmtKind::WgmmaExec);
    s->frag = fx.fragment(FragRole::C, /*warpgroup=*/true);
    s->src = fx.tile(fx.shared("a", 1024));
    s->dst = fx.tile(fx.shared("b", 1024, 4096));
    s->count = 4;
    s->step = 16;
    SECTION("warp fragment") {
      s->frag = fx.fragment(FragRole::C);
      expectOne(fx, "WGMMA accumulates into `mc`, which is not a warpgroup fragment");
    }
    SECTION("K steps") {
      s->count = 0;
      expectOne(fx, "WGMMA has no K steps");
    }
    SECTION("scale-d condition") {
      s->cond = fx.m.intc(1);
      expectOne(fx, "WGMMA has a scale-d condition that is not a bool");
      s->cond = fx.m.boolc(false);
      CHECK(fx.problems().empty());
    }
    SECTION("sparse metadata role") {
      s->fragB = fx.fragment(FragRole::B);
      expectOne(fx, "WGMMA uses metadata fragment `mb`, whose role is B");
    }
    SECTION("sparse metadata coverage") {
      Fragment* e = fx.fragment(FragRole::E, /*warpgroup=*/true);
      e->rows = 1;
      e->cols = 2;
      s->fragB = e;
      Fragment* c = fx.fragment(FragRole::C, /*warpgroup=*/true);
      c->rows = 1;
      s->frag = c;
      expectOne(fx, "WGMMA issues 1 x 4 sparse instructions, but metadata `me` covers 1 x 2");
      e->cols = 8;
      CHECK(fx.problems().empty());
    }
    SECTION("uncommitted") {
      s->async = true;
      expectOne(fx, "an asynchronous WGMMA into `mc` is never committed");
      fx.add(StmtKind::WgmmaCommit);
      CHECK(fx.problems().empty());
    }
  }
  SECTION("WGMMA wait") {
    fx.add(StmtKind::WgmmaWait)->count = -1;
    expectOne(fx, "WGMMA wait waits for a negative number of groups");
  }
  SECTION("WGMMA operand fence") {
    fx.add(StmtKind::WgmmaFence)->frag = fx.fragment(FragRole::B);
    expectOne(fx, "WGMMA operand fence uses fragment `mb`, whose role is B");
  }
  SECTION("accumulator element") {
    Stmt* s = fx.add(StmtKind::Eval);
    s->value = fx.m.fragElem(fx.fragment(FragRole::A), fx.m.intc(0), fx.m.intc(0), fx.m.intc(0));
    expectOne(fx, "expression statement reads an accumulator element of `ma`, whose role is A");
    Fixture fy;
    auto* elem = const_cast<Expr*>(fy.m.fragElem(fy.fragment(FragRole::C), fy.m.intc(0), fy.m.intc(0), fy.m.intc(0)));
    elem->operands.pop_back();
    fy.add(StmtKind::Eval)->value = elem;
    expectOne(fy, "expression statement holds an accumulator element without its fragment and indices");
  }
}

TEST_CASE("the verifier checks TMA copies, mbarriers and events", "[kir][verify]") {
  Fixture fx;
  SECTION("TMA load") {
    Stmt* s = fx.add(StmtKind::TmaLoad);
    s->text = "map";
    s->var = "bar";
    s->cond = fx.m.boolc(true);
    s->count = 1;
    s->k = fx.m.intc(64);
    s->index = fx.m.intc(0);
    s->value = fx.m.intc(0);
    s->src.row0 = s->src.col0 = fx.m.intc(0);
    s->dst = fx.tile(fx.shared("a", 4096));
    SECTION("tensor map") {
      s->text.clear();
      expectOne(fx, "TMA load names no tensor map");
    }
    SECTION("mbarrier") {
      s->var.clear();
      expectOne(fx, "TMA load names no mbarrier");
    }
    SECTION("condition") {
      s->cond = nullptr;
      expectOne(fx, "TMA load has no condition for using TMA");
    }
    SECTION("box") {
      s->count = 0;
      expectOne(fx, "TMA load has no box count, box width or destination placement");
    }
    SECTION("origin") {
      s->src.col0 = nullptr;
      expectOne(fx, "TMA load has no source origin");
    }
    SECTION("destination space") {
      s->dst = fx.tile(fx.localFirst("l", 16));
      expectOne(fx, "TMA load copies into local buffer `l`; TMA writes shared memory");
    }
  }
  SECTION("TMA store") {
    Stmt* s = fx.add(StmtKind::TmaStore);
    s->text = "map";
    s->cond = fx.m.boolc(true);
    s->count = 1;
    s->k = fx.m.intc(64);
    s->dst.row0 = s->dst.col0 = fx.m.intc(0);
    s->src = fx.tile(fx.localFirst("l", 16));
    expectOne(fx, "TMA store reads local buffer `l`; TMA reads shared memory");
    s->src = fx.tile(fx.shared("s", 16));
    s->text.clear();
    expectOne(fx, "TMA store names no tensor map");
    s->text = "map";
    s->cond = nullptr;
    expectOne(fx, "TMA store has no condition for using TMA");
    s->cond = fx.m.boolc(true);
    s->k = nullptr;
    expectOne(fx, "TMA store has no box count or box width");
    s->k = fx.m.intc(64);
    s->dst.row0 = nullptr;
    expectOne(fx, "TMA store has no destination origin");
  }
  SECTION("TMA wait") {
    fx.add(StmtKind::TmaWait)->var = "bar";
    expectOne(fx, "TMA wait names no mbarrier or has no condition");
  }
  SECTION("event arrival") {
    Stmt* s = fx.add(StmtKind::EventArrive);
    expectOne(fx, "event arrival names no event");
    s->buffer = fx.shared("full", 2);
    s->index = fx.m.intc(1);
    expectOne(fx, "event arrival is on `full`, a shared buffer of f32 elements; an event is a u64 mbarrier in shared memory");
  }
  SECTION("event wait") {
    Stmt* s = fx.add(StmtKind::EventWait);
    s->var = "phase";
    s->index = fx.m.intc(0);
    expectOne(fx, "event wait names no event");
    Buffer* full = fx.shared("full", 2);
    full->elem = TokenKind::ty_u64;
    fx.k->sharedBytes = 16;
    s->buffer = full;
    s->var.clear();
    expectOne(fx, "event wait has no parity");
  }
  SECTION("mbarrier initialisation") {
    Stmt* s = fx.add(StmtKind::MbarrierInit);
    s->count = 1;
    expectOne(fx, "mbarrier initialisation has no buffer");
    s->buffer = fx.shared("bar", 2);
    s->count = 0;
    expectOne(fx, "mbarrier initialisation initialises no mbarrier (a count of 0)");
    s->count = 1;
    Buffer* l = fx.buffer("lbar", Space::Local, 2);
    s->buffer = l;
    std::vector<std::string> problems = fx.problems();
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].find("mbarrier initialisation of `lbar` places it in local memory") != std::string::npos);
    CHECK(problems[1].find("mbarrier initialisation of `lbar`, which is not among the kernel's shared buffers") !=
          std::string::npos);
  }
  SECTION("event initialisation") {
    Stmt* s = fx.add(StmtKind::EventInit);
    s->buffer = fx.shared("full", 2);
    s->count = 2;
    s->threads = 0;
    expectOne(fx, "event initialisation expects no arrivals per phase");
  }
}

TEST_CASE("the verifier checks tiles and expressions", "[kir][verify]") {
  Fixture fx;
  Buffer* s = fx.shared("s", 256);
  Stmt* copy = fx.add(StmtKind::Copy);
  copy->threads = 32;
  copy->dst = fx.tile(s);
  copy->src = fx.tile(fx.buffer("g", Space::Global, 256));
  SECTION("no buffer") {
    copy->src.buffer = nullptr;
    expectOne(fx, "copy's source tile has no buffer");
  }
  SECTION("strides") {
    copy->dst.strides.push_back(fx.m.intc(1));
    expectOne(fx, "copy's destination tile of `s` has 1 dimensions and 2 strides");
  }
  SECTION("validity bounds") {
    copy->dst.valid = {fx.m.intc(1), fx.m.intc(1)};
    expectOne(fx, "copy's destination tile of `s` has 1 dimensions and 2 validity bounds");
  }
  SECTION("run-time extents") {
    copy->dst.runtimeExtents = {nullptr, nullptr};
    expectOne(fx, "copy's destination tile of `s` has 1 dimensions and 2 run-time extents");
  }
  SECTION("extent") {
    copy->dst.extents = {-1};
    expectOne(fx, "copy's destination tile of `s` has extent -1 in dimension 0");
  }
  SECTION("unary") {
    Expr bad;
    bad.kind = ExprKind::Unary;
    bad.name = "-";
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds a 0-operand unary expression");
  }
  SECTION("binary") {
    Expr bad;
    bad.kind = ExprKind::Binary;
    bad.name = "+";
    bad.operands = {fx.m.intc(1)};
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds a binary `+` of 1 operands");
  }
  SECTION("selection") {
    Expr bad;
    bad.kind = ExprKind::Select;
    bad.operands = {fx.m.boolc(true), fx.m.intc(1)};
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds a selection of 2 operands");
  }
  SECTION("load") {
    Expr bad;
    bad.kind = ExprKind::Load;
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds a load without a buffer and one index");
  }
  SECTION("variable") {
    Expr bad;
    bad.kind = ExprKind::Var;
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds a variable without a name");
  }
  SECTION("launch coordinate") {
    Expr bad;
    bad.kind = ExprKind::Builtin;
    bad.builtin = kir::Builtin::BlockIdx;
    bad.intValue = 3;
    copy->dst.offset = &bad;
    expectOne(fx, "copy reads a launch coordinate along dimension 3");
  }
  SECTION("host view extent") {
    copy->dst.offset = fx.m.viewExtent("a", 0);
    expectOne(fx, "copy reads the extent of host view `a`, which only the wrapper has");
  }
  SECTION("conversion") {
    copy->dst.offset = fx.m.convert(fx.m.var("x", ScalarType::element(TokenKind::ty_f32)), ScalarType::integer());
    CHECK(fx.problems().empty());
    copy->dst.offset = fx.m.convert(fx.m.var("x", ScalarType::element(TokenKind::ty_f32)),
                                    ScalarType{ScalarType::Kind::Void, TokenKind::eof});
    expectOne(fx, "copy holds a conversion to `void`, which is not a scalar type");
  }
  SECTION("null operand") {
    Expr bad;
    bad.kind = ExprKind::Call;
    bad.name = "min";
    bad.operands = {nullptr};
    copy->dst.offset = &bad;
    expectOne(fx, "copy holds an expression with a null operand");
  }
}

TEST_CASE("the verifier checks that every buffer a kernel uses is placed", "[kir][verify]") {
  Fixture fx;
  SECTION("shared buffer without a place") {
    Buffer* s = fx.buffer("lost", Space::Shared, 16);
    Stmt* st = fx.add(StmtKind::Eval);
    st->value = fx.m.load(s, fx.m.intc(0));
    expectOne(fx, "expression statement uses shared buffer `lost`, which is not among the kernel's shared buffers");
  }
  SECTION("local buffer before its declaration") {
    Buffer* l = fx.buffer("early", Space::Local, 16);
    fx.add(StmtKind::Eval)->value = fx.m.load(l, fx.m.intc(0));
    fx.add(StmtKind::LocalArray)->buffer = l;
    expectOne(fx, "expression statement uses local buffer `early` before its declaration");
  }
  SECTION("local array") {
    fx.add(StmtKind::LocalArray)->buffer = fx.shared("s", 4);
    expectOne(fx, "local array declares shared buffer `s`");
    Fixture fy;
    Buffer* l = fy.buffer("empty", Space::Local, 4);
    l->slotElements = 0;
    fy.add(StmtKind::LocalArray)->buffer = l;
    expectOne(fy, "local array `empty` has 0 elements");
    Fixture fz;
    fz.add(StmtKind::LocalArray);
    expectOne(fz, "local array declares no buffer");
  }
  SECTION("local array of run-time size") {
    Buffer* l = fx.buffer("row", Space::Local, 4);
    l->slotElements = 0;
    l->runtimeElements = fx.m.var("C");
    SECTION("at the top of the kernel and among its run-time locals") {
      fx.k->runtimeLocals.push_back(l);
      fx.add(StmtKind::LocalArray)->buffer = l;
      fx.add(StmtKind::Eval)->value = fx.m.address(l, fx.m.intc(0));
      CHECK(fx.problems().empty());
    }
    SECTION("inside a loop") {
      fx.k->runtimeLocals.push_back(l);
      Stmt* loop = fx.add(StmtKind::For);
      loop->var = "i";
      loop->lo = fx.m.intc(0);
      loop->hi = fx.m.intc(4);
      Stmt* decl = fx.m.stmt(StmtKind::LocalArray);
      decl->buffer = l;
      loop->body.push_back(decl);
      expectOne(fx, "local array `row` has a run-time size but is not a top-level statement of the kernel");
    }
    SECTION("not among the kernel's run-time locals") {
      fx.add(StmtKind::LocalArray)->buffer = l;
      expectOne(fx, "local array `row` has a run-time size but is not among the kernel's run-time local buffers");
    }
  }
  SECTION("element address") {
    auto* address = const_cast<Expr*>(fx.m.address(fx.shared("s", 4), fx.m.intc(0)));
    address->buffer = nullptr;
    fx.add(StmtKind::Eval)->value = address;
    expectOne(fx, "expression statement holds an element address without a buffer and one index");
  }
  SECTION("pointers") {
    Buffer* storage = fx.shared("f_storage", 64);
    Buffer* p = fx.buffer("f", Space::Shared, 64);
    Stmt* use = fx.add(StmtKind::Eval);
    use->value = fx.m.load(p, fx.m.intc(0));
    SECTION("not a pointer") {
      Stmt* decl = fx.add(StmtKind::BufferPointer);
      decl->buffer = p;
      decl->src.buffer = storage;
      std::vector<std::string> problems = fx.problems();
      REQUIRE(problems.size() == 2);
      CHECK(problems[0].find("uses shared buffer `f`, which is not among") != std::string::npos);
      CHECK(problems[1].find("buffer pointer declares `f`, which is not a pointer") != std::string::npos);
    }
    SECTION("used before its declaration") {
      p->pointer = true;
      Stmt* decl = fx.add(StmtKind::BufferPointer);
      decl->buffer = p;
      decl->src.buffer = storage;
      expectOne(fx, "expression statement uses pointer `f` before its declaration");
    }
    SECTION("of another element type") {
      p->pointer = true;
      p->elem = TokenKind::ty_f16;
      Stmt* decl = fx.m.stmt(StmtKind::BufferPointer);
      decl->buffer = p;
      decl->src.buffer = storage;
      fx.k->body.insert(fx.k->body.begin(), decl);
      expectOne(fx, "buffer pointer `f` points at `f_storage`, a buffer of another space or element type");
    }
    SECTION("without storage") {
      Stmt* decl = fx.m.stmt(StmtKind::BufferPointer);
      decl->buffer = p;
      fx.k->body.insert(fx.k->body.begin(), decl);
      p->pointer = true;
      std::vector<std::string> problems = fx.problems();
      REQUIRE(problems.size() == 2);
      CHECK(problems[0].find("buffer pointer has no pointer or storage") != std::string::npos);
    }
  }
  SECTION("shared list") {
    fx.k->sharedBuffers.push_back(nullptr);
    expectOne(fx, "lists a null shared buffer");
    fx.k->sharedBuffers.back() = fx.buffer("g", Space::Global, 4);
    expectOne(fx, "lists global buffer `g` as shared");
  }
}

TEST_CASE("the verifier checks the shared-memory layout", "[kir][verify]") {
  Fixture fx;
  SECTION("alignment") {
    Buffer* b = fx.shared("b", 64, 64);
    b->alignBytes = 128;
    expectOne(fx, "shared buffer `b` is at byte 64, not a multiple of its alignment 128");
  }
  SECTION("past the end") {
    fx.shared("b", 64, 0);
    fx.k->sharedBytes = 128;
    expectOne(fx, "shared buffer `b` ends at byte 256, past the kernel's 128 bytes of shared memory");
  }
  SECTION("empty") {
    fx.shared("b", 64)->slotElements = 0;
    expectOne(fx, "shared buffer `b` has 0 bytes");
  }
  SECTION("opt-in") {
    fx.shared("big", 16 * 1024);
    expectOne(fx, "has 65536 bytes of shared memory but does not opt in to more than the default 49152");
    fx.k->sharedOptIn = true;
    CHECK(fx.problems().empty());
  }
  SECTION("run-time size") {
    Buffer* b = fx.shared("dyn", 64);
    b->runtimeElements = fx.m.var("n");
    std::vector<std::string> problems = fx.problems();
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].find("shared buffer `dyn` of run-time size has no offset") != std::string::npos);
    CHECK(problems[1].find("shared buffer `dyn` has a run-time size, but the kernel's shared memory does not") !=
          std::string::npos);
  }
  SECTION("overlap") {
    Buffer* a = fx.shared("a", 64, 0);
    Buffer* b = fx.shared("b", 64, 128);
    auto use = [&](Buffer* buf) {
      Stmt* s = fx.add(StmtKind::Store);
      s->buffer = buf;
      s->index = fx.m.intc(0);
      s->value = fx.m.intc(0);
      s->op = "=";
    };
    use(a);
    use(b);
    expectOne(fx, "shared buffers `a` (bytes 0 to 256) and `b` (bytes 128 to 384) overlap while both may be in use");
    // Reusable buffers whose uses a CTA barrier separates may share bytes...
    a->reusable = b->reusable = true;
    b->sharedOffset = 0;
    fx.k->body.insert(fx.k->body.begin() + 1, fx.m.stmt(StmtKind::Barrier));
    CHECK(fx.problems().empty());
    // ... but not without the barrier.
    fx.k->body.erase(fx.k->body.begin() + 1);
    expectOne(fx, "shared buffers `a` (bytes 0 to 256) and `b` (bytes 0 to 256) overlap");
  }
}

TEST_CASE("the verifier checks host wrappers", "[kir][verify]") {
  Fixture fx;
  SECTION("launch") {
    fx.host(HostStmt::Kind::Launch);
    expectOne(fx, "function `f`: launches no kernel");
    Kernel other;
    other.name = "elsewhere";
    fx.f->wrapper.back().kernel = &other;
    expectOne(fx, "function `f`: launches kernel `elsewhere`, which belongs to another function");
  }
  SECTION("device allocation") {
    fx.host(HostStmt::Kind::AllocDevice);
    expectOne(fx, "allocates or copies out no buffer");
    fx.f->wrapper.back().buffer = fx.buffer("s", Space::Shared, 4);
    expectOne(fx, "allocates or copies out shared buffer `s` on the host");
    Buffer* g = fx.buffer("g_dev", Space::Global, 4);
    fx.f->wrapper.back().buffer = g;
    expectOne(fx, "allocates buffer `g_dev`, which is not marked as the wrapper's own");
    g->wrapperOwned = true;
    CHECK(fx.problems().empty());
  }
  SECTION("host value") {
    HostStmt& h = fx.host(HostStmt::Kind::Let);
    h.value = fx.m.viewExtent("a", 0);
    expectOne(fx, "function `f`: declares a host value without a name or a value");
    fx.f->wrapper.back().var = "M";
    CHECK(fx.problems().empty());
  }
  SECTION("host-local value") {
    HostStmt& h = fx.host(HostStmt::Kind::Local);
    h.var = "tma_ok_0";
    expectOne(fx, "function `f`: declares a host value without a name or a value");
    fx.f->wrapper.back().value = fx.m.intc(1);
    CHECK(fx.problems().empty());
  }
  SECTION("shape check") {
    HostStmt& h = fx.host(HostStmt::Kind::CheckShape);
    h.message = "dimension 0 of 'a' must be positive";
    expectOne(fx, "function `f`: checks a shape without a condition");
    fx.f->wrapper.back().cond = fx.m.binary(">", fx.m.var("M"), fx.m.intc(0), ScalarType::boolean());
    CHECK(fx.problems().empty());
  }
  SECTION("device pointer") {
    HostStmt& h = fx.host(HostStmt::Kind::DataPointer);
    h.from = "a";
    expectOne(fx, "takes a device pointer without a buffer or a host view");
    fx.f->wrapper.back().buffer = fx.buffer("a_ptr", Space::Local, 4);
    expectOne(fx, "takes the device pointer of local buffer `a_ptr`");
  }
  SECTION("tensor map") {
    HostStmt& h = fx.host(HostStmt::Kind::TensorMap);
    h.text = "map";
    h.buffer = fx.buffer("g", Space::Global, 4096);
    h.boxRows = 64;
    h.boxCols = 512;
    expectOne(fx, "encodes tensor map `map` with a 64 x 512 box; a TMA box is 1 to 256 elements per dimension");
    h.boxCols = 64;
    h.swizzle = 48;
    expectOne(fx, "encodes tensor map `map` with a 48-byte swizzle");
    h.swizzle = 128;
    h.text.clear();
    expectOne(fx, "encodes a tensor map without a name or a tensor");
  }
}

TEST_CASE("the shared-memory layout is checked once the shared-layout pass placed it", "[kir][verify]") {
  Fixture fx;
  fx.k->sharedLaidOut = false;
  fx.shared("tile", 64, 0);
  fx.shared("ring", 64, 0);
  fx.k->sharedBytes = 0;
  // Straight after lowering every offset is 0 and the kernel has no bytes yet.
  CHECK(fx.problems().empty());
  fx.k->sharedLaidOut = true;
  CHECK(fx.problems().size() == 3);
}

TEST_CASE("accumulators of asynchronous WGMMAs are fenced once the wgmma-operand-fences pass ran", "[kir][verify]") {
  Fixture fx;
  Fragment* mc = fx.fragment(FragRole::C, /*warpgroup=*/true);
  mc->rows = 2;
  mc->asyncUse = true;
  auto fence = [&](std::int64_t row) {
    Stmt* s = fx.add(StmtKind::WgmmaFence);
    s->frag = mc;
    s->count = row;
  };
  SECTION("fill") {
    Stmt* fill = fx.add(StmtKind::FragFill);
    fill->frag = mc;
    fill->value = fx.m.intc(0);
    // Straight after lowering nothing is fenced yet.
    CHECK(fx.problems().empty());
    fx.k->accumulatorsFenced = true;
    expectOne(fx, "fragment fill touches `mc`, an accumulator of asynchronous WGMMAs, without an operand fence of its row 0 "
                  "right before it");
    fx.k->body.clear();
    fence(0);
    fx.k->body.push_back(fill);
    expectOne(fx, "without an operand fence of its row 1 right before it");
    fx.k->body.clear();
    fence(1);
    fence(0);
    fx.k->body.push_back(fill);
    CHECK(fx.problems().empty());
    // A fence with another statement after it does not count.
    fx.k->body.insert(fx.k->body.begin() + 2, fx.m.stmt(StmtKind::WgmmaArrive));
    expectOne(fx, "without an operand fence of its row 0 right before it");
    mc->asyncUse = false;
    CHECK(fx.problems().empty());
  }
  SECTION("store and scale of the first slab") {
    fx.k->accumulatorsFenced = true;
    Stmt* store = fx.add(StmtKind::AtomStore);
    store->frag = mc;
    store->i = fx.m.intc(1);
    store->j = fx.m.intc(0);
    store->dst = fx.tile(fx.shared("c", 256));
    // The stores of later slabs follow the first one's fences.
    CHECK(fx.problems().empty());
    store->i = fx.m.intc(0);
    expectOne(fx, "atom store touches `mc`, an accumulator of asynchronous WGMMAs, without an operand fence of its row 0");
    fx.k->body.clear();
    const kir::Fragment* acc = fx.fragment(FragRole::C, /*warpgroup=*/true);
    Stmt* load = fx.add(StmtKind::AccScaleLoad);
    load->frag = acc;
    load->i = fx.m.intc(0);
    load->value = fx.m.intc(1);
    load->src = fx.tile(fx.shared("scale", 64, 1024));
    load->var = "factors";
    Stmt* scale = fx.add(StmtKind::AccScale);
    scale->frag = acc;
    scale->fragB = mc;
    scale->i = fx.m.intc(0);
    scale->var = "factors";
    expectOne(fx, "accumulator scale touches `mc`, an accumulator of asynchronous WGMMAs, without an operand fence");
    fx.k->body = {load};
    fence(0);
    fence(1);
    fx.k->body.push_back(scale);
    CHECK(fx.problems().empty());
  }
}
