// Semantic analysis of the declarations in `__co__` bodies: scalars,
// spanned buffers, fragments, events, mdspans and ituples (spec sections 5-8).
#include <llvm/Support/SourceMgr.h>

#include "basic/Saturating.h"
#include "sema/SemaImpl.h"
#include "target/ElementTypes.h"
#include "target/Target.h"

namespace croqc::sema {

using namespace ast;
using llvm::SMRange;
using llvm::StringRef;

void Checker::checkScalarDecl(const ScalarDeclStmt* d) {
  for (const Declarator& decl : d->decls) {
    if (d->storage != Storage::None)
      report(decl.range, DiagKind::err_scalar_storage, decl.name, storageName(d->storage));
    Type t;
    Type init;
    if (decl.init) init = check(decl.init);
    switch (d->type.kind) {
      case TypeRef::Kind::Int: t = Type::simple(TypeKind::Int); break;
      case TypeRef::Kind::Bool: t = Type::simple(TypeKind::Bool); break;
      case TypeRef::Kind::Scalar:
        t = Type::simple(TypeKind::Element);
        t.elem = d->type.elem;
        break;
      default:
        if (!decl.init) {
          report(decl.range, DiagKind::err_mutable_needs_type_or_init, decl.name);
          t = Type::error();
        } else {
          t = init;
        }
        break;
    }
    bool isMutable = d->isMutable || t.kind == TypeKind::Element;
    if (!decl.init && !isMutable && d->type.kind != TypeRef::Kind::Auto)
      report(decl.range, DiagKind::err_immutable_uninitialized, d->type.kind == TypeRef::Kind::Bool ? "bool" : "int",
             decl.name);
    if (decl.init && !init.isError() && d->type.kind != TypeRef::Kind::Auto) {
      if (t.kind == TypeKind::Int && !init.isIntegral() && init.kind != TypeKind::Opaque &&
          init.kind != TypeKind::Element)
        report(decl.init->range(), DiagKind::err_type_mismatch, "an integer", "a value", describe(init));
      if (t.kind == TypeKind::Element) checkConversion(init, t.elem, decl.init->range());
    }
    Symbol* s = declare(decl.name, decl.range.Start, Symbol::Kind::Variable, t, isMutable);
    if (t.kind == TypeKind::Int) {
      // A value sema cannot follow (read from memory, say) is a symbol of
      // its own, which lowering binds to the variable.
      s->value = (!isMutable && decl.init) ? valueOf(decl.init) : sym().freshSymbol(decl.name, std::nullopt);
      if (sym::isUnknown(s->value)) s->value = sym().freshSymbol(decl.name, std::nullopt);
      s->type.values = {s->value};
    } else if (t.kind == TypeKind::Element && isIntegerElem(t.elem)) {
      // Integer data (`s32 seg = offsets.at(e)`) sizes and places tiles by
      // the variable's value at each use, as a symbol of its own.
      s->value = sym().freshSymbol(decl.name, std::nullopt);
    }
    result_.declarations[d].push_back(s);
  }
}

SymList Checker::arrayDimensions(llvm::ArrayRef<Expr*> dims, StringRef name) {
  SymList out;
  for (const Expr* e : dims) {
    const SymExpr* v = intValue(e, "an array dimension");
    std::optional<std::int64_t> c = sym::constantValue(v);
    if (!c) {
      if (!sym::isUnknown(v)) report(e->range(), DiagKind::err_array_dim_not_static, name, sym::printForUser(v));
    } else if (*c <= 0) {
      report(e->range(), DiagKind::err_array_dim_not_positive, name, *c);
    }
    out.push_back(v);
  }
  return out;
}

void Checker::checkSpannedDecl(const SpannedDeclStmt* d) {
  std::optional<SymList> shape;
  if (d->dims.size() == 1) {
    Type t = check(d->dims[0]);
    if (t.kind == TypeKind::Mdspan || t.kind == TypeKind::BoundedTuple) shape = t.shape;
  }
  if (!shape) {
    shape.emplace();
    for (const Expr* dim : d->dims) {
      Type t = check(dim);
      if (t.kind == TypeKind::Mdspan) {
        shape->append(t.shape.begin(), t.shape.end());
        continue;
      }
      if (!t.isIntegral() && !t.isError()) report(dim->range(), DiagKind::err_shape_dim_type, shape->size(), d->decls.empty() ? "" : d->decls[0].name, describe(t));
      shape->push_back(t.isIntegral() ? valueOf(dim) : unknown());
    }
  }
  Storage storage = d->storage;
  bool inParallel = !parallels_.empty();
  if (storage == Storage::None) storage = inParallel ? Storage::Local : Storage::Global;
  for (const Declarator& decl : d->decls) {
    if ((storage == Storage::Shared || storage == Storage::Local) && !inParallel)
      report(decl.range, DiagKind::err_storage_outside_parallel, storageName(storage), decl.name);
    if (shape->empty()) report(decl.range, DiagKind::err_empty_shape, "`" + decl.name.str() + "`", tokenKindSpelling(d->elem));
    for (size_t i = 0; i < shape->size(); ++i) {
      std::optional<std::int64_t> c = sym::constantValue((*shape)[i]);
      if (c && *c <= 0) report(d->range(), DiagKind::err_buffer_dim_not_positive, i, decl.name, *c);
      // Shared and local buffers may be sized at the launch (spec 5.4); a
      // dimension sema cannot follow (`k++`, a comparison) sizes neither.
      bool ownDim = d->dims.size() == shape->size();
      bool untracked = sym::isUnknown((*shape)[i]) && ownDim && !check(d->dims[i]).isError();
      if (untracked && (storage == Storage::Local || storage == Storage::Shared))
        report(d->dims[i]->range(), DiagKind::err_buffer_shape_untracked, storageName(storage), decl.name, i,
               exprText(d->dims[i]));
    }
    Type t = Type::simple(TypeKind::Data);
    t.elem = d->elem;
    t.storage = storage;
    t.shape = *shape;
    t.arrayDims = arrayDimensions(decl.arrayDims, decl.name);
    if (decl.init) {
      Type init = check(decl.init);
      if (!init.isError() && init.kind != TypeKind::Element && !init.isIntegral())
        report(decl.init->range(), DiagKind::err_type_mismatch, "a scalar initial value", "a value", describe(init));
    }
    Symbol* s = declare(decl.name, decl.range.Start, Symbol::Kind::Variable, t, false);
    result_.declarations[d].push_back(s);
    if (storage == Storage::Shared || storage == Storage::Local) {
      ownBuffers_.push_back(s);
      if (decl.init) bufferWrites_.insert(s);
    }
    if (storage == Storage::Shared && kernel_) {
      std::int64_t bytes = 1;
      bool known = true;
      for (const SymExpr* e : *shape) {
        std::optional<std::int64_t> c = sym::constantValue(e);
        if (!c) known = false;
        else bytes = saturatingMul(bytes, *c);
      }
      for (const SymExpr* e : t.arrayDims) {
        std::optional<std::int64_t> c = sym::constantValue(e);
        if (c) bytes = saturatingMul(bytes, *c);
      }
      if (known) addSharedBytes(saturatingMul(bytes, target::elementBytes(d->elem)));
    }
  }
}

void Checker::checkFragDecl(const FragDeclStmt* d) {
  SymList shape;
  for (const Expr* dim : d->dims) shape.push_back(intValue(dim, "a fragment dimension"));
  if (parallels_.empty()) report(d->range(), DiagKind::err_device_only_statement, "a fragment declaration");
  for (const Declarator& decl : d->decls) {
    // `frag.s32 mc[1][2]` declares MMA accumulators whose shape comes from use.
    Type t = Type::simple(d->dims.empty() ? TypeKind::Accumulator : TypeKind::Fragment);
    t.elem = d->elem;
    t.shape = shape;
    t.arrayDims = arrayDimensions(decl.arrayDims, decl.name);
    if (decl.init) check(decl.init);
    Symbol* s = declare(decl.name, decl.range.Start, Symbol::Kind::Variable, t, false);
    result_.declarations[d].push_back(s);
  }
}

void Checker::checkEventDecl(const EventDeclStmt* d) {
  if (d->count) intValue(d->count, "an event count");
  if (parallels_.empty()) report(d->range(), DiagKind::err_device_only_statement, "an event declaration");
  for (const Declarator& decl : d->decls) {
    Type t = Type::simple(TypeKind::Event);
    t.storage = Storage::Shared;
    t.arrayDims = arrayDimensions(decl.arrayDims, decl.name);
    Symbol* s = declare(decl.name, decl.range.Start, Symbol::Kind::Variable, t, false);
    result_.declarations[d].push_back(s);
  }
}

void Checker::checkMdspanDecl(const MdspanDeclStmt* d) {
  Type init = check(d->init);
  Type t = Type::simple(TypeKind::Mdspan);
  if (init.kind == TypeKind::Mdspan) {
    t = init;
    if (t.shape.empty()) report(d->init->range(), DiagKind::err_empty_mdspan, d->name);
  } else if (init.isIntegral()) {
    t.shape = {valueOf(d->init)};
  } else if (!init.isError()) {
    report(d->init->range(), DiagKind::err_mdspan_non_integer, describe(init));
    t = Type::error();
  }
  if (d->rank && !t.isError() && *d->rank != t.rank())
    report(d->range(), DiagKind::err_rank_annotation_mismatch, d->name, "mdspan", *d->rank, t.rank());
  if (const NameExpr* m = t.isError() ? nullptr : findMutableName(result_, d->init))
    report(m->range(), DiagKind::err_immutable_from_mutable, "mdspan", d->name, m->name);
  noteEntryValues(d->init, d->loc(), ("mdspan `" + d->name + "`").str());
  Symbol* s = declare(d->name, d->loc(), Symbol::Kind::Variable, t, false);
  result_.declarations[d].push_back(s);
}

void Checker::checkItupleDecl(const ItupleDeclStmt* d) {
  Type t = Type::simple(TypeKind::Ituple);
  if (!d->init) {
    report(d->range(), DiagKind::err_ituple_uninitialized, d->name);
    t = Type::error();
  } else {
    Type init = check(d->init);
    if (init.isError() || init.kind == TypeKind::Ituple) {
      t = init;
    } else if (init.kind == TypeKind::Mdspan && llvm::isa<BinaryExpr, CallExpr>(d->init)) {
      // Shape arithmetic (`d.span / [3, 4]`, `cdiv(d.span, {2, 2})`): its
      // extents, as Croqtile's `mdspan / mdspan : ituple` gives; a shape
      // itself (`[7, 8]`, a name) is no ituple (spec 5.2).
      t = Type::simple(TypeKind::Ituple);
      t.values = init.shape;
    } else if (!init.isError()) {
      report(d->init->range(), DiagKind::err_ituple_needs_braces, "`" + exprText(d->init) + "`");
      t = Type::error();
    }
  }
  if (d->rank && !t.isError() && *d->rank != t.values.size())
    report(d->range(), DiagKind::err_rank_annotation_mismatch, d->name, "ituple", *d->rank, t.values.size());
  if (const NameExpr* m = t.isError() ? nullptr : findMutableName(result_, d->init))
    report(m->range(), DiagKind::err_immutable_from_mutable, "ituple", d->name, m->name);
  noteEntryValues(d->init, d->loc(), ("ituple `" + d->name + "`").str());
  Symbol* s = declare(d->name, d->loc(), Symbol::Kind::Variable, t, false);
  result_.declarations[d].push_back(s);
}

}  // namespace croqc::sema
