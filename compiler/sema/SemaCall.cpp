// Semantic analysis of calls (builtins, intrinsics and device functions),
// casts and `sizeof` (spec sections 4.7, 6).
#include <llvm/Support/raw_ostream.h>

#include "sema/SemaImpl.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;

Type Checker::checkCall(const CallExpr* c) {
  llvm::SmallVector<Type, 4> args;
  for (const Expr* a : c->templateArgs) check(a);
  for (const Expr* a : c->args) args.push_back(c->viaCallKeyword ? checkCxxOperand(a) : check(a));
  for (const Type& a : args)
    if (a.isError()) return Type::error();
  if (c->viaCallKeyword) return Type::simple(TypeKind::Opaque);
  StringRef name = c->callee;
  auto arity = [&](size_t n) {
    if (c->args.size() == n) return true;
    report(c->range(), DiagKind::err_builtin_arity, name, n, c->args.size());
    return false;
  };
  if (name == "cdiv") {
    if (!arity(2)) return Type::error();
    // `cdiv(d.span, {9, 7})`: element-wise on shapes and ituples.
    if (args[0].isShape() || args[1].isShape()) {
      SymList a = args[0].isShape() ? args[0].shapeItems() : SymList{};
      SymList b = args[1].isShape() ? args[1].shapeItems() : SymList{};
      if (!args[0].isShape()) a.assign(b.size(), intValue(c->args[0], "`cdiv`"));
      if (!args[1].isShape()) b.assign(a.size(), intValue(c->args[1], "`cdiv`"));
      if (a.size() != b.size()) {
        report(c->range(), DiagKind::err_shape_op_mismatch, "cdiv", printShape(a), printShape(b));
        return Type::error();
      }
      Type t = args[0].isShape() ? args[0] : args[1];
      SymList out;
      for (size_t i = 0; i < a.size(); ++i) {
        if (std::optional<std::int64_t> cb = sym::constantValue(b[i]); cb && *cb <= 0) {
          report(c->args[1]->range(), DiagKind::err_cdiv_non_positive, *cb);
          return Type::error();
        }
        out.push_back(sym().cdiv(a[i], b[i]));
      }
      if (t.kind == TypeKind::Mdspan) t.shape = out;
      else t.values = out;
      return t;
    }
    const SymExpr* a = intValue(c->args[0], "`cdiv`");
    const SymExpr* b = intValue(c->args[1], "`cdiv`");
    if (std::optional<std::int64_t> cb = sym::constantValue(b); cb && *cb <= 0) {
      report(c->args[1]->range(), DiagKind::err_cdiv_non_positive, *cb);
      return Type::error();
    }
    Type t = Type::simple(TypeKind::Int);
    t.values = {sym().cdiv(a, b)};
    return t;
  }
  if (name == "select") {
    if (c->args.size() < 2) {
      report(c->range(), DiagKind::err_builtin_arity, name, 2, c->args.size());
      return Type::error();
    }
    // Spec 12.8: a constant selector picks one of the choices.
    std::optional<std::int64_t> index = constantOf(c->args[0]);
    auto choices = static_cast<std::int64_t>(c->args.size() - 1);
    if (index && (*index < 0 || *index >= choices)) {
      report(c->args[0]->range(), DiagKind::err_element_of_out_of_range, *index, "select", choices);
      return Type::error();
    }
    if (index) return args[static_cast<size_t>(*index) + 1];
    // A run-time selector: the value is one of the choices, which one is
    // not known here.
    Type t = args[1];
    if (t.isIntegral()) t = Type::simple(TypeKind::Int);
    return t;
  }
  if (name == "__min" || name == "__max") {
    if (!arity(2)) return Type::error();
    if (args[0].isIntegral() && args[1].isIntegral()) {
      Type t = Type::simple(TypeKind::Int);
      t.values = {name == "__min" ? sym().min(valueOf(c->args[0]), valueOf(c->args[1]))
                                  : sym().max(valueOf(c->args[0]), valueOf(c->args[1]))};
      return t;
    }
    Type t = Type::simple(TypeKind::Element);
    t.elem = promoteElem(args[0].elem, args[1].elem);
    return t;
  }
  if (name == "__alignup" || name == "__aligndown") {
    if (!arity(2)) return Type::error();
    const SymExpr* x = intValue(c->args[0], "`" + name.str() + "`");
    const SymExpr* a = intValue(c->args[1], "`" + name.str() + "`");
    Type t = Type::simple(TypeKind::Int);
    t.values = {name == "__alignup" ? sym().mul(sym().cdiv(x, a), a) : sym().mul(sym().floorDiv(x, a), a)};
    return t;
  }
  static const llvm::StringMap<unsigned> kMathBuiltins = {
      {"__exp", 1},   {"__exp2f", 1},  {"__expm1", 1},  {"__log", 1},     {"__log1p", 1},  {"__pow", 2},
      {"__sin", 1},   {"__cos", 1},    {"__tan", 1},    {"__asin", 1},    {"__acos", 1},   {"__atan", 1},
      {"__atan2", 2}, {"__sinh", 1},   {"__cosh", 1},   {"__tanh", 1},    {"__sqrt", 1},   {"__rsqrt", 1},
      {"__frcp_rn", 1}, {"__fabs", 1}, {"__fmaf", 3},   {"__sign", 1},    {"__ceil", 1},   {"__floor", 1},
      {"__round", 1}, {"__isfinite", 1}, {"__gelu", 1}, {"__sigmoid", 1}, {"__softplus", 1}};
  if (auto it = kMathBuiltins.find(name); it != kMathBuiltins.end()) {
    if (!arity(it->second)) return Type::error();
    Type t = Type::simple(TypeKind::Element);
    t.elem = args[0].kind == TypeKind::Element && args[0].elem != TokenKind::ty_f64 ? TokenKind::ty_f32
             : args[0].elem == TokenKind::ty_f64                                     ? TokenKind::ty_f64
                                                                                     : TokenKind::ty_f32;
    if (name == "__isfinite") t = Type::simple(TypeKind::Bool);
    return t;
  }
  if (name.startswith("__atomic_")) {
    unsigned want = name == "__atomic_cas" ? 3 : 2;
    if (!arity(want)) return Type::error();
    if (parallels_.empty()) report(c->range(), DiagKind::err_device_only_statement, "an atomic operation");
    // Spec 15.3: the target is an element of shared or global data.
    const auto* at = llvm::dyn_cast<MethodExpr>(c->args[0]);
    const Type* base = at && at->method == TokenKind::m_at ? result_.typeOf(at->base) : nullptr;
    bool shared = base && (base->kind == TypeKind::Data || base->kind == TypeKind::Future) &&
                  base->storage != Storage::Local;
    if (!shared) {
      report(c->args[0]->range(), DiagKind::err_atomic_target, name, exprText(c->args[0]),
             base ? describe(*base) : describe(args[0]));
      return Type::error();
    }
    return args[0];
  }
  if (name == "__bar_arrive" || name == "__bar_sync") {
    if (parallels_.empty()) report(c->range(), DiagKind::err_device_only_statement, "`" + name.str() + "`");
    return Type::simple(TypeKind::Void);
  }
  if (name.startswith("__lib_") || name.startswith("__pragma_croq_intrinsic")) return Type::simple(TypeKind::Opaque);
  report(c->range(), DiagKind::err_not_a_call_target, name);
  return Type::error();
}

Type Checker::checkCxxOperand(const Expr* e) {
  if (!llvm::isa<NullptrLiteralExpr>(e)) return check(e);
  Type t = Type::simple(TypeKind::Opaque);
  result_.exprTypes[e] = t;
  return t;
}

Type Checker::checkCast(const CastExpr* c) {
  Type operand = c->type == TokenKind::eof ? checkCxxOperand(c->operand) : check(c->operand);
  if (operand.isError()) return operand;
  if (c->type == TokenKind::eof) return Type::simple(TypeKind::Opaque);
  if (!operand.isIntegral() && operand.kind != TypeKind::Element && operand.kind != TypeKind::Bool &&
      operand.kind != TypeKind::Opaque) {
    report(c->range(), DiagKind::err_cast_type, describe(operand), tokenKindSpelling(c->type));
    return Type::error();
  }
  Type t = Type::simple(TypeKind::Element);
  t.elem = c->type;
  if (c->type == TokenKind::kw_int) {
    t = Type::simple(TypeKind::Int);
    t.values = {operand.isIntegral() ? valueOf(c->operand) : unknown()};
  }
  return t;
}

Type Checker::checkSizeOf(const SizeOfExpr* s) {
  Type operand = check(s->operand);
  if (operand.isError()) return operand;
  Type t = Type::simple(TypeKind::Int);
  if (operand.kind == TypeKind::TypeName) {
    int bytes = 4;
    switch (operand.elem) {
      case TokenKind::ty_f16: case TokenKind::ty_bf16: case TokenKind::ty_s16: case TokenKind::ty_u16: bytes = 2; break;
      case TokenKind::ty_f64: case TokenKind::ty_s64: case TokenKind::ty_u64: bytes = 8; break;
      case TokenKind::ty_u8: case TokenKind::ty_s8: case TokenKind::ty_f8: case TokenKind::ty_f8_e4m3:
      case TokenKind::ty_f8_e5m2: case TokenKind::ty_f8_ue4m3: case TokenKind::ty_f8_ue8m0: bytes = 1; break;
      default: break;
    }
    t.values = {sym().constant(bytes)};
    return t;
  }
  std::optional<SymList> shape = shapeOf(s->operand, "a shape or a type between `|...|`");
  if (!shape) return Type::error();
  const SymExpr* count = sym().constant(1);
  for (const SymExpr* d : *shape) count = sym().mul(count, d);
  t.values = {count};
  return t;
}

}  // namespace croqc::sema
