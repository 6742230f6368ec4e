// The CUDA emitter's statement printers: one KIR statement (kernel code or
// host code a wrapper runs) as CUDA C++ lines, with the copies, TMA
// operations, MMA atoms and WGMMAs spelled through the croq runtime's device
// headers.
#include <llvm/Support/FormatVariadic.h>

#include <string>

#include "codegen/CudaEmitterImpl.h"
#include "codegen/CudaSpelling.h"
#include "kir/KIR.h"
#include "target/ElementTypes.h"

namespace croqc::codegen {

using namespace kir;

/// The fragment a statement uses: `frag`, or `frag[a][b]` of an
/// accumulator array.
std::string Emitter::fragRef(const Stmt* s) {
  std::string r = s->frag->name;
  for (const Expr* i : s->fragIndex) r += "[" + printExpr(i) + "]";
  return r;
}

void Emitter::block(const std::vector<Stmt*>& body) {
  ++indent_;
  for (const Stmt* s : body) stmt(s);
  --indent_;
}

void Emitter::copy(const Stmt* s) {
  const Tile& d = s->dst;
  const Tile& src = s->src;
  auto dim = [](const Tile& t, size_t i, bool stride) -> std::string {
    // Rank-1 tiles are one row.
    if (t.rank() == 1) {
      if (i == 0) return stride ? "0" : "1";
      return stride ? printExpr(t.strides[0]) : validExtent(t, 0);
    }
    return stride ? printExpr(t.strides[i]) : validExtent(t, i);
  };
  std::int64_t rows = d.rank() == 1 ? 1 : d.extents[0];
  std::int64_t cols = d.rank() == 1 ? d.extents[0] : d.extents[1];
  if (d.buffer->swizzleBytes) {
    // Into a WGMMA operand tile (swizzled K-major layout).
    std::string fn = s->async ? "croq::wgmma::cp_async_tile_swz" : "croq::wgmma::copy_tile_swz";
    line(llvm::formatv("{0}<{1}, {2}, {3}, {4}, {5}>({6}, {7}, {8}, {9},", fn, cxxElementType(d.buffer->elem), rows,
                       cols, s->threads, d.buffer->swizzleBytes, tilePointer(d), d.buffer->swizzleRows(),
                       printExpr(d.row0), printExpr(d.col0))
             .str());
    line(llvm::formatv("    {0}, {1}, {2}, {3}, {4}, {5});", tilePointer(src), dim(src, 0, true), dim(src, 1, true),
                       dim(src, 0, false), dim(src, 1, false), printExpr(s->rank))
             .str());
    return;
  }
  std::string fn = s->async ? "croq::cp_async_tile" : "croq::copy_tile";
  line(llvm::formatv("{0}<{1}, {2}, {3}, {4}, {5}>({6}, {7}, {8}, {9}, {10},", fn, cxxElementType(d.buffer->elem),
                     rows, cols, s->threads, s->zfill ? "true" : "false", tilePointer(d), dim(d, 0, true), dim(d, 1, true),
                     dim(d, 0, false), dim(d, 1, false))
           .str());
  line(llvm::formatv("    {0}, {1}, {2}, {3}, {4}, {5});", tilePointer(src), dim(src, 0, true), dim(src, 1, true),
                     dim(src, 0, false), dim(src, 1, false), printExpr(s->rank))
           .str());
}

/// The `if` that is all of `s`'s `else` (apart from comments), or null.
const Stmt* Emitter::elseIfArm(const Stmt* s) {
  const Stmt* only = nullptr;
  for (const Stmt* e : s->elseBody) {
    if (e->kind == StmtKind::Comment) continue;
    if (only || e->kind != StmtKind::If) return nullptr;
    only = e;
  }
  return only;
}

// `if`, with `else if` arms printed flat.
void Emitter::ifStmt(const Stmt* s) {
  line("if (" + printExpr(s->cond) + ") {");
  block(s->body);
  // An `else` holding only an `if` (and the comments before it) is an
  // `else if` arm: printed flat, as written, however long the chain.
  const Stmt* arm = s;
  while (const Stmt* next = elseIfArm(arm)) {
    // The arm's comments close the block before it.
    ++indent_;
    for (const Stmt* c : arm->elseBody)
      if (c != next) stmt(c);
    --indent_;
    line("} else if (" + printExpr(next->cond) + ") {");
    block(next->body);
    arm = next;
  }
  if (!arm->elseBody.empty()) {
    line("} else {");
    block(arm->elseBody);
  }
  line("}");
}

// A TMA load of a tile (or the fallback copy when the tensor map is absent).
void Emitter::tmaLoad(const Stmt* s) {
  const Tile& d = s->dst;
  line("if (" + printExpr(s->cond) + ") {");
  ++indent_;
  std::string first = printExpr(s->index);
  line(llvm::formatv("croq::wgmma::{9}<{0}, {1}, {2}, {3}{12}>({4}, {11}, &{5}, {6}, {7}, {8}, {10});",
                     cxxElementType(d.buffer->elem), d.extents[0], printExpr(s->k), s->count,
                     first == "0" ? d.buffer->name : d.buffer->name + " + " + first, s->text,
                     s->mbarrierIndex ? s->var + " + (" + printExpr(s->mbarrierIndex) + ")" : s->var,
                     printExpr(s->src.row0), printExpr(s->src.col0),
                     s->async ? "tma_issue_tile" : "tma_load_tile", s->rank ? printExpr(s->rank) : "tid_",
                     printExpr(s->value), s->cluster > 1 ? ", " + std::to_string(s->cluster) : std::string())
           .str());
  --indent_;
  line("} else {");
  block(s->body);
  line("}");
}

// A TMA store of a tile by one thread.
void Emitter::tmaStore(const Stmt* s) {
  const Tile& src = s->src;
  line("if (" + printExpr(s->cond) + ") {");
  ++indent_;
  line("if (" + (s->rank ? printExpr(s->rank) : std::string("tid_")) + " == 0) {");
  ++indent_;
  for (std::int64_t b = 0; b < s->count; ++b)
    line(llvm::formatv("croq::tma::store_2d(&{0}, {1}{2}, {3}, {4}{5});", s->text, tilePointer(src),
                       b ? " + " + std::to_string(b * src.extents[0]) + " * " + printExpr(s->k) : std::string(),
                       printExpr(s->dst.row0), printExpr(s->dst.col0),
                       b ? " + " + std::to_string(b) + " * " + printExpr(s->k) : std::string())
             .str());
  line("croq::tma::commit_group();");
  line("croq::tma::wait_group<0>();");
  --indent_;
  line("}");
  --indent_;
  line("} else {");
  block(s->body);
  line("}");
}

// The WGMMAs of one MMA: one per K step and 64-row slab of the accumulator.
void Emitter::wgmmaExec(const Stmt* s) {
  const Fragment& c = *s->frag;
  const Fragment* regA = s->fragA;
  const Tile& a = s->src;
  const Tile& b = s->dst;
  std::string in = cxxElementType(c.inType), acc = cxxElementType(c.accType);
  const Fragment* meta = s->fragB;
  // A schedule issues the K steps in its order: step ki_ is K tile
  // ks_order_[ki_], and the first one issued is the one that may overwrite.
  const bool ordered = !s->kOrder.empty();
  if (ordered) {
    std::string list;
    for (std::int64_t k : s->kOrder) list += (list.empty() ? "" : ", ") + std::to_string(k);
    line("{");
    ++indent_;
    line(llvm::formatv("constexpr int ks_order_[{0}] = {{{1}};", s->kOrder.size(), list).str());
  }
  unrollPragma();
  if (ordered) {
    line(llvm::formatv("for (int ki_ = 0; ki_ < {0}; ++ki_) {{", s->count).str());
    ++indent_;
    line("const int ks_ = ks_order_[ki_];");
  } else {
    line(llvm::formatv("for (int ks_ = 0; ks_ < {0}; ++ks_) {{", s->count).str());
    ++indent_;
  }
  // One instruction covers s->step columns of K: the next K-major slice
  // starts s->step columns on, the next MN-major one s->step rows down.
  // A sparse A holds half of each step's K: its kept elements.
  auto desc = [&](const Tile& t, bool mnMajor, const std::string& mnOffset, std::int64_t step) {
    std::string k = " + " + std::to_string(step) + " * ks_";
    std::string r0 = printExpr(t.row0), c0 = printExpr(t.col0);
    if (mnMajor) r0 += k, c0 += mnOffset;
    else r0 += mnOffset, c0 += k;
    return llvm::formatv("croq::wgmma::{0}<{1}, {2}>({3}, {4}, {5}, {6})", mnMajor ? "desc_at_mn" : "desc_at",
                         t.buffer->swizzleBytes, in, tilePointer(t), t.buffer->swizzleRows(), r0, c0)
        .str();
  };
  std::string descB = desc(b, s->transposedB, "", s->step);
  // scale-d: the first K step overwrites the accumulator unless `cond`.
  std::string scaleD;
  if (s->cond) {
    std::string first = ordered ? "ki_ != 0" : "ks_ != 0";
    scaleD = s->cond->kind == kir::ExprKind::BoolConst && !s->cond->intValue
                 ? ", " + first
                 : ", " + first + " || (" + printExpr(s->cond) + ")";
  }
  std::string transB = s->transposedB ? ", 1" : "";
  for (std::int64_t i = 0; i < c.rows; ++i) {
    if (regA) {
      line(llvm::formatv("croq::wgmma::mma_rs<{0}, {1}, {2}{6}>({3}[{4}], {5}[{4}][ks_].r,", c.logicalCols, acc,
                         in, c.name, i, regA->name, transB)
               .str());
      line("    " + descB + scaleD + ");");
      continue;
    }
    std::string trans = s->transposed || s->transposedB ? (s->transposed ? ", 1" : ", 0") + transB : "";
    line(llvm::formatv("croq::wgmma::{6}<{0}, {1}, {2}{5}>({3}[{4}],", c.logicalCols, acc, in, c.name, i, trans,
                       meta ? "mma_sp_ss" : "mma_ss")
             .str());
    line("    " + desc(a, s->transposed, i ? " + " + std::to_string(64 * i) : "", meta ? s->step / 2 : s->step) +
         ",");
    line("    " + descB + (meta ? llvm::formatv(", {0}[{1}][ks_]", meta->name, i).str() : std::string()) + scaleD +
         ");");
  }
  --indent_;
  line("}");
  if (ordered) {
    --indent_;
    line("}");
  }
}

// One MMA atom's operand fragment from memory.
void Emitter::atomLoad(const Stmt* s) {
  const Fragment& f = *s->frag;
  const Tile& t = s->src;
  std::string target = fragRef(s) + "[" + printExpr(s->i) + "][" + printExpr(s->j) + "]";
  std::string trans = s->transposed ? "true" : "false";
  // Warpgroup A atoms (RS mode): every warp loads its 16-row slab.
  std::string ns = f.warpgroup ? "croq::wgmma" : "croq::mma";
  if (f.role == FragRole::E && s->prepackV2) {
    line(llvm::formatv("croq::wgmma::load_sparse_meta_v2<{0}>({1}, {2}, {3}, {4}, {5}, {6});",
                       cxxElementType(f.inType), target, t.buffer->name, printExpr(t.offset),
                       printExpr(t.strides[0]), validExtent(t, 0), validExtent(t, 1))
             .str());
    return;
  }
  if (f.role == FragRole::E && !f.warpgroup) {
    line(llvm::formatv("croq::mma::load_e<{0}, {1}>({2}, {3}, {4}, {5}, {6}, {7});", cxxElementType(f.inType),
                       f.atomKBytes, target, tilePointer(t), printExpr(t.strides[0]), printExpr(t.strides[1]),
                       validExtent(t, 0), validExtent(t, 1))
             .str());
    return;
  }
  if (f.role == FragRole::E) {
    line(llvm::formatv("croq::wgmma::load_sparse_meta<{0}>({1}, {2}, {3}, {4}, {5}, {6});",
                       cxxElementType(f.inType), target, tilePointer(t), printExpr(t.strides[0]), printExpr(t.strides[1]),
                       validExtent(t, 0), validExtent(t, 1))
             .str());
    return;
  }
  if (s->useLdmatrix) {
    std::string ld = printExpr(s->transposed ? t.strides[1] : t.strides[0]);
    if (f.role == FragRole::A) {
      line(llvm::formatv("{0}::load_a_ldsm<{1}>({2}, {3}, {4});", ns, trans, target, tilePointer(t), ld).str());
    } else if (s->pairB) {
      std::string next = f.name + "[" + printExpr(s->i) + " + 1][" + printExpr(s->j) + "]";
      line(llvm::formatv("croq::mma::load_b2_ldsm<{0}>({1}, {2}, {3}, {4});", trans, target, next, tilePointer(t), ld)
               .str());
    } else {
      line(llvm::formatv("croq::mma::load_b_ldsm<{0}>({1}, {2}, {3});", trans, target, tilePointer(t), ld).str());
    }
    return;
  }
  line(llvm::formatv("{0}::load_{1}({2}, {3}, {4}, {5}, {6}, {7});", ns,
                     f.role == FragRole::A ? "a" : f.role == FragRole::B ? "b" : "c",
                     target, tilePointer(t), printExpr(t.strides[0]), printExpr(t.strides[1]), validExtent(t, 0),
                     validExtent(t, 1))
           .str());
}

// One MMA atom's accumulator to memory.
void Emitter::atomStore(const Stmt* s) {
  const Tile& t = s->dst;
  if (s->frag->warpgroup) {
    line(llvm::formatv("croq::wgmma::store_acc<{0}, {1}>({2}[{3}], {4}, {5}, {6}, {7}, {8});", s->frag->logicalCols,
                       cxxElementType(s->frag->accType), s->frag->name, printExpr(s->i), tilePointer(t),
                       printExpr(t.strides[0]), printExpr(t.strides[1]), validExtent(t, 0), validExtent(t, 1))
             .str());
    return;
  }
  line(llvm::formatv("croq::mma::store_c({0}[{1}][{2}], {3}, {4}, {5}, {6}, {7});", fragRef(s),
                     printExpr(s->i), printExpr(s->j), tilePointer(t), printExpr(t.strides[0]), printExpr(t.strides[1]),
                     validExtent(t, 0), validExtent(t, 1))
           .str());
}

void Emitter::stmt(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Block:
    case StmtKind::For:
    case StmtKind::If:
    case StmtKind::While: controlFlow(s); return;
    case StmtKind::Let:
    case StmtKind::Assign:
    case StmtKind::Store:
    case StmtKind::Eval:
    case StmtKind::LocalArray:
    case StmtKind::BufferPointer:
    case StmtKind::Rotate:
    case StmtKind::Raw:
    case StmtKind::Print:
    case StmtKind::Return:
    case StmtKind::Break:
    case StmtKind::Continue:
    case StmtKind::Comment: scalar(s); return;
    case StmtKind::Barrier:
    case StmtKind::EventArrive:
    case StmtKind::EventWait:
    case StmtKind::AsyncCommit:
    case StmtKind::AsyncWait:
    case StmtKind::TmaWait:
    case StmtKind::Fence:
    case StmtKind::GridSync:
    case StmtKind::WgmmaCommit:
    case StmtKind::WgmmaWait:
    case StmtKind::WgmmaFence:
    case StmtKind::WgmmaArrive:
    case StmtKind::MbarrierInit:
    case StmtKind::EventInit: synchronisation(s); return;
    case StmtKind::FragDecl:
    case StmtKind::FragFill:
    case StmtKind::FragUpdate:
    case StmtKind::FragStore:
    case StmtKind::AtomMma:
    case StmtKind::AccScaleLoad:
    case StmtKind::AccScale: fragmentOp(s); return;
    case StmtKind::Copy: copy(s); return;
    case StmtKind::TmaLoad: tmaLoad(s); return;
    case StmtKind::TmaStore: tmaStore(s); return;
    case StmtKind::AtomLoad: atomLoad(s); return;
    case StmtKind::AtomStore: atomStore(s); return;
    case StmtKind::WgmmaExec: wgmmaExec(s); return;
  }
}

// Blocks, loops and conditionals.
void Emitter::controlFlow(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Block:
      line("{");
      block(s->body);
      line("}");
      return;
    case StmtKind::For: {
      if (s->unroll) unrollPragma();
      std::string step = s->step == 1 ? "++" + s->var : s->var + " += " + std::to_string(s->step);
      line(llvm::formatv("for (int {0} = {1}; {0} < {2}; {3}) {{", s->var, printExpr(s->lo), printExpr(s->hi), step)
               .str());
      block(s->body);
      line("}");
      return;
    }
    case StmtKind::If: ifStmt(s); return;
    case StmtKind::While:
      line("while (" + printExpr(s->cond) + ") {");
      block(s->body);
      line("}");
      return;
    default: return;
  }
}

namespace {
/// Whether `e` calls a function of the user's (`call f(x)`, `g(x)`).
bool callsUserFunction(const Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::Call && !e->intrinsic) return true;
  for (const Expr* o : e->operands)
    if (callsUserFunction(o)) return true;
  for (const TemplateArg& a : e->templateArgs)
    if (callsUserFunction(a.value)) return true;
  return false;
}
}  // namespace

// Variables, stores, declarations, control transfers and statements copied through.
void Emitter::scalar(const Stmt* s) {
  // A statement that calls the user's function is reported by nvcc or the
  // host compiler at its line in the `.co` file: a function that does not
  // exist or takes other arguments is the program's error.
  bool userCall = (s->kind == StmtKind::Let || s->kind == StmtKind::Assign || s->kind == StmtKind::Store ||
                   s->kind == StmtKind::Eval) &&
                  (callsUserFunction(s->value) || callsUserFunction(s->index)) && lineOf(s->loc);
  if (userCall) {
    line(llvm::formatv("#line {0} \"{1}\"", lineOf(s->loc), options_.sourceName).str());
    scalarStmt(s);
    backToOutput();
    return;
  }
  scalarStmt(s);
}

void Emitter::scalarStmt(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Let:
      if (!s->maybeUnused) noteLet(s->var);
      line(std::string(s->maybeUnused ? "[[maybe_unused]] " : "") + (s->isMutable ? "" : "const ") +
           cxxTypeName(s->type) + " " + s->var + " = " + printExpr(s->value) + ";");
      return;
    case StmtKind::Assign: line(s->var + " " + s->op + " " + printExpr(s->value) + ";"); return;
    case StmtKind::Store:
      line(s->buffer->name + "[" + printExpr(s->index) + "] " + s->op + " " + printExpr(s->value) + ";");
      return;
    case StmtKind::Eval: line(printExpr(s->value) + ";"); return;
    case StmtKind::LocalArray:
      if (s->buffer->runtimeElements) {
        std::string elem = cxxElementType(s->buffer->elem);
        line(llvm::formatv("{0}* {1} = CROQ_RUNTIME_LOCAL({0}, {2});  // {3}", elem, s->buffer->name,
                           printExpr(s->buffer->runtimeElements), bufferShapeText(*s->buffer))
                 .str());
        return;
      }
      // An array the kernel never names (`local f32 [4] z;` left unused)
      // gets [[maybe_unused]], as an unused let does.
      noteLet(s->buffer->name);
      line(cxxElementType(s->buffer->elem) + " " + s->buffer->name + "[" +
           std::to_string(s->buffer->totalElements()) + "];");
      return;
    case StmtKind::BufferPointer:
      line(cxxElementType(s->buffer->elem) + "* " + s->buffer->name + " = " + s->src.buffer->name + ";");
      return;
    case StmtKind::Rotate: {
      std::string text = "{ auto t_ = " + printExpr(s->args.front()) + "; ";
      for (size_t i = 0; i + 1 < s->args.size(); ++i)
        text += printExpr(s->args[i]) + " = " + printExpr(s->args[i + 1]) + "; ";
      line(text + printExpr(s->args.back()) + " = t_; }");
      return;
    }
    case StmtKind::Raw:
      // The user's `__cpp__` or asm: the compiler names its line in the `.co` file.
      if (unsigned l = lineOf(s->loc)) {
        line(llvm::formatv("#line {0} \"{1}\"", l, options_.sourceName).str());
        line(s->text);
        backToOutput();
      } else {
        line(s->text);
      }
      return;
    case StmtKind::Print: {
      // printf's arguments: `%f` reads a double, `%lld` a long long.
      std::string call = "printf(" + s->text;
      for (const Expr* a : s->args) {
        bool floating = a->type.isElem() && target::isFloatType(a->type.elem);
        call += (floating ? ", static_cast<double>(" : ", static_cast<long long>(") + printExpr(a) + ")";
      }
      line(call + ");");
      return;
    }
    case StmtKind::Return: line("return;"); return;
    case StmtKind::Break: line("break;"); return;
    case StmtKind::Continue: line("continue;"); return;
    case StmtKind::Comment: line("// " + s->text); return;
    default: return;
  }
}

// Barriers, events, mbarriers, fences and waits.
void Emitter::synchronisation(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::Barrier:
      if (s->scope == Scope::Warpgroup)
        line(llvm::formatv("croq::named_barrier_sync({0} + tid_ / 128, 128);", s->count).str());
      else if (s->scope == Scope::Cluster)
        line("croq::cluster::sync();");
      else if (s->scope == Scope::Cta && s->count > 0)
        line(llvm::formatv("croq::named_barrier_sync({0}, {1});", s->count, s->threads).str());
      else
        line(s->scope == Scope::Warp ? "__syncwarp();" : "__syncthreads();");
      return;
    case StmtKind::EventArrive: {
      std::string bar = eventAddress(*s);
      std::string call = s->count > 0   ? llvm::formatv("croq::event::arrive_tx({0}, {1}u, {2});", bar, s->count,
                                                        s->cond ? printExpr(s->cond) : "true")
                                              .str()
                         : s->cluster > 1
                             ? llvm::formatv("croq::event::arrive_cluster<{0}>({1});", s->cluster, bar).str()
                                          : "croq::event::arrive(" + bar + ");";
      line(s->rank ? "if (" + printExpr(s->rank) + " == 0) " + call : call);
      return;
    }
    case StmtKind::EventWait:
      if (s->value)
        line(llvm::formatv("croq::event::wait_parity({0}, static_cast<std::uint32_t>({1}), \"{2}\", {3});",
                           eventAddress(*s), printExpr(s->value), s->op, printExpr(s->index))
                 .str());
      else
        line(llvm::formatv("croq::event::wait({0}, {1}, {2}, \"{3}\");", eventAddress(*s), s->var, printExpr(s->index),
                           s->op)
                 .str());
      return;
    case StmtKind::AsyncCommit: line("croq::cp_async_commit();"); return;
    case StmtKind::AsyncWait: line("croq::cp_async_wait_dynamic(" + printExpr(s->value) + ");"); return;
    case StmtKind::TmaWait:
      line("if (" + printExpr(s->cond) + ") croq::wgmma::tma_wait(" + s->var + ", " + s->op + ");");
      return;
    case StmtKind::Fence: line(fenceCall(s->fence)); return;
    case StmtKind::GridSync: line("croq::grid_sync();"); return;
    case StmtKind::WgmmaCommit: line("croq::wgmma::commit_group();"); return;
    case StmtKind::WgmmaWait: line("croq::wgmma::wait_group<" + std::to_string(s->count) + ">();"); return;
    case StmtKind::WgmmaFence:
      line("croq::wgmma::fence_operands(" + s->frag->name +
           (s->count >= 0 ? "[" + std::to_string(s->count) + "]" : std::string()) + ");");
      return;
    case StmtKind::WgmmaArrive: line("croq::wgmma::fence();"); return;
    case StmtKind::MbarrierInit:
      line("if (tid_ == 0) croq::mbarrier::init(" + s->buffer->name + ", " + std::to_string(s->count) + ");");
      return;
    case StmtKind::EventInit:
      line("croq::event::init(" + s->buffer->name + ", " + std::to_string(s->count) + ", " +
           std::to_string(s->threads) + ", tid_);  // event `" + s->text + "`: " + std::to_string(s->threads) +
           " arrival" + (s->threads == 1 ? "" : "s") + " per phase");
      return;
    default: return;
  }
}

// Fragments and MMA atoms (loads, stores and WGMMAs have their own printers).
void Emitter::fragmentOp(const Stmt* s) {
  switch (s->kind) {
    case StmtKind::FragDecl:
      if (s->frag->warpgroup && s->frag->role == FragRole::C) {
        line(llvm::formatv("croq::wgmma::accumulator_t<{0}, {1}> {2}[{3}];", s->frag->logicalCols,
                           cxxElementType(s->frag->accType), s->frag->name, s->frag->rows)
                 .str());
        return;
      }
      {
        std::string dims;
        for (std::int64_t d : s->frag->arrayDims) dims += "[" + std::to_string(d) + "]";
        line(llvm::formatv("{0} {1}{2}[{3}][{4}];", fragmentType(*s->frag), s->frag->name, dims, s->frag->rows,
                           s->frag->cols)
                 .str());
      }
      return;
    case StmtKind::FragFill:
      if (s->frag->warpgroup) {
        for (std::int64_t i = 0; i < s->frag->rows; ++i)
          line(llvm::formatv("croq::wgmma::fill<{0}, {1}>({2}[{3}], {4});", s->frag->logicalCols,
                             cxxElementType(s->frag->accType), s->frag->name, i, printExpr(s->value))
                   .str());
        return;
      }
      line("croq::mma::fill(" + fragRef(s) + ", " + printExpr(s->value) + ");");
      return;
    case StmtKind::FragUpdate:
      line(llvm::formatv("croq::mma::update({0}, [&](auto x) {{ return x {1} ({2}); });", fragRef(s),
                         s->op, printExpr(s->value))
               .str());
      return;
    case StmtKind::FragStore: line(printExpr(s->index) + " " + s->op + " " + printExpr(s->value) + ";"); return;
    case StmtKind::AtomMma:
      if (s->fragE) {
        line(llvm::formatv("croq::mma::mma_sp<{0}>({1}[{2}][{3}], {4}[{2}][{5}], {6}[{3}][{5}], {7}[{2}][{5}]);",
                           cxxElementType(s->frag->inType), fragRef(s), printExpr(s->i), printExpr(s->j),
                           s->fragA->name, printExpr(s->k), s->fragB->name, s->fragE->name)
                 .str());
        return;
      }
      line(llvm::formatv("croq::mma::mma<{0}>({1}[{2}][{3}], {4}[{2}][{5}], {6}[{3}][{5}]);",
                         cxxElementType(s->frag->inType), fragRef(s), printExpr(s->i), printExpr(s->j),
                         s->fragA->name, printExpr(s->k), s->fragB->name)
               .str());
      return;
    case StmtKind::AccScaleLoad: {
      const Tile& t = s->src;
      line(llvm::formatv("const croq::wgmma::row_scales {0} = croq::wgmma::load_row_scales({1}, {2}, {3}, {4});",
                         s->var, tilePointer(t), printExpr(t.strides[0]), validExtent(t, 0), printExpr(s->value))
               .str());
      return;
    }
    case StmtKind::AccScale:
      line(llvm::formatv("croq::wgmma::scale_add<{0}, {1}>({2}[{3}], {4}[{3}], {5});", s->frag->logicalCols,
                         cxxElementType(s->frag->accType), s->frag->name, printExpr(s->i), s->fragB->name, s->var)
               .str());
      return;
    default: return;
  }
}

}  // namespace croqc::codegen
