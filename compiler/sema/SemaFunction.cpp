// Semantic analysis of `__co__` functions: their signature, redefinitions,
// and parameters with their shapes, storage and symbolic dimensions (spec
// sections 2 and 4).
#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/SourceMgr.h>

#include "basic/Words.h"
#include "sema/Sema.h"
#include "sema/SemaImpl.h"
#include "target/ElementTypes.h"
#include "target/Target.h"

namespace croqc::sema {

using namespace ast;
using llvm::SMRange;
using llvm::StringRef;

void Checker::checkFunction(const CoFunction& fn) {
  FunctionInfo& info = result_.functions.emplace_back();
  info.decl = &fn;
  function_ = &info;
  functionDecl_ = &fn;
  sawReturnValue_ = false;
  pushScope(ScopeKind::Function, fn.name);
  checkParams(fn, info);
  checkRedefinition(fn, info);
  if (fn.returnType.kind == TypeRef::Kind::Spanned) {
    Type t = Type::simple(TypeKind::Data);
    t.elem = fn.returnType.elem;
    for (const Expr* d : fn.returnType.dims) t.shape.push_back(intValue(d, "a dimension of the return type"));
    if (t.shape.empty())
      report(fn.returnType.range, DiagKind::err_empty_shape, "the result of `" + fn.name.str() + "`",
             tokenKindSpelling(fn.returnType.elem));
    info.returnType = t;
  } else if (fn.returnType.kind == TypeRef::Kind::Void || fn.returnType.kind == TypeRef::Kind::Auto) {
    info.returnType = Type::simple(fn.returnType.kind == TypeRef::Kind::Void ? TypeKind::Void : TypeKind::Error);
  } else if (fn.returnType.kind != TypeRef::Kind::Stream) {
    info.returnType = Type::simple(fn.returnType.kind == TypeRef::Kind::Int    ? TypeKind::Int
                                   : fn.returnType.kind == TypeRef::Kind::Bool ? TypeKind::Bool
                                                                               : TypeKind::Element);
    info.returnType.elem = fn.returnType.elem;
  } else {
    report(fn.returnType.range, DiagKind::err_return_type,
           fn.returnType.kind == TypeRef::Kind::Stream ? "a stream" : "a scalar");
  }
  errorsBeforeFunction_ = diags_.errorCount();
  ownBuffers_.clear();
  bufferReads_.clear();
  bufferWrites_.clear();
  inlineTexts_.clear();
  conditionalExit_ = hasConditionalExit(fn.body, false);
  checkCompound(fn.body);
  conditionalExit_ = false;
  if (fn.returnType.kind == TypeRef::Kind::Auto && !sawReturnValue_)
    report(fn.returnType.range, DiagKind::warn_auto_without_return, fn.name);
  finishFutures();
  warnBuffersNeverWritten();
  popScope();
  function_ = nullptr;
  functionDecl_ = nullptr;
}

/// Two `__co__` functions of one name are C++ overloads, which must differ
/// in their wrappers' parameter types (element type and rank of spanned
/// data, the type of a scalar): the same ones would define the host wrapper
/// and the kernel twice.
void Checker::checkRedefinition(const CoFunction& fn, const FunctionInfo& info) {
  std::string signature;
  for (const Symbol* p : info.params)
    signature += std::to_string(int(p->type.kind)) + ":" + std::to_string(int(p->type.elem)) + ":" +
                 std::to_string(p->type.shape.size()) + (p->type.hostParam ? "h" : "") + ",";
  auto& defined = definedFunctions_[fn.name];
  for (const auto& [other, previous] : defined) {
    if (other != signature) continue;
    diags_.report(fn.range().Start, DiagKind::err_function_redefined, fn.name)
        .note(previous->range().Start, DiagKind::note_previous_declaration, fn.name);
    return;
  }
  defined.emplace_back(std::move(signature), &fn);
}

void Checker::checkParams(const CoFunction& fn, FunctionInfo& info) {
  // Shape symbols are declared by their first appearance in any parameter.
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param& p = fn.params[i];
    StringRef name = p.name.empty() ? StringRef() : p.name;
    Type t;
    switch (p.type.kind) {
      case TypeRef::Kind::Int: t = Type::simple(TypeKind::Int); break;
      case TypeRef::Kind::Bool: t = Type::simple(TypeKind::Bool); break;
      case TypeRef::Kind::Stream: t = Type::simple(TypeKind::Stream); break;
      case TypeRef::Kind::Scalar:
        t = Type::simple(TypeKind::Element);
        t.elem = p.type.elem;
        break;
      case TypeRef::Kind::RankedSpan:
      case TypeRef::Kind::Spanned: {
        t = Type::simple(TypeKind::Data);
        t.elem = p.type.elem;
        t.storage = p.storage == Storage::None ? Storage::Global : p.storage;
        t.hostParam = p.storage == Storage::None;
        bool unbounded = false;  // a `??` dimension: Croqtile gives it no value
        unsigned rank = p.type.kind == TypeRef::Kind::RankedSpan ? p.type.rank : p.type.dims.size();
        if (rank == 0)
          report(p.type.range, DiagKind::err_empty_shape, name.empty() ? std::string("a parameter") : "`" + name.str() + "`",
                 tokenKindSpelling(p.type.elem));
        for (unsigned d = 0; d < rank; ++d) {
          const Expr* dim = p.type.kind == TypeRef::Kind::Spanned ? p.type.dims[d] : nullptr;
          if (!dim || llvm::isa<DynamicDimExpr>(dim)) {
            const auto* dyn = llvm::dyn_cast_or_null<DynamicDimExpr>(dim);
            unbounded = unbounded || (dyn && dyn->unbounded);
            t.shape.push_back(sym().freshSymbol(name.empty() ? "?" : (name.str() + ".span(" + std::to_string(d) + ")"),
                                                1));
            continue;
          }
          if (const auto* n = llvm::dyn_cast<NameExpr>(dim)) {
            Symbol* s = lookupLocal(n->name);
            if (!s) {
              s = declare(n->name, n->loc(), Symbol::Kind::ShapeDim, Type::simple(TypeKind::Int), false);
              s->value = sym().symbol(n->name);
              s->type.values.push_back(s->value);
              s->paramIndex = static_cast<int>(i);
              s->dimIndex = static_cast<int>(d);
              info.shapeDims.push_back(s);
            } else if (s->kind != Symbol::Kind::ShapeDim) {
              // A name already reported as undeclared (used in an earlier
              // dimension's expression) is not reported again.
              if (!s->type.isError()) report(n->range(), DiagKind::err_conflicting_shape_symbol, n->name);
              t.shape.push_back(unknown());
              continue;
            }
            result_.references[n] = s;
            result_.exprTypes[n] = s->type;
            t.shape.push_back(s->value);
            continue;
          }
          const SymExpr* v = intValue(dim, "a parameter dimension");
          if (std::optional<std::int64_t> c = sym::constantValue(v); c && *c <= 0)
            report(dim->range(), DiagKind::err_buffer_dim_not_positive, d, name, *c);
          t.shape.push_back(v);
        }
        if (unbounded && p.storage != Storage::Global)
          report(p.range, DiagKind::err_param_dynamic_not_global, name.empty() ? "<unnamed>" : name);
        break;
      }
      case TypeRef::Kind::Void:
      case TypeRef::Kind::Auto: t = Type::error(); break;
    }
    if (p.storage == Storage::Shared || p.storage == Storage::Local)
      report(p.range, DiagKind::err_param_storage, name, storageName(p.storage));
    if (p.byRef && t.kind != TypeKind::Data) report(p.range, DiagKind::err_param_ref_scalar, name);
    else if (p.byRef && p.storage == Storage::Global) report(p.range, DiagKind::err_param_ref_global, name);
    if (name.empty()) continue;
    Symbol* s = declare(name, p.range.Start, Symbol::Kind::Param, t, t.kind == TypeKind::Element);
    s->paramIndex = static_cast<int>(i);
    if (t.kind == TypeKind::Int) {
      s->value = sym().symbol(name, std::nullopt);
      s->type.values = {s->value};
    } else if (isEntryValue(s)) {
      // Its value at each use, as an integer-data variable's.
      s->value = sym().symbol(name, std::nullopt);
    }
    info.params.push_back(s);
  }
}

void Checker::noteBufferUse(const Symbol* s, const Type& t, llvm::SMRange where) {
  // A fragment `mma.load` made from the buffer is not the buffer's data.
  if (t.kind != TypeKind::Data && t.kind != TypeKind::Future) return;
  const Symbol* b = t.buffer ? t.buffer : s;
  if (b->type.kind != TypeKind::Data ||
      (b->type.storage != Storage::Shared && b->type.storage != Storage::Local))
    return;
  if (readOnlyOperand_ > 0) bufferReads_.try_emplace(b, where);
  else bufferWrites_.insert(b);
}

void Checker::warnBuffersNeverWritten() {
  // After an error the function's reads and writes are not all known.
  if (diags_.errorCount() != errorsBeforeFunction_) return;
  for (const Symbol* b : ownBuffers_) {
    auto read = bufferReads_.find(b);
    if (read == bufferReads_.end() || bufferWrites_.contains(b)) continue;
    if (llvm::any_of(inlineTexts_, [&](llvm::StringRef t) { return containsWord(t, b->name); })) continue;
    report(read->second, DiagKind::warn_buffer_never_written, storageName(b->type.storage), b->name,
           functionDecl_->name);
  }
}

}  // namespace croqc::sema
