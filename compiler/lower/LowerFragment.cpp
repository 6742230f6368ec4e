// Register fragments declared with `frag T[d...] name {v};`, MMA
// accumulators, and the operations on them (spec 9.4, 13.10): `apply {i, j}
// in f.span { ... }`, element access `f.at(i, j)`, `reduce_max` /
// `reduce_sum` along a dimension, `copy` and `all_reduce_sum`.
//
// Layout of a `frag`: every thread of the scope that declares it holds all
// of its elements in a private array (local memory or registers, as nvcc
// decides), so `apply` walks every element and a reduction needs no
// exchange between threads; `all_reduce_sum` of such a fragment, whose
// owners already hold the complete values, leaves it unchanged.
//
// An MMA accumulator (f32) keeps the layout of the MMA that writes it: a
// warp's m16n8 atoms (croq/device/mma_layout.h, `c_row`/`c_col`) or a
// warpgroup's m64nN atoms (croq/device/wgmma_layout.h, `acc_row`/`acc_col`).
// `apply` over it visits, on each thread, the elements that thread holds
// (unrolled, so they stay in registers), with `i` and `j` their logical row
// and column; inside, `acc.at(i, j)` is that register, as is the element
// (i, j) of another accumulator of the same layout. A reduction along
// dimension 1 reduces each thread's elements of a row, then the four lanes
// that share the row (shuffles), and writes the row's value into the 1-D
// `frag` on those lanes; the rows a thread holds no element of keep their
// earlier values there (spec 13.10: a row vector is held by the row's owners).
#include "lower/LowerImpl.h"

#include <llvm/ADT/Sequence.h>

namespace croqc::lower {

using namespace ast;

namespace {

std::int64_t totalElements(const kir::Buffer* b) { return b->totalElements(); }

/// Where one thread's elements of an accumulator lie: atoms of `atomRows` x
/// `atomCols` elements, `perAtom` of them per thread, at the rows and columns
/// the layout intrinsics (kir/Intrinsics.def) give for the thread's index
/// `thread`.
struct AccumulatorLayout {
  std::int64_t atomRows, atomCols, perAtom;
  const char* rowFn;
  const char* colFn;
  std::int64_t threads;
};

AccumulatorLayout layoutOf(const kir::Fragment& f) {
  if (f.warpgroup) return {64, f.logicalCols, f.logicalCols / 2, "wgmma_acc_row", "wgmma_acc_col", 128};
  return {16, 8, 4, "mma_c_row", "mma_c_col", 32};
}

}  // namespace

const sema::Symbol* Lowerer::applyIndexVar(const ast::ApplyStmt* s, size_t i) const {
  for (const sema::Symbol* sym : sema_.allSymbols)
    if (sym->name == s->names[i] && sym->kind == sema::Symbol::Kind::IterVar && sym->loc == s->loc()) return sym;
  return nullptr;
}

kir::Fragment* Lowerer::accumulatorOf(const ast::Expr* e) {
  const sema::Symbol* s = llvm::isa<NameExpr>(e) ? sema_.references.lookup(e) : nullptr;
  kir::Fragment* f = s ? fragments_.lookup(s) : nullptr;
  return f && f->role == kir::FragRole::C ? f : nullptr;
}

bool Lowerer::checkAccumulatorElements(const kir::Fragment& f, llvm::SMRange where, llvm::StringRef what) {
  // The element functions of layoutOf are those of the m16n8 atoms.
  if (!f.warpgroup && (!f.defaultAtom() || !f.arrayDims.empty())) {
    unsupported(DiagKind::err_unsupported_acc_elements_atom, where, what,
                f.arrayDims.empty() ? "the m" + std::to_string(f.atomM) + "n8k" + std::to_string(f.atomK) + " atom"
                                    : std::string("an accumulator array"));
    return false;
  }
  if (f.accType == TokenKind::ty_f32) return true;
  unsupported(DiagKind::err_unsupported_acc_elements_f16, where, what);
  return false;
}

std::optional<const Expr*> Lowerer::accumulatorElement(const ast::Expr* base, llvm::ArrayRef<ast::Expr*> indices) {
  kir::Fragment* f = accumulatorOf(base);
  if (!f) return std::nullopt;
  for (auto it = accApplies_.rbegin(); it != accApplies_.rend(); ++it) {
    const AccumulatorApply& a = *it;
    bool sameLayout = a.frag->warpgroup == f->warpgroup && a.frag->rows == f->rows && a.frag->cols == f->cols &&
                      a.frag->logicalCols == f->logicalCols;
    bool atIndices = indices.size() == 2 && llvm::all_of(llvm::seq<size_t>(0, 2), [&](size_t d) {
                       return llvm::isa<NameExpr>(indices[d]) && sema_.references.lookup(indices[d]) == a.iv[d];
                     });
    if (!sameLayout || !atIndices) continue;
    if (!checkAccumulatorElements(*f, base->range(), "element access")) return nullptr;
    return m().fragElem(f, a.atomRow, a.atomCol, a.elem);
  }
  unsupported(DiagKind::err_unsupported_acc_element_outside_apply, base->range());
  return nullptr;
}

void Lowerer::forEachAccumulatorElement(const kir::Fragment& f, llvm::SMLoc loc,
                                        llvm::function_ref<void(const Expr*, const Expr*, const Expr*)> body) {
  AccumulatorLayout l = layoutOf(f);
  unrolledLoop("a", f.rows, loc, [&](const Expr* ar) {
    auto inAtomRow = [&](const Expr* ac) {
      unrolledLoop("e", l.perAtom, loc, [&](const Expr* e) { body(ar, ac, e); });
    };
    if (f.warpgroup) inAtomRow(m().intc(0));
    else unrolledLoop("b", f.cols, loc, inAtomRow);
  });
}

void Lowerer::lowerAccumulatorApply(const ApplyStmt* s, const kir::Fragment& f) {
  if (!checkAccumulatorElements(f, s->source->range(), "`apply`")) return;
  if (s->names.size() != 2) return;  // sema reports the count
  const sema::Symbol* iv[2] = {applyIndexVar(s, 0), applyIndexVar(s, 1)};
  if (!iv[0] || !iv[1]) return;
  AccumulatorLayout l = layoutOf(f);
  if (f.warpgroup && f.asyncUse)
    for (std::int64_t a = 0; a < f.rows; ++a) fenceFragment(f, a, s->loc());
  const Expr* thread = m().mod(m().var("tid_"), m().intc(l.threads));
  forEachAccumulatorElement(f, s->loc(), [&](const Expr* ar, const Expr* ac, const Expr* e) {
    const Expr* row =
        m().add(m().mul(ar, m().intc(l.atomRows)), m().intrinsic(l.rowFn, {thread, e}, kir::ScalarType::integer()));
    const Expr* col =
        m().add(m().mul(ac, m().intc(l.atomCols)), m().intrinsic(l.colFn, {thread, e}, kir::ScalarType::integer()));
    const Expr* coords[2] = {row, col};
    for (int d = 0; d < 2; ++d) {
      Stmt* let = emit(StmtKind::Let, s->loc());
      let->var = fresh(iv[d]->name);
      let->type = kir::ScalarType::integer();
      let->value = coords[d];
      let->maybeUnused = true;
      bindValue(iv[d], m().var(let->var));
    }
    accApplies_.push_back({{iv[0], iv[1]}, &f, ar, ac, e});
    lowerBody(s->body);
    accApplies_.pop_back();
  });
}

void Lowerer::reduceAccumulatorRows(const FragOpStmt* s, const kir::Buffer* dst, const kir::Fragment& f) {
  if (!checkAccumulatorElements(f, s->args[1]->range(), "`" + tokenKindSpelling(s->op).str() + "`")) return;
  AccumulatorLayout l = layoutOf(f);
  bool isMax = s->op == TokenKind::kw_reduce_max;
  kir::ScalarType f32 = kir::ScalarType::element(TokenKind::ty_f32);
  const Expr* thread = m().mod(m().var("tid_"), m().intc(l.threads));
  auto combine = [&](const Expr* a, const Expr* b) {
    return isMax ? m().intrinsic("fmax", {a, b}, f32) : m().binary("+", a, b, f32);
  };
  // Elements 2h and 2h + 1 of every group of four (warpgroup: of every 8
  // columns; warp: of every atom) lie on the thread's row h of the atom.
  unrolledLoop("a", f.rows, s->loc(), [&](const Expr* ar) {
    unrolledLoop("h", 2, s->loc(), [&](const Expr* h) {
      std::string acc = fresh("row");
      Stmt* let = emit(StmtKind::Let, s->loc());
      let->var = acc;
      let->type = f32;
      let->isMutable = true;
      let->value = isMax ? m().unary("-", m().intrinsic("infinity", {}, f32), f32) : m().floatc("0.0f", TokenKind::ty_f32);
      std::int64_t groups = f.warpgroup ? l.perAtom / 4 : f.cols;
      unrolledLoop("q", groups, s->loc(), [&](const Expr* q) {
        unrolledLoop("x", 2, s->loc(), [&](const Expr* x) {
          const Expr* pair = m().add(m().mul(h, m().intc(2)), x);
          const Expr* v = f.warpgroup ? m().fragElem(&f, ar, m().intc(0), m().add(m().mul(q, m().intc(4)), pair))
                                       : m().fragElem(&f, ar, q, pair);
          Stmt* upd = emit(StmtKind::Assign, s->loc());
          upd->var = acc;
          upd->op = "=";
          upd->value = combine(m().var(acc, f32), v);
        });
      });
      for (int lanes : {1, 2}) {
        Stmt* upd = emit(StmtKind::Assign, s->loc());
        upd->var = acc;
        upd->op = "=";
        upd->value = combine(m().var(acc, f32),
                             m().intrinsic("shfl_xor", {m().var("0xffffffffu"), m().var(acc, f32), m().intc(lanes)}, f32));
      }
      Stmt* st = emit(StmtKind::Store, s->loc());
      st->buffer = dst;
      st->index = m().add(m().mul(ar, m().intc(l.atomRows)),
                          m().intrinsic(l.rowFn, {thread, m().mul(h, m().intc(2))}, kir::ScalarType::integer()));
      st->op = "=";
      st->value = m().convert(m().var(acc, f32), kir::ScalarType::element(dst->elem));
    });
  });
}

void Lowerer::lowerFragDecl(const FragDeclStmt* d) {
  auto decls = sema_.declarations.find(d);
  if (decls == sema_.declarations.end()) return;
  for (size_t i = 0; i < d->decls.size() && i < decls->second.size(); ++i) {
    const sema::Symbol* sym = decls->second[i];
    if (d->dims.empty()) {
      // `frag.s32 mc[1][2] {0};`: MMA accumulators whose shape comes from use.
      kir::Fragment* f = wgmma_ ? nullptr : makeWarpAccumulator(sym, d->elem, d);
      if (!f) {
        if (wgmma_) unsupported(DiagKind::err_unsupported_frag_accumulator, d->decls[i].range, tokenKindSpelling(d->elem));
        failed_.insert(sym);
        continue;
      }
      if (const ast::Expr* init = d->decls[i].init) {
        const auto* tuple = llvm::dyn_cast<ItupleExpr>(init);
        if (tuple && tuple->elements.size() != 1) {
          unsupported(DiagKind::err_unsupported_fragment_multi_init, init->range());
          continue;
        }
        emitFillAll(f, lowerExpr(tuple ? tuple->elements[0] : init), d->loc());
      }
      continue;
    }
    if (!d->decls[i].arrayDims.empty()) {
      unsupported(DiagKind::err_unsupported_fragment_array, d->decls[i].range);
      failed_.insert(sym);
      continue;
    }
    kir::Buffer* b = makeBuffer(sym, kir::Space::Local, sym->type.elem, sym->type.shape, {}, d->loc());
    if (b->slotElements <= 0) {
      unsupported(DiagKind::err_unsupported_fragment_nonconstant_shape, d->range());
      failed_.insert(sym);
      continue;
    }
    declareLocalBuffer(b, d->loc());
    if (const ast::Expr* init = d->decls[i].init) {
      const ast::Expr* value = init;
      if (const auto* tuple = llvm::dyn_cast<ItupleExpr>(init)) {
        if (tuple->elements.size() != 1) {
          unsupported(DiagKind::err_unsupported_fragment_multi_init, init->range());
          continue;
        }
        value = tuple->elements[0];
      }
      fillLocal(b, m().convert(lowerExpr(value), kir::ScalarType::element(b->elem)), d->loc());
    }
  }
}

void Lowerer::fillLocal(const kir::Buffer* b, const Expr* value, llvm::SMLoc loc) {
  forEachElement(b, loc, [&](const Expr* e) {
    Stmt* st = emit(StmtKind::Store, loc);
    st->buffer = b;
    st->index = e;
    st->op = "=";
    st->value = value;
  });
}

void Lowerer::forEachElement(const kir::Buffer* b, llvm::SMLoc loc, llvm::function_ref<void(const Expr*)> body) {
  std::string iv = fresh("e");
  Stmt* loop = emit(StmtKind::For, loc);
  loop->var = iv;
  loop->lo = m().intc(0);
  loop->hi = m().intc(totalElements(b));
  nested(loop->body, [&] { body(m().var(iv)); });
}

const kir::Buffer* Lowerer::fragmentBuffer(const ast::Expr* e, llvm::StringRef what) {
  const sema::Symbol* s = llvm::isa<NameExpr>(e) ? sema_.references.lookup(e) : nullptr;
  if (s && failed_.count(s)) return nullptr;
  const kir::Buffer* b = s && s->type.kind == sema::TypeKind::Fragment ? bufferFor(s) : nullptr;
  if (!b) {
    std::string name(e->range().Start.getPointer(), e->range().End.getPointer());
    unsupported(DiagKind::err_unsupported_mma_fragment_elementwise, e->range(), what, name);
  }
  return b;
}

void Lowerer::lowerApply(const ApplyStmt* s) {
  const auto* member = llvm::dyn_cast<MemberExpr>(s->source);
  if (kir::Fragment* acc = member ? accumulatorOf(member->base) : nullptr) return lowerAccumulatorApply(s, *acc);
  const kir::Buffer* b = member ? fragmentBuffer(member->base, "`apply`") : nullptr;
  if (!b) return;
  std::vector<Stmt*>* into = out_;
  for (size_t i = 0; i < s->names.size() && i < b->shape.size(); ++i) {
    const sema::Symbol* iv = applyIndexVar(s, i);
    if (!iv) continue;
    std::string name = fresh(iv->name);
    Stmt* loop = m().stmt(StmtKind::For, s->loc());
    loop->var = name;
    loop->lo = m().intc(0);
    loop->hi = b->shape[i];
    bindValue(iv, m().var(name));
    into->push_back(loop);
    into = &loop->body;
  }
  nested(*into, [&] { lowerBody(s->body); });
}

void Lowerer::lowerFragOp(const FragOpStmt* s) {
  if (s->op == TokenKind::kw_all_reduce_sum) {
    // Every owner already holds the whole sums (see the top of this file).
    fragmentBuffer(s->args[0], "`all_reduce_sum`");
    return;
  }
  if (s->args.size() < 2) return;
  std::string op = "`" + tokenKindSpelling(s->op).str() + "`";
  if (kir::Fragment* acc = s->op != TokenKind::kw_copy ? accumulatorOf(s->args[1]) : nullptr) {
    const kir::Buffer* dst = fragmentBuffer(s->args[0], op);
    if (!dst) return;
    const sema::Type* dimType = s->args.size() > 2 ? sema_.typeOf(s->args[2]) : nullptr;
    std::optional<std::int64_t> dim =
        dimType && !dimType->values.empty() ? sym::constantValue(dimType->values[0]) : std::nullopt;
    if (dim != 1 || dst->shape.size() != 1 || !dst->shape[0]->isConst(acc->logicalRows)) {
      unsupported(DiagKind::err_unsupported_acc_reduction, s->range(), acc->logicalRows);
      return;
    }
    return reduceAccumulatorRows(s, dst, *acc);
  }
  const kir::Buffer* dst = fragmentBuffer(s->args[0], op);
  const kir::Buffer* src = fragmentBuffer(s->args[1], op);
  if (!dst || !src) return;
  kir::ScalarType elem = kir::ScalarType::element(kir::computeType(src->elem));
  if (s->op == TokenKind::kw_copy) {
    if (totalElements(dst) != totalElements(src)) {
      unsupported(DiagKind::err_unsupported_fragment_copy_sizes, s->range());
      return;
    }
    forEachElement(dst, s->loc(), [&](const Expr* e) {
      Stmt* st = emit(StmtKind::Store, s->loc());
      st->buffer = dst;
      st->index = e;
      st->op = "=";
      st->value = m().convert(m().load(src, e), kir::ScalarType::element(dst->elem));
    });
    return;
  }
  const sema::Type* dimType = s->args.size() > 2 ? sema_.typeOf(s->args[2]) : nullptr;
  std::optional<std::int64_t> dim =
      dimType && !dimType->values.empty() ? sym::constantValue(dimType->values[0]) : std::nullopt;
  if (src->shape.size() != 2 || dst->shape.size() != 1 || !dim || (*dim != 0 && *dim != 1) ||
      !src->shape[1 - *dim]->isConst() || !dst->shape[0]->isConst() ||
      src->shape[1 - *dim]->intValue != dst->shape[0]->intValue) {
    unsupported(DiagKind::err_unsupported_reduction, s->range());
    return;
  }
  bool isMax = s->op == TokenKind::kw_reduce_max;
  std::int64_t cols = src->shape[1]->intValue;
  std::int64_t kept = dst->shape[0]->intValue, reduced = src->shape[static_cast<size_t>(*dim)]->intValue;
  std::string k = fresh("k"), r = fresh("r"), acc = fresh("acc");
  Stmt* outer = emit(StmtKind::For, s->loc());
  outer->var = k;
  outer->lo = m().intc(0);
  outer->hi = m().intc(kept);
  nested(outer->body, [&] {
    auto at = [&](const Expr* kv, const Expr* rv) {
      const Expr* row = *dim == 1 ? kv : rv;
      const Expr* col = *dim == 1 ? rv : kv;
      return m().convert(m().load(src, m().add(m().mul(row, m().intc(cols)), col)), elem);
    };
    Stmt* let = emit(StmtKind::Let, s->loc());
    let->var = acc;
    let->type = elem;
    let->isMutable = true;
    let->value = at(m().var(k), m().intc(0));
    Stmt* inner = emit(StmtKind::For, s->loc());
    inner->var = r;
    inner->lo = m().intc(1);
    inner->hi = m().intc(reduced);
    nested(inner->body, [&] {
      const Expr* v = at(m().var(k), m().var(r));
      Stmt* upd = emit(StmtKind::Assign, s->loc());
      upd->var = acc;
      upd->op = "=";
      upd->value = isMax ? m().select(m().lt(m().var(acc, elem), v), v, m().var(acc, elem), elem)
                         : m().binary("+", m().var(acc, elem), v, elem);
    });
    Stmt* st = emit(StmtKind::Store, s->loc());
    st->buffer = dst;
    st->index = m().var(k);
    st->op = "=";
    st->value = m().convert(m().var(acc, elem), kir::ScalarType::element(dst->elem));
  });
}

}  // namespace croqc::lower
