// Views to tiles and element addresses (spec 11, 12.10, 21.4).
//
// Sema describes every view by its base buffer and, per base dimension, an
// origin and a stride (`ViewInfo`). A tile is then: the base pointer plus
// the linear offset of the origin, the element stride of each view
// dimension, and, where the window may run past the end of the base, how
// many leading elements of each dimension are inside it.
#include "lower/LowerImpl.h"

namespace croqc::lower {

using namespace ast;

const sema::Symbol* Lowerer::rootSymbol(const ast::Expr* e, std::vector<const ast::Expr*>* arrayIndices) const {
  while (e) {
    switch (e->kind()) {
      case NodeKind::NameExpr: {
        const sema::Symbol* s = sema_.references.lookup(e);
        auto bound = viewBindings_.find(s);
        if (bound == viewBindings_.end() || buffers_.count(s)) return s;
        e = bound->second;
        break;
      }
      case NodeKind::MethodExpr: e = llvm::cast<MethodExpr>(e)->base; break;
      case NodeKind::MemberExpr: e = llvm::cast<MemberExpr>(e)->base; break;
      case NodeKind::ElementOfExpr: e = llvm::cast<ElementOfExpr>(e)->base; break;
      case NodeKind::SubscriptExpr: {
        // `b[i][j]` is `[j]` of `b[i]`: the walk meets the last indices first.
        const auto* s = llvm::cast<SubscriptExpr>(e);
        if (arrayIndices) arrayIndices->insert(arrayIndices->begin(), s->indices.begin(), s->indices.end());
        e = s->base;
        break;
      }
      default: return nullptr;
    }
  }
  return nullptr;
}

void Lowerer::findViewBindings(const ast::Stmt* body) {
  forEachStmt(body, [&](const ast::Stmt* s) {
    const auto* a = llvm::dyn_cast<AssignStmt>(s);
    if (!a) return;
    auto decl = sema_.declarations.find(a);
    if (decl == sema_.declarations.end() || decl->second.empty()) return;
    const sema::Symbol* sym = decl->second.front();
    if (sym->type.kind == sema::TypeKind::Data || sym->type.kind == sema::TypeKind::Future) viewBindings_[sym] = a->value;
    else if (sym->type.kind == sema::TypeKind::Int) scalarBindings_[sym] = a->value;
  });
}

const kir::Buffer* Lowerer::bufferFor(const sema::Symbol* s) const {
  auto it = buffers_.find(s);
  return it == buffers_.end() ? nullptr : it->second;
}

namespace {

/// The slot of a buffer-array element `buf[i][j]`.
const Expr* slotOffset(kir::Module& m, const kir::Buffer* b, llvm::ArrayRef<const Expr*> indices) {
  const Expr* slot = m.intc(0);
  for (size_t k = 0; k < indices.size() && k < b->arrayDims.size(); ++k)
    slot = m.add(m.mul(slot, m.intc(b->arrayDims[k])), indices[k]);
  return m.mul(slot, m.intc(b->slotElements));
}

/// Whether the buffer's rows are adjacent (no padding), so that its
/// elements are one row-major array of its shape.
bool denseRows(const kir::Buffer* b) {
  return b->shape.size() < 2 || !b->rowStride || b->shape.back()->isConst(b->rowStride);
}

}  // namespace

std::optional<kir::Tile> Lowerer::lowerTile(const ast::Expr* e, llvm::StringRef what, std::int64_t lastExtent) {
  const sema::Type* t = sema_.typeOf(e);
  std::vector<const ast::Expr*> arrayIndices;
  const sema::Symbol* root = rootSymbol(e, &arrayIndices);
  const kir::Buffer* buf = root ? bufferFor(root) : nullptr;
  if (root && failed_.count(root)) return std::nullopt;
  if (!t || !buf ||
      (t->kind != sema::TypeKind::Data && t->kind != sema::TypeKind::Future && t->kind != sema::TypeKind::Fragment)) {
    unsupported(
        DiagKind::err_unsupported_tile_root, e->range(), what,
        llvm::StringRef(e->range().Start.getPointer(), e->range().End.getPointer() - e->range().Start.getPointer()));
    return std::nullopt;
  }
  kir::Tile tile;
  tile.buffer = buf;
  tile.offset = m().intc(0);
  if (!arrayIndices.empty() && !buf->arrayDims.empty()) {
    std::vector<const Expr*> idx;
    for (size_t k = 0; k < arrayIndices.size(); ++k) {
      idx.push_back(lowerInt(arrayIndices[k]));
      if (k < buf->arrayDims.size())
        checkIndexAtLaunch(idx.back(), buf->arrayDims[k], root->name, k, arrayIndices[k]);
    }
    tile.offset = slotOffset(m(), buf, idx);
  }
  for (size_t i = 0; i < t->shape.size(); ++i) {
    std::optional<std::int64_t> c = sym::constantValue(t->shape[i]);
    if (!c) {
      // Known at run time only, with a constant upper bound (`view(1, X, _)`
      // of `X = c ? 2 : 3`): the bound is the box, the value how much of it
      // is valid.
      sym::Interval range = symbols().bounds(t->shape[i]);
      if (range.hi && *range.hi > 0) {
        tile.extents.push_back(*range.hi);
        tile.runtimeExtents.push_back(lowerSym(t->shape[i], e->loc()));
        continue;
      }
      // Known at run time only (`chunkat` of a symbolic dimension): a copy
      // takes its box from the other side and this as a bound.
      tile.extents.push_back(-1);
      tile.runtimeExtents.push_back(lowerSym(t->shape[i], e->loc()));
      continue;
    }
    tile.extents.push_back(*c);
    tile.runtimeExtents.push_back(nullptr);
  }
  const sema::Type& baseType = root->type;
  llvm::SMLoc loc = e->loc();
  // Row-major strides over `extents` (the reshape of contiguous elements).
  auto rowMajor = [&](auto extent, size_t rank) {
    std::vector<const Expr*> strides(rank, nullptr);
    const Expr* stride = m().intc(1);
    for (size_t d = rank; d-- > 0;) {
      strides[d] = stride;
      stride = m().mul(stride, extent(d));
    }
    return strides;
  };
  auto tileExtent = [&](size_t d) {
    return tile.extents[d] >= 0 ? m().intc(tile.extents[d]) : tile.runtimeExtents[d];
  };

  const std::shared_ptr<sema::ViewInfo>& view = t->view;
  if (buf->swizzleBytes) {
    if (!placeSwizzledTile(e, *t, tile)) return std::nullopt;
    limitToRuntimeExtents(tile);
    return tile;
  }
  if (!view || !view->base || (view->reshaped && view->origin.empty())) {
    tile.valid.assign(tile.rank(), nullptr);
    if (view && view->linearOffset) tile.offset = m().add(tile.offset, lowerSym(view->linearOffset, loc));
    if (!view && t->shape == baseType.shape) {
      tile.strides = buf->strides;
      limitToRuntimeExtents(tile);
      return tile;
    }
    // `span_as` of a whole buffer or of a contiguous window (sema proved it
    // contiguous; buffers that are reshaped have no row padding): row-major
    // over the new shape.
    if (!denseRows(buf)) unreachable("a `span_as` of a buffer with padded rows");
    tile.strides = rowMajor(tileExtent, tile.rank());
    limitToRuntimeExtents(tile);
    return tile;
  }
  // A window: of the buffer, in its coordinates, or of the row-major array
  // that an earlier `span_as` made, in that array's coordinates.
  std::vector<const Expr*> arrayStrides = buf->strides;
  const sema::SymList& arrayShape = view->reshaped ? view->reshapedShape : baseType.shape;
  if (view->reshaped) {
    if (!denseRows(buf)) unreachable("a `span_as` of a buffer with padded rows");
    if (view->linearOffset) tile.offset = m().add(tile.offset, lowerSym(view->linearOffset, loc));
    arrayStrides = rowMajor([&](size_t d) { return lowerSym(arrayShape[d], loc); }, arrayShape.size());
  }
  auto baseExtent = [&](size_t d) -> const sym::SymExpr* { return d < arrayShape.size() ? arrayShape[d] : nullptr; };
  size_t baseRank = arrayStrides.size();
  llvm::SmallVector<bool, 4> mapped(baseRank, false);
  for (size_t d = 0; d < baseRank && d < view->origin.size(); ++d)
    tile.offset = m().add(tile.offset, m().mul(lowerSym(view->origin[d], loc), arrayStrides[d]));
  if (tile.rank() > 0 && tile.extents.back() > 0 && tile.extents.back() < lastExtent) tile.extents.back() = lastExtent;
  for (size_t i = 0; i < tile.rank(); ++i) {
    unsigned bd = view->dimMap.empty() ? static_cast<unsigned>(i) : view->dimMap[i];
    if (bd >= baseRank || bd >= view->stride.size()) {
      tile.strides.push_back(m().intc(1));
      tile.valid.push_back(nullptr);
      continue;
    }
    mapped[bd] = true;
    const Expr* stride = lowerSym(view->stride[bd], loc);
    tile.strides.push_back(m().mul(stride, arrayStrides[bd]));
    // Is the whole extent inside the base?
    const sym::SymExpr* shape = baseExtent(bd);
    const Expr* valid = nullptr;
    if (shape && tile.extents[i] < 0) {
      const Expr* remaining = m().sub(lowerSym(shape, loc), lowerSym(view->origin[bd], loc));
      if (!stride->isConst(1)) remaining = m().cdiv(m().max(remaining, m().intc(0)), stride);
      valid = m().min(m().max(remaining, m().intc(0)), tile.runtimeExtents[i]);
    } else if (shape && tile.extents[i] > 0) {
      const sym::SymExpr* last = symbols().add(
          view->origin[bd], symbols().mul(symbols().constant(tile.extents[i] - 1), view->stride[bd]));
      if (symbols().proveLT(last, shape) != sym::Truth::True) {
        const Expr* remaining = m().sub(lowerSym(shape, loc), lowerSym(view->origin[bd], loc));
        if (!stride->isConst(1)) remaining = m().cdiv(m().max(remaining, m().intc(0)), stride);
        valid = m().min(m().max(remaining, m().intc(0)), m().intc(tile.extents[i]));
      }
    }
    tile.valid.push_back(valid);
  }
  for (size_t d = 0; d < baseRank && d < view->origin.size(); ++d) {
    if (mapped[d]) continue;
    const sym::SymExpr* shape = baseExtent(d);
    if (shape && symbols().proveLT(view->origin[d], shape) != sym::Truth::True)
      tile.inside = m().logicalAnd(tile.inside, m().lt(lowerSym(view->origin[d], loc), lowerSym(shape, loc)));
  }
  limitToRuntimeExtents(tile);
  return tile;
}

bool Lowerer::placeSwizzledTile(const ast::Expr* e, const sema::Type& t, kir::Tile& tile) {
  // A swizzled WGMMA operand tile is placed by its origin in the buffer's
  // 2-D layout: rows are every dimension but the last. A view is in the
  // buffer's coordinates, or in those of a `span_as` that keeps the row
  // length (`[1, 64, 64]` as `[64, 64]`).
  const kir::Buffer* buf = tile.buffer;
  const std::shared_ptr<sema::ViewInfo>& view = t.view;
  const bool reshapedWindow = view && view->reshaped && !view->origin.empty() &&
                              (!view->linearOffset || sym::constantValue(view->linearOffset) == 0);
  if (view && ((view->reshaped && !reshapedWindow) || !view->dimMap.empty())) {
    unsupported(DiagKind::err_unsupported_wgmma_operand_view, e->range());
    return false;
  }
  for (const ast::Expr* x = e; const auto* me = llvm::dyn_cast<MethodExpr>(x); x = me->base) {
    if (me->method != TokenKind::m_span_as) continue;
    const sema::Type* shaped = sema_.typeOf(me);
    std::optional<std::int64_t> cols = shaped && !shaped->shape.empty() ? sym::constantValue(shaped->shape.back())
                                                                        : std::nullopt;
    if (!shaped || shaped->shape.size() != 2 || !cols || !buf->shape.back()->isConst(*cols)) {
      unsupported(DiagKind::err_unsupported_wgmma_operand_span_as, me->range(), printExpr(buf->shape.back()));
      return false;
    }
  }
  const size_t rank = view && view->base ? view->origin.size() : tile.rank();
  if (view && view->base) {
    for (const sym::SymExpr* stride : view->stride) {
      if (sym::constantValue(stride) != std::optional<std::int64_t>(1)) {
        unsupported(DiagKind::err_unsupported_wgmma_operand_strided, e->range());
        return false;
      }
    }
  }
  llvm::SMLoc loc = e->loc();
  auto origin = [&](size_t d) { return view && view->base ? lowerSym(view->origin[d], loc) : m().intc(0); };
  // The row origin flattens the leading coordinates in the coordinates'
  // own shape (the buffer's, or the 2-D `span_as`).
  const Expr* row0 = m().intc(0);
  for (size_t d = 0; d + 1 < rank; ++d) {
    std::int64_t extent = rank == buf->shape.size() && buf->shape[d]->isConst() ? buf->shape[d]->intValue : 1;
    row0 = m().add(m().mul(row0, m().intc(extent)), origin(d));
  }
  tile.row0 = row0;
  tile.col0 = origin(rank - 1);
  // Row-major strides of the unswizzled layout, for the record: copies and
  // descriptors address the tile through row0 / col0 and the swizzle.
  if (tile.rank() == buf->shape.size()) tile.strides = buf->strides;
  else tile.strides = {buf->shape.back(), m().intc(1)};
  tile.valid.assign(tile.rank(), nullptr);
  return true;
}

void Lowerer::limitToRuntimeExtents(kir::Tile& tile) {
  for (size_t i = 0; i < tile.rank(); ++i) {
    if (tile.extents[i] <= 0 || i >= tile.runtimeExtents.size() || !tile.runtimeExtents[i]) continue;
    const Expr* runtime = m().max(tile.runtimeExtents[i], m().intc(0));
    tile.valid[i] = tile.valid[i] ? m().min(tile.valid[i], runtime) : m().min(runtime, m().intc(tile.extents[i]));
  }
}

const Expr* Lowerer::elementIndex(const ast::Expr* base, llvm::ArrayRef<ast::Expr*> indices,
                                  const kir::Buffer** buffer) {
  // Indices may be ituples (`x.at(idx)`) or composed; sema's types give the
  // scalar values.
  std::vector<const Expr*> idx;
  for (const ast::Expr* i : indices) {
    const sema::Type* it = sema_.typeOf(i);
    // An ituple, or a bounded one: the values of its elements.
    if (it && (it->kind == sema::TypeKind::Ituple || it->kind == sema::TypeKind::BoundedTuple)) {
      for (const sym::SymExpr* v : it->values) idx.push_back(lowerSym(v, i->loc()));
      continue;
    }
    idx.push_back(lowerInt(i));
  }
  std::optional<kir::Tile> tile = lowerTile(base, "element access of");
  if (!tile) return nullptr;
  if (tile->buffer->swizzleBytes) {
    unsupported(DiagKind::err_unsupported_wgmma_operand_element_access, base->range());
    return nullptr;
  }
  if (idx.size() != tile->strides.size()) {
    unreachable("an element access whose index count differs from the rank sema checked");
  }
  const Expr* offset = tile->offset;
  for (size_t d = 0; d < idx.size(); ++d) offset = m().add(offset, m().mul(idx[d], tile->strides[d]));
  *buffer = tile->buffer;
  return offset;
}

}  // namespace croqc::lower
