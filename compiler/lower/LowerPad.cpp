// `dma.pad<{lo...}, {hi...}, {mid...}, value> SRC => DST` (spec 12.2): the
// destination tile is the source grown by `lo` before and `hi` after each
// dimension; the source lands at offset `lo` and the border holds `value`.
//
// Lowered as two writes to disjoint elements by the threads of the copy's
// scope: a fill of the border (every element of the destination tile
// outside the interior window) and an ordinary tile copy (synchronous or
// `cp.async`) into the interior window, so the fill needs no ordering with
// the copy beyond what the copy itself has. `mid` (interior spacing) must be
// 0, as for Croqtile's CUDA back end.
#include "lower/LowerImpl.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// The constant entries of a `{a, b}` pad configuration, or nothing.
std::optional<std::vector<std::int64_t>> padAmounts(const sema::Type* t, size_t rank) {
  if (!t || t->kind != sema::TypeKind::Ituple || t->values.size() != rank) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const sym::SymExpr* v : t->values) {
    std::optional<std::int64_t> c = sym::constantValue(v);
    if (!c || *c < 0) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

}  // namespace

void Lowerer::lowerPad(const DmaStmt* d, const kir::Tile& src) {
  const sema::Symbol* future = futureOf(d);
  // A future whose copy is not generated is not reported again where it is read.
  auto fail = [&](DiagKind kind) {
    unsupported(kind, d->range());
    if (future) failed_.insert(future);
  };
  size_t rank = src.rank();
  std::optional<std::vector<std::int64_t>> lo, hi, mid;
  if (d->config.size() == 4) {
    lo = padAmounts(sema_.typeOf(d->config[0]), rank);
    hi = padAmounts(sema_.typeOf(d->config[1]), rank);
    mid = padAmounts(sema_.typeOf(d->config[2]), rank);
  }
  if (!lo || !hi || !mid || llvm::any_of(*mid, [](std::int64_t v) { return v != 0; })) {
    fail(DiagKind::err_unsupported_pad_amounts);
    return;
  }
  if (rank < 1 || rank > 2 || llvm::any_of(src.extents, [](std::int64_t e) { return e <= 0; })) {
    fail(DiagKind::err_unsupported_pad_source_shape);
    return;
  }
  std::optional<kir::Tile> dst;
  if (d->dest) {
    dst = lowerTile(d->dest, "the copy destination");
  } else if (future) {
    kir::Tile padded = src;
    for (size_t i = 0; i < rank; ++i) padded.extents[i] = src.extents[i] + (*lo)[i] + (*hi)[i];
    dst = futureTile(future, d->destStorage, padded, d->loc());
  } else {
    unsupported(DiagKind::err_unsupported_unnamed_copy_new_storage, d->range(), "dma.pad");
  }
  if (!dst) return;
  for (size_t i = 0; i < rank; ++i) {
    if (dst->rank() != rank || dst->extents[i] != src.extents[i] + (*lo)[i] + (*hi)[i]) {
      fail(DiagKind::err_unsupported_pad_dest_shape);
      return;
    }
  }
  std::optional<kir::Scope> scope = copyScope(d, *dst, src);
  if (!scope) return;
  if (dst->buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(dst->buffer));

  // The interior window: the destination shifted by `lo`, the source's size.
  kir::Tile inner = *dst;
  inner.runtimeExtents.assign(rank, nullptr);
  inner.valid.resize(rank, nullptr);
  for (size_t i = 0; i < rank; ++i) {
    inner.offset = m().add(inner.offset, m().mul(m().intc((*lo)[i]), dst->strides[i]));
    inner.extents[i] = src.extents[i];
    if (i < dst->valid.size() && dst->valid[i])
      inner.valid[i] = m().min(m().max(m().sub(dst->valid[i], m().intc((*lo)[i])), m().intc(0)),
                               m().intc(src.extents[i]));
  }
  fillPadBorder(*dst, src.extents, *lo, *scope, lowerExpr(d->config[3]), d->loc());
  bool async = d->isAsync && src.buffer->space == kir::Space::Global && dst->buffer->space == kir::Space::Shared;
  emitCopy(inner, src, *scope, async, dst->buffer->space != kir::Space::Global, d->loc());
  recordAsyncFuture(d, future, async);
}

void Lowerer::fillPadBorder(const kir::Tile& dst, llvm::ArrayRef<std::int64_t> interior,
                            llvm::ArrayRef<std::int64_t> lo, kir::Scope scope, const Expr* value, llvm::SMLoc loc) {
  std::int64_t threads = scope == kir::Scope::Cta ? kernel_->threads : scope == kir::Scope::Warp ? 32 : 1;
  const Expr* rank = scope == kir::Scope::Cta    ? m().var("tid_")
                     : scope == kir::Scope::Warp ? m().mod(m().var("tid_"), m().intc(32))
                                                 : m().intc(0);
  bool fence = scope != kir::Scope::Thread;
  // Earlier readers of the destination are done before the border changes.
  if (fence) barrier(scope, loc);
  std::int64_t cols = dst.rank() == 2 ? dst.extents[1] : dst.extents[0];
  std::int64_t rows = dst.rank() == 2 ? dst.extents[0] : 1;
  std::string e = fresh("pad");
  Stmt* loop = m().stmt(StmtKind::For, loc);
  firstInstanceOnly(scope, loc, [&] { out_->push_back(loop); });
  loop->var = e;
  loop->lo = rank;
  loop->hi = m().intc(rows * cols);
  loop->step = threads;
  nested(loop->body, [&] {
    const Expr* r = dst.rank() == 2 ? m().div(m().var(e), m().intc(cols)) : m().intc(0);
    const Expr* c = dst.rank() == 2 ? m().mod(m().var(e), m().intc(cols)) : m().var(e);
    llvm::SmallVector<const Expr*, 2> coords = dst.rank() == 2 ? llvm::SmallVector<const Expr*, 2>{r, c}
                                                               : llvm::SmallVector<const Expr*, 2>{c};
    const Expr* inBounds = dst.inside ? dst.inside : m().boolc(true);
    const Expr* inInterior = m().boolc(true);
    const Expr* index = dst.offset;
    for (size_t i = 0; i < coords.size(); ++i) {
      if (i < dst.valid.size() && dst.valid[i]) inBounds = m().logicalAnd(inBounds, m().lt(coords[i], dst.valid[i]));
      inInterior = m().logicalAnd(inInterior, m().logicalAnd(m().lt(m().intc(lo[i] - 1), coords[i]),
                                                             m().lt(coords[i], m().intc(lo[i] + interior[i]))));
      index = m().add(index, m().mul(coords[i], dst.strides[i]));
    }
    Stmt* guard = emit(StmtKind::If, loc);
    guard->cond = m().logicalAnd(inBounds, m().unary("!", inInterior, kir::ScalarType::boolean()));
    nested(guard->body, [&] {
      Stmt* st = emit(StmtKind::Store, loc);
      st->buffer = dst.buffer;
      st->index = index;
      st->op = "=";
      st->value = m().convert(value, kir::ScalarType::element(dst.buffer->elem));
    });
  });
}

}  // namespace croqc::lower
