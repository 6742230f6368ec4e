// The four-step MMA on a warp (`: group`) to `mma.sync` atoms (spec 13): the
// atom of each MMA is the one sema chose (target::selectMma): m16n8k16 for
// f16/bf16, m16n8k32 for s8/u8 and f8 (sm_89 on), m16n8k8 for tf32, or, for a
// tile those do not divide, a smaller shape (m16n8k8 f16/bf16, m16n8k4
// tf32, m16n8k16 and m8n8k16 s8/u8, m8n8k4 f16). Accumulators are f16, f32
// or s32.
//
// A warp tile is split into atoms: the accumulator [M, N] into M/atomM x N/8
// atoms, A [M, K] into M/atomM x K/atomK atoms, B [N, K] into N/8 x K/atomK
// atoms; `mma.row.row` issues one atom MMA per (i, j, k). Operands of the
// m16 32-byte atoms in shared memory with 16-byte aligned rows are read
// with ldmatrix (the `.trans` form for A stored [K, M] and for B stored
// [K, N]); other operands (global memory, partial tiles, the smaller atoms)
// are read element by element with the register layout of
// croq/device/mma_layout.h, zero outside the valid region. An accumulator
// may start from memory (`mc = mma.load C;`), be an element of an
// accumulator array (`frag mc[2][3] {0.0};`, `mc[0][i]`), and be updated by a
// scalar (`mc += bias;`).
#include "lower/LowerImpl.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/FormatVariadic.h>

#include "lower/MmaPatterns.h"
#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// The symbol an accumulator expression starts from (`mc` of `mc[0][i]`).
const sema::Symbol* accumulatorSymbol(const ast::Expr* e, const sema::SemaResult& sema) {
  while (const auto* sub = llvm::dyn_cast<SubscriptExpr>(e)) e = sub->base;
  return sema.references.lookup(e);
}

/// Records, for every fragment an MMA below `s` reads or accumulates into,
/// its role, layout and the atom sema chose for that MMA.
void findOperandUses(const ast::Stmt* s, const sema::SemaResult& sema,
                     llvm::DenseMap<const sema::Symbol*, MmaOperandUse>& uses) {
  forEachStmt(s, [&](const ast::Stmt* st) {
    const auto* e = llvm::dyn_cast<MmaExecStmt>(st);
    if (!e) return;
    auto chosen = sema.mmaAtoms.find(e);
    const target::MmaAtom* atom =
        chosen == sema.mmaAtoms.end() ? nullptr : &target::mmaAtom(static_cast<target::MmaAtomId>(chosen->second));
    const sema::Type* at = sema.typeOf(e->a);
    MmaOperandUse use{kir::FragRole::A, !e->rowA, atom, at ? at->elem : TokenKind::eof};
    if (at && at->shape.size() == 2) {
      const std::int64_t d0 = sym::constantValue(at->shape[0]).value_or(-1);
      const std::int64_t d1 = sym::constantValue(at->shape[1]).value_or(-1);
      use.aRows = e->rowA ? d0 : d1;
      use.aCols = e->rowA ? d1 : d0;
    }
    auto record = [&](const ast::Expr* x, kir::FragRole role, bool transposed) {
      const sema::Symbol* sym = role == kir::FragRole::C ? accumulatorSymbol(x, sema) : sema.references.lookup(x);
      if (!sym) return;
      MmaOperandUse u = use;
      u.role = role;
      u.transposed = transposed;
      uses[sym] = u;
    };
    record(e->a, kir::FragRole::A, !e->rowA);
    record(e->b, kir::FragRole::B, !e->rowB);
    record(e->acc, kir::FragRole::C, false);
    if (e->sparse && !e->extra.empty()) record(e->extra[0], kir::FragRole::E, false);
  });
}

}  // namespace

bool Lowerer::setWarpAtom(kir::Fragment* f, const target::MmaAtom* atom, TokenKind elem, kir::FragRole role) {
  if (!atom) atom = loweredMmaAtom(target::MmaScope::Warp, elem, elem, std::nullopt, target_);
  if (!atom || !llvm::is_contained(kWarpMmaPatterns, atom->id)) return false;
  if (elem == TokenKind::eof || !atom->aTypes.contains(target::canonicalMmaOperandType(elem)))
    elem = atom->aTypes.members().front();
  const std::int64_t k = atom->sparse && role == kir::FragRole::A ? atom->k / 2 : atom->k;
  f->atomM = atom->m;
  f->atomK = k;
  f->atomKBytes = k * target::elementBytes(elem);
  return true;
}

void Lowerer::declareFragment(const sema::Symbol* sym, kir::Fragment* f, llvm::SMLoc loc) {
  fragments_[sym] = f;
  emit(StmtKind::FragDecl, loc)->frag = f;
}

Stmt* Lowerer::emitFill(kir::Fragment* f, const ast::MmaFillStmt* s) {
  Stmt* fill = emit(StmtKind::FragFill, s->loc());
  fill->frag = f;
  fill->value = m().convert(lowerExpr(s->value), kir::ScalarType::element(TokenKind::ty_f32));
  return fill;
}

void Lowerer::emitFillAll(kir::Fragment* f, const Expr* value, llvm::SMLoc loc) {
  value = m().convert(value, kir::ScalarType::element(TokenKind::ty_f32));
  std::int64_t count = 1;
  for (std::int64_t d : f->arrayDims) count *= d;
  for (std::int64_t n = 0; n < count; ++n) {
    Stmt* fill = emit(StmtKind::FragFill, loc);
    fill->frag = f;
    std::int64_t rest = n;
    for (size_t d = f->arrayDims.size(); d-- > 0;) {
      fill->fragIndex.insert(fill->fragIndex.begin(), m().intc(rest % f->arrayDims[d]));
      rest /= f->arrayDims[d];
    }
    fill->value = value;
  }
}

kir::Fragment* Lowerer::makeWarpAccumulator(const sema::Symbol* sym, TokenKind elem, const ast::Stmt* s) {
  const sema::Type& t = sym->type;
  if (t.shape.size() != 2) {
    unsupported(DiagKind::err_unsupported_acc_shape_unknown, s->range());
    return nullptr;
  }
  if (elem != TokenKind::ty_f16 && elem != TokenKind::ty_f32 && elem != TokenKind::ty_s32 && elem != TokenKind::eof) {
    unsupported(DiagKind::err_unsupported_acc_type, s->range(), tokenKindSpelling(elem));
    return nullptr;
  }
  std::optional<std::int64_t> rows = sym::constantValue(t.shape[0]);
  std::optional<std::int64_t> cols = sym::constantValue(t.shape[1]);
  const MmaOperandUse* use = operandUse(sym);
  auto* f = m().fragment();
  if (!setWarpAtom(f, use ? use->atom : nullptr, TokenKind::eof)) {
    const target::MmaAtom* atom = use ? use->atom : nullptr;
    unsupported(DiagKind::err_unsupported_warp_mma_atom, s->range(),
                atom ? "`" + target::mmaInstrName(atom->instr, atom->sparse).str() + "." +
                           target::formatMmaShape(atom->m, atom->n.min(), atom->k) + "` on " +
                           target::describeTypeSet(atom->aTypes)
                     : std::string("of its operands"));
    return nullptr;
  }
  if (!rows || !cols || *rows % f->atomM || *cols % 8) {
    unreachable("a warp MMA accumulator that is not a multiple of its atom");
  }
  f->name = fresh(sym->name);
  f->role = kir::FragRole::C;
  f->accType = elem == TokenKind::eof ? TokenKind::ty_f32 : elem;
  f->rows = *rows / f->atomM;
  f->cols = *cols / 8;
  f->logicalRows = *rows;
  f->logicalCols = *cols;
  for (const sym::SymExpr* d : t.arrayDims) f->arrayDims.push_back(sym::constantValue(d).value_or(1));
  declareFragment(sym, f, s->loc());
  return f;
}

void Lowerer::lowerMmaFill(const MmaFillStmt* s) {
  if (wgmma_) return lowerWgmmaFill(s);
  if (frames_.back().level != ParallelLevel::Group && frames_.back().level != ParallelLevel::Block &&
      frames_.back().level != ParallelLevel::Thread) {
    unreachable("an MMA accumulator filled outside a warp in a kernel without warpgroup MMAs");
  }
  // `frag mc[2][3] {v};` declaring an accumulator array.
  auto decls = sema_.declarations.find(s);
  if (s->target && decls != sema_.declarations.end() && !decls->second.empty()) {
    const sema::Symbol* sym = decls->second.front();
    if (kir::Fragment* f = makeWarpAccumulator(sym, sym->type.elem, s)) emitFillAll(f, lowerExpr(s->value), s->loc());
    else failed_.insert(sym);
    return;
  }
  if (s->target) {
    std::vector<const Expr*> index;
    kir::Fragment* f = accumulatorFor(s->target, index);
    if (!f) {
      if (!failed_.count(rootSymbol(s->target, nullptr)))
        unsupported(DiagKind::err_unsupported_mma_acc_unfilled, s->target->range());
      return;
    }
    if (index.empty() && !f->arrayDims.empty()) return emitFillAll(f, lowerExpr(s->value), s->loc());
    emitFill(f, s)->fragIndex = index;
    return;
  }
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  kir::Fragment* f = fragments_.lookup(sym);
  if (!f && !(f = makeWarpAccumulator(sym, sym->type.elem, s))) return;
  emitFill(f, s);
}

kir::Fragment* Lowerer::accumulatorFor(const ast::Expr* e, std::vector<const Expr*>& index) {
  llvm::SmallVector<const ast::Expr*, 2> subscripts;
  while (const auto* sub = llvm::dyn_cast<SubscriptExpr>(e)) {
    subscripts.insert(subscripts.begin(), sub->indices.begin(), sub->indices.end());
    e = sub->base;
  }
  kir::Fragment* f = fragmentFor(e);
  if (!f) return nullptr;
  for (const ast::Expr* i : subscripts) index.push_back(lowerInt(i));
  return f;
}

void Lowerer::loadFragment(kir::Fragment* f, const kir::Tile& tile, bool transposed, llvm::SMLoc loc) {
  // Strides of the fragment's logical dimensions: A (m, k) or B (n, k).
  const Expr* outerStride = tile.strides[transposed ? 1 : 0];
  const Expr* kStride = tile.strides[transposed ? 0 : 1];
  const Expr* outerValid = tile.valid[transposed ? 1 : 0];
  const Expr* kValid = tile.valid[transposed ? 0 : 1];
  // Warp atoms are atomM (A) or 8 (B) rows; a warpgroup A atom is 64 rows,
  // each warp loading its 16-row slab.
  std::int64_t outerAtom = f->warpgroup ? 64 : f->role == kir::FragRole::A ? f->atomM : 8;
  std::int64_t bytes = target::elementBytes(f->inType);
  std::int64_t atomK = f->warpgroup ? 32 / bytes : f->atomK;
  // ldmatrix serves the m16 atoms of 32 bytes of K (and warpgroup A slabs).
  bool full = tile.alwaysFull() && (f->warpgroup || f->defaultAtom());
  // ldmatrix reads 8 rows of 16 contiguous bytes: the contiguous dimension
  // must have stride 1 and the other, and the start, 16-byte multiples; it
  // transposes 16-bit elements only.
  const Expr* contiguous = transposed ? outerStride : kStride;
  const Expr* leading = transposed ? kStride : outerStride;
  std::int64_t chunk = 16 / bytes;
  bool ldsm = full && tile.buffer->space == kir::Space::Shared && (bytes == 2 || (bytes == 1 && !transposed)) &&
              contiguous->isConst(1) && knownMultiple(leading) % chunk == 0 && knownMultiple(leading) >= chunk &&
              knownMultiple(tile.offset) % chunk == 0 && knownMultiple(tile.offset) >= chunk;
  bool pair = ldsm && f->role == kir::FragRole::B && f->rows % 2 == 0;

  unrolledLoop("i", f->rows, loc, [&](const Expr* i) {
    unrolledLoop("k", f->cols, loc, [&](const Expr* k) {
      const Expr* outerOff = m().mul(m().mul(i, m().intc(outerAtom)), outerStride);
      const Expr* kOff = m().mul(m().mul(k, m().intc(atomK)), kStride);
      kir::Tile atom;
      atom.buffer = tile.buffer;
      atom.offset = m().add(tile.offset, m().add(outerOff, kOff));
      atom.extents = {outerAtom * (pair ? 2 : 1), atomK};
      atom.strides = {outerStride, kStride};
      atom.valid = {outerValid ? m().sub(outerValid, m().mul(i, m().intc(outerAtom))) : nullptr,
                    kValid ? m().sub(kValid, m().mul(k, m().intc(atomK))) : nullptr};
      atom.inside = tile.inside;
      Stmt* ld = emit(StmtKind::AtomLoad, loc);
      ld->frag = f;
      ld->i = i;
      ld->j = k;
      ld->src = atom;
      ld->transposed = transposed;
      ld->useLdmatrix = ldsm;
      ld->pairB = pair;
    });
  }, pair ? 2 : 1);
}

const sema::Symbol* Lowerer::mmaTarget(const ast::Stmt* s, llvm::StringRef result, const ast::Expr* target) const {
  if (!result.empty()) {
    auto decls = sema_.declarations.find(s);
    return decls != sema_.declarations.end() && !decls->second.empty() ? decls->second.front() : nullptr;
  }
  return target ? sema_.references.lookup(target) : nullptr;
}

const MmaOperandUse* Lowerer::operandUse(const sema::Symbol* sym) {
  if (operandUsesOf_ != functionInfo_) {
    operandUses_.clear();
    findOperandUses(functionInfo_->decl->body, sema_, operandUses_);
    operandUsesOf_ = functionInfo_;
  }
  auto use = operandUses_.find(sym);
  return use == operandUses_.end() ? nullptr : &use->second;
}

kir::Fragment* Lowerer::fragmentFor(const ast::Expr* e) {
  const sema::Symbol* sym = sema_.references.lookup(e);
  return sym ? fragments_.lookup(sym) : nullptr;
}

std::optional<kir::Tile> Lowerer::lowerMmaLoadSource(const ast::MmaLoadStmt* s, std::int64_t lastExtent) {
  std::optional<kir::Tile> tile = lowerTile(s->source, "the `mma.load` source", lastExtent);
  if (tile && tile->rank() != 2) {
    unreachable("an `mma.load` of a tile that is not 2-D");
  }
  return tile;
}

void Lowerer::loadAccumulator(kir::Fragment* f, const kir::Tile& tile, llvm::SMLoc loc) {
  StoreGeometry g = storeGeometry(tile, *f, false);
  unrolledLoop("i", f->rows, loc, [&](const Expr* i) {
    unrolledLoop("j", f->cols, loc, [&](const Expr* j) {
      kir::Tile atom;
      atom.buffer = tile.buffer;
      atom.offset = m().add(tile.offset, m().add(m().mul(m().mul(i, m().intc(f->atomM)), g.rowStride),
                                                 m().mul(m().mul(j, m().intc(8)), g.colStride)));
      atom.extents = {f->atomM, 8};
      atom.strides = {g.rowStride, g.colStride};
      atom.valid = {g.rowsValid ? m().sub(g.rowsValid, m().mul(i, m().intc(f->atomM))) : nullptr,
                    g.colsValid ? m().sub(g.colsValid, m().mul(j, m().intc(8))) : nullptr};
      atom.inside = tile.inside;
      Stmt* ld = emit(StmtKind::AtomLoad, loc);
      ld->frag = f;
      ld->i = i;
      ld->j = j;
      ld->src = atom;
    });
  });
}

void Lowerer::lowerMmaLoad(const MmaLoadStmt* s) {
  if (wgmma_) return lowerWgmmaLoad(s);
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  // The role comes from the MMA that reads the fragment.
  const MmaOperandUse* use = operandUse(sym);
  if (!use) {
    unsupported(DiagKind::err_unsupported_mma_load_unused, s->range());
    return;
  }
  if (use->role == kir::FragRole::E) return lowerWarpSparseMetaLoad(s, sym, *use);
  std::optional<kir::Tile> tile = lowerMmaLoadSource(s);
  if (!tile) return;
  barrierAfterStores(tile->buffer, s->loc());
  TokenKind elem = tile->buffer->elem;
  if (use->role == kir::FragRole::C) {
    // `mc = mma.load C;`: the accumulator starts from memory.
    kir::Fragment* f = fragments_.lookup(sym);
    TokenKind acc = elem == TokenKind::ty_f16 || elem == TokenKind::ty_s32 ? elem : TokenKind::ty_f32;
    if (!f && !(f = makeWarpAccumulator(sym, acc, s))) return;
    loadAccumulator(f, *tile, s->loc());
    return;
  }
  bool transposed = use->transposed;
  std::int64_t outer = tile->extents[transposed ? 1 : 0];
  std::int64_t kdim = tile->extents[transposed ? 0 : 1];
  kir::FragRole role = use->role;
  auto* f = m().fragment();
  if (!setWarpAtom(f, use->atom, elem, role)) {
    unsupported(DiagKind::err_unsupported_mma_operand_type, s->range(), tokenKindSpelling(elem), options_.arch,
                target_.hasFp8Mma ? ", or f8_e4m3 / f8_e5m2" : "");
    return;
  }
  std::int64_t outerAtom = role == kir::FragRole::A ? f->atomM : 8;
  if (outer <= 0 || kdim <= 0 || outer % outerAtom || kdim % f->atomK) {
    unreachable("an `mma.load` tile that is not a multiple of its mma.sync atom");
  }
  kir::Fragment* old = fragments_.lookup(sym);
  if (old && old->rows == outer / outerAtom && old->cols == kdim / f->atomK && old->inType == elem &&
      old->atomM == f->atomM && old->atomKBytes == f->atomKBytes) {
    f = old;
  } else {
    f->name = fresh(sym->name);
    f->role = role;
    f->inType = elem;
    f->rows = outer / outerAtom;
    f->cols = kdim / f->atomK;
    f->logicalRows = outer;
    f->logicalCols = kdim;
    declareFragment(sym, f, s->loc());
  }
  loadFragment(f, *tile, transposed, s->loc());
}

void Lowerer::lowerWarpSparseMetaLoad(const MmaLoadStmt* s, const sema::Symbol* sym, const MmaOperandUse& use) {
  kir::Fragment* previous = nullptr;
  std::optional<kir::Tile> tile = startSparseMetaLoad(s, sym, previous);
  if (!tile) return;
  const std::string text = exprText(s->source);
  if (tile->buffer->elem != TokenKind::ty_u32) {
    diags_.report(s->source->loc(), DiagKind::err_sparse_warp_meta_type, text, tokenKindSpelling(tile->buffer->elem))
        .range(s->source->range());
    return;
  }
  if (!use.atom) unreachable("a sparse MMA without the atom sema chose");
  // An atom's rows hold a nibble per group of four of its K: one u32 word
  // for K 16 and 32, two for K 64 (croq/device/mma_layout.h).
  const std::int64_t instrK = static_cast<std::int64_t>(use.atom->k);
  const std::int64_t words = std::max<std::int64_t>(1, instrK / 32);
  std::int64_t rows = tile->extents[0], cols = tile->extents[1];
  if (rows < 0 && use.aRows > 0) tile->extents[0] = rows = use.aRows;
  if (cols < 0 && use.aCols > 0 && 2 * use.aCols % instrK == 0) tile->extents[1] = cols = 2 * use.aCols / instrK * words;
  if (rows <= 0 || cols <= 0 || rows % 16 || cols % words) {
    diags_
        .report(s->source->loc(), DiagKind::err_sparse_warp_meta_shape, text, rows, cols, instrK,
                tokenKindSpelling(use.aElem), words, words == 1 ? "" : "s")
        .range(s->source->range());
    return;
  }
  kir::Fragment* f = previous;
  if (!f || f->role != kir::FragRole::E || f->warpgroup || f->rows != rows / 16 || f->cols != cols / words ||
      f->inType != use.aElem) {
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = kir::FragRole::E;
    f->inType = use.aElem;
    f->atomM = 16;
    f->atomK = instrK;
    f->atomKBytes = instrK * target::elementBytes(use.aElem);
    f->rows = rows / 16;
    f->cols = cols / words;
    f->logicalRows = rows;
    f->logicalCols = cols;
    emit(StmtKind::FragDecl, s->loc())->frag = f;
  }
  unrolledLoop("i", f->rows, s->loc(), [&](const Expr* i) {
    unrolledLoop("k", f->cols, s->loc(), [&](const Expr* k) {
      kir::Tile atom = *tile;
      atom.offset = m().add(tile->offset, m().add(m().mul(m().mul(i, m().intc(16)), tile->strides[0]),
                                                  m().mul(m().mul(k, m().intc(words)), tile->strides[1])));
      atom.extents = {16, words};
      atom.valid = {tile->valid[0] ? m().sub(tile->valid[0], m().mul(i, m().intc(16))) : nullptr,
                    tile->valid[1] ? m().sub(tile->valid[1], m().mul(k, m().intc(words))) : nullptr};
      Stmt* ld = emit(StmtKind::AtomLoad, s->loc());
      ld->frag = f;
      ld->i = i;
      ld->j = k;
      ld->src = atom;
    });
  });
  fragments_[sym] = f;
  failed_.erase(sym);
}

void Lowerer::lowerMmaExec(const MmaExecStmt* s) {
  if (wgmma_) return lowerWgmmaExec(s);
  if (s->scale) {
    unsupported(DiagKind::err_unsupported_scaled_mma, s->range());
    return;
  }
  std::vector<const Expr*> accIndex;
  kir::Fragment* c = accumulatorFor(s->acc, accIndex);
  if (!c) {
    // An accumulator whose `mma.fill` was already reported is not reported again.
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_acc_unfilled, s->acc->range());
    return;
  }
  auto chosen = sema_.mmaAtoms.find(s);
  const target::MmaAtom* atom =
      chosen == sema_.mmaAtoms.end() ? nullptr : &target::mmaAtom(static_cast<target::MmaAtomId>(chosen->second));
  // Operands given as views are loaded into temporary fragments.
  auto operand = [&](const ast::Expr* e, kir::FragRole role, bool transposed) -> kir::Fragment* {
    if (kir::Fragment* f = fragmentFor(e)) return f;
    std::optional<kir::Tile> tile = lowerTile(e, "the MMA operand");
    if (!tile) return nullptr;
    std::int64_t outer = tile->extents[transposed ? 1 : 0];
    std::int64_t kdim = tile->extents[transposed ? 0 : 1];
    kir::Fragment* f = m().fragment();
    if (!setWarpAtom(f, atom, tile->buffer->elem, role)) {
      unsupported(DiagKind::err_unsupported_mma_operand_type, e->range(), tokenKindSpelling(tile->buffer->elem),
                  options_.arch, target_.hasFp8Mma ? ", or f8_e4m3 / f8_e5m2" : "");
      return nullptr;
    }
    std::int64_t outerAtom = role == kir::FragRole::A ? f->atomM : 8;
    if (tile->rank() != 2 || outer <= 0 || kdim <= 0 || outer % outerAtom || kdim % f->atomK) {
      unreachable("an MMA operand tile that is not a multiple of its mma.sync atom");
    }
    f->name = fresh(role == kir::FragRole::A ? "a" : "b");
    f->role = role;
    f->inType = tile->buffer->elem;
    f->rows = outer / outerAtom;
    f->cols = kdim / f->atomK;
    f->logicalRows = outer;
    f->logicalCols = kdim;
    emit(StmtKind::FragDecl, e->loc())->frag = f;
    loadFragment(f, *tile, transposed, e->loc());
    return f;
  };
  kir::Fragment* a = operand(s->a, kir::FragRole::A, !s->rowA);
  kir::Fragment* b = operand(s->b, kir::FragRole::B, !s->rowB);
  if (!a || !b) return;
  // The metadata of a sparse MMA is an `mma.load` fragment (sema checks it).
  kir::Fragment* e = nullptr;
  if (s->sparse) {
    e = s->extra.empty() ? nullptr : fragmentFor(s->extra[0]);
    if (!e) return;
    if (e->rows != a->rows || e->cols != a->cols) {
      diags_
          .report(s->extra[0]->loc(), DiagKind::err_sparse_warp_meta_mismatch, exprText(s->extra[0]), e->rows,
                  e->cols, a->rows, a->cols)
          .range(s->extra[0]->range());
      return;
    }
  }
  // A fragment that MMAs of different atoms read or accumulate into holds
  // the layout of one of them only (the m16 atoms share the accumulator's).
  auto shape = [](const kir::Fragment* f) {
    return "m" + std::to_string(f->atomM) + "n8k" + std::to_string(f->atomK);
  };
  bool operandsAgree = a->atomM == b->atomM && a->atomKBytes * (e ? 2 : 1) == b->atomKBytes;
  bool accAgrees = a->atomM == c->atomM && a->accElements() == c->accElements();
  if (!operandsAgree || !accAgrees) {
    unsupported(DiagKind::err_unsupported_warp_mma_mixed_atoms, s->range(), shape(accAgrees ? b : c), shape(a));
    return;
  }
  if (a->rows != c->rows || b->rows != c->cols || a->cols != b->cols) {
    unreachable("a warp MMA whose operand tiles do not match its accumulator");
  }
  if (a->inType != b->inType) return;
  if (c->accType == TokenKind::ty_f16 && a->inType != TokenKind::ty_f16) {
    unsupported(DiagKind::err_unsupported_warp_mma_f16_acc, s->range(), tokenKindSpelling(a->inType));
    return;
  }
  c->inType = a->inType;
  unrolledLoop("k", a->cols, s->loc(), [&](const Expr* k) {
    unrolledLoop("i", c->rows, s->loc(), [&](const Expr* i) {
      unrolledLoop("j", c->cols, s->loc(), [&](const Expr* j) {
        Stmt* mma = emit(StmtKind::AtomMma, s->loc());
        mma->frag = c;
        mma->fragIndex = accIndex;
        mma->fragA = a;
        mma->fragB = b;
        mma->fragE = e;
        mma->i = i;
        mma->j = j;
        mma->k = k;
      });
    });
  });
}

void Lowerer::lowerMmaStore(const MmaStoreStmt* s) {
  if (wgmma_) return lowerWgmmaStore(s);
  std::vector<const Expr*> accIndex;
  kir::Fragment* c = accumulatorFor(s->acc, accIndex);
  if (!c) {
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_store_unfilled, s->acc->range());
    return;
  }
  std::optional<kir::Tile> tile = lowerTile(s->dest, "the `mma.store` destination");
  if (!tile) return;
  maskStoreTile(s, *tile);
  if (tile->rank() != 2) {
    unreachable("an `mma.store` into a tile that is not 2-D");
  }
  if (tile->buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(tile->buffer));
  StoreGeometry g = storeGeometry(*tile, *c, s->transpose);
  unrolledLoop("i", c->rows, s->loc(), [&](const Expr* i) {
    unrolledLoop("j", c->cols, s->loc(), [&](const Expr* j) {
      kir::Tile atom;
      atom.buffer = tile->buffer;
      atom.offset = m().add(tile->offset, m().add(m().mul(m().mul(i, m().intc(c->atomM)), g.rowStride),
                                                  m().mul(m().mul(j, m().intc(8)), g.colStride)));
      atom.extents = {c->atomM, 8};
      atom.strides = {g.rowStride, g.colStride};
      atom.valid = {g.rowsValid ? m().sub(g.rowsValid, m().mul(i, m().intc(c->atomM))) : nullptr,
                    g.colsValid ? m().sub(g.colsValid, m().mul(j, m().intc(8))) : nullptr};
      atom.inside = tile->inside;
      Stmt* st = emit(StmtKind::AtomStore, s->loc());
      st->frag = c;
      st->fragIndex = accIndex;
      st->i = i;
      st->j = j;
      st->dst = atom;
    });
  });
}

bool Lowerer::lowerAccumulatorUpdate(const ast::AssignStmt* a, llvm::StringRef op) {
  if (op == "=" || wgmma_) return false;
  std::vector<const Expr*> index;
  kir::Fragment* f = accumulatorFor(a->target, index);
  if (!f || f->role != kir::FragRole::C || f->warpgroup) return false;
  Stmt* st = emit(StmtKind::FragUpdate, a->loc());
  st->frag = f;
  st->fragIndex = index;
  st->op = llvm::StringRef(op).drop_back().str();
  TokenKind t = f->accType == TokenKind::ty_s32 ? TokenKind::ty_s32 : TokenKind::ty_f32;
  st->value = m().convert(lowerExpr(a->value), kir::ScalarType::element(t));
  return true;
}

void Lowerer::maskStoreTile(const MmaStoreStmt* s, kir::Tile& tile) {
  // `mma.store.mask mc, DST, rows[, cols]`: only the leading `rows` rows
  // (and `cols` columns) of DST are written.
  for (size_t d = 0; d < s->maskArgs.size() && d < tile.rank(); ++d) {
    const Expr* bound = m().max(lowerInt(s->maskArgs[d]), m().intc(0));
    const Expr* extent = tile.extents[d] > 0 ? m().intc(tile.extents[d]) : tile.runtimeExtents[d];
    const Expr* current = tile.valid[d] ? tile.valid[d] : extent;
    tile.valid[d] = current ? m().min(current, bound) : bound;
  }
}

Lowerer::StoreGeometry Lowerer::storeGeometry(const kir::Tile& tile, const kir::Fragment& c, bool transpose) {
  StoreGeometry g;
  g.rowStride = tile.strides[transpose ? 1 : 0];
  g.colStride = tile.strides[transpose ? 0 : 1];
  g.rowsValid = tile.valid[transpose ? 1 : 0];
  g.colsValid = tile.valid[transpose ? 0 : 1];
  std::int64_t rowsAvail = tile.extents[transpose ? 1 : 0], colsAvail = tile.extents[transpose ? 0 : 1];
  if (rowsAvail < c.logicalRows)
    g.rowsValid = g.rowsValid ? m().min(g.rowsValid, m().intc(rowsAvail)) : m().intc(rowsAvail);
  if (colsAvail < c.logicalCols)
    g.colsValid = g.colsValid ? m().min(g.colsValid, m().intc(colsAvail)) : m().intc(colsAvail);
  return g;
}

void Lowerer::lowerMmaFence(const ast::Stmt* s) {
  if (!asyncWgmma_) return;
  if (llvm::isa<MmaCommitStmt>(s)) {
    emit(StmtKind::WgmmaCommit, s->loc());
    // Without `mma.wait` in the kernel, the group is complete after the
    // commit: its shared operands may be released and the accumulator read.
    if (commitWaits_) emit(StmtKind::WgmmaWait, s->loc())->count = 0;
    wgmmaUncommitted_ = false;
    return;
  }
  const auto* w = llvm::cast<MmaWaitStmt>(s);
  const Expr* n = lowerInt(w->count);
  if (!n || !n->isConst() || n->intValue < 0 || n->intValue > 7) {
    unsupported(DiagKind::err_unsupported_mma_wait_count, w->count->range());
    return;
  }
  emit(StmtKind::WgmmaWait, s->loc())->count = n->intValue;
}

}  // namespace croqc::lower
