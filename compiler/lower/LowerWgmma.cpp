// The four-step MMA on a warpgroup (`: group-4`, sm_90a) to WGMMA (spec 13,
// 20, 21.6; seed chapter kernels 2 and 3). The CPU target runs the same
// lowering: its runtime (croq/cpu/wgmma.h) computes each thread's accumulator
// elements from the same swizzled tiles.
//
// An accumulator [M, N] of a warpgroup is M/64 m64nN register accumulators.
// B is always a shared tile read through a matrix descriptor; so is A in SS
// mode. Those buffers get the swizzled layout of croq/device/wgmma_tile.h
// (128-byte swizzle when rows hold a multiple of 64 f16; the rows of a
// buffer with leading dimensions, `[1, 64, 64]`, are all but its last),
// which every copy into them writes, and `mma.load` of such a tile only
// names it. The same layout serves both majors: an operand stored K-major
// (A [M, K] under `mma.row.*`, B [N, K] under `mma.*.row`) is read through
// plain descriptors, one stored MN-major (A [K, M] under `mma.col.*`, B
// [K, N] under `mma.*.col`; 16-bit only) through transposed ones. An
// `mma.load` (without `.frag`) of a global B tile, or of a global 8-bit A
// tile, stages it into a swizzled shared buffer with a slot per warpgroup
// (a warpgroup-wide copy between barriers, fenced for the async proxy)
// whose descriptor the MMA reads. In RS mode (`ma = mma.load.frag ...`, or an `mma.load` from
// global memory) A [64 * m, K] is loaded into registers: m x K/16 atoms of
// 64 x 16, each warp of the warpgroup holding its 16-row slab in the
// m16n8k16 A layout, read with ldmatrix from shared tiles with 16-byte rows
// (such buffers keep the plain, padded layout) and element by element
// otherwise. `mma.row.row` issues one wgmma per (64-row atom, k16 step),
// after a `wgmma.fence` that orders the earlier writes of the accumulator
// and A registers, and is committed and waited so the accumulator is
// complete at the next statement (spec 13.8).
#include "lower/LowerImpl.h"

#include <llvm/Support/raw_ostream.h>

#include "ast/ASTExprPrinter.h"
#include "lower/MmaPatterns.h"
#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// The K of one WGMMA for operands `a` x `b` into an `acc` accumulator (the
/// atom's K: 16 for f16/bf16, 32 for 8-bit floats; twice that for a 2:4
/// sparse A, counting its elements before packing), or none when croqc has no
/// WGMMA for the combination (the runtime's instructions take A and B of one
/// type).
std::optional<std::int64_t> wgmmaInstructionK(TokenKind a, TokenKind b, TokenKind acc,
                                              const target::TargetInfo& target, bool sparse) {
  if (a != b) return std::nullopt;
  const target::MmaAtom* atom = loweredMmaAtom(target::MmaScope::Warpgroup, a, b, acc, target, sparse);
  if (!atom) return std::nullopt;
  return atom->k;
}

/// A window with leading unit dimensions (`[1, 64, 64]` of a 3-D buffer or
/// tensor) as the 2-D tile of its last two; a dropped dimension that may lie
/// outside its buffer makes the tile conditional (`inside`).
void dropLeadingUnitDims(kir::Module& m, kir::Tile& t) {
  while (t.rank() > 2 && t.extents.front() == 1) {
    if (const Expr* v = t.valid.front()) {
      const Expr* in = m.lt(m.intc(0), v);
      t.inside = t.inside ? m.logicalAnd(t.inside, in) : in;
    }
    t.extents.erase(t.extents.begin());
    t.strides.erase(t.strides.begin());
    t.valid.erase(t.valid.begin());
    if (!t.runtimeExtents.empty()) t.runtimeExtents.erase(t.runtimeExtents.begin());
  }
}

}  // namespace

/// The expression `e` as a message quotes it (one line, as sema prints it).
std::string exprText(const ast::Expr* e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  ast::printExpr(e, os);
  return os.str();
}

bool Lowerer::wgmmaLoadsRegisters(const MmaLoadStmt* s) const {
  if (s->toFrag) return true;
  const sema::Type* t = sema_.typeOf(s->source);
  return !t || t->storage != Storage::Shared;
}

void Lowerer::findWgmmaOperands(const ast::Stmt* body) {
  // Fragments bound by `mma.load` are not buffers; the shared tiles that
  // descriptors read are the sources of SS loads and the views MMAs take
  // directly.
  // The metadata of a sparse A is read by every thread for its registers,
  // not through a descriptor: its buffers keep the plain layout.
  llvm::DenseSet<const sema::Symbol*> fragments, metadata;
  std::vector<const ast::Expr*> operands;
  std::vector<const MmaLoadStmt*> loads;
  forEachStmt(body, [&](const ast::Stmt* s) {
    if (const auto* l = llvm::dyn_cast<MmaLoadStmt>(s)) {
      auto decls = sema_.declarations.find(l);
      if (decls != sema_.declarations.end() && !decls->second.empty()) fragments.insert(decls->second.front());
      loads.push_back(l);
    }
    if (const auto* e = llvm::dyn_cast<MmaExecStmt>(s)) {
      operands.push_back(e->a);
      operands.push_back(e->b);
      if (e->sparse && !e->extra.empty())
        if (const sema::Symbol* me = sema_.references.lookup(e->extra[0])) metadata.insert(me);
    }
  });
  for (const MmaLoadStmt* l : loads) {
    const sema::Symbol* sym = mmaTarget(l, l->result, l->target);
    if (!wgmmaLoadsRegisters(l) && !metadata.count(sym)) operands.push_back(l->source);
  }
  for (const ast::Expr* e : operands) {
    const sema::Symbol* root = rootSymbol(e, nullptr);
    if (!root || fragments.count(root)) continue;
    const sema::Type& t = root->type;
    bool future = t.kind == sema::TypeKind::Future;
    // A declared buffer may have leading dimensions (`[1, 64, 64]`): its
    // rows are all but the last.
    if ((t.kind != sema::TypeKind::Data && !future) || (!future && t.storage != Storage::Shared) ||
        t.shape.size() < 2 || (future && t.shape.size() != 2))
      continue;
    std::optional<std::int64_t> cols = sym::constantValue(t.shape.back());
    std::optional<std::int64_t> rows = 1;
    for (size_t d = 0; d + 1 < t.shape.size() && rows; ++d) {
      std::optional<std::int64_t> e = sym::constantValue(t.shape[d]);
      rows = e ? std::optional<std::int64_t>(*rows * *e) : std::nullopt;
    }
    if (!cols || !rows || *rows % 8) continue;
    std::int64_t rowBytes = *cols * target::elementBytes(t.elem);
    int w = rowBytes % 128 == 0 ? 128 : rowBytes % 64 == 0 ? 64 : rowBytes % 32 == 0 ? 32 : 0;
    if (w) swizzled_[root] = w;
  }
}

void Lowerer::completeUncommittedMmas(llvm::SMLoc loc) {
  if (!commitWaits_ || !wgmmaUncommitted_) return;
  emit(StmtKind::WgmmaCommit, loc);
  emit(StmtKind::WgmmaWait, loc)->count = 0;
  wgmmaUncommitted_ = false;
}

void Lowerer::lowerWgmmaFill(const MmaFillStmt* s) {
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  completeUncommittedMmas(s->loc());
  kir::Fragment* f = fragments_.lookup(sym);
  if (!f) {
    const sema::Type& t = sym->type;
    std::optional<std::int64_t> rows = t.shape.size() == 2 ? sym::constantValue(t.shape[0]) : std::nullopt;
    std::optional<std::int64_t> cols = t.shape.size() == 2 ? sym::constantValue(t.shape[1]) : std::nullopt;
    if (!rows || !cols || *rows % 64 || *cols % 8 || *cols > 256) {
      unsupported(DiagKind::err_unsupported_wg_acc_shape, s->range());
      return;
    }
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = kir::FragRole::C;
    f->warpgroup = true;
    f->accType = t.elem == TokenKind::ty_f16 ? TokenKind::ty_f16 : TokenKind::ty_f32;
    f->rows = *rows / 64;
    f->cols = 1;
    f->logicalRows = *rows;
    f->logicalCols = *cols;
    declareFragment(sym, f, s->loc());
    if (scaledAccumulators_.count(sym)) {
      kir::Fragment* part = m().fragment();
      *part = *f;
      part->name = fresh(sym->name + "_kblock");
      emit(StmtKind::FragDecl, s->loc())->frag = part;
      kblockPartials_[sym] = part;
    }
  }
  emitFill(f, s);
  if (kir::Fragment* part = kblockPartials_.lookup(sym)) {
    Stmt* zero = emit(StmtKind::FragFill, s->loc());
    zero->frag = part;
    zero->value = m().floatc("0.0f", TokenKind::ty_f32);
  }
}

void Lowerer::lowerWgmmaLoad(const MmaLoadStmt* s) {
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  if (const MmaOperandUse* use = operandUse(sym); use && use->role == kir::FragRole::E)
    return lowerSparseMetaLoad(s, sym, *use);
  if (wgmmaLoadsRegisters(s)) return lowerWgmmaRegisterLoad(s, sym);
  const sema::Symbol* root = rootSymbol(s->source, nullptr);
  const kir::Buffer* b = root ? bufferFor(root) : nullptr;
  if (kir::Fragment* f = fragments_.lookup(sym); f && f->role == kir::FragRole::A) fragments_.erase(sym);
  if (!b || !b->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_wgmma_operand_not_shared, s->source->range());
    wgOperands_.erase(sym);
    failed_.insert(sym);
    return;
  }
  // The name now stands for the shared tile (the latest `mma.load` decides).
  wgOperands_[sym] = s->source;
  stagedOperands_.erase(sym);
  failed_.erase(sym);
}

void Lowerer::lowerWgmmaRegisterLoad(const MmaLoadStmt* s, const sema::Symbol* sym) {
  // After a failed load the name stands for nothing, so that the MMA that
  // reads it reports nothing more.
  kir::Fragment* previous = fragments_.lookup(sym);
  fragments_.erase(sym);
  wgOperands_.erase(sym);
  stagedOperands_.erase(sym);
  failed_.insert(sym);
  const MmaOperandUse* use = operandUse(sym);
  if (!use) {
    unsupported(DiagKind::err_unsupported_mma_load_unused, s->range());
    return;
  }
  const sema::Type* source = sema_.typeOf(s->source);
  const bool sixteenBit = source && target::elementBytes(source->elem) == 2;
  if (!s->toFrag && (use->role != kir::FragRole::A || !sixteenBit)) {
    // B (or an 8-bit A, which WGMMA takes from shared memory only) from
    // global memory: staged through shared memory for a descriptor.
    std::optional<kir::Tile> tile = lowerTile(s->source, "the `mma.load` source");
    if (!tile) return;
    std::optional<kir::Tile> staged = stageWgmmaOperand(*tile, s->source->range(), s->loc());
    if (!staged) return;
    stagedOperands_[sym] = *staged;
    failed_.erase(sym);
    return;
  }
  if (use->role != kir::FragRole::A) {
    unreachable("a register fragment as operand B of a warpgroup MMA");
  }
  std::optional<kir::Tile> tile = lowerMmaLoadSource(s);
  if (!tile) return;
  if (tile->buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_wgmma_mixed_a_loads, s->source->range());
    return;
  }
  kir::Fragment* f = loadWgmmaRegisterA(sym->name, *tile, use->transposed, previous, s->source->range(), s->loc());
  if (!f) return;
  fragments_[sym] = f;
  failed_.erase(sym);
}

std::optional<kir::Tile> Lowerer::startSparseMetaLoad(const MmaLoadStmt* s, const sema::Symbol* sym,
                                                      kir::Fragment*& previous) {
  previous = fragments_.lookup(sym);
  fragments_.erase(sym);
  failed_.insert(sym);
  return lowerMmaLoadSource(s);
}

void Lowerer::lowerSparseMetaLoad(const MmaLoadStmt* s, const sema::Symbol* sym, const MmaOperandUse& use) {
  kir::Fragment* previous = nullptr;
  std::optional<kir::Tile> tile = startSparseMetaLoad(s, sym, previous);
  if (!tile) return;
  const std::string text = exprText(s->source);
  const TokenKind metaElem = tile->buffer->elem;
  if (metaElem != TokenKind::ty_u8 && metaElem != TokenKind::ty_u32) {
    diags_.report(s->source->loc(), DiagKind::err_sparse_meta_type, text, tokenKindSpelling(metaElem))
        .range(s->source->range());
    return;
  }
  // One instruction's metadata: a nibble per group of four of its K (the K
  // of the sparse atom sema chose), in bytes or words
  // (croq/device/wgmma_layout.h, sparse_meta_cols_v).
  if (!use.atom) unreachable("a sparse MMA without the atom sema chose");
  const TokenKind aElem = use.aElem;
  const std::int64_t instrK = static_cast<std::int64_t>(use.atom->k);
  const std::int64_t metaBytes = target::elementBytes(metaElem);
  const std::int64_t perStep = instrK / (8 * metaBytes);
  // A window of run-time extent (`meta.chunkat(block_m, k)` of a tensor
  // whose shape is known at the launch) is taken to be what the MMA reads:
  // the rows of its A and a word or bytes per K step.
  std::int64_t rows = tile->extents[0], cols = tile->extents[1];
  if (rows < 0 && use.aRows > 0) tile->extents[0] = rows = use.aRows;
  if (cols < 0 && use.aCols > 0 && 2 * use.aCols % instrK == 0)
    tile->extents[1] = cols = 2 * use.aCols / instrK * perStep;
  // A window one step too narrow (`meta.subspan(64, 1)` where a K step of
  // 8-bit operands reads two words): Croqtile reads the step's columns from
  // the window's start, and programs written for it rely on that. The
  // window is lowered again that wide, inside the tensor like any window.
  if (rows > 0 && rows % 64 == 0 && cols > 0 && cols < perStep && perStep % cols == 0) {
    std::optional<kir::Tile> wide = lowerMmaLoadSource(s, perStep);
    if (wide && wide->extents[1] == perStep) {
      diags_
          .report(s->source->loc(), DiagKind::warn_sparse_meta_widened, text, rows, cols, instrK,
                  tokenKindSpelling(aElem), perStep, tokenKindSpelling(metaElem))
          .range(s->source->range());
      wide->extents[0] = rows;
      tile = wide;
      cols = perStep;
    }
  }
  if (rows <= 0 || cols <= 0 || rows % 64 || cols % perStep) {
    diags_
        .report(s->source->loc(), DiagKind::err_sparse_meta_shape, text, rows, cols, instrK,
                tokenKindSpelling(aElem), perStep, tokenKindSpelling(metaElem))
        .range(s->source->range());
    return;
  }
  kir::Fragment* f = previous;
  if (!f || f->role != kir::FragRole::E || f->rows != rows / 64 || f->cols != cols / perStep ||
      f->inType != aElem) {
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = kir::FragRole::E;
    f->inType = aElem;
    f->warpgroup = true;
    f->rows = rows / 64;
    f->cols = cols / perStep;
    f->logicalRows = rows;
    f->logicalCols = cols;
    emit(StmtKind::FragDecl, s->loc())->frag = f;
  }
  for (std::int64_t i = 0; i < f->rows; ++i) {
    for (std::int64_t k = 0; k < f->cols; ++k) {
      kir::Tile atom = *tile;
      atom.offset = m().add(tile->offset, m().add(m().mul(m().intc(64 * i), tile->strides[0]),
                                                  m().mul(m().intc(perStep * k), tile->strides[1])));
      atom.extents = {64, perStep};
      atom.valid = {tile->valid[0] ? m().sub(tile->valid[0], m().intc(64 * i)) : nullptr,
                    tile->valid[1] ? m().sub(tile->valid[1], m().intc(perStep * k)) : nullptr};
      Stmt* ld = emit(StmtKind::AtomLoad, s->loc());
      ld->frag = f;
      ld->i = m().intc(i);
      ld->j = m().intc(k);
      ld->src = atom;
      ld->prepackV2 = options_.sparseMetaPrepackV2 && metaElem == TokenKind::ty_u32;
    }
  }
  fragments_[sym] = f;
  failed_.erase(sym);
}

kir::Fragment* Lowerer::loadWgmmaRegisterA(llvm::StringRef name, const kir::Tile& tile, bool transposed,
                                           kir::Fragment* previous, llvm::SMRange where, llvm::SMLoc loc) {
  std::int64_t rows = tile.extents[transposed ? 1 : 0];
  std::int64_t kdim = tile.extents[transposed ? 0 : 1];
  if (rows <= 0 || kdim <= 0 || rows % 64 || kdim % 16) {
    diags_.report(where.Start, DiagKind::err_wgmma_a_fragment_shape, name, rows, kdim).range(where);
    return nullptr;
  }
  TokenKind elem = tile.buffer->elem;
  if (elem != TokenKind::ty_f16 && elem != TokenKind::ty_bf16) {
    unsupported(DiagKind::err_unsupported_wgmma_register_a_type, where, tokenKindSpelling(elem));
    return nullptr;
  }
  kir::Fragment* f = previous;
  if (!f || !f->warpgroup || f->role != kir::FragRole::A || f->rows != rows / 64 || f->cols != kdim / 16 ||
      f->inType != elem) {
    f = m().fragment();
    f->name = fresh(name);
    f->role = kir::FragRole::A;
    f->inType = elem;
    f->warpgroup = true;
    f->rows = rows / 64;
    f->cols = kdim / 16;
    f->logicalRows = rows;
    f->logicalCols = kdim;
    emit(StmtKind::FragDecl, loc)->frag = f;
  }
  loadFragment(f, tile, transposed, loc);
  return f;
}

kir::Fragment* Lowerer::registerAFromLocalFragment(const ast::MmaExecStmt* s) {
  // A `frag` fragment (every thread holds all of it, LowerFragment.cpp) as
  // operand A: each warp loads its 16-row slabs in the A register layout.
  const sema::Symbol* sym = llvm::isa<NameExpr>(s->a) ? sema_.references.lookup(s->a) : nullptr;
  const kir::Buffer* b = sym && sym->type.kind == sema::TypeKind::Fragment ? bufferFor(sym) : nullptr;
  if (!b || b->space != kir::Space::Local) return nullptr;
  std::optional<kir::Tile> tile = lowerTile(s->a, "the warpgroup MMA operand");
  if (!tile || tile->rank() != 2) return nullptr;
  return loadWgmmaRegisterA(sym->name, *tile, !s->rowA, nullptr, s->a->range(), s->loc());
}

std::optional<kir::Tile> Lowerer::wgmmaSharedOperand(const ast::Expr* e, bool mnMajor) {
  const ast::Expr* view = e;
  std::optional<kir::Tile> t;
  if (const sema::Symbol* sym = sema_.references.lookup(e)) {
    if (auto it = wgOperands_.find(sym); it != wgOperands_.end()) view = it->second;
    if (auto it = stagedOperands_.find(sym); it != stagedOperands_.end()) t = it->second;
  }
  if (!t) t = lowerTile(view, "the warpgroup MMA operand");
  if (!t) return std::nullopt;
  if (!t->buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_wgmma_operand_not_shared, e->range());
    return std::nullopt;
  }
  dropLeadingUnitDims(m(), *t);
  // Sema's rule: an MMA operand is a 2-D tile, leading unit dimensions aside.
  if (t->rank() != 2) unreachable("a warpgroup MMA operand of rank other than 2");
  // A descriptor starts at an 8-row core matrix and a 16-byte column
  // (K-major), or at a swizzle block along M or N (MN-major).
  const std::int64_t elemBytes = target::elementBytes(t->buffer->elem);
  const std::int64_t colAlign = mnMajor ? t->buffer->swizzleBytes / elemBytes : 16 / elemBytes;
  if (kir::knownMultiple(t->row0) < 8 || kir::knownMultiple(t->col0) < colAlign) {
    const sema::Symbol* root = rootSymbol(view, nullptr);
    std::string text(view->range().Start.getPointer(), view->range().End.getPointer());
    std::string name = root ? root->name : t->buffer->name;
    if (mnMajor)
      diags_
          .report(view->loc(), DiagKind::err_wgmma_mn_operand_misaligned, text, viewOriginText(view, 0),
                  viewOriginText(view, 1), name, colAlign, t->buffer->swizzleBytes)
          .range(view->range());
    else
      diags_
          .report(view->loc(), DiagKind::err_wgmma_operand_misaligned, text, viewOriginText(view, 0),
                  viewOriginText(view, 1), name, colAlign)
          .range(view->range());
    return std::nullopt;
  }
  return t;
}

std::optional<kir::Tile> Lowerer::stageWgmmaOperand(const kir::Tile& source, llvm::SMRange where, llvm::SMLoc loc) {
  kir::Tile src = source;
  dropLeadingUnitDims(m(), src);
  const std::int64_t elemBytes = target::elementBytes(src.buffer->elem);
  const std::int64_t rows = src.rank() == 2 ? src.extents[0] : -1, cols = src.rank() == 2 ? src.extents[1] : -1;
  const std::int64_t rowBytes = cols * elemBytes;
  const int w = rowBytes % 128 == 0 ? 128 : rowBytes % 64 == 0 ? 64 : rowBytes % 32 == 0 ? 32 : 0;
  if (rows <= 0 || cols <= 0 || rows % 8 || !w) {
    unsupported(DiagKind::err_unsupported_wgmma_global_operand_shape, where);
    return std::nullopt;
  }
  // Earlier asynchronous MMAs of this warpgroup may still read the slot.
  if (asyncWgmma_) {
    emit(StmtKind::WgmmaCommit, loc);
    emit(StmtKind::WgmmaWait, loc)->count = 0;
    wgmmaUncommitted_ = false;
  }
  // One slot per warpgroup of the block: each stages its own tile.
  const std::int64_t slots = std::max<std::int64_t>(1, kernel_->threads / 128);
  kir::Buffer* b = makeBuffer(nullptr, kir::Space::Shared, src.buffer->elem,
                              {symbols().constant(rows), symbols().constant(cols)}, {slots}, loc);
  b->name = fresh("wgmma_staged");
  b->rowStride = cols;
  b->strides = {m().intc(cols), m().intc(1)};
  b->slotElements = rows * cols;
  b->swizzleBytes = w;
  b->alignBytes = 1024;
  kernel_->sharedBuffers.push_back(b);
  kir::Tile dst;
  dst.buffer = b;
  dst.offset = m().mul(m().div(m().var("tid_"), m().intc(128)), m().intc(rows * cols));
  dst.extents = {rows, cols};
  dst.runtimeExtents = {nullptr, nullptr};
  dst.strides = b->strides;
  dst.valid = {nullptr, nullptr};
  dst.row0 = dst.col0 = m().intc(0);
  emitCopy(dst, src, kir::Scope::Warpgroup, false, true, loc);
  return dst;
}

void Lowerer::fenceFragment(const kir::Fragment& f, std::int64_t atom, llvm::SMLoc loc) {
  Stmt* fence = emit(StmtKind::WgmmaFence, loc);
  fence->frag = &f;
  fence->count = atom;
}

void Lowerer::lowerWgmmaExec(const MmaExecStmt* s) {
  // A sparse MMA reads the metadata registers of its `me` operand.
  kir::Fragment* meta = nullptr;
  if (s->sparse) {
    if (s->extra.empty()) {
      unsupported(DiagKind::err_unsupported_sparse_implied_meta, s->range());
      return;
    }
    meta = fragmentFor(s->extra[0]);
    if (!meta || meta->role != kir::FragRole::E) {
      if (!failed_.count(rootSymbol(s->extra[0], nullptr)))
        unreachable("the metadata of a sparse MMA without its `mma.load`");
      return;
    }
  }
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c || !c->warpgroup) {
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_acc_unfilled, s->acc->range());
    return;
  }
  // A scaled accumulator's MMAs go into its K block's partial accumulator.
  const sema::Symbol* accSym = sema_.references.lookup(s->acc);
  kir::Fragment* total = c;
  if (kir::Fragment* part = accSym ? kblockPartials_.lookup(accSym) : nullptr) c = part;
  // RS mode: A is a register fragment, whatever layout it was loaded from.
  kir::Fragment* regA = fragmentFor(s->a);
  if (regA && (!regA->warpgroup || regA->role != kir::FragRole::A)) regA = nullptr;
  if (!regA && !meta) regA = registerAFromLocalFragment(s);
  if (regA && meta) {
    unsupported(DiagKind::err_unsupported_sparse_register_a, s->a->range());
    return;
  }
  // A stored [K, M] (`mma.col.*`) or B stored [K, N] (`mma.*.col`) is read
  // MN-major, through a transposed descriptor (16-bit operands; sema
  // rejects the others).
  const bool transA = !s->rowA && !regA, transB = !s->rowB;
  std::optional<kir::Tile> a;
  if (!regA) {
    a = wgmmaSharedOperand(s->a, transA);
    if (!a) return;
  }
  std::optional<kir::Tile> b = wgmmaSharedOperand(s->b, transB);
  if (!b) return;
  std::int64_t mdim = regA ? regA->logicalRows : a->extents[transA ? 1 : 0];
  std::int64_t kdim = regA ? regA->logicalCols : a->extents[transA ? 0 : 1];
  // A packed 2:4 sparse A holds half of its K.
  if (meta) kdim *= 2;
  std::int64_t ndim = b->extents[transB ? 1 : 0];
  std::int64_t kdimB = b->extents[transB ? 0 : 1];
  TokenKind in = regA ? regA->inType : a->buffer->elem;
  std::optional<std::int64_t> instrK = wgmmaInstructionK(in, b->buffer->elem, c->accType, target_, meta);
  if (!instrK) {
    unsupported(DiagKind::err_unsupported_wgmma_types, s->range());
    return;
  }
  if (mdim != c->logicalRows || ndim != c->logicalCols || kdim != kdimB || kdim % *instrK) {
    diags_.report(s->loc(), DiagKind::err_wgmma_shape_mismatch, mdim, kdim, ndim, kdimB, c->logicalRows, c->logicalCols)
        .range(s->range());
    return;
  }
  const std::int64_t steps = kdim / *instrK;
  // Metadata for more slabs or K steps than the MMA issues: Croqtile reads
  // the instructions' metadata from the tile's start, and programs written
  // for it rely on that; too little metadata cannot be read at all.
  if (meta && (meta->rows < c->rows || meta->cols < steps ||
               target::elementBytes(meta->inType) != target::elementBytes(in))) {
    diags_
        .report(s->extra[0]->loc(), DiagKind::err_sparse_meta_mismatch, exprText(s->extra[0]), meta->rows, meta->cols, c->rows,
                steps)
        .range(s->extra[0]->range());
    return;
  }
  if (meta && (meta->rows != c->rows || meta->cols != steps))
    diags_
        .report(s->extra[0]->loc(), DiagKind::warn_sparse_meta_leading, exprText(s->extra[0]), meta->rows, meta->cols,
                c->rows, steps)
        .range(s->extra[0]->range());
  c->inType = in;
  c->asyncUse = c->asyncUse || asyncWgmma_;
  // The accumulator's, the register A's and the metadata's registers are
  // fenced on both sides of the WGMMAs (the compiler must not move their
  // accesses across), and the warpgroup's accesses ordered before them
  // (wgmma.fence); a synchronous MMA commits and waits for its own group.
  auto fenceOperands = [&] {
    for (std::int64_t i = 0; i < c->rows; ++i) fenceFragment(*c, i, s->loc());
    if (regA) fenceFragment(*regA, -1, s->loc());
    for (std::int64_t i = 0; meta && i < meta->rows; ++i) fenceFragment(*meta, i, s->loc());
  };
  fenceOperands();
  emit(StmtKind::WgmmaArrive, s->loc());
  Stmt* w = emit(StmtKind::WgmmaExec, s->loc());
  w->fragB = meta;
  w->async = asyncWgmma_;
  w->frag = c;
  w->fragA = regA;
  if (a) w->src = *a;
  w->dst = *b;
  w->transposed = transA;
  w->transposedB = transB;
  w->count = steps;
  w->step = *instrK;
  if (auto order = sema_.mmaSchedules.find(s); order != sema_.mmaSchedules.end()) {
    if (static_cast<std::int64_t>(order->second.size()) != steps)
      unreachable("a K-tile schedule checked against another number of K steps");
    // The identity order is the one the steps have without a schedule.
    bool identity = true;
    for (std::int64_t k = 0; k < steps; ++k) identity = identity && order->second[static_cast<size_t>(k)] == k;
    if (!identity) w->kOrder = order->second;
  }
  if (!asyncWgmma_) {
    emit(StmtKind::WgmmaCommit, s->loc());
    emit(StmtKind::WgmmaWait, s->loc())->count = 0;
    fenceOperands();
  }
  wgmmaUncommitted_ = asyncWgmma_;
  total->inType = in;
  if (s->scale && s->extra.size() == 2) emitAccScale(accSym, s->extra[0], s->extra[1], s->range());
}

void Lowerer::findScaledAccumulators(const ast::Stmt* body) {
  forEachStmt(body, [&](const ast::Stmt* s) {
    const ast::Expr* acc = nullptr;
    if (const auto* sc = llvm::dyn_cast<MmaScaleStmt>(s)) acc = sc->acc;
    if (const auto* e = llvm::dyn_cast<MmaExecStmt>(s); e && e->scale) acc = e->acc;
    if (const sema::Symbol* sym = acc ? sema_.references.lookup(acc) : nullptr) scaledAccumulators_.insert(sym);
  });
}

void Lowerer::lowerMmaScale(const MmaScaleStmt* s) {
  if (!wgmma_) {
    unsupported(DiagKind::err_unsupported_scale_warp_acc, s->range());
    return;
  }
  emitAccScale(sema_.references.lookup(s->acc), s->scaleA, s->scaleB, s->range());
}

void Lowerer::emitAccScale(const sema::Symbol* acc, const ast::Expr* sa, const ast::Expr* sb, llvm::SMRange where) {
  kir::Fragment* c = acc ? fragments_.lookup(acc) : nullptr;
  kir::Fragment* part = acc ? kblockPartials_.lookup(acc) : nullptr;
  if (!c || !part || !c->warpgroup) {
    unsupported(DiagKind::err_unsupported_scale_unfilled, where);
    return;
  }
  std::optional<kir::Tile> scales = lowerTile(sa, "the row scales of `mma.scale`");
  if (!scales) return;
  // The row scales are M values: a column [M, 1], a vector [M], or a row
  // [1, M] of scales stored transposed ([K blocks, M]); a row is read as the
  // column it holds.
  if (scales->rank() == 2 && scales->extents[0] == 1 && scales->extents[1] != 1) {
    std::swap(scales->extents[0], scales->extents[1]);
    std::swap(scales->strides[0], scales->strides[1]);
    if (scales->valid.size() == 2) std::swap(scales->valid[0], scales->valid[1]);
    if (scales->runtimeExtents.size() == 2) std::swap(scales->runtimeExtents[0], scales->runtimeExtents[1]);
  }
  bool column = scales->rank() == 1 || (scales->rank() == 2 && scales->extents[1] == 1);
  if (!column || scales->extents[0] != c->logicalRows) {
    std::string shape;
    for (std::int64_t e : scales->extents) shape += (shape.empty() ? "" : ", ") + std::to_string(e);
    diags_
        .report(sa->loc(), DiagKind::err_mma_scale_rows,
                std::string(sa->range().Start.getPointer(), sa->range().End.getPointer()), shape, c->logicalRows,
                c->logicalCols)
        .range(sa->range());
    return;
  }
  if (scales->rank() == 1) {
    scales->extents.push_back(1);
    scales->strides.push_back(m().intc(1));
    scales->valid.push_back(nullptr);
    scales->runtimeExtents.push_back(nullptr);
  }
  const Expr* sbValue = m().convert(lowerExpr(sb), kir::ScalarType::element(TokenKind::ty_f32));
  // The factors are loaded before the MMAs complete (the `scale-loads`
  // pass moves them above the K block's WGMMAs), so that their latency
  // overlaps the tensor cores' work.
  std::vector<std::string> factors;
  for (std::int64_t i = 0; i < c->rows; ++i) {
    kir::Tile atom = *scales;
    atom.offset = m().add(scales->offset, m().mul(m().intc(64 * i), scales->strides[0]));
    atom.extents = {64, 1};
    atom.valid = {scales->valid[0] ? m().sub(scales->valid[0], m().intc(64 * i)) : nullptr, nullptr};
    Stmt* ld = emit(StmtKind::AccScaleLoad, where.Start);
    ld->frag = c;
    ld->i = m().intc(i);
    ld->src = atom;
    ld->value = sbValue;
    ld->var = fresh(acc->name + "_factors");
    factors.push_back(ld->var);
  }
  completeUncommittedMmas(where.Start);
  for (std::int64_t i = 0; i < c->rows; ++i) {
    Stmt* st = emit(StmtKind::AccScale, where.Start);
    st->frag = c;
    st->fragB = part;
    st->i = m().intc(i);
    st->var = factors[static_cast<std::size_t>(i)];
  }
  Stmt* zero = emit(StmtKind::FragFill, where.Start);
  zero->frag = part;
  zero->value = m().floatc("0.0f", TokenKind::ty_f32);
}

void Lowerer::lowerWgmmaStore(const MmaStoreStmt* s) {
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c || !c->warpgroup) {
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_store_unfilled, s->acc->range());
    return;
  }
  std::optional<kir::Tile> tile = lowerTile(s->dest, "the `mma.store` destination");
  if (!tile) return;
  maskStoreTile(s, *tile);
  if (tile->rank() != 2 || tile->buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_wgmma_store_dest, s->range());
    return;
  }
  if (tile->buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(tile->buffer));
  completeUncommittedMmas(s->loc());
  StoreGeometry g = storeGeometry(*tile, *c, s->transpose);
  const Expr* rs = g.rowStride;
  const Expr* cs = g.colStride;
  const Expr* rv = g.rowsValid;
  const Expr* cv = g.colsValid;
  for (std::int64_t i = 0; i < c->rows; ++i) {
    kir::Tile atom = *tile;
    atom.offset = m().add(tile->offset, m().mul(m().intc(64 * i), rs));
    atom.extents = {64, c->logicalCols};
    atom.strides = {rs, cs};
    atom.valid = {rv ? m().sub(rv, m().intc(64 * i)) : nullptr, cv};
    Stmt* st = emit(StmtKind::AtomStore, s->loc());
    st->frag = c;
    st->i = m().intc(i);
    st->j = m().intc(0);
    st->dst = atom;
  }
}

}  // namespace croqc::lower
