// Register fragments declared with `frag T[d...] name {v};` and the
// operations on them (spec 9.4, 13.10): `apply {i, j} in f.span { ... }`,
// element access `f.at(i, j)`, `reduce_max` / `reduce_sum` along a
// dimension, `copy` and `all_reduce_sum`.
//
// Layout: every thread of the scope that declares a fragment holds all of
// its elements in a private array (local memory or registers, as nvcc
// decides), so `apply` walks every element and a reduction needs no
// exchange between threads; `all_reduce_sum` of such a fragment, whose
// owners already hold the complete values, leaves it unchanged. The results
// are those of a distributed layout; a layout shared with an MMA
// accumulator (whose elements are spread over a warp or warpgroup) is not
// generated: `apply` and reductions over accumulators are reported.
#include "lower/LowerImpl.h"

namespace croqc::lower {

using namespace ast;

namespace {

std::int64_t totalElements(const kir::Buffer* b) { return b->totalElements(); }

}  // namespace

void Lowerer::lowerFragDecl(const FragDeclStmt* d) {
  auto decls = sema_.declarations.find(d);
  if (decls == sema_.declarations.end()) return;
  for (size_t i = 0; i < d->decls.size() && i < decls->second.size(); ++i) {
    const sema::Symbol* sym = decls->second[i];
    if (d->dims.empty()) {
      // `frag.s32 mc[1][2] {0};`: MMA accumulators whose shape comes from use.
      unsupported(DiagKind::err_unsupported_frag_accumulator, d->decls[i].range, tokenKindSpelling(d->elem));
      failed_.insert(sym);
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
  const kir::Buffer* b = member ? fragmentBuffer(member->base, "`apply`") : nullptr;
  if (!b) return;
  std::vector<Stmt*>* into = out_;
  for (size_t i = 0; i < s->names.size() && i < b->shape.size(); ++i) {
    const sema::Symbol* iv = nullptr;
    for (const sema::Symbol* sym : sema_.allSymbols)
      if (sym->name == s->names[i] && sym->kind == sema::Symbol::Kind::IterVar && sym->loc == s->loc()) iv = sym;
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
