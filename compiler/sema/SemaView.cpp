// Semantic analysis of views and element access (spec section 11): the shape
// of every view, where it lies in the buffer it was made from, and the
// compile-time range checks of tiling factors, extents and offsets.
#include "sema/SemaImpl.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;
using sym::Truth;

namespace {

const MethodExpr* asMethod(const Expr* e, TokenKind method) {
  const auto* m = llvm::dyn_cast<MethodExpr>(e);
  return m && m->method == method ? m : nullptr;
}

}  // namespace

/// A view of `base` with the given extents, whose element `i` is element
/// `origin + i * stride` of `base` (all in `base`'s coordinates).
Type Checker::makeView(const Type& base, SymList extents, SymList origin, SymList stride) {
  Type t = Type::simple(TypeKind::Data);
  t.elem = base.elem;
  t.storage = base.storage;
  t.hostParam = base.hostParam;
  t.buffer = base.buffer;
  t.shape = std::move(extents);
  auto view = std::make_shared<ViewInfo>();
  // A view of a view is one view of the same elements; after `span_as`,
  // in the coordinates of the reshaped array.
  if (base.view && !(base.view->reshaped && base.view->origin.empty())) {
    *view = *base.view;
    for (size_t d = 0; d < origin.size(); ++d) {
      unsigned r = base.view->dimMap.empty() ? static_cast<unsigned>(d) : base.view->dimMap[d];
      if (r >= view->origin.size()) continue;
      view->origin[r] = sym().add(view->origin[r], sym().mul(origin[d], view->stride[r]));
      view->stride[r] = sym().mul(view->stride[r], stride[d]);
    }
  } else {
    view->base = base.buffer;
    view->origin = std::move(origin);
    view->stride = std::move(stride);
    if (base.view) {
      view->reshaped = true;
      view->reshapedShape = base.view->reshapedShape;
      view->linearOffset = base.view->linearOffset;
    } else if (isWholeReshape(base)) {
      view->reshaped = true;
      view->reshapedShape = base.shape;
    }
  }
  t.view = std::move(view);
  return t;
}

Type Checker::checkMethod(const MethodExpr* m) {
  // Chains that only make sense together are checked at their last link.
  switch (m->method) {
    case TokenKind::m_at: {
      if (const MethodExpr* inner = llvm::dyn_cast<MethodExpr>(m->base)) {
        if (inner->method == TokenKind::m_subspan || inner->method == TokenKind::m_modspan)
          return checkSubspan(inner, check(inner->base), nullptr, m);
        if (inner->method == TokenKind::m_step) {
          const MethodExpr* sub = asMethod(inner->base, TokenKind::m_subspan);
          if (!sub) sub = asMethod(inner->base, TokenKind::m_modspan);
          if (!sub) {
            report(inner->range(), DiagKind::err_step_needs_subspan);
            return Type::error();
          }
          return checkSubspan(sub, check(sub->base), inner, m);
        }
        if (inner->method == TokenKind::m_chunk) return checkTiling(inner, check(inner->base), m);
      }
      Type base = check(m->base);
      if (base.isError()) return base;
      return checkElementAccess(m, base);
    }
    case TokenKind::m_step: {
      const MethodExpr* sub = asMethod(m->base, TokenKind::m_subspan);
      if (!sub) sub = asMethod(m->base, TokenKind::m_modspan);
      if (!sub) {
        report(m->range(), DiagKind::err_step_needs_subspan);
        return Type::error();
      }
      return checkSubspan(sub, check(sub->base), m, nullptr);
    }
    case TokenKind::m_from: {
      const MethodExpr* view = asMethod(m->base, TokenKind::m_view);
      if (!view) {
        report(m->range(), DiagKind::err_from_needs_view);
        return Type::error();
      }
      return checkWindow(view, check(view->base), m);
    }
    default: break;
  }
  Type base = check(m->base);
  if (base.isError()) return base;
  if (base.kind != TypeKind::Data && base.kind != TypeKind::Future) {
    if (m->method == TokenKind::m_span_as && base.kind == TypeKind::Fragment) return checkSpanAs(m, base);
    report(m->range(), DiagKind::err_view_of_non_data, tokenKindSpelling(m->method), exprText(m->base), describe(base));
    return Type::error();
  }
  if (base.kind == TypeKind::Future) base.kind = TypeKind::Data;
  switch (m->method) {
    case TokenKind::m_chunkat: return checkTiling(m, base, nullptr);
    case TokenKind::m_chunk: report(m->range(), DiagKind::err_chunk_needs_at); return Type::error();
    case TokenKind::m_subspan:
    case TokenKind::m_modspan: return checkSubspan(m, base, nullptr, nullptr);
    case TokenKind::m_view: return checkWindow(m, base, nullptr);
    case TokenKind::m_span_as: return checkSpanAs(m, base);
    case TokenKind::m_sqz: return checkSqueeze(m, base);
    default: break;
  }
  report(m->range(), DiagKind::err_member_not_applicable, tokenKindSpelling(m->method), describe(base),
         exprText(m->base));
  return Type::error();
}

/// `x.at(i, j)`: one element of data, a fragment or an accumulator; on an
/// event array, `e.at(order)` (spec 14.5).
Type Checker::checkElementAccess(const MethodExpr* m, const Type& base) {
  if (base.kind == TypeKind::Event) {
    if (base.arrayDims.size() != 1) {
      report(m->range(), DiagKind::err_event_order_array, exprText(m->base), describe(base));
      return Type::error();
    }
    for (const Expr* a : m->args) intValue(a, "an event order");
    Type t = base;
    t.arrayDims.clear();
    return t;
  }
  if (base.kind != TypeKind::Data && base.kind != TypeKind::Fragment && base.kind != TypeKind::Accumulator &&
      base.kind != TypeKind::Future) {
    report(m->range(), DiagKind::err_member_not_applicable, ".at", describe(base), exprText(m->base));
    return Type::error();
  }
  // An accumulator has no shape until an MMA uses it.
  bool shapeKnown = !(base.kind == TypeKind::Accumulator && base.shape.empty());
  SymList indices;
  for (const Expr* a : m->args) {
    Type t = check(a);
    if (t.isError()) return t;
    if (t.kind == TypeKind::Ituple) indices.append(t.values.begin(), t.values.end());
    else if (t.kind == TypeKind::BoundedTuple) {
      SymList values = tupleValues(t);
      indices.append(values.begin(), values.end());
    }
    else if (t.isIntegral()) indices.push_back(valueOf(a));
    else if (t.kind == TypeKind::Opaque || t.kind == TypeKind::Element) indices.push_back(intValue(a, "an index"));
    else {
      report(a->range(), DiagKind::err_type_mismatch, "an integer index", "a value", describe(t));
      return Type::error();
    }
  }
  if (shapeKnown && indices.size() != base.rank()) {
    report(m->range(), DiagKind::err_element_access_rank, exprText(m->base), base.rank(), indices.size());
    return Type::error();
  }
  for (size_t d = 0; shapeKnown && d < indices.size(); ++d) {
    if (sym().proveGE(indices[d], base.shape[d]) == Truth::True || sym().proveLT(indices[d], sym().constant(0)) == Truth::True)
      report(m->args.size() == indices.size() ? m->args[d]->range() : m->range(), DiagKind::err_element_index_out_of_bounds,
             d, exprText(m->base), sym::printForUser(indices[d]), sym::printForUser(base.shape[d]));
  }
  Type t = Type::simple(TypeKind::Element);
  t.elem = base.elem;
  return t;
}

/// The bound of a bounded scalar shifted by integers (`k - 1`, `1 + k`,
/// `k - 1 + d`) or probed relative to its bound (`k(-1)`), or null: in a `chunkat` such a position tiles by the
/// variable's bound and picks the tile of the shifted value (the previous
/// tile of a software pipeline).
const SymExpr* Checker::offsetBound(const Expr* e) {
  if (const auto* probe = llvm::dyn_cast<ElementOfExpr>(e)) {
    // `k(-1)`: the last value of `k`.
    Type base = check(probe->base);
    bool scalarProbe = probe->args.size() == 1 && !llvm::isa<RangeExpr>(probe->args[0]);
    return base.kind == TypeKind::Bounded && scalarProbe && check(e).kind == TypeKind::Int && !base.shape.empty()
               ? base.shape[0]
               : nullptr;
  }
  const auto* b = llvm::dyn_cast<BinaryExpr>(e);
  if (!b) {
    Type t = check(e);
    return t.kind == TypeKind::Bounded && !t.shape.empty() ? t.shape[0] : nullptr;
  }
  if (b->op != TokenKind::plus && b->op != TokenKind::minus) return nullptr;
  auto isOffset = [&](const Expr* x) { return check(x).kind == TypeKind::Int && !offsetBound(x); };
  if (const SymExpr* bound = offsetBound(b->lhs)) return isOffset(b->rhs) ? bound : nullptr;
  if (b->op == TokenKind::plus && isOffset(b->lhs)) return offsetBound(b->rhs);
  return nullptr;
}

/// `x.chunkat(v0, v1, ...)` and `x.chunk(f0, f1, ...).at(i0, i1, ...)`: an
/// equal partition; the extent is the floor of dim / factor.
Type Checker::checkTiling(const MethodExpr* m, const Type& base, const MethodExpr* at) {
  if (base.isError()) return base;
  if (base.kind != TypeKind::Data && base.kind != TypeKind::Future) {
    report(m->range(), DiagKind::err_view_of_non_data, tokenKindSpelling(m->method), exprText(m->base), describe(base));
    return Type::error();
  }
  SymList factors, indices;
  auto addBounded = [&](const Expr* a) -> bool {
    if (llvm::isa<WildcardExpr>(a)) {
      factors.push_back(sym().constant(1));
      indices.push_back(sym().constant(0));
      return true;
    }
    Type t = check(a);
    if (t.isError()) return false;
    if (t.kind == TypeKind::Bounded) {
      factors.push_back(t.shape.empty() ? unknown() : t.shape[0]);
      indices.push_back(t.values.empty() ? unknown() : t.values[0]);
      return true;
    }
    if (t.kind == TypeKind::BoundedTuple) {
      factors.append(t.shape.begin(), t.shape.end());
      SymList values = tupleValues(t);
      indices.append(values.begin(), values.end());
      return true;
    }
    if (const SymExpr* bound = t.kind == TypeKind::Int ? offsetBound(a) : nullptr) {
      factors.push_back(bound);
      indices.push_back(t.values.empty() ? unknown() : t.values[0]);
      return true;
    }
    report(a->range(), DiagKind::err_bounded_tiling_factor, exprText(a), describe(t));
    return false;
  };
  if (!at) {
    for (const Expr* a : m->args)
      if (!addBounded(a)) return Type::error();
  } else {
    for (const Expr* a : m->args) {
      if (llvm::isa<WildcardExpr>(a)) {
        factors.push_back(sym().constant(1));
        continue;
      }
      Type t = check(a);
      if (t.kind == TypeKind::Ituple) factors.append(t.values.begin(), t.values.end());
      else factors.push_back(intValue(a, "a tiling factor"));
    }
    for (const Expr* a : at->args) {
      if (llvm::isa<WildcardExpr>(a)) {
        indices.push_back(sym().constant(0));
        continue;
      }
      Type t = check(a);
      if (t.kind == TypeKind::Ituple) {
        indices.append(t.values.begin(), t.values.end());
      } else if (t.kind == TypeKind::BoundedTuple) {
        SymList values = tupleValues(t);
        indices.append(values.begin(), values.end());
      } else {
        indices.push_back(intValue(a, "a tile index"));
      }
    }
  }
  if (factors.size() != base.rank()) {
    report(m->range(), DiagKind::err_tiling_rank, tokenKindSpelling(m->method).drop_front(), base.rank(), factors.size());
    return Type::error();
  }
  if (indices.size() != factors.size()) {
    report(at ? at->range() : m->range(), DiagKind::err_view_arg_count, ".at", base.rank(), indices.size());
    return Type::error();
  }
  SymList extents, origin, stride;
  for (size_t d = 0; d < factors.size(); ++d) {
    if (sym().proveGT(factors[d], base.shape[d]) == Truth::True) {
      report(m->range(), DiagKind::err_tiling_factor_exceeds, d, sym::printForUser(factors[d]), sym::printForUser(base.shape[d]));
      return Type::error();
    }
    const SymExpr* extent = sym().floorDiv(base.shape[d], factors[d]);
    if (sym::isDivisionByZero(extent)) {
      report(m->range(), DiagKind::err_division_by_zero, exprText(m));
      return Type::error();
    }
    extents.push_back(extent);
    origin.push_back(sym().mul(indices[d], extent));
    stride.push_back(sym().constant(1));
  }
  return makeView(base, extents, origin, stride);
}

/// `x.subspan(e...)[.step(s...)][.at(i...)]`: fixed-size tiles; the origin of
/// tile i is `i * e` (or `i * s` with `.step`).
Type Checker::checkSubspan(const MethodExpr* m, const Type& base, const MethodExpr* step, const MethodExpr* at) {
  if (base.isError()) return base;
  if (base.kind != TypeKind::Data && base.kind != TypeKind::Future) {
    report(m->range(), DiagKind::err_view_of_non_data, ".subspan", exprText(m->base), describe(base));
    return Type::error();
  }
  auto collect = [&](llvm::ArrayRef<Expr*> args, bool allowWildcard, SymList& out) -> bool {
    for (const Expr* a : args) {
      if (llvm::isa<WildcardExpr>(a)) {
        out.push_back(allowWildcard && out.size() < base.rank() ? base.shape[out.size()] : sym().constant(0));
        continue;
      }
      Type t = check(a);
      if (t.isError()) return false;
      if (t.isShape()) {
        out.append(t.shapeItems().begin(), t.shapeItems().end());
      } else if (t.kind == TypeKind::BoundedTuple && !allowWildcard) {
        SymList values = tupleValues(t);
        out.append(values.begin(), values.end());
      } else {
        out.push_back(intValue(a, "a subspan value"));
      }
    }
    return true;
  };
  SymList extents, steps, coords;
  if (!collect(m->args, true, extents)) return Type::error();
  if (extents.size() != base.rank()) {
    report(m->range(), DiagKind::err_view_arg_count, tokenKindSpelling(m->method), base.rank(), extents.size());
    return Type::error();
  }
  for (size_t d = 0; d < extents.size(); ++d) {
    std::optional<std::int64_t> c = sym::constantValue(extents[d]);
    if (c && *c <= 0) {
      report(m->range(), DiagKind::err_subspan_zero, d, *c);
      return Type::error();
    }
    if (m->method == TokenKind::m_subspan && sym().proveGT(extents[d], base.shape[d]) == Truth::True) {
      report(m->range(), DiagKind::err_subspan_too_large, d, sym::printForUser(extents[d]), sym::printForUser(base.shape[d]));
      return Type::error();
    }
  }
  if (step) {
    if (!collect(step->args, false, steps)) return Type::error();
    if (steps.size() != base.rank()) {
      report(step->range(), DiagKind::err_view_arg_count, ".step", base.rank(), steps.size());
      return Type::error();
    }
  } else {
    steps = extents;
  }
  if (at) {
    if (!collect(at->args, false, coords)) return Type::error();
    if (coords.size() != base.rank()) {
      report(at->range(), DiagKind::err_view_arg_count, ".at", base.rank(), coords.size());
      return Type::error();
    }
  } else {
    coords.assign(base.rank(), sym().constant(0));
  }
  SymList origin, stride;
  for (size_t d = 0; d < base.rank(); ++d) {
    const SymExpr* o = sym().mul(coords[d], steps[d]);
    if (m->method == TokenKind::m_subspan && sym().proveGE(o, base.shape[d]) == Truth::True) {
      report(at ? at->range() : m->range(), DiagKind::err_view_offset_out_of_bounds, d, sym::printForUser(o),
             sym::printForUser(base.shape[d]));
      return Type::error();
    }
    origin.push_back(o);
    stride.push_back(sym().constant(1));
  }
  return makeView(base, extents, origin, stride);
}

/// `x.view(e... [: s...])[.from(o...)]`: a window at element offsets.
Type Checker::checkWindow(const MethodExpr* m, const Type& base, const MethodExpr* from) {
  if (base.isError()) return base;
  if (base.kind != TypeKind::Data && base.kind != TypeKind::Future) {
    report(m->range(), DiagKind::err_view_of_non_data, ".view", exprText(m->base), describe(base));
    return Type::error();
  }
  SymList extents, strides, origin;
  // `_` is the whole dimension as an extent, 1 as a stride and 0 as an origin.
  auto valueOr = [&](const Expr* a, const SymExpr* wildcard, StringRef what) {
    return llvm::isa<WildcardExpr>(a) ? wildcard : intValue(a, what);
  };
  for (const Expr* a : m->args) {
    // A shape or an ituple gives several extents (`view([b, 3])`).
    if (!llvm::isa<WildcardExpr>(a)) {
      Type t = check(a);
      if (t.isError()) return t;
      if (t.isShape()) {
        extents.append(t.shapeItems().begin(), t.shapeItems().end());
        continue;
      }
    }
    const SymExpr* whole = extents.size() < base.rank() ? base.shape[extents.size()] : unknown();
    extents.push_back(valueOr(a, whole, "a view extent"));
  }
  for (const Expr* a : m->strides) strides.push_back(valueOr(a, sym().constant(1), "a view stride"));
  if (extents.size() != base.rank()) {
    report(m->range(), DiagKind::err_view_arg_count, ".view", base.rank(), extents.size());
    return Type::error();
  }
  if (m->hasStrides && strides.size() != base.rank()) {
    report(m->range(), DiagKind::err_view_arg_count, ".view strides", base.rank(), strides.size());
    return Type::error();
  }
  if (!m->hasStrides) strides.assign(base.rank(), sym().constant(1));
  for (size_t d = 0; d < extents.size(); ++d) {
    std::optional<std::int64_t> c = sym::constantValue(extents[d]);
    if (c && *c <= 0) {
      report(m->range(), DiagKind::err_subspan_zero, d, *c);
      return Type::error();
    }
  }
  if (from) {
    for (const Expr* a : from->args) origin.push_back(valueOr(a, sym().constant(0), "a view origin"));
    if (origin.size() != base.rank()) {
      report(from->range(), DiagKind::err_view_arg_count, ".from", base.rank(), origin.size());
      return Type::error();
    }
    for (size_t d = 0; d < origin.size(); ++d) {
      if (sym().proveGE(origin[d], base.shape[d]) == Truth::True) {
        report(from->range(), DiagKind::err_view_offset_out_of_bounds, d, sym::printForUser(origin[d]),
               sym::printForUser(base.shape[d]));
        return Type::error();
      }
    }
  } else {
    origin.assign(base.rank(), sym().constant(0));
  }
  return makeView(base, extents, origin, strides);
}

Type Checker::checkSpanAs(const MethodExpr* m, const Type& base) {
  SymList shape;
  for (const Expr* a : m->args) {
    Type t = check(a);
    if (t.isError()) return t;
    if (t.isShape()) shape.append(t.shapeItems().begin(), t.shapeItems().end());
    else shape.push_back(intValue(a, "a dimension of `span_as`"));
  }
  const SymExpr* before = sym().constant(1);
  const SymExpr* after = sym().constant(1);
  for (const SymExpr* d : base.shape) before = sym().mul(before, d);
  for (const SymExpr* d : shape) after = sym().mul(after, d);
  if (sym().proveEQ(before, after) == Truth::False) {
    report(m->range(), DiagKind::err_span_as_size, exprText(m->base), sym::printForUser(before), printShape(shape),
           sym::printForUser(after));
    return Type::error();
  }
  const SymExpr* offset = base.view ? base.view->linearOffset : nullptr;
  if (base.view && !base.view->origin.empty()) {
    // Dropping dimensions of extent 1 (`[1, 1, K, BV]` as `[K, BV]`) keeps
    // any window as it is: no contiguity needed.
    if (std::optional<Type> squeezed = squeezedView(base, shape)) return *squeezed;
    for (const SymExpr* s : base.view->stride) {
      if (sym().proveEQ(s, sym().constant(1)) != Truth::True) {
        report(m->range(), DiagKind::err_span_as_non_contiguous, exprText(m->base));
        return Type::error();
      }
    }
    std::optional<const SymExpr*> windowOffset = contiguousWindowOffset(m, base);
    if (!windowOffset) return Type::error();
    offset = offset ? sym().add(offset, *windowOffset) : *windowOffset;
  }
  if (base.buffer) result_.reshapedBuffers.insert(base.buffer);
  Type t = base;
  t.shape = shape;
  if (base.view) {
    auto view = std::make_shared<ViewInfo>(*base.view);
    view->reshaped = true;
    view->reshapedShape = shape;
    view->linearOffset = offset;
    view->origin.clear();
    view->stride.clear();
    view->dimMap.clear();
    t.view = view;
  }
  return t;
}

/// `base` with some of its dimensions of extent 1 left out, when that gives
/// `shape`: a view of the same elements, walked along the other dimensions.
std::optional<Type> Checker::squeezedView(const Type& base, const SymList& shape) {
  if (shape.size() >= base.rank()) return std::nullopt;
  auto isOne = [&](const SymExpr* e) { return sym().proveEQ(e, sym().constant(1)) == Truth::True; };
  std::vector<unsigned> kept;
  size_t d = 0;
  for (const SymExpr* want : shape) {
    while (d < base.rank() && sym().proveEQ(base.shape[d], want) != Truth::True && isOne(base.shape[d])) ++d;
    if (d == base.rank() || sym().proveEQ(base.shape[d], want) != Truth::True) return std::nullopt;
    kept.push_back(static_cast<unsigned>(d++));
  }
  for (; d < base.rank(); ++d)
    if (!isOne(base.shape[d])) return std::nullopt;
  Type t = keepDimensions(base, kept);
  t.shape = shape;
  return t;
}

/// `base` walked along the dimensions `kept` (ascending) only: the others
/// have extent 1.
Type Checker::keepDimensions(const Type& base, llvm::ArrayRef<unsigned> kept) {
  Type t = base;
  t.shape.clear();
  std::shared_ptr<ViewInfo> view = base.view ? std::make_shared<ViewInfo>(*base.view) : nullptr;
  if (view) view->dimMap.clear();
  for (unsigned d : kept) {
    t.shape.push_back(base.shape[d]);
    if (view) view->dimMap.push_back(base.view->dimMap.empty() ? d : base.view->dimMap[d]);
  }
  t.view = view;
  return t;
}

/// Whether `base`, which is no view, is a whole buffer in a shape that
/// `span_as` gave it (a window of it is in the coordinates of that shape).
bool Checker::isWholeReshape(const Type& base) {
  if (!base.buffer || !result_.reshapedBuffers.count(base.buffer)) return false;
  const SymList& own = base.buffer->type.shape;
  if (own.size() != base.shape.size()) return true;
  for (size_t d = 0; d < own.size(); ++d)
    if (sym().proveEQ(own[d], base.shape[d]) != Truth::True) return true;
  return false;
}

/// The linear offset of the first element of the unit-stride window `base`
/// in the row-major array it is a window of (the buffer, or the reshaped
/// array of an earlier `span_as`), when the window's elements are contiguous
/// there: dimensions of extent 1, then one dimension of any extent, then
/// dimensions that the window covers whole. Reports and returns nothing
/// otherwise.
std::optional<const SymExpr*> Checker::contiguousWindowOffset(const MethodExpr* m, const Type& base) {
  const ViewInfo& view = *base.view;
  const SymList& arrayShape = view.reshaped ? view.reshapedShape : view.base->type.shape;
  const size_t rank = view.origin.size();
  if (arrayShape.size() != rank) {
    report(m->range(), DiagKind::err_span_as_non_contiguous, exprText(m->base));
    return std::nullopt;
  }
  // The window's extent along each dimension of the array: the walked
  // dimensions in order, 1 along the dropped ones.
  SymList extent(rank, sym().constant(1));
  for (size_t i = 0; i < base.rank(); ++i) {
    unsigned d = view.dimMap.empty() ? static_cast<unsigned>(i) : view.dimMap[i];
    if (d >= rank || (i > 0 && !view.dimMap.empty() && d <= view.dimMap[i - 1])) {
      report(m->range(), DiagKind::err_span_as_non_contiguous, exprText(m->base));
      return std::nullopt;
    }
    extent[d] = base.shape[i];
  }
  size_t first = 0;
  while (first + 1 < rank && sym().proveEQ(extent[first], sym().constant(1)) == Truth::True) ++first;
  for (size_t d = first + 1; d < rank; ++d) {
    if (sym().proveEQ(extent[d], arrayShape[d]) != Truth::True) {
      report(m->range(), DiagKind::err_span_as_partial_rows, exprText(m->base), d, sym::printForUser(extent[d]),
             sym::printForUser(arrayShape[d]));
      return std::nullopt;
    }
  }
  const SymExpr* offset = sym().constant(0);
  const SymExpr* stride = sym().constant(1);
  for (size_t d = rank; d-- > 0;) {
    offset = sym().add(offset, sym().mul(view.origin[d], stride));
    stride = sym().mul(stride, arrayShape[d]);
  }
  return offset;
}

Type Checker::checkSqueeze(const MethodExpr* m, const Type& base) {
  // A `.subspan`, `.span_as` or `.view` anywhere in the chain before it, as
  // Croqtile requires (`a.span_as(1, 32, 8).chunkat(_, p, _).sqz()`); not
  // after tiling alone (`a.chunkat(p, _).sqz()`).
  bool ok = false;
  for (const auto* inner = llvm::dyn_cast<MethodExpr>(m->base); inner && !ok;
       inner = llvm::dyn_cast<MethodExpr>(inner->base))
    ok = inner->method == TokenKind::m_subspan || inner->method == TokenKind::m_span_as ||
         inner->method == TokenKind::m_view || inner->method == TokenKind::m_from || inner->method == TokenKind::m_step;
  if (!ok) {
    report(m->range(), DiagKind::err_sqz_position);
    return Type::error();
  }
  std::vector<unsigned> kept;
  for (size_t d = 0; d < base.rank(); ++d) {
    // Every extent 1: the last dimension stays, as in Croqtile (shape [1]).
    bool last = d + 1 == base.rank() && kept.empty();
    if (sym::constantValue(base.shape[d]) == 1 && !last) continue;
    kept.push_back(static_cast<unsigned>(d));
  }
  return keepDimensions(base, kept);
}

}  // namespace croqc::sema
