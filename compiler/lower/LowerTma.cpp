// TMA copies on sm_90a (spec 12.2, 12.9, 12.10).
//
// `tma.copy src => dst` (and `tma.load`) of a 2-D tile of a global tensor
// into shared memory becomes a bulk tensor copy: the host wrapper encodes a
// CUtensorMap of the tensor in boxes of the tile's shape (a box per swizzle
// row block for swizzled WGMMA operand tiles, whose layout is exactly what
// the copy engine writes with the same swizzle), passed to the kernel as a
// `__grid_constant__` parameter. One thread issues the copy on an mbarrier
// with the expected byte count; every thread waits on the barrier's phase.
// Out-of-bounds parts of a box are zero-filled by the hardware, so partial
// tiles at the edges need no guards.
//
// A tensor whose rows are not a multiple of 16 bytes cannot be described to
// the copy engine; the wrapper then passes `tma_ok_ = 0` and the kernel runs
// the same copies as ordinary cooperative copies into the same layout.
#include "lower/LowerImpl.h"

#include <llvm/Support/FormatVariadic.h>

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

bool Lowerer::viewOrigin2d(const ast::Expr* e, const Expr*& row, const Expr*& col) {
  row = m().intc(0);
  col = m().intc(0);
  const sema::Type* t = sema_.typeOf(e);
  const std::shared_ptr<sema::ViewInfo> view = t ? t->view : nullptr;
  if (!view || !view->base) return true;
  if (!view->dimMap.empty() || view->reshaped || view->origin.size() != 2 ||
      sym::constantValue(view->stride[0]) != 1 || sym::constantValue(view->stride[1]) != 1) {
    unsupported(e->range(), "a strided or reshaped TMA tile", "use subspan/chunkat tiles");
    return false;
  }
  row = lowerSym(view->origin[0], e->loc());
  col = lowerSym(view->origin[1], e->loc());
  return true;
}

void Lowerer::findTmaDestinations(const ast::Stmt* body) {
  forEachStmt(body, [&](const ast::Stmt* s) {
    const auto* d = llvm::dyn_cast<DmaStmt>(s);
    if (!d || d->engine != TokenKind::kw_tma) return;
    // Both ends of a TMA copy that live in shared memory keep dense rows.
    if (d->dest)
      if (const sema::Symbol* root = rootSymbol(d->dest, nullptr)) tmaDests_.insert(root);
    if (const sema::Symbol* root = rootSymbol(d->source, nullptr); root && root->type.storage == Storage::Shared)
      tmaDests_.insert(root);
  });
}

std::string Lowerer::tensorMap(const kir::Buffer* global, std::int64_t rows, std::int64_t cols, int swizzle) {
  for (const auto& [key, name] : tensorMaps_)
    if (key.buffer == global && key.rows == rows && key.cols == cols && key.swizzle == swizzle) return name;
  std::string name = "tmap_" + std::to_string(tensorMaps_.size()) + "_" + std::to_string(function_->kernels.size());
  tensorMaps_.push_back({{global, rows, cols, swizzle}, name});
  // The wrapper's pointer to the tensor: a device copy of a host parameter,
  // or the caller's device pointer.
  std::string ptr = global->name;
  for (const kir::HostStmt& h : function_->wrapper)
    if (h.kind == kir::HostStmt::Kind::AllocDevice && h.buffer == global) ptr += ".get()";
  kir::HostStmt h;
  h.kind = kir::HostStmt::Kind::Raw;
  h.text = llvm::formatv("bool {0}_okb = false;\n  const CUtensorMap {0} = croq::tma::try_tensor_map_2d<{1}>({2}, "
                         "static_cast<std::uint64_t>({3}), static_cast<std::uint64_t>({4}), {5}, {6}, "
                         "croq::swizzle_mode::{7}, &{0}_okb);\n  const bool {0}_ok = {0}_okb;",
                         name, kir::cxxElementType(global->elem), ptr, printExpr(global->shape[0]),
                         printExpr(global->shape[1]), rows, cols,
                         swizzle == 128  ? "b128"
                         : swizzle == 64 ? "b64"
                         : swizzle == 32 ? "b32"
                                         : "none")
               .str();
  function_->wrapper.push_back(h);
  kernel_->params.push_back({name, "const __grid_constant__ CUtensorMap", name});
  return name;
}

std::string Lowerer::newMbarrier(llvm::StringRef base) {
  kir::Buffer* bar = m().buffer();
  bar->name = fresh(base);
  bar->elem = TokenKind::ty_u64;
  bar->space = kir::Space::Shared;
  bar->shape = {m().intc(1)};
  bar->strides = {m().intc(1)};
  bar->rowStride = 1;
  bar->slotElements = 1;
  kernel_->sharedBuffers.push_back(bar);
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  emit(StmtKind::Raw, {})->text = "if (tid_ == 0) croq::mbarrier::init(" + bar->name + ", 1);";
  out_ = saved;
  anyMbarrier_ = true;
  return bar->name;
}

void Lowerer::lowerTma(const DmaStmt* d) {
  if (d->op != TokenKind::m_copy && d->op != TokenKind::m_load) {
    unsupported(d->range(), "`tma" + tokenKindSpelling(d->op).str() + "`", "use `tma.copy` or `tma.load`");
    return;
  }
  std::optional<kir::Tile> src = lowerTile(d->source, "the TMA source");
  if (!src) return;
  if (src->buffer->space == kir::Space::Shared && d->dest) {
    lowerTmaStore(d, *src);
    return;
  }
  if (src->buffer->space != kir::Space::Global || src->rank() != 2 || src->extents[0] <= 0 || src->extents[1] <= 0) {
    unsupported(d->range(), "this TMA copy", "TMA copies a 2-D tile of constant shape from a global tensor into shared memory");
    return;
  }
  // The tile's origin in the tensor.
  const Expr* r0 = nullptr;
  const Expr* c0 = nullptr;
  if (!viewOrigin2d(d->source, r0, c0)) return;
  // The destination: a shared buffer (or a buffer-array slot), whole.
  const sema::Symbol* future = nullptr;
  if (!d->future.empty())
    if (auto decls = sema_.declarations.find(d); decls != sema_.declarations.end() && !decls->second.empty())
      future = decls->second.front();
  std::optional<kir::Tile> dst;
  if (d->dest) {
    dst = lowerTile(d->dest, "the TMA destination");
    if (!dst) return;
  } else if (future) {
    tmaDests_.insert(future);
    dst = futureTile(future, Storage::Shared, *src, d->loc());
    if (!dst) return;
  } else {
    unsupported(d->range(), "an unnamed TMA copy into new storage", "bind it: `f = tma.copy ... => shared;`");
    return;
  }
  const kir::Buffer* db = dst->buffer;
  std::int64_t rows = dst->rank() == 2 ? dst->extents[0] : 0, cols = dst->rank() == 2 ? dst->extents[1] : 0;
  bool whole = db->space == kir::Space::Shared && dst->rank() == 2 && db->shape.size() == 2 &&
               db->shape[0]->isConst(rows) && db->shape[1]->isConst(cols) &&
               (!dst->row0 || (dst->row0->isConst(0) && dst->col0->isConst(0)));
  if (!whole || rows != src->extents[0] || cols != src->extents[1]) {
    unsupported(d->range(), "a TMA copy into part of a buffer", "copy whole tiles: `tma.copy src.subspan(R, C).at(i, j) => buf;`");
    return;
  }
  std::int64_t elemBytes = target::elementBytes(db->elem);
  int swizzle = db->swizzleBytes;
  if (!swizzle && db->rowStride != cols) {
    unsupported(d->range(), "a TMA copy into a padded buffer");
    return;
  }
  std::int64_t boxCols = swizzle ? swizzle / elemBytes : cols;
  std::int64_t boxes = cols / boxCols;
  if (rows > 256 || boxCols > 256 || (boxCols * elemBytes) % 16 != 0 || cols % boxCols != 0) {
    unsupported(d->range(), llvm::formatv("a TMA box of [{0}, {1}]", rows, boxCols).str(),
                "TMA boxes have at most 256 rows and a multiple of 16 bytes per row");
    return;
  }
  std::string map = tensorMap(src->buffer, rows, boxCols, swizzle);

  // The mbarrier: an event's (`trigger e after f`, `tma.copy.async<e>`),
  // the future's (rotated with it), or one for this copy.
  std::string bar, phase;
  bool async = d->isAsync && future;
  const ast::Expr* eventExpr = d->asyncEvent;
  if (future)
    if (auto it = eventBound_.find(future); it != eventBound_.end() && d->isAsync) eventExpr = it->second;
  std::optional<EventRef> event;
  std::int64_t threads = 0;
  const Expr* rank = nullptr;
  if (!regionThreads(d->range(), threads, rank)) return;
  if (eventExpr) {
    event = lowerEventRef(eventExpr);
    if (!event) return;
    bar = eventAddress(*event);
    std::int64_t bytes = rows * cols * elemBytes;
    if (d->asyncEvent) pendingEventBytes_[event->symbol] += bytes;
    else boundBytes_[future] = bytes;
  } else if (async) {
    bar = nameFor(future) + "_bar";
    phase = nameFor(future) + "_phase";
    if (!tmaFutures_.count(future)) {
      tmaFutures_.insert(future);
      std::string storage = newMbarrier(future->name + "_mbar");
      std::vector<Stmt*>* saved = out_;
      out_ = &prologue_;
      emit(StmtKind::Raw, d->loc())->text = "std::uint64_t* " + bar + " = " + storage + ";";
      out_ = saved;
      declareCounter(phase, d->loc());
    }
  } else {
    bar = newMbarrier("mbar");
    phase = bar + "_phase";
    declareCounter(phase, d->loc());
  }

  const Expr* ok = m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean());
  // An event-bound copy is ordered by the event protocol (the producer waits
  // for `empty` before it overwrites a slot).
  if (!event) barrier(kir::Scope::Cta, d->loc());
  Stmt* load = emit(StmtKind::TmaLoad, d->loc());
  load->cond = ok;
  load->rank = rank;
  load->async = event.has_value();
  load->dst = *dst;
  load->src = *src;
  load->src.row0 = r0;
  load->src.col0 = c0;
  load->text = map;
  load->var = bar;
  load->count = boxes;
  load->k = m().intc(boxCols);
  // Without TMA: the same tile by a cooperative copy.
  nested(load->body, [&] {
    Stmt* c = emit(StmtKind::Copy, d->loc());
    c->dst = *dst;
    c->src = *src;
    c->scope = kir::Scope::Cta;
    c->threads = threads;
    c->rank = rank;
    c->zfill = true;
    if (db->swizzleBytes) emit(StmtKind::Raw, d->loc())->text = "croq::fence_proxy_async_shared();";
    // The trigger's single arrival follows every thread's part of the copy.
    if (event) barrier(kir::Scope::Cta, d->loc());
  });
  if (event) return;
  if (!async) {
    Stmt* wait = emit(StmtKind::TmaWait, d->loc());
    wait->cond = ok;
    wait->var = bar;
    wait->op = phase;
    barrier(kir::Scope::Cta, d->loc());
  }
}

void Lowerer::lowerTmaStore(const DmaStmt* d, const kir::Tile& src) {
  // `tma.copy tile_s => out.subspan(R, C).at(i, j)`: the whole shared tile
  // to a box of the global tensor; the copy engine clips what lies outside.
  std::optional<kir::Tile> dst = lowerTile(d->dest, "the TMA destination");
  if (!dst) return;
  const kir::Buffer* sb = src.buffer;
  std::int64_t rows = src.rank() == 2 ? src.extents[0] : 0, cols = src.rank() == 2 ? src.extents[1] : 0;
  bool whole = sb->shape.size() == 2 && sb->shape[0]->isConst(rows) && sb->shape[1]->isConst(cols) &&
               !sb->swizzleBytes && sb->rowStride == cols && src.offset->isConst(0);
  if (!whole || dst->buffer->space != kir::Space::Global || dst->rank() != 2 || dst->extents[0] != rows ||
      dst->extents[1] != cols) {
    unsupported(d->range(), "this TMA store", "store a whole shared tile: `tma.copy tile_s => out.subspan(R, C).at(i, j);`");
    return;
  }
  std::int64_t elemBytes = target::elementBytes(sb->elem);
  if (rows > 256 || cols > 256 || (cols * elemBytes) % 16 != 0) {
    unsupported(d->range(), llvm::formatv("a TMA box of [{0}, {1}]", rows, cols).str(),
                "TMA boxes have at most 256 rows and columns and a multiple of 16 bytes per row");
    return;
  }
  const Expr* r0 = nullptr;
  const Expr* c0 = nullptr;
  if (!viewOrigin2d(d->dest, r0, c0)) return;
  written_.insert(const_cast<kir::Buffer*>(dst->buffer));
  std::string map = tensorMap(dst->buffer, rows, cols, 0);
  const Expr* ok = m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean());
  // Ordinary stores into the tile become visible to the copy engine.
  emit(StmtKind::Raw, d->loc())->text = "croq::fence_proxy_async_shared();";
  barrier(kir::Scope::Cta, d->loc());
  Stmt* store = emit(StmtKind::TmaStore, d->loc());
  store->cond = ok;
  store->src = src;
  store->dst = *dst;
  store->dst.row0 = r0;
  store->dst.col0 = c0;
  store->text = map;
  store->count = 1;
  store->k = m().intc(cols);
  std::int64_t threads = 0;
  const Expr* rank = nullptr;
  if (!regionThreads(d->range(), threads, rank)) return;
  store->rank = rank;
  nested(store->body, [&] {
    Stmt* c = emit(StmtKind::Copy, d->loc());
    c->dst = *dst;
    c->src = src;
    c->scope = kir::Scope::Cta;
    c->threads = threads;
    c->rank = rank;
  });
  barrier(kir::Scope::Cta, d->loc());
}

}  // namespace croqc::lower
