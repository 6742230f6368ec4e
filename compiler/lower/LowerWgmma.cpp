// The four-step MMA on a warpgroup (`: group-4`, sm_90a) to WGMMA (spec 13,
// 20; seed chapter kernels 2 and 3). The CPU target runs the same lowering:
// its runtime (croq/cpu/wgmma.h) computes each thread's accumulator elements
// from the same swizzled tiles.
//
// An accumulator [M, N] of a warpgroup is M/64 m64nN register accumulators.
// Operands are shared tiles read through matrix descriptors (SS mode): the
// buffers they live in get the swizzled K-major layout of
// croq/device/wgmma_tile.h (128-byte swizzle when rows hold a multiple of
// 64 f16), which every copy into them writes. `mma.load` of such a tile only
// names it; `mma.row.row` issues one wgmma per (64-row atom, k16 step),
// fenced and waited so the accumulator is complete at the next statement
// (spec 13.8).
#include "lower/LowerImpl.h"

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {

void walkStmts(const ast::Stmt* s, const std::function<void(const ast::Stmt*)>& f) {
  if (!s) return;
  f(s);
  switch (s->kind()) {
    case NodeKind::CompoundStmt:
      for (const ast::Stmt* c : llvm::cast<CompoundStmt>(s)->body) walkStmts(c, f);
      return;
    case NodeKind::ParallelStmt: walkStmts(llvm::cast<ParallelStmt>(s)->body, f); return;
    case NodeKind::WithStmt: walkStmts(llvm::cast<WithStmt>(s)->body, f); return;
    case NodeKind::ForeachStmt: walkStmts(llvm::cast<ForeachStmt>(s)->body, f); return;
    case NodeKind::WhileStmt: walkStmts(llvm::cast<WhileStmt>(s)->body, f); return;
    case NodeKind::InthreadsStmt: walkStmts(llvm::cast<InthreadsStmt>(s)->body, f); return;
    case NodeKind::IfStmt:
      walkStmts(llvm::cast<IfStmt>(s)->then, f);
      walkStmts(llvm::cast<IfStmt>(s)->otherwise, f);
      return;
    default: return;
  }
}

}  // namespace

void Lowerer::findWgmmaOperands(const ast::Stmt* body) {
  llvm::DenseMap<const sema::Symbol*, const ast::Expr*> loads;
  std::vector<const ast::Expr*> operands;
  walkStmts(body, [&](const ast::Stmt* s) {
    if (const auto* l = llvm::dyn_cast<MmaLoadStmt>(s)) {
      auto decls = sema_.declarations.find(l);
      if (decls != sema_.declarations.end() && !decls->second.empty()) loads[decls->second.front()] = l->source;
      operands.push_back(l->source);
    }
    if (const auto* e = llvm::dyn_cast<MmaExecStmt>(s)) {
      operands.push_back(e->a);
      operands.push_back(e->b);
    }
  });
  for (const ast::Expr* e : operands) {
    const sema::Symbol* root = rootSymbol(e, nullptr);
    if (!root || loads.count(root)) continue;
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

void Lowerer::lowerWgmmaFill(const MmaFillStmt* s) {
  const sema::Symbol* sym = mmaTarget(s, s->result, s->target);
  if (!sym) return;
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
    fragments_[sym] = f;
    emit(StmtKind::FragDecl, s->loc())->frag = f;
  }
  Stmt* fill = emit(StmtKind::FragFill, s->loc());
  fill->frag = f;
  fill->value = m().convert(lowerExpr(s->value), kir::ScalarType::element(TokenKind::ty_f32));
}

void Lowerer::lowerWgmmaLoad(const MmaLoadStmt* s) {
  const sema::Symbol* sym = s->result.empty() ? nullptr : mmaTarget(s, s->result, nullptr);
  if (!sym || s->toFrag) {
    unsupported(s->range(), "this `mma.load` under `group-4`",
                "bind a shared-memory view: `ma = mma.load buf.chunkat(...)` (register operands are not generated yet)");
    return;
  }
  const sema::Symbol* root = rootSymbol(s->source, nullptr);
  const kir::Buffer* b = root ? bufferFor(root) : nullptr;
  if (!b || !b->swizzleBytes) {
    unsupported(s->source->range(), "a warpgroup MMA operand outside shared memory",
                "copy the tile into a `shared` buffer first");
    return;
  }
  wgOperands_[sym] = s->source;
}

void Lowerer::lowerWgmmaExec(const MmaExecStmt* s) {
  if (s->sparse || s->scale) {
    unsupported(s->range(), s->sparse ? "sparse MMA" : "scaled MMA");
    return;
  }
  if (!s->rowA || !s->rowB) {
    unsupported(s->range(), "a warpgroup MMA with an MN-major operand",
                "store A as [M, K] and B as [N, K] and use `mma.row.row`");
    return;
  }
  kir::Fragment* c = fragmentFor(s->acc);
  if (!c || !c->warpgroup) {
    unsupported(s->acc->range(), "an MMA accumulator croqc did not see filled", "bind it with `mma.fill` first");
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
    return t;
  };
  std::optional<kir::Tile> a = operand(s->a);
  std::optional<kir::Tile> b = operand(s->b);
  if (!a || !b) return;
  std::int64_t mdim = a->extents[0], kdim = a->extents[1], ndim = b->extents[0];
  if (mdim != c->logicalRows || ndim != c->logicalCols || kdim != b->extents[1] || kdim % 16) {
    unsupported(s->range(), "a warpgroup MMA whose operand tiles do not match its accumulator");
    return;
  }
  TokenKind in = a->buffer->elem;
  if (in != b->buffer->elem || (in != TokenKind::ty_f16 && in != TokenKind::ty_bf16) ||
      (in == TokenKind::ty_bf16 && c->accType == TokenKind::ty_f16)) {
    unsupported(s->range(), "a warpgroup MMA of these element types", "f16 x f16 -> f16/f32 or bf16 x bf16 -> f32");
    return;
  }
  c->inType = in;
  c->asyncUse = c->asyncUse || asyncWgmma_;
  Stmt* w = emit(StmtKind::WgmmaExec, s->loc());
  w->async = asyncWgmma_;
  w->frag = c;
  w->src = *a;
  w->dst = *b;
  w->count = kdim / 16;
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
