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

bool Lowerer::viewOrigin2d(const ast::Expr* e, const kir::Buffer* global, TmaTensor& tensor) {
  tensor.row0 = m().intc(0);
  tensor.col0 = m().intc(0);
  tensor.rows = global->shape.size() == 2 ? global->shape[0] : nullptr;
  tensor.cols = global->shape.size() == 2 ? global->shape[1] : nullptr;
  const sema::Type* t = sema_.typeOf(e);
  const std::shared_ptr<sema::ViewInfo> view = t ? t->view : nullptr;
  if (view && view->base) {
    // A tile of the whole buffer read as a 2-D array (`rhs.span_as(E * N, K)`
    // of an [E, N, K] tensor): the map describes the buffer in that shape.
    bool wholeReshape = view->reshaped && view->reshapedShape.size() == 2 &&
                        (!view->linearOffset || sym::constantValue(view->linearOffset) == 0);
    if (!view->dimMap.empty() || (view->reshaped && !wholeReshape) || view->origin.size() != 2 ||
        sym::constantValue(view->stride[0]) != 1 || sym::constantValue(view->stride[1]) != 1) {
      tensor.rows = nullptr;
    } else {
      if (wholeReshape) {
        tensor.rows = lowerSym(view->reshapedShape[0], e->loc());
        tensor.cols = lowerSym(view->reshapedShape[1], e->loc());
        if (!hostComputable(tensor.rows) || !hostComputable(tensor.cols)) tensor.rows = nullptr;
      }
      if (tensor.rows) {
        tensor.row0 = lowerSym(view->origin[0], e->loc());
        tensor.col0 = lowerSym(view->origin[1], e->loc());
      }
    }
  }
  if (!tensor.rows) unsupported(DiagKind::err_unsupported_tma_strided_tile, e->range());
  return tensor.rows != nullptr;
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

std::string Lowerer::tensorMap(const kir::Buffer* global, const TmaTensor& tensor, std::int64_t rows,
                               std::int64_t cols, int swizzle) {
  const std::string shape = printExpr(tensor.rows) + " x " + printExpr(tensor.cols);
  for (const auto& [key, name] : tensorMaps_)
    if (key.buffer == global && key.shape == shape && key.rows == rows && key.cols == cols && key.swizzle == swizzle)
      return name;
  std::string name = "tmap_" + std::to_string(tensorMaps_.size()) + "_" + std::to_string(function_->kernels.size());
  tensorMaps_.push_back({{global, shape, rows, cols, swizzle}, name});
  // The wrapper's pointer to the tensor: a device copy of a host parameter,
  // or the caller's device pointer.
  std::string ptr = global->name + (global->wrapperOwned ? ".get()" : "");
  kir::HostStmt h;
  h.kind = kir::HostStmt::Kind::TensorMap;
  h.text = name;
  h.buffer = global;
  h.from = ptr;
  h.tensorRows = tensor.rows;
  h.tensorCols = tensor.cols;
  h.boxRows = rows;
  h.boxCols = cols;
  h.swizzle = swizzle;
  h.stream = function_->stream;
  function_->wrapper.push_back(h);
  kernel_->params.push_back(kir::KernelParam::tensorMap(name));
  return name;
}

kir::Buffer* Lowerer::newMbarrier(llvm::StringRef base) {
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
  Stmt* init = emit(StmtKind::MbarrierInit, {});
  init->buffer = bar;
  init->count = 1;
  out_ = saved;
  anyMbarrier_ = true;
  return bar;
}

std::string Lowerer::viewOriginText(const ast::Expr* e, unsigned d) const {
  const sema::Type* t = sema_.typeOf(e);
  const std::shared_ptr<sema::ViewInfo> view = t ? t->view : nullptr;
  if (!view || !view->base || d >= view->origin.size()) return "0";
  return sym::print(view->origin[d]);
}

bool Lowerer::hostComputable(const Expr* e) const {
  switch (e->kind) {
    case kir::ExprKind::IntConst:
    case kir::ExprKind::BoolConst: return true;
    case kir::ExprKind::Var:
      return llvm::any_of(kernel_->params,
                          [&](const kir::KernelParam& p) {
                            return p.kind == kir::KernelParam::Kind::Scalar && p.name == e->name &&
                                   p.argument == e->name && p.type.kind == kir::ScalarType::Kind::Int;
                          });
    case kir::ExprKind::Unary:
    case kir::ExprKind::Binary:
    case kir::ExprKind::Call:
      return llvm::all_of(e->operands, [&](const Expr* o) { return hostComputable(o); });
    default: return false;
  }
}

std::optional<Lowerer::TmaSharedBoxes> Lowerer::planTmaShared(const kir::Tile& t, const ast::Expr* view) {
  const kir::Buffer* b = t.buffer;
  if (b->space != kir::Space::Shared || t.rank() != 2 || b->shape.size() != 2 || !b->shape[0]->isConst() ||
      !b->shape[1]->isConst() || t.extents[0] <= 0 || t.extents[1] <= 0) {
    unsupported(DiagKind::err_unsupported_tma_shared_tile, view->range());
    return std::nullopt;
  }
  const std::int64_t elemBytes = target::elementBytes(b->elem);
  const std::int64_t bufRows = b->shape[0]->intValue;
  const std::int64_t cols = t.extents[1];
  TmaSharedBoxes p;
  p.rows = t.extents[0];
  std::int64_t align = 128;
  std::string rule;
  // A whole buffer (a future's new storage) has its origin at (0, 0).
  const Expr* row0 = t.row0 ? t.row0 : m().intc(0);
  const Expr* col0 = t.col0 ? t.col0 : m().intc(0);
  if (const int w = b->swizzleBytes) {
    // A WGMMA operand: column block kb holds `bufRows` rows of w bytes; the
    // copy engine writes one box per block with the same swizzle, which it
    // applies to shared addresses, so a box starts at a multiple of 8 rows
    // (the swizzle period) of a block.
    const std::int64_t perRow = w / elemBytes;
    if (cols % perRow != 0 || kir::knownMultiple(col0) < perRow) {
      unsupported(DiagKind::err_unsupported_tma_swizzle_columns, view->range(), printExpr(col0), cols, perRow, w);
      return std::nullopt;
    }
    p.boxCols = perRow;
    p.boxes = cols / perRow;
    // Block col0 / perRow starts col0 / perRow * bufRows * perRow elements in.
    p.offset = m().add(t.offset, m().add(m().mul(col0, m().intc(bufRows)), m().mul(row0, m().intc(perRow))));
    p.boxStride = m().intc(bufRows * perRow);
    align = 8 * w;
    rule = llvm::formatv("a {0}-byte swizzled box starts at a multiple of 8 rows ({1} bytes) of its column block: take "
                         "row origins that are multiples of 8, such as `buf.subspan(R, C).at(stage, 0)` with R a "
                         "multiple of 8",
                         w, align)
               .str();
  } else {
    // A dense box is rows x cols elements back to back: whole rows only.
    if (cols != b->rowStride || b->shape[1]->intValue != cols) {
      unsupported(DiagKind::err_unsupported_tma_column_range, view->range(), b->shape[1]->intValue);
      return std::nullopt;
    }
    p.boxCols = cols;
    p.boxes = 1;
    p.offset = t.offset;
    p.boxStride = m().intc(p.rows * cols);
    rule = "TMA needs 128-byte aligned shared memory: take row origins whose offset is a multiple of 128 bytes";
  }
  if (kir::knownMultiple(p.offset) * elemBytes % align != 0) {
    const sema::Symbol* root = rootSymbol(view, nullptr);
    diags_
        .report(view->loc(), DiagKind::err_tma_box_misaligned, sourceText(view->range()), viewOriginText(view, 0),
                viewOriginText(view, 1), root ? root->name : b->name, align, rule)
        .range(view->range());
    return std::nullopt;
  }
  if (p.rows > 256 || p.boxCols > 256 || (p.boxCols * elemBytes) % 16 != 0) {
    unsupported(DiagKind::err_unsupported_tma_box, view->range(), p.rows, p.boxCols);
    return std::nullopt;
  }
  return p;
}

bool Lowerer::settleTmaGlobalTile(kir::Tile& global, const TmaSharedBoxes& box, const ast::Expr* view) {
  if (global.buffer->space != kir::Space::Global || global.rank() != 2) {
    unreachable("a TMA copy whose global side is not a 2-D global tile");
  }
  const std::int64_t boxExtents[2] = {box.rows, box.boxCols * box.boxes};
  for (unsigned d = 0; d < 2; ++d) {
    if (global.extents[d] > 0 && global.extents[d] != boxExtents[d]) {
      unsupported(DiagKind::err_unsupported_tma_shape_mismatch, view->range(), global.extents[0], global.extents[1],
                  boxExtents[0], boxExtents[1]);
      return false;
    }
    if (global.extents[d] > 0 && !global.runtimeExtents[d]) continue;
    // A run-time extent (`rhs.chunkat(block_n, k)` of a symbolic tensor, or
    // `x.view(T, 64)` of a constant-bounded one): TMA moves the whole box,
    // which is the tile when the extent equals it; otherwise the plain copy
    // moves what the tile holds. Which one runs is decided before the
    // launch, so the extent must be known there: a tile whose extent
    // changes from block to block would have the box's rows past its end
    // loaded where it asks for zeros.
    const Expr* extent = global.runtimeExtents[d];
    if (!extent || !hostComputable(extent)) {
      diags_
          .report(view->loc(), DiagKind::err_lower_nonconstant_tile, "a TMA copy", d,
                  extent ? printExpr(extent) : std::string("?"))
          .range(view->range());
      return false;
    }
    tmaHostConditions_.push_back(m().eq(extent, m().intc(boxExtents[d])));
    const Expr* bound = m().min(extent, m().intc(boxExtents[d]));
    global.valid[d] = global.valid[d] ? m().min(global.valid[d], bound) : bound;
    global.extents[d] = boxExtents[d];
  }
  return true;
}

bool Lowerer::tmaCopyIsPlain(const DmaStmt* d) {
  const sema::Type* src = sema_.typeOf(d->source);
  const sema::Type* dst = d->dest ? sema_.typeOf(d->dest) : src;
  if (!src || !dst) return false;
  size_t rank = src->shape.size() != 2 ? src->shape.size() : dst->shape.size();
  if (rank == 2) return false;
  diags_.report(d->loc(), DiagKind::warn_tma_copy_plain, sourceText(d->source->range()), rank)
      .range(d->range());
  return true;
}

void Lowerer::lowerTma(const DmaStmt* d) {
  if (d->op != TokenKind::m_copy && d->op != TokenKind::m_load) {
    unsupported(DiagKind::err_unsupported_tma_op, d->range(), tokenKindSpelling(d->op));
    return;
  }
  std::optional<kir::Tile> src = lowerTile(d->source, "the TMA source");
  if (!src) return;
  if (src->buffer->space == kir::Space::Shared && d->dest) {
    lowerTmaStore(d, *src);
    return;
  }
  if (src->buffer->space != kir::Space::Global || src->rank() != 2) {
    unreachable("a TMA load whose source is not a 2-D global tile");
  }
  // The tile's origin in the tensor, and the tensor's 2-D shape.
  TmaTensor tensor;
  if (!viewOrigin2d(d->source, src->buffer, tensor)) return;
  const Expr* r0 = tensor.row0;
  const Expr* c0 = tensor.col0;
  // The destination: a shared buffer (or a buffer-array slot), whole or a
  // tile of it; or the new storage of the future.
  const sema::Symbol* future = nullptr;
  if (!d->future.empty())
    if (auto decls = sema_.declarations.find(d); decls != sema_.declarations.end() && !decls->second.empty())
      future = decls->second.front();
  std::optional<kir::Tile> dst = tmaLoadDestination(d, *src, future);
  if (!dst) return;
  std::optional<TmaSharedBoxes> box = planTmaShared(*dst, d->dest ? d->dest : d->source);
  if (!box || !settleTmaGlobalTile(*src, *box, d->source)) return;
  const kir::Buffer* db = dst->buffer;
  std::int64_t elemBytes = target::elementBytes(db->elem);
  std::int64_t cluster = 1;
  if (hasMulticast(d) && kernel_->clusterSize > 1) {
    cluster = kernel_->clusterSize;
    if (!checkMulticast(d, *box, db->swizzleBytes)) return;
  }
  std::string map = tensorMap(src->buffer, tensor, box->rows / cluster, box->boxCols, db->swizzleBytes);

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
  // One thread of the region issues the copy: its tiles must be the same
  // for every thread of it.
  ParallelLevel deepest = std::max(deepestLevelUsed(d->source), d->dest ? deepestLevelUsed(d->dest) : ParallelLevel::Block);
  if (deepest != ParallelLevel::Block && threads > 1) {
    unsupported(DiagKind::err_unsupported_tma_load_thread_tiles, d->range());
    return;
  }
  if (eventExpr) {
    event = lowerEventRef(eventExpr);
    if (!event) return;
    bar = event->buffer->name;
    std::int64_t bytes = box->rows * box->boxCols * box->boxes * elemBytes;
    if (d->asyncEvent) pendingEventBytes_[event->symbol] += bytes;
    else boundBytes_[future] = bytes;
  } else if (async) {
    bar = nameFor(future) + "_bar";
    phase = nameFor(future) + "_phase";
    if (!tmaFutures_.count(future)) declareFutureMbarrier(future, bar, phase, d->loc());
  } else {
    bar = newMbarrier("mbar")->name;
    phase = bar + "_phase";
    declareCounter(phase, d->loc());
  }

  const Expr* ok = m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean());
  // An event-bound copy is ordered by the event protocol (the producer waits
  // for `empty` before it overwrites a slot).
  // A synchronous multicast copy also writes the other blocks' buffers:
  // they all finish with the previous tile first.
  if (!event && cluster > 1 && !regions_.empty()) {
    unsupported(DiagKind::err_unsupported_multicast_in_inthreads, d->range());
    return;
  }
  if (!event) barrier(cluster > 1 ? kir::Scope::Cluster : kir::Scope::Cta, d->loc());
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
  if (event && !event->index->isConst(0)) load->mbarrierIndex = event->index;
  load->count = box->boxes;
  load->cluster = cluster;
  load->k = m().intc(box->boxCols);
  load->index = box->offset;
  load->value = box->boxStride;
  // Without TMA: the same tile by a cooperative copy.
  nested(load->body, [&] {
    Stmt* c = emit(StmtKind::Copy, d->loc());
    c->dst = *dst;
    c->src = *src;
    c->scope = kir::Scope::Cta;
    c->threads = threads;
    c->rank = rank;
    c->zfill = true;
    if (db->swizzleBytes) emit(StmtKind::Fence, d->loc())->fence = kir::FenceKind::ProxyAsyncShared;
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

std::optional<kir::Tile> Lowerer::tmaLoadDestination(const DmaStmt* d, const kir::Tile& src,
                                                      const sema::Symbol* future) {
  if (d->dest) return lowerTile(d->dest, "the TMA destination");
  if (future) {
    for (std::int64_t e : src.extents)
      if (e <= 0) {
        unreachable("a TMA copy into new storage of a tile whose shape is known only at run time");
      }
    tmaDests_.insert(future);
    return futureTile(future, Storage::Shared, src, d->loc());
  }
  unsupported(DiagKind::err_unsupported_unnamed_tma_new_storage, d->range());
  return std::nullopt;
}

void Lowerer::declareFutureMbarrier(const sema::Symbol* future, const std::string& bar, const std::string& phase,
                                    llvm::SMLoc loc) {
  tmaFutures_.insert(future);
  // The future's mbarrier is named through a pointer, which `swap`
  // exchanges with the other futures' ones.
  kir::Buffer* storage = newMbarrier(future->name + "_mbar");
  kir::Buffer* alias = m().buffer();
  *alias = *storage;
  alias->name = bar;
  alias->pointer = true;
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  Stmt* ptr = emit(StmtKind::BufferPointer, loc);
  ptr->buffer = alias;
  ptr->src.buffer = storage;
  out_ = saved;
  declareCounter(phase, loc);
}

bool Lowerer::hasMulticast(const DmaStmt* d) {
  return std::any_of(d->modifiers.begin(), d->modifiers.end(),
                     [](const DmaModifier& m) { return m.kind == TokenKind::m_multicast; });
}

// Every block of the cluster loads `rows / cluster` rows of the box and the
// copy engine writes them into all the blocks' buffers: the tile must be the
// same in all of them, and each part a whole number of swizzle rows.
bool Lowerer::checkMulticast(const DmaStmt* d, const TmaSharedBoxes& box, int swizzleBytes) {
  const sema::Symbol* varying = nullptr;
  forEachSymbolUsed(d->source, [&](const sema::Symbol& s) {
    if (!varying && (&s == kernelInfo_->clusterRank || &s == kernelInfo_->clusterBlockVar)) varying = &s;
  });
  if (varying) {
    diags_.report(d->source->loc(), DiagKind::err_multicast_source_varies, varying->name).range(d->source->range());
    return false;
  }
  const std::int64_t cluster = kernel_->clusterSize;
  const std::int64_t unit = swizzleBytes ? 8 : 1;
  if (box.rows % cluster != 0 || (box.rows / cluster) % unit != 0) {
    std::string hint = swizzleBytes ? llvm::formatv("a {0}-byte swizzle repeats every 8 rows: use a tile of a multiple "
                                                    "of {1} rows, or a smaller cluster",
                                                    swizzleBytes, 8 * cluster)
                                          .str()
                                    : llvm::formatv("use a tile whose rows divide by {0}", cluster).str();
    std::string parts = swizzleBytes ? llvm::formatv("whole {0}-byte swizzle periods (8 rows)", swizzleBytes).str()
                                     : std::string("whole rows");
    diags_.report(d->loc(), DiagKind::err_multicast_box_rows, box.rows, cluster, parts, hint).range(d->range());
    return false;
  }
  return true;
}

void Lowerer::lowerTmaStore(const DmaStmt* d, const kir::Tile& src) {
  // `tma.copy tile_s => out.subspan(R, C).at(i, j)`: a shared tile (whole
  // buffer or rows of it) to a box of the global tensor; the copy engine
  // clips what lies outside.
  std::optional<kir::Tile> dst = lowerTile(d->dest, "the TMA destination");
  if (!dst) return;
  if (src.buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_tma_store_wgmma_operand, d->source->range());
    return;
  }
  // Who stores: the block (or its `inthreads` region), or each warpgroup its
  // own tile when the tiles depend on a warpgroup variable (a consumer's
  // `output_s[cidx]`).
  ParallelLevel deepest = std::max(deepestLevelUsed(d->source), deepestLevelUsed(d->dest));
  if (deepest == ParallelLevel::Group || deepest == ParallelLevel::Thread) {
    unsupported(DiagKind::err_unsupported_tma_store_thread_tiles, d->range());
    return;
  }
  const kir::Scope scope = deepest == ParallelLevel::Group4 ? kir::Scope::Warpgroup : kir::Scope::Cta;
  std::int64_t threads = 0;
  const Expr* rank = nullptr;
  if (scope == kir::Scope::Warpgroup) {
    threads = 128;
    rank = m().mod(m().var("tid_"), m().intc(128));
  } else if (!regionThreads(d->range(), threads, rank)) {
    return;
  }
  // A tile of part of each row (a staging buffer padded against bank
  // conflicts) is no dense box: the threads store it themselves.
  const kir::Buffer* sb = src.buffer;
  if (src.rank() == 2 && sb->shape.size() == 2 && sb->shape[1]->isConst() && src.extents[1] > 0 &&
      (src.extents[1] != sb->rowStride || sb->shape[1]->intValue != src.extents[1])) {
    const sema::Symbol* root = rootSymbol(d->source, nullptr);
    diags_
        .report(d->source->loc(), DiagKind::warn_tma_store_plain, sourceText(d->source->range()), src.extents[1],
                sb->shape[1]->intValue, root ? root->name : sb->name)
        .range(d->source->range());
    if (dst->rank() != 2 || dst->extents[0] != src.extents[0] || dst->extents[1] != src.extents[1]) {
      unsupported(DiagKind::err_unsupported_tma_store, d->range());
      return;
    }
    written_.insert(const_cast<kir::Buffer*>(dst->buffer));
    barrier(scope, d->loc());
    Stmt* c = emit(StmtKind::Copy, d->loc());
    c->dst = *dst;
    c->src = src;
    c->scope = kir::Scope::Cta;
    c->threads = threads;
    c->rank = rank;
    barrier(scope, d->loc());
    return;
  }
  std::optional<TmaSharedBoxes> box = planTmaShared(src, d->source);
  if (!box || !settleTmaGlobalTile(*dst, *box, d->dest)) return;
  TmaTensor tensor;
  if (!viewOrigin2d(d->dest, dst->buffer, tensor)) return;
  const Expr* r0 = tensor.row0;
  const Expr* c0 = tensor.col0;
  written_.insert(const_cast<kir::Buffer*>(dst->buffer));
  std::string map = tensorMap(dst->buffer, tensor, box->rows, box->boxCols, 0);
  const Expr* ok = m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean());
  // Ordinary stores into the tile become visible to the copy engine.
  emit(StmtKind::Fence, d->loc())->fence = kir::FenceKind::ProxyAsyncShared;
  barrier(scope, d->loc());
  Stmt* store = emit(StmtKind::TmaStore, d->loc());
  store->cond = ok;
  store->src = src;
  store->dst = *dst;
  store->dst.row0 = r0;
  store->dst.col0 = c0;
  store->text = map;
  store->count = 1;
  store->k = m().intc(box->boxCols);
  store->rank = rank;
  nested(store->body, [&] {
    Stmt* c = emit(StmtKind::Copy, d->loc());
    c->dst = *dst;
    c->src = src;
    c->scope = kir::Scope::Cta;
    c->threads = threads;
    c->rank = rank;
  });
  barrier(scope, d->loc());
}

}  // namespace croqc::lower
