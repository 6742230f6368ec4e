// Data movement: `dma.copy` (synchronous and `.async`), futures, `wait`,
// `swap` and `rotate` (spec 12, 14.6, 21.1, 21.4).
//
// A copy is cooperative over the threads whose views agree: all threads of
// the CTA when the source and destination do not depend on warp or thread
// variables, the 32 lanes of a warp when they depend on a warp variable,
// one thread when they depend on a thread variable. A synchronous copy is
// fenced by barriers of that scope on both sides, so that earlier readers
// of the destination are done and later readers see the data.
//
// An `.async` global -> shared copy is a `cp.async` group. Each thread
// counts the groups it issued (`async_issued_`) and every async future
// records the count of its own group, so `wait f` waits until no more than
// `issued - seq(f)` newer groups are pending, then synchronises the CTA.
// Futures that name shared storage are pointers, so `swap`/`rotate`
// exchange them without moving data, and a re-bound future writes into
// whatever storage its name holds at that point.
#include "lower/LowerImpl.h"

#include <llvm/Support/FormatVariadic.h>

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

std::optional<kir::Tile> Lowerer::futureTile(const sema::Symbol* future, Storage storage, const kir::Tile& src,
                                             llvm::SMLoc loc) {
  sema::Type type = future->type;
  type.storage = storage;
  // The source's shape; a dimension known only at run time keeps the
  // future's symbolic extent (shared storage sized at the launch).
  sema::SymList symbolic = type.shape;
  type.shape.clear();
  for (size_t d = 0; d < src.extents.size(); ++d)
    type.shape.push_back(src.extents[d] >= 0 || d >= symbolic.size() ? symbols().constant(src.extents[d])
                                                                     : symbolic[d]);
  type.elem = src.buffer->elem;
  kir::Buffer* buffer = futureStorage(future, type, loc);
  if (!buffer) return std::nullopt;
  return wholeStorageTile(buffer, src);
}

/// The tile of all of `storage`, a copy's new destination, with the extents
/// of its source `src` (a run-time one: the storage's own).
kir::Tile Lowerer::wholeStorageTile(const kir::Buffer* storage, const kir::Tile& src) {
  kir::Tile t;
  t.buffer = storage;
  t.offset = m().intc(0);
  t.extents = src.extents;
  for (size_t d = 0; d < src.extents.size(); ++d)
    t.runtimeExtents.push_back(src.extents[d] >= 0 ? nullptr : storage->shape[d]);
  t.strides = storage->strides;
  t.valid.assign(t.extents.size(), nullptr);
  // A swizzled WGMMA operand tile is placed by its 2-D origin: the whole
  // buffer starts at (0, 0).
  if (storage->swizzleBytes) t.row0 = t.col0 = m().intc(0);
  return t;
}

/// An unnamed `dma.copy ... => local` (or `=> shared`): nothing reads its data
/// again, but the copy still runs, into a buffer of its own of the source's
/// shape, declared at the top of the kernel as a future's storage is.
std::optional<kir::Tile> Lowerer::unnamedCopyTile(const ast::DmaStmt* d, const kir::Tile& src) {
  const sema::Type* srcType = sema_.typeOf(d->source);
  sema::SymList shape;
  for (size_t i = 0; i < src.extents.size(); ++i) {
    if (src.extents[i] >= 0) shape.push_back(symbols().constant(src.extents[i]));
    else if (srcType && i < srcType->shape.size()) shape.push_back(srcType->shape[i]);
    else return std::nullopt;
  }
  kir::Space space = d->destStorage == Storage::Local ? kir::Space::Local : kir::Space::Shared;
  kir::Buffer* storage = makeBuffer(nullptr, space, src.buffer->elem, shape, {}, d->loc());
  storage->name = fresh("copy_storage");
  storage->sourceName = "=> " + kir::spaceName(space).str();
  if (!placeCopyStorage(storage, storage->sourceName, d->source->range(), d->loc())) return std::nullopt;
  return wholeStorageTile(storage, src);
}

/// Places `storage`, a copy's new destination buffer, in the kernel: among
/// its shared buffers, or declared at its top (local). False, with the error
/// reported, when its size is not known at the launch.
bool Lowerer::placeCopyStorage(kir::Buffer* storage, llvm::StringRef name, llvm::SMRange range, llvm::SMLoc loc) {
  if (storage->slotElements <= 0 && !storage->runtimeElements) {
    // Sema rejects such a copy; an error reported on its values may leave one.
    if (diags_.hasErrors()) return false;
    unreachable("a copy into a new buffer whose shape is neither constant nor known at the launch");
  }
  if (!sizedAtLaunch(storage, name, range)) return false;
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  if (storage->space == kir::Space::Shared) kernel_->sharedBuffers.push_back(storage);
  else declareLocalBuffer(storage, loc);
  out_ = saved;
  return true;
}

kir::Buffer* Lowerer::futureStorage(const sema::Symbol* future, const sema::Type& type, llvm::SMLoc loc) {
  if (kir::Buffer* b = buffers_.lookup(future)) return b;
  kir::Space space = type.storage == Storage::Local ? kir::Space::Local : kir::Space::Shared;
  kir::Buffer* storage = makeBuffer(nullptr, space, type.elem, type.shape, {}, loc);
  storage->name = fresh(future->name + "_storage");
  storage->sourceName = future->name;
  // WGMMA operands, TMA destinations and reshaped data keep dense rows
  // (swizzled for WGMMA).
  auto sw = swizzled_.find(future);
  if ((sw != swizzled_.end() || tmaDests_.count(future) || sema_.reshapedBuffers.count(future)) &&
      storage->shape.size() == 2 &&
      storage->shape[1]->isConst()) {
    storage->rowStride = storage->shape[1]->intValue;
    storage->strides = {m().intc(storage->rowStride), m().intc(1)};
    storage->slotElements = storage->rowStride * (storage->shape[0]->isConst() ? storage->shape[0]->intValue : 0);
    if (sw != swizzled_.end() && space == kir::Space::Shared) {
      storage->swizzleBytes = sw->second;
      storage->alignBytes = 1024;
    }
  }
  if (!placeCopyStorage(storage, "=> " + kir::spaceName(storage->space).str(), llvm::SMRange(loc, loc), loc))
    return nullptr;
  // The future's name is a pointer to its current storage.
  kir::Buffer* view = makeBuffer(future, space, type.elem, type.shape, {}, loc);
  view->name = fresh(future->name);
  view->rowStride = storage->rowStride;
  view->strides = storage->strides;
  view->slotElements = storage->slotElements;
  view->runtimeElements = storage->runtimeElements;
  view->swizzleBytes = storage->swizzleBytes;
  view->alignBytes = storage->alignBytes;
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  view->pointer = true;
  Stmt* ptr = emit(StmtKind::BufferPointer, loc);
  ptr->buffer = view;
  ptr->src.buffer = storage;
  out_ = saved;
  return view;
}

void Lowerer::declareCounter(const std::string& name, llvm::SMLoc loc) {
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  Stmt* let = emit(StmtKind::Let, loc);
  let->var = name;
  let->isMutable = true;
  let->maybeUnused = true;
  let->value = m().intc(0);
  out_ = saved;
}

/// Drops the dimensions of extent 1 on both sides of a copy of more than two
/// dimensions (`[1, 3, 64]` windows of 3-D tensors), then merges neighbours
/// that are contiguous on both sides: the copy routines move 2-D tiles. A
/// dropped dimension that may lie outside its buffer makes the whole tile
/// conditional (`inside`).
void Lowerer::squeezeCopyTiles(kir::Tile& dst, kir::Tile& src) {
  auto inside = [&](const kir::Tile& t, size_t i) { return m().lt(m().intc(0), t.valid[i]); };
  for (size_t i = 0; dst.rank() > 2 && i < dst.rank() && dst.rank() == src.rank();) {
    if (dst.extents[i] != 1 || src.extents[i] != 1) {
      ++i;
      continue;
    }
    for (kir::Tile* t : {&dst, &src}) {
      if (i < t->valid.size() && t->valid[i]) t->inside = t->inside ? m().logicalAnd(t->inside, inside(*t, i)) : inside(*t, i);
      t->extents.erase(t->extents.begin() + i);
      if (i < t->runtimeExtents.size()) t->runtimeExtents.erase(t->runtimeExtents.begin() + i);
      t->strides.erase(t->strides.begin() + i);
      if (i < t->valid.size()) t->valid.erase(t->valid.begin() + i);
    }
  }
  // Then neighbours that are contiguous on both sides become one dimension.
  auto contiguous = [](const kir::Tile& t, size_t i) {
    return i + 1 < t.strides.size() && t.extents[i + 1] >= 0 && t.strides[i]->isConst() &&
           t.strides[i + 1]->isConst() && t.strides[i]->intValue == t.extents[i + 1] * t.strides[i + 1]->intValue &&
           (i + 1 >= t.valid.size() || !t.valid[i + 1]);
  };
  for (size_t i = 0; dst.rank() > 2 && i + 1 < dst.rank() && dst.rank() == src.rank();) {
    if (dst.extents[i + 1] != src.extents[i + 1] || !contiguous(dst, i) || !contiguous(src, i)) {
      ++i;
      continue;
    }
    mergeInnerDim(dst, i);
    mergeInnerDim(src, i);
  }
}

void Lowerer::mergeInnerDim(kir::Tile& t, size_t d) {
  const std::int64_t inner = t.extents[d + 1];
  const Expr* scale = m().intc(inner);
  if (d < t.valid.size() && t.valid[d]) t.valid[d] = m().mul(t.valid[d], scale);
  // A run-time extent (or the value of a bounded one) grows with it: the
  // constant extent of a run-time dimension stays -1.
  if (d < t.runtimeExtents.size() && t.runtimeExtents[d]) t.runtimeExtents[d] = m().mul(t.runtimeExtents[d], scale);
  if (t.extents[d] >= 0) t.extents[d] *= inner;
  t.strides[d] = t.strides[d + 1];
  const auto next = static_cast<std::ptrdiff_t>(d) + 1;
  t.extents.erase(t.extents.begin() + next);
  t.strides.erase(t.strides.begin() + next);
  if (d + 1 < t.valid.size()) t.valid.erase(t.valid.begin() + next);
  if (d + 1 < t.runtimeExtents.size()) t.runtimeExtents.erase(t.runtimeExtents.begin() + next);
}

void Lowerer::emitCopy(const kir::Tile& dstTile, const kir::Tile& srcTile, kir::Scope scope, bool async, bool zfill,
                       llvm::SMLoc loc) {
  kir::Tile dst = dstTile, src = srcTile;
  squeezeCopyTiles(dst, src);
  std::int64_t threads = scope == kir::Scope::Cta         ? kernel_->threads
                         : scope == kir::Scope::Warpgroup ? 128
                         : scope == kir::Scope::Warp      ? 32
                                                          : 1;
  const Expr* tid = m().var("tid_");
  const Expr* rank = scope == kir::Scope::Cta    ? tid
                     : scope == kir::Scope::Thread ? m().intc(0)
                                                   : m().mod(tid, m().intc(threads));
  // A block-wide copy inside an `inthreads` region is over the region's threads.
  if (scope == kir::Scope::Cta && !regionThreads({loc, loc}, threads, rank)) return;
  if (src.buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_copy_from_wgmma_operand, {loc, loc});
    return;
  }
  if (dst.buffer->swizzleBytes && scope != kir::Scope::Cta && scope != kir::Scope::Warpgroup) {
    unsupported(DiagKind::err_unsupported_thread_copy_to_wgmma_operand, {loc, loc});
    return;
  }
  bool fence = scope != kir::Scope::Thread;
  if (fence) barrier(scope, loc);
  kir::Tile d2 = dst, s2 = src;
  collapseContiguousDims(d2, s2);
  bool runtimeExtent = llvm::any_of(d2.extents, [](std::int64_t e) { return e < 0; }) ||
                       llvm::any_of(s2.extents, [](std::int64_t e) { return e < 0; });
  if (runtimeExtent || d2.rank() > 2) {
    if (dst.buffer->swizzleBytes) {
      unsupported(DiagKind::err_unsupported_copy_to_wgmma_operand_shape, {loc, loc});
      return;
    }
    // Synchronous element by element (an `.async` one is complete before
    // its wait, which still synchronizes).
    firstInstanceOnly(scope, loc, [&] { emitElementCopy(d2, s2, threads, rank, zfill, loc); });
    if (fence) barrier(scope, loc);
    return;
  }
  firstInstanceOnly(scope, loc, [&] {
    Stmt* c = emit(StmtKind::Copy, loc);
    c->dst = d2;
    c->src = s2;
    c->scope = scope;
    c->threads = threads;
    c->rank = rank;
    c->async = async;
    c->zfill = zfill;
  });
  // WGMMA reads shared memory through the async proxy: ordinary stores into
  // its operands are fenced before the barrier (PTX ISA, proxies).
  if (!async && dst.buffer->swizzleBytes) {
    emit(StmtKind::Fence, loc)->fence = kir::FenceKind::ProxyAsyncShared;
  }
  if (!async && fence) barrier(scope, loc);
}

namespace {
bool sameExpr(const Expr* a, const Expr* b) { return a == b || kir::printExpr(a) == kir::printExpr(b); }
}  // namespace

void Lowerer::collapseContiguousDims(kir::Tile& dst, kir::Tile& src) {
  // Dimensions d and d + 1 merge when both sides store d + 1 densely inside
  // d and neither cuts d + 1 short, so that a rank-3+ copy becomes the 2-D
  // copy of the tile runtime (rows of the merged outer dimensions).
  auto mergeable = [&](const kir::Tile& t, size_t d) {
    if (t.extents[d] < 0 || t.extents[d + 1] < 0 || t.valid[d + 1] || t.buffer->swizzleBytes) return false;
    return sameExpr(t.strides[d], m().mul(t.strides[d + 1], m().intc(t.extents[d + 1])));
  };
  size_t d = 0;
  while (dst.rank() > 2 && src.rank() == dst.rank() && d + 2 < dst.rank()) {
    if (!mergeable(dst, d) || !mergeable(src, d)) {
      ++d;
      continue;
    }
    mergeInnerDim(dst, d);
    mergeInnerDim(src, d);
  }
}

void Lowerer::emitElementCopy(const kir::Tile& dst, const kir::Tile& src, std::int64_t threads, const Expr* rank,
                              bool zfill, llvm::SMLoc loc) {
  auto extent = [&](const kir::Tile& t, size_t d) {
    return t.extents[d] >= 0 ? m().intc(t.extents[d]) : t.runtimeExtents[d];
  };
  // The destination's box, every element once over the threads: element e
  // is at coordinates (e / inner) % extent in each dimension.
  size_t rank_ = dst.rank();
  const Expr* total = m().intc(1);
  for (size_t d = 0; d < rank_; ++d) total = m().mul(total, extent(dst, d));
  std::string e = fresh("e");
  Stmt* loop = emit(StmtKind::For, loc);
  loop->var = e;
  loop->lo = rank;
  loop->hi = total;
  loop->step = threads;
  nested(loop->body, [&] {
    std::vector<const Expr*> coord(rank_);
    const Expr* inner = m().intc(1);
    for (size_t d = rank_; d-- > 0;) {
      std::string c = fresh("c");
      Stmt* let = emit(StmtKind::Let, loc);
      let->var = c;
      let->type = kir::ScalarType::integer();
      let->value = m().mod(m().div(m().var(e), inner), extent(dst, d));
      coord[d] = m().var(c);
      inner = m().mul(inner, extent(dst, d));
    }
    const Expr* dstIn = dst.inside;
    const Expr* srcIn = src.inside;
    const Expr* dstAt = dst.offset;
    const Expr* srcAt = src.offset;
    for (size_t d = 0; d < rank_; ++d) {
      if (dst.valid[d]) dstIn = m().logicalAnd(dstIn, m().lt(coord[d], dst.valid[d]));
      const Expr* sv = src.valid[d];
      if (!sv && src.extents[d] < 0) sv = src.runtimeExtents[d];
      if (!sv && src.extents[d] >= 0 && dst.extents[d] != src.extents[d]) sv = m().intc(src.extents[d]);
      if (sv) srcIn = m().logicalAnd(srcIn, m().lt(coord[d], sv));
      dstAt = m().add(dstAt, m().mul(coord[d], dst.strides[d]));
      srcAt = m().add(srcAt, m().mul(coord[d], src.strides[d]));
    }
    kir::ScalarType t = kir::ScalarType::element(dst.buffer->elem);
    auto store = [&](const Expr* value) {
      Stmt* st = emit(StmtKind::Store, loc);
      st->buffer = dst.buffer;
      st->index = dstAt;
      st->op = "=";
      st->value = value;
    };
    std::vector<Stmt*>* into = out_;
    if (dstIn) {
      Stmt* guard = emit(StmtKind::If, loc);
      guard->cond = dstIn;
      into = &guard->body;
    }
    nested(*into, [&] {
      if (!srcIn) {
        store(m().convert(m().load(src.buffer, srcAt), t));
        return;
      }
      Stmt* inside = emit(StmtKind::If, loc);
      inside->cond = srcIn;
      nested(inside->body, [&] { store(m().convert(m().load(src.buffer, srcAt), t)); });
      if (zfill) nested(inside->elseBody, [&] { store(m().convert(m().intc(0), t)); });
    });
  });
}

void Lowerer::lowerDma(const DmaStmt* d) {
  if (d->op == TokenKind::m_any) return;
  // The CPU target runs a TMA copy as the plain copy it stands for (the
  // copy engine's zero fill included: copies into shared memory zero-fill;
  // into a WGMMA operand, the copy writes its swizzled layout as TMA does).
  bool tmaAsPlain = false;
  if (d->engine == TokenKind::kw_tma && !cpuTarget()) {
    if (!target_.hasTma) {
      unreachable("a TMA copy on a target without TMA");
    }
    tmaAsPlain = tmaCopyIsPlain(d);
    if (!tmaAsPlain) return lowerTma(d);
  }
  if (d->op != TokenKind::m_copy && d->op != TokenKind::m_transp && d->op != TokenKind::m_pad &&
      !((cpuTarget() || tmaAsPlain) && d->op == TokenKind::m_load)) {
    unreachable("a copy operation other than `copy`, `transp`, `pad` and `tma.load`");
  }
  std::optional<kir::Tile> src = lowerTile(d->source, "the copy source");
  if (!src) return;
  if (d->op == TokenKind::m_pad) {
    lowerPad(d, *src);
    return;
  }
  if (d->op == TokenKind::m_transp) {
    // `dma.transp<p...>`: destination dimension i walks source dimension
    // p[i]; the source tile is read through permuted strides.
    kir::Tile permuted = *src;
    for (size_t i = 0; i < d->config.size() && i < src->rank(); ++i) {
      const sema::Type* ct = sema_.typeOf(d->config[i]);
      std::optional<std::int64_t> p;
      if (ct && !ct->values.empty()) p = sym::constantValue(ct->values[0]);
      if (!p || *p < 0 || static_cast<size_t>(*p) >= src->rank()) {
        unreachable("a `dma.transp` layout that is not a permutation of the source dimensions");
      }
      permuted.extents[i] = src->extents[*p];
      permuted.strides[i] = src->strides[*p];
      permuted.valid[i] = src->valid[*p];
      permuted.runtimeExtents[i] = src->runtimeExtents[*p];
    }
    src = permuted;
  }
  // A side whose extent is known only at run time takes the box of the
  // other side, bounded by its runtime extent.
  std::optional<kir::Tile> dstPeek;
  if (d->dest) dstPeek = lowerTile(d->dest, "the copy destination");
  if (d->dest && !dstPeek) return;
  auto settle = [&](kir::Tile& runtime, const kir::Tile& fixed) {
    for (size_t i = 0; i < runtime.rank() && i < fixed.rank(); ++i) {
      if (runtime.extents[i] > 0 || fixed.extents[i] <= 0) continue;
      runtime.extents[i] = fixed.extents[i];
      const Expr* bound = m().min(runtime.runtimeExtents[i], m().intc(fixed.extents[i]));
      runtime.valid[i] = runtime.valid[i] ? m().min(runtime.valid[i], bound) : bound;
    }
  };
  if (dstPeek) {
    settle(*src, *dstPeek);
    settle(*dstPeek, *src);
  }
  const sema::Symbol* future = futureOf(d);
  std::optional<kir::Tile> dst;
  if (d->dest) {
    dst = dstPeek;
  } else {
    dst = future ? futureTile(future, d->destStorage, *src, d->loc()) : unnamedCopyTile(d, *src);
    if (!dst) return;
  }
  if (dst->buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(dst->buffer));

  std::optional<kir::Scope> scope = copyScope(d, *dst, *src);
  if (!scope) return;
  bool async = d->isAsync && target_.hasCpAsync && src->buffer->space == kir::Space::Global &&
               dst->buffer->space == kir::Space::Shared;
  bool zfill = dst->buffer->space != kir::Space::Global;
  emitCopy(*dst, *src, *scope, async, zfill, d->loc());
  recordAsyncFuture(d, future, async);
}

const sema::Symbol* Lowerer::futureOf(const DmaStmt* d) {
  if (d->future.empty()) return nullptr;
  auto decls = sema_.declarations.find(d);
  return decls != sema_.declarations.end() && !decls->second.empty() ? decls->second.front() : nullptr;
}

std::optional<kir::Scope> Lowerer::copyScope(const DmaStmt* d, const kir::Tile& dst, const kir::Tile& src) {
  ParallelLevel deepest = std::max(deepestLevelUsed(d->source), d->dest ? deepestLevelUsed(d->dest) : ParallelLevel::Block);
  kir::Scope scope = kir::Scope::Cta;
  if (dst.buffer->space == kir::Space::Local || src.buffer->space == kir::Space::Local) scope = kir::Scope::Thread;
  else if (deepest == ParallelLevel::Thread) scope = kir::Scope::Thread;
  else if (deepest == ParallelLevel::Group) scope = kir::Scope::Warp;
  else if (deepest == ParallelLevel::Group4) scope = kir::Scope::Warpgroup;
  return scope;
}

void Lowerer::recordAsyncFuture(const DmaStmt* d, const sema::Symbol* future, bool async) {
  if (d->isAsync && future) {
    if (!anyAsyncCopy_) {
      anyAsyncCopy_ = true;
    }
    if (!asyncFutures_.count(future)) {
      asyncFutures_.insert(future);
      declareCounter(nameFor(future) + "_seq", d->loc());
    }
    if (async) {
      emit(StmtKind::AsyncCommit, d->loc());
      Stmt* inc = emit(StmtKind::Assign, d->loc());
      inc->var = "async_issued_";
      inc->op = "+=";
      inc->value = m().intc(1);
    }
    Stmt* rec = emit(StmtKind::Assign, d->loc());
    rec->var = nameFor(future) + "_seq";
    rec->op = "=";
    rec->value = m().var("async_issued_");
  }
}

void Lowerer::lowerWait(const WaitStmt* w) {
  const Expr* oldest = nullptr;
  bool tma = false;
  for (const ast::Expr* t : w->targets) {
    const sema::Symbol* s = rootSymbol(t, nullptr);
    if (!s) continue;
    if (tmaFutures_.count(s)) {
      Stmt* wait = emit(StmtKind::TmaWait, w->loc());
      wait->cond = m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean());
      wait->var = nameFor(s) + "_bar";
      wait->op = nameFor(s) + "_phase";
      tma = true;
      continue;
    }
    if (!asyncFutures_.count(s)) {
      if (s->type.kind == sema::TypeKind::Event) lowerEventWait(t, w->loc());
      continue;
    }
    const Expr* seq = m().var(nameFor(s) + "_seq");
    // Every target must be complete: wait for the newest of them.
    oldest = oldest ? m().max(oldest, seq) : seq;
  }
  if (!oldest) {
    if (tma) barrier(kir::Scope::Cta, w->loc());
    return;
  }
  waitAsyncCopies(oldest, w->loc());
}

void Lowerer::waitAsyncCopies(const Expr* newestSeq, llvm::SMLoc loc) {
  Stmt* wait = emit(StmtKind::AsyncWait, loc);
  wait->value = m().sub(m().var("async_issued_"), newestSeq);
  if (wgmma_ && !swizzled_.empty()) {
    Stmt* f = emit(StmtKind::Fence, loc);
    f->fence = kir::FenceKind::ProxyAsyncShared;
    f->pure = true;
  }
  barrier(kir::Scope::Cta, loc);
}

void Lowerer::lowerSwap(const SwapStmt* s) {
  std::vector<std::string> names;
  bool seq = false;
  unsigned withStorage = 0;
  for (const ast::Expr* e : s->names) {
    const sema::Symbol* sym = sema_.references.lookup(e);
    const kir::Buffer* b = sym ? bufferFor(sym) : nullptr;
    if (b) {
      names.push_back(b->name);
      ++withStorage;
    }
    seq = seq || (sym && asyncFutures_.count(sym));
  }
  if (withStorage != 0 && withStorage != s->names.size()) {
    unsupported(DiagKind::err_unsupported_swap_mixed_futures, s->range());
    return;
  }
  auto rotate = [&](llvm::StringRef suffix) {
    Stmt* r = emit(StmtKind::Rotate, s->loc());
    for (const std::string& n : names) r->args.push_back(m().var(n + suffix.str()));
  };
  if (names.size() >= 2) rotate("");
  bool tma = false;
  for (const ast::Expr* e : s->names)
    if (const sema::Symbol* sym = sema_.references.lookup(e); sym && tmaFutures_.count(sym)) tma = true;
  if (tma) {
    std::vector<std::string> saved = names;
    names.clear();
    for (const ast::Expr* e : s->names) names.push_back(nameFor(sema_.references.lookup(e)));
    rotate("_bar");
    rotate("_phase");
    names = saved;
  }
  if (seq) {
    // Sequence numbers travel with the futures' names.
    std::vector<std::string> seqNames;
    for (const ast::Expr* e : s->names) {
      const sema::Symbol* sym = sema_.references.lookup(e);
      if (!sym || !asyncFutures_.count(sym)) {
        // A future never bound by an async copy (a `dma.any` placeholder)
        // takes part with sequence number 0: nothing to wait for.
        asyncFutures_.insert(sym);
        declareCounter(nameFor(sym) + "_seq", s->loc());
      }
      seqNames.push_back(nameFor(sym) + "_seq");
    }
    Stmt* r = emit(StmtKind::Rotate, s->loc());
    for (const std::string& n : seqNames) r->args.push_back(m().var(n));
  }
}

}  // namespace croqc::lower
