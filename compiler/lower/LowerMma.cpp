// The four-step MMA on a warp (`: group`) to `mma.sync.m16n8kK` atoms
// (spec 13; seed kernel fragment layouts): K = 16 for f16/bf16 operands, 32
// for f8_e4m3/f8_e5m2 on targets with FP8 MMA (sm_89 on), f32 accumulators.
//
// A warp tile is split into atoms: the accumulator [M, N] into M/16 x N/8
// 16x8 atoms, A [M, K] into M/16 x K/atomK atoms, B [N, K] into N/8 x
// K/atomK atoms; `mma.row.row` issues one m16n8kK per (i, j, k). Operands
// in shared memory with 16-byte aligned rows are read with ldmatrix (the
// `.trans` form for A stored [K, M] and for B stored [K, N]); other operands
// (global memory, partial tiles) are read element by element with the same
// register layout, zero outside the valid region.
#include "lower/LowerImpl.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/FormatVariadic.h>

#include "lower/MmaPatterns.h"
#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {

/// Records, for every fragment an MMA below `s` reads, its role and layout.
void findOperandUses(const ast::Stmt* s, const sema::SemaResult& sema,
                     llvm::DenseMap<const sema::Symbol*, MmaOperandUse>& uses) {
  if (!s) return;
  switch (s->kind()) {
    case NodeKind::CompoundStmt:
      for (const ast::Stmt* c : llvm::cast<CompoundStmt>(s)->body) findOperandUses(c, sema, uses);
      return;
    case NodeKind::ParallelStmt: findOperandUses(llvm::cast<ParallelStmt>(s)->body, sema, uses); return;
    case NodeKind::WithStmt: findOperandUses(llvm::cast<WithStmt>(s)->body, sema, uses); return;
    case NodeKind::ForeachStmt: findOperandUses(llvm::cast<ForeachStmt>(s)->body, sema, uses); return;
    case NodeKind::WhileStmt: findOperandUses(llvm::cast<WhileStmt>(s)->body, sema, uses); return;
    case NodeKind::InthreadsStmt: findOperandUses(llvm::cast<InthreadsStmt>(s)->body, sema, uses); return;
    case NodeKind::IfStmt:
      findOperandUses(llvm::cast<IfStmt>(s)->then, sema, uses);
      findOperandUses(llvm::cast<IfStmt>(s)->otherwise, sema, uses);
      return;
    case NodeKind::MmaExecStmt: {
      const auto* e = llvm::cast<MmaExecStmt>(s);
      if (const sema::Symbol* a = sema.references.lookup(e->a)) uses[a] = {kir::FragRole::A, !e->rowA};
      if (const sema::Symbol* b = sema.references.lookup(e->b)) uses[b] = {kir::FragRole::B, !e->rowB};
      return;
    }
    default: return;
  }
}

}  // namespace

std::optional<std::int64_t> Lowerer::warpAtomK(TokenKind elem) const {
  const target::MmaAtom* atom = loweredMmaAtom(target::MmaScope::Warp, elem, elem, std::nullopt, target_);
  if (!atom) return std::nullopt;
  return atom->k;
}

void Lowerer::declareFragment(const sema::Symbol* sym, kir::Fragment* f, llvm::SMLoc loc) {
  fragments_[sym] = f;
  emit(StmtKind::FragDecl, loc)->frag = f;
}

void Lowerer::emitFill(kir::Fragment* f, const ast::MmaFillStmt* s) {
  Stmt* fill = emit(StmtKind::FragFill, s->loc());
  fill->frag = f;
  fill->value = m().convert(lowerExpr(s->value), kir::ScalarType::element(TokenKind::ty_f32));
}

void Lowerer::lowerMmaFill(const MmaFillStmt* s) {
  if (wgmma_) return lowerWgmmaFill(s);
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
  const sema::Type& t = sym->type;
  if (frames_.back().level != ParallelLevel::Group && frames_.back().level != ParallelLevel::Block &&
      frames_.back().level != ParallelLevel::Thread) {
    unreachable("an MMA accumulator filled outside a warp in a kernel without warpgroup MMAs");
  }
  kir::Fragment* f = fragments_.lookup(sym);
  if (!f) {
    if (t.shape.size() != 2) {
      unsupported(DiagKind::err_unsupported_acc_shape_unknown, s->range());
      return;
    }
    std::optional<std::int64_t> rows = sym::constantValue(t.shape[0]);
    std::optional<std::int64_t> cols = sym::constantValue(t.shape[1]);
    if (!rows || !cols || *rows % 16 || *cols % 8) {
      unreachable("a warp MMA accumulator that is not a multiple of the m16n8 atom");
    }
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = kir::FragRole::C;
    f->accType = t.elem == TokenKind::ty_f16 ? TokenKind::ty_f16 : TokenKind::ty_f32;
    if (t.elem != TokenKind::ty_f16 && t.elem != TokenKind::ty_f32 && t.elem != TokenKind::eof) {
      unsupported(DiagKind::err_unsupported_acc_type, s->range(), tokenKindSpelling(t.elem));
      return;
    }
    f->rows = *rows / 16;
    f->cols = *cols / 8;
    f->logicalRows = *rows;
    f->logicalCols = *cols;
    declareFragment(sym, f, s->loc());
  }
  emitFill(f, s);
}

void Lowerer::loadFragment(kir::Fragment* f, const kir::Tile& tile, bool transposed, llvm::SMLoc loc) {
  // Strides of the fragment's logical dimensions: A (m, k) or B (n, k).
  const Expr* outerStride = tile.strides[transposed ? 1 : 0];
  const Expr* kStride = tile.strides[transposed ? 0 : 1];
  const Expr* outerValid = tile.valid[transposed ? 1 : 0];
  const Expr* kValid = tile.valid[transposed ? 0 : 1];
  // Warp atoms are 16 (A) or 8 (B) rows; a warpgroup A atom is 64 rows,
  // each warp loading its 16-row slab.
  std::int64_t outerAtom = f->warpgroup ? 64 : f->role == kir::FragRole::A ? 16 : 8;
  // An atom's K is 32 bytes of a row: 16 16-bit or 32 8-bit elements.
  std::int64_t bytes = target::elementBytes(f->inType);
  std::int64_t atomK = 32 / bytes;
  bool full = tile.alwaysFull();
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

std::optional<kir::Tile> Lowerer::lowerMmaLoadSource(const ast::MmaLoadStmt* s) {
  std::optional<kir::Tile> tile = lowerTile(s->source, "the `mma.load` source");
  if (tile && tile->rank() != 2) {
    unreachable("an `mma.load` of a tile that is not 2-D");
  }
  return tile;
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
  std::optional<kir::Tile> tile = lowerMmaLoadSource(s);
  if (!tile) return;
  bool transposed = use->transposed;
  std::int64_t outer = tile->extents[transposed ? 1 : 0];
  std::int64_t kdim = tile->extents[transposed ? 0 : 1];
  kir::FragRole role = use->role;
  std::int64_t outerAtom = role == kir::FragRole::A ? 16 : 8;
  TokenKind elem = tile->buffer->elem;
  std::optional<std::int64_t> atomK = warpAtomK(elem);
  if (!atomK) {
    unsupported(DiagKind::err_unsupported_mma_operand_type, s->range(), tokenKindSpelling(elem), options_.arch,
                target_.hasFp8Mma ? ", or f8_e4m3 / f8_e5m2" : "");
    return;
  }
  if (outer <= 0 || kdim <= 0 || outer % outerAtom || kdim % *atomK) {
    unreachable("an `mma.load` tile that is not a multiple of the m16n8kK atom");
  }
  kir::Fragment* f = fragments_.lookup(sym);
  if (!f || f->rows != outer / outerAtom || f->cols != kdim / *atomK || f->inType != elem) {
    f = m().fragment();
    f->name = fresh(sym->name);
    f->role = role;
    f->inType = elem;
    f->rows = outer / outerAtom;
    f->cols = kdim / *atomK;
    f->logicalRows = outer;
    f->logicalCols = kdim;
    declareFragment(sym, f, s->loc());
  }
  loadFragment(f, *tile, transposed, s->loc());
}

void Lowerer::lowerMmaExec(const MmaExecStmt* s) {
  if (wgmma_) return lowerWgmmaExec(s);
  if (s->sparse || s->scale) {
    unsupported(s->sparse ? DiagKind::err_unsupported_sparse_mma : DiagKind::err_unsupported_scaled_mma, s->range());
    return;
  }
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c) {
    // An accumulator whose `mma.fill` was already reported is not reported again.
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_acc_unfilled, s->acc->range());
    return;
  }
  // Operands given as views are loaded into temporary fragments.
  auto operand = [&](const ast::Expr* e, kir::FragRole role, bool transposed) -> kir::Fragment* {
    if (kir::Fragment* f = fragmentFor(e)) return f;
    std::optional<kir::Tile> tile = lowerTile(e, "the MMA operand");
    if (!tile) return nullptr;
    std::int64_t outer = tile->extents[transposed ? 1 : 0];
    std::int64_t kdim = tile->extents[transposed ? 0 : 1];
    std::int64_t outerAtom = role == kir::FragRole::A ? 16 : 8;
    std::optional<std::int64_t> atomK = warpAtomK(tile->buffer->elem);
    if (!atomK) {
      unsupported(DiagKind::err_unsupported_mma_operand_type, e->range(), tokenKindSpelling(tile->buffer->elem),
                  options_.arch, target_.hasFp8Mma ? ", or f8_e4m3 / f8_e5m2" : "");
      return nullptr;
    }
    if (tile->rank() != 2 || outer <= 0 || kdim <= 0 || outer % outerAtom || kdim % *atomK) {
      unreachable("an MMA operand tile that is not a multiple of the m16n8kK atom");
    }
    kir::Fragment* f = m().fragment();
    f->name = fresh(role == kir::FragRole::A ? "a" : "b");
    f->role = role;
    f->inType = tile->buffer->elem;
    f->rows = outer / outerAtom;
    f->cols = kdim / *atomK;
    f->logicalRows = outer;
    f->logicalCols = kdim;
    emit(StmtKind::FragDecl, e->loc())->frag = f;
    loadFragment(f, *tile, transposed, e->loc());
    return f;
  };
  kir::Fragment* a = operand(s->a, kir::FragRole::A, !s->rowA);
  kir::Fragment* b = operand(s->b, kir::FragRole::B, !s->rowB);
  if (!a || !b) return;
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
        mma->fragA = a;
        mma->fragB = b;
        mma->i = i;
        mma->j = j;
        mma->k = k;
      });
    });
  });
}

void Lowerer::lowerMmaStore(const MmaStoreStmt* s) {
  if (wgmma_) return lowerWgmmaStore(s);
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c) {
    if (!failed_.count(rootSymbol(s->acc, nullptr)))
      unsupported(DiagKind::err_unsupported_mma_store_unfilled, s->acc->range());
    return;
  }
  std::optional<kir::Tile> tile = lowerTile(s->dest, "the `mma.store` destination");
  if (!tile) return;
  if (tile->rank() != 2) {
    unreachable("an `mma.store` into a tile that is not 2-D");
  }
  if (tile->buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(tile->buffer));
  StoreGeometry g = storeGeometry(*tile, *c, s->transpose);
  unrolledLoop("i", c->rows, s->loc(), [&](const Expr* i) {
    unrolledLoop("j", c->cols, s->loc(), [&](const Expr* j) {
      kir::Tile atom;
      atom.buffer = tile->buffer;
      atom.offset = m().add(tile->offset, m().add(m().mul(m().mul(i, m().intc(16)), g.rowStride),
                                                  m().mul(m().mul(j, m().intc(8)), g.colStride)));
      atom.extents = {16, 8};
      atom.strides = {g.rowStride, g.colStride};
      atom.valid = {g.rowsValid ? m().sub(g.rowsValid, m().mul(i, m().intc(16))) : nullptr,
                    g.colsValid ? m().sub(g.colsValid, m().mul(j, m().intc(8))) : nullptr};
      atom.inside = tile->inside;
      Stmt* st = emit(StmtKind::AtomStore, s->loc());
      st->frag = c;
      st->i = i;
      st->j = j;
      st->dst = atom;
    });
  });
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
    emit(StmtKind::Raw, s->loc())->text = "croq::wgmma::commit_group();";
    // Without `mma.wait` in the kernel, the group is complete after the
    // commit: its shared operands may be released and the accumulator read.
    if (commitWaits_) emit(StmtKind::Raw, s->loc())->text = "croq::wgmma::wait_group<0>();";
    wgmmaUncommitted_ = false;
    return;
  }
  const auto* w = llvm::cast<MmaWaitStmt>(s);
  const Expr* n = lowerInt(w->count);
  if (!n || !n->isConst() || n->intValue < 0 || n->intValue > 7) {
    unsupported(DiagKind::err_unsupported_mma_wait_count, w->count->range());
    return;
  }
  emit(StmtKind::Raw, s->loc())->text = "croq::wgmma::wait_group<" + std::to_string(n->intValue) + ">();";
}

}  // namespace croqc::lower
