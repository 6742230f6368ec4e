// The four-step MMA on a warpgroup (`: group-4`, sm_90a) to WGMMA (spec 13,
// 20, 21.6; seed chapter kernels 2 and 3). The CPU target runs the same
// lowering: its runtime (croq/cpu/wgmma.h) computes each thread's accumulator
// elements from the same swizzled tiles.
//
// An accumulator [M, N] of a warpgroup is M/64 m64nN register accumulators.
// B is always a shared tile read through a matrix descriptor; so is A in SS
// mode. Those buffers get the swizzled K-major layout of
// croq/device/wgmma_tile.h (128-byte swizzle when rows hold a multiple of
// 64 f16), which every copy into them writes, and `mma.load` of such a tile
// only names it. In RS mode (`ma = mma.load.frag ...`, or an `mma.load` from
// global memory) A [64 * m, K] is loaded into registers: m x K/16 atoms of
// 64 x 16, each warp of the warpgroup holding its 16-row slab in the
// m16n8k16 A layout, read with ldmatrix from shared tiles with 16-byte rows
// (such buffers keep the plain, padded layout) and element by element
// otherwise. `mma.row.row` issues one wgmma per (64-row atom, k16 step),
// after a `wgmma.fence` that orders the earlier writes of the accumulator
// and A registers, and is committed and waited so the accumulator is
// complete at the next statement (spec 13.8).
#include "lower/LowerImpl.h"

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// The K of one WGMMA for operands `a` x `b` into an `acc` accumulator (32
/// bytes of a row: 16 for f16/bf16, 32 for 8-bit floats), or none when croqc
/// has no WGMMA for the combination (A and B of different types among them).
std::optional<std::int64_t> wgmmaInstructionK(TokenKind a, TokenKind b, TokenKind acc) {
  using enum TokenKind;
  if (a != b) return std::nullopt;
  if (a == ty_f16 || (a == ty_bf16 && acc == ty_f32) || a == ty_f8_e4m3 || a == ty_f8_e5m2)
    return target::mmaInstructionK(a);
  return std::nullopt;
}

}  // namespace

bool Lowerer::wgmmaLoadsRegisters(const MmaLoadStmt* s) const {
  if (s->toFrag) return true;
  const sema::Type* t = sema_.typeOf(s->source);
  return !t || t->storage != Storage::Shared;
}

void Lowerer::findWgmmaOperands(const ast::Stmt* body) {
  // Fragments bound by `mma.load` are not buffers; the shared tiles that
  // descriptors read are the sources of SS loads and the views MMAs take
  // directly.
  llvm::DenseSet<const sema::Symbol*> fragments;
  std::vector<const ast::Expr*> operands;
  forEachStmt(body, [&](const ast::Stmt* s) {
    if (const auto* l = llvm::dyn_cast<MmaLoadStmt>(s)) {
      auto decls = sema_.declarations.find(l);
      if (decls != sema_.declarations.end() && !decls->second.empty()) fragments.insert(decls->second.front());
      if (!wgmmaLoadsRegisters(l)) operands.push_back(l->source);
    }
    if (const auto* e = llvm::dyn_cast<MmaExecStmt>(s)) {
      operands.push_back(e->a);
      operands.push_back(e->b);
    }
  });
  for (const ast::Expr* e : operands) {
    const sema::Symbol* root = rootSymbol(e, nullptr);
    if (!root || fragments.count(root)) continue;
    const sema::Type& t = root->type;
    bool future = t.kind == sema::TypeKind::Future;
    if ((t.kind != sema::TypeKind::Data && !future) || (!future && t.storage != Storage::Shared) ||
        t.shape.size() != 2)
      continue;
    std::optional<std::int64_t> cols = sym::constantValue(t.shape[1]);
    std::optional<std::int64_t> rows = sym::constantValue(t.shape[0]);
    if (!cols || !rows || *rows % 8) continue;
    std::int64_t rowBytes = *cols * target::elementBytes(t.elem);
    int w = rowBytes % 128 == 0 ? 128 : rowBytes % 64 == 0 ? 64 : rowBytes % 32 == 0 ? 32 : 0;
    if (w) swizzled_[root] = w;
  }
}

void Lowerer::completeUncommittedMmas(llvm::SMLoc loc) {
  if (!commitWaits_ || !wgmmaUncommitted_) return;
  emit(StmtKind::Raw, loc)->text = "croq::wgmma::commit_group();";
  emit(StmtKind::Raw, loc)->text = "croq::wgmma::wait_group<0>();";
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
      unsupported(s->range(), "a warpgroup accumulator of this shape",
                  "WGMMA accumulators are [64 * m, N] with N a multiple of 8 up to 256");
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
  }
  emitFill(f, s);
}

void Lowerer::lowerWgmmaLoad(const MmaLoadStmt* s) {
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  if (wgmmaLoadsRegisters(s)) return lowerWgmmaRegisterLoad(s, sym);
  const sema::Symbol* root = rootSymbol(s->source, nullptr);
  const kir::Buffer* b = root ? bufferFor(root) : nullptr;
  if (kir::Fragment* f = fragments_.lookup(sym); f && f->role == kir::FragRole::A) fragments_.erase(sym);
  if (!b || !b->swizzleBytes) {
    unsupported(s->source->range(), "a warpgroup MMA operand outside shared memory",
                "copy the tile into a `shared` buffer first");
    wgOperands_.erase(sym);
    failed_.insert(sym);
    return;
  }
  // The name now stands for the shared tile (the latest `mma.load` decides).
  wgOperands_[sym] = s->source;
  failed_.erase(sym);
}

void Lowerer::lowerWgmmaRegisterLoad(const MmaLoadStmt* s, const sema::Symbol* sym) {
  // After a failed load the name stands for nothing, so that the MMA that
  // reads it reports nothing more.
  kir::Fragment* previous = fragments_.lookup(sym);
  fragments_.erase(sym);
  wgOperands_.erase(sym);
  failed_.insert(sym);
  const MmaOperandUse* use = operandUse(sym);
  if (!use) {
    unsupported(s->range(), "an `mma.load` whose fragment no MMA reads");
    return;
  }
  if (use->role != kir::FragRole::A) {
    unsupported(s->range(), "a register fragment as operand B of a warpgroup MMA",
                "WGMMA reads B from shared memory: pass the shared view, or `mma.load` it without `.frag`");
    return;
  }
  std::optional<kir::Tile> tile = lowerMmaLoadSource(s);
  if (!tile) return;
  if (tile->buffer->swizzleBytes) {
    unsupported(s->source->range(),
                "a register load of a shared tile that warpgroup MMAs also read through a descriptor",
                "load this buffer's A tiles either all with `mma.load.frag` or all without it");
    return;
  }
  bool transposed = use->transposed;
  std::int64_t rows = tile->extents[transposed ? 1 : 0];
  std::int64_t kdim = tile->extents[transposed ? 0 : 1];
  if (rows <= 0 || kdim <= 0 || rows % 64 || kdim % 16) {
    diags_.report(s->source->range().Start, DiagKind::err_wgmma_a_fragment_shape, sym->name, rows, kdim)
        .range(s->source->range());
    return;
  }
  TokenKind elem = tile->buffer->elem;
  if (elem != TokenKind::ty_f16 && elem != TokenKind::ty_bf16) {
    unsupported(s->range(), "a register A operand of type `" + tokenKindSpelling(elem).str() + "`",
                "warpgroup MMAs take f16 or bf16 A operands from registers");
    return;
  }
  kir::Fragment* f = previous;
  if (!f || !f->warpgroup || f->role != kir::FragRole::A || f->rows != rows / 64 || f->cols != kdim / 16 ||
      f->inType != elem) {
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = kir::FragRole::A;
    f->inType = elem;
    f->warpgroup = true;
    f->rows = rows / 64;
    f->cols = kdim / 16;
    f->logicalRows = rows;
    f->logicalCols = kdim;
    emit(StmtKind::FragDecl, s->loc())->frag = f;
  }
  fragments_[sym] = f;
  failed_.erase(sym);
  loadFragment(f, *tile, transposed, s->loc());
}

void Lowerer::lowerWgmmaExec(const MmaExecStmt* s) {
  if (s->sparse || s->scale) {
    unsupported(s->range(), s->sparse ? "sparse MMA" : "scaled MMA");
    return;
  }
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c || !c->warpgroup) {
    unsupported(s->acc->range(), "an MMA accumulator croqc did not see filled", "bind it with `mma.fill` first");
    return;
  }
  // RS mode: A is a register fragment, whatever layout it was loaded from.
  kir::Fragment* regA = fragmentFor(s->a);
  if (regA && (!regA->warpgroup || regA->role != kir::FragRole::A)) regA = nullptr;
  if (!s->rowB || (!s->rowA && !regA)) {
    unsupported(s->range(), "a warpgroup MMA with an MN-major operand in shared memory",
                "store A as [M, K] and B as [N, K] and use `mma.row.row`");
    return;
  }
  auto operand = [&](const ast::Expr* e) -> std::optional<kir::Tile> {
    const ast::Expr* view = e;
    if (const sema::Symbol* sym = sema_.references.lookup(e))
      if (auto it = wgOperands_.find(sym); it != wgOperands_.end()) view = it->second;
    std::optional<kir::Tile> t = lowerTile(view, "the warpgroup MMA operand");
    if (t && !t->buffer->swizzleBytes) {
      unsupported(e->range(), "a warpgroup MMA operand outside shared memory",
                  "copy the tile into a `shared` buffer first");
      return std::nullopt;
    }
    // A descriptor starts at an 8-row core matrix and a 16-byte column.
    const std::int64_t cols16 = 16 / target::elementBytes(t ? t->buffer->elem : TokenKind::ty_f16);
    if (t && (kir::knownMultiple(t->row0) < 8 || kir::knownMultiple(t->col0) < cols16)) {
      const sema::Symbol* root = rootSymbol(view, nullptr);
      diags_
          .report(view->loc(), DiagKind::err_wgmma_operand_misaligned,
                  std::string(view->range().Start.getPointer(), view->range().End.getPointer()),
                  viewOriginText(view, 0), viewOriginText(view, 1), root ? root->name : t->buffer->name, cols16)
          .range(view->range());
      return std::nullopt;
    }
    return t;
  };
  std::optional<kir::Tile> a;
  if (!regA) {
    a = operand(s->a);
    if (!a) return;
  }
  std::optional<kir::Tile> b = operand(s->b);
  if (!b) return;
  std::int64_t mdim = regA ? regA->logicalRows : a->extents[0];
  std::int64_t kdim = regA ? regA->logicalCols : a->extents[1];
  std::int64_t ndim = b->extents[0];
  TokenKind in = regA ? regA->inType : a->buffer->elem;
  std::optional<std::int64_t> instrK = wgmmaInstructionK(in, b->buffer->elem, c->accType);
  if (!instrK) {
    unsupported(s->range(), "a warpgroup MMA of these element types",
                "f16 x f16 -> f16/f32, bf16 x bf16 -> f32, or f8_e4m3 x f8_e4m3 / f8_e5m2 x f8_e5m2 -> f16/f32");
    return;
  }
  if (mdim != c->logicalRows || ndim != c->logicalCols || kdim != b->extents[1] || kdim % *instrK) {
    diags_
        .report(s->loc(), DiagKind::err_wgmma_shape_mismatch, mdim, kdim, ndim, b->extents[1], c->logicalRows,
                c->logicalCols)
        .range(s->range());
    return;
  }
  c->inType = in;
  c->asyncUse = c->asyncUse || asyncWgmma_;
  Stmt* w = emit(StmtKind::WgmmaExec, s->loc());
  w->async = asyncWgmma_;
  w->frag = c;
  w->fragA = regA;
  if (a) w->src = *a;
  w->dst = *b;
  w->count = kdim / *instrK;
  w->step = *instrK;
  wgmmaUncommitted_ = asyncWgmma_;
}

void Lowerer::lowerWgmmaStore(const MmaStoreStmt* s) {
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c || !c->warpgroup) {
    unsupported(s->acc->range(), "an `mma.store` of an accumulator croqc did not see filled");
    return;
  }
  std::optional<kir::Tile> tile = lowerTile(s->dest, "the `mma.store` destination");
  if (!tile) return;
  if (tile->rank() != 2 || tile->buffer->swizzleBytes) {
    unsupported(s->range(), "an `mma.store` into this destination", "store into a plain shared or global tile");
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
