// `--emit=sema`: every symbol with its scope-qualified name, kind, type,
// storage and symbolic shape, then the normalised parallel structure of every
// kernel. Deterministic: symbols in declaration order.
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "sema/Sema.h"

namespace croqc::sema {

using namespace ast;

llvm::StringRef typeKindName(TypeKind k) {
  switch (k) {
    case TypeKind::Error: return "<error>";
    case TypeKind::Void: return "void";
    case TypeKind::Int: return "int";
    case TypeKind::Bool: return "bool";
    case TypeKind::Element: return "element";
    case TypeKind::Mdspan: return "mdspan";
    case TypeKind::Ituple: return "ituple";
    case TypeKind::Bounded: return "bounded int";
    case TypeKind::BoundedTuple: return "bounded ituple";
    case TypeKind::Data: return "spanned data";
    case TypeKind::Future: return "future";
    case TypeKind::MmaFuture: return "mma future";
    case TypeKind::Event: return "event";
    case TypeKind::Fragment: return "fragment";
    case TypeKind::Accumulator: return "accumulator";
    case TypeKind::Stream: return "stream";
    case TypeKind::String: return "string";
    case TypeKind::TypeName: return "type";
    case TypeKind::Opaque: return "C++ value";
  }
  return "?";
}

std::string printShape(llvm::ArrayRef<const SymExpr*> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += sym::print(shape[i]);
  }
  return s + "]";
}

std::string printType(const Type& t) {
  std::string s;
  auto elem = [&] { return t.elem == TokenKind::eof ? std::string("?") : tokenKindSpelling(t.elem).str(); };
  auto arrays = [&] {
    std::string a;
    for (const SymExpr* d : t.arrayDims) a += "[" + sym::print(d) + "]";
    return a;
  };
  switch (t.kind) {
    case TypeKind::Int:
    case TypeKind::Bool:
      s = typeKindName(t.kind).str();
      if (t.values.size() == 1 && !sym::isUnknown(t.values[0])) s += " = " + sym::print(t.values[0]);
      return s;
    case TypeKind::Element: return elem();
    case TypeKind::Mdspan: return "mdspan<" + std::to_string(t.shape.size()) + "> " + printShape(t.shape);
    case TypeKind::Ituple: return "ituple<" + std::to_string(t.values.size()) + "> " + printShape(t.values);
    case TypeKind::Bounded:
      return "bounded int in [0, " + (t.shape.empty() ? std::string("?") : sym::print(t.shape[0])) + ")";
    case TypeKind::BoundedTuple: return "bounded ituple in " + printShape(t.shape);
    case TypeKind::Data: {
      if (t.hostParam) s = "host ";
      else if (t.storage != Storage::None) s = storageName(t.storage).str() + " ";
      s += elem() + " " + printShape(t.shape) + arrays();
      if (t.view && !t.view->reshaped && !t.view->origin.empty()) s += " view at " + printShape(t.view->origin);
      return s;
    }
    case TypeKind::Future:
      return std::string(t.async ? "async " : "") + "future " + storageName(t.storage).str() + " " + elem() + " " +
             printShape(t.shape);
    case TypeKind::Event: return "event" + arrays();
    case TypeKind::Fragment: return "fragment " + elem() + " " + printShape(t.shape) + arrays();
    case TypeKind::Accumulator: return "accumulator " + elem() + " " + printShape(t.shape);
    default: return typeKindName(t.kind).str();
  }
}

namespace {

llvm::StringRef symbolKindName(Symbol::Kind k) {
  switch (k) {
    case Symbol::Kind::Param: return "param";
    case Symbol::Kind::ShapeDim: return "dim";
    case Symbol::Kind::Variable: return "var";
    case Symbol::Kind::ParallelVar: return "parallel";
    case Symbol::Kind::IterVar: return "iter";
    case Symbol::Kind::Function: return "function";
  }
  return "?";
}

}  // namespace

void dumpSema(const SemaResult& result, const llvm::SourceMgr& sm, llvm::raw_ostream& os) {
  for (const Symbol* s : result.allSymbols) {
    os << symbolKindName(s->kind) << " " << s->qualifiedName << " <";
    if (s->loc.isValid()) {
      auto [line, col] = sm.getLineAndColumn(s->loc);
      os << line << ":" << col;
    }
    os << "> : " << printType(s->type);
    if (s->isMutable) os << " mutable";
    if (s->kind == Symbol::Kind::ParallelVar) os << " level=" << parallelLevelName(s->level);
    os << "\n";
  }
  for (const FunctionInfo& fn : result.functions) {
    for (const KernelInfo& k : fn.kernels) {
      os << "kernel " << k.name << " grid=" << printShape(k.gridDims) << " threads=" << k.threadsPerCta
         << " shared=" << k.sharedBytes << (k.cooperative ? " cooperative" : "") << "\n";
      for (const ParallelLevelInfo& l : k.levels) {
        os << "  level " << parallelLevelName(l.level) << " " << printShape(l.extents);
        for (const Symbol* v : l.vars)
          if (v) os << " " << v->name;
        os << "\n";
      }
    }
  }
}

}  // namespace croqc::sema
