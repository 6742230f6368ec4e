// Expressions and symbolic values to KIR expressions.
//
// Integer expressions that sema evaluated symbolically (shapes, `cdiv`, `#`,
// composed indices) are rebuilt from the symbolic value, so every spelling
// of the same index lowers the same way. Element arithmetic on 16-bit and
// 8-bit floats is done in f32 and converted when stored.
#include "lower/LowerImpl.h"

#include <llvm/ADT/StringSwitch.h>
#include <llvm/Support/FormatVariadic.h>

#include <cmath>

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

kir::ScalarType Lowerer::typeOf(const ast::Expr* e) const {
  const sema::Type* t = sema_.typeOf(e);
  if (!t) return kir::ScalarType::integer();
  switch (t->kind) {
    case sema::TypeKind::Bool: return kir::ScalarType::boolean();
    case sema::TypeKind::Element:
    case sema::TypeKind::Data: return kir::ScalarType::element(t->elem);
    default: return kir::ScalarType::integer();
  }
}

const Expr* Lowerer::lowerSym(const sym::SymExpr* e, llvm::SMLoc loc) {
  using namespace sym;
  if (!e) return m().intc(0);
  switch (e->kind()) {
    case SymKind::Constant: return m().intc(llvm::cast<ConstantExpr>(e)->value());
    case SymKind::Symbol: {
      auto it = symValues_.find(e);
      if (it != symValues_.end()) return it->second;
      if (auto data = sema_.dataExprs.find(e); data != sema_.dataExprs.end()) return lowerInt(data->second);
      diags_.report(loc, DiagKind::err_lower_symbolic, "the value", sym::print(e),
                    "only parameters, shape symbols, loop and parallel variables can size or index tiles");
      return m().intc(0);
    }
    case SymKind::Add: {
      const auto* a = llvm::cast<AddExpr>(e);
      const Expr* r = nullptr;
      for (const SymTerm& t : a->terms()) {
        const Expr* term = m().mul(m().intc(t.coefficient), lowerSym(t.monomial, loc));
        r = r ? m().add(r, term) : term;
      }
      return m().add(r ? r : m().intc(0), m().intc(a->constant()));
    }
    case SymKind::Mul: {
      const auto* mu = llvm::cast<MulExpr>(e);
      const Expr* r = m().intc(mu->coefficient());
      for (const SymExpr* f : mu->factors()) r = m().mul(r, lowerSym(f, loc));
      return r;
    }
    case SymKind::FloorDiv: {
      const auto* d = llvm::cast<DivisionExpr>(e);
      return m().div(lowerSym(d->numerator(), loc), lowerSym(d->divisor(), loc));
    }
    case SymKind::CeilDiv: {
      const auto* d = llvm::cast<DivisionExpr>(e);
      return m().cdiv(lowerSym(d->numerator(), loc), lowerSym(d->divisor(), loc));
    }
    case SymKind::Mod: {
      const auto* d = llvm::cast<DivisionExpr>(e);
      return m().mod(lowerSym(d->numerator(), loc), lowerSym(d->divisor(), loc));
    }
    case SymKind::Min:
    case SymKind::Max: {
      const auto* mm = llvm::cast<MinMaxExpr>(e);
      const Expr* r = nullptr;
      for (const SymExpr* o : mm->operands()) {
        const Expr* v = lowerSym(o, loc);
        r = !r ? v : e->kind() == SymKind::Min ? m().min(r, v) : m().max(r, v);
      }
      return r ? r : m().intc(0);
    }
    case SymKind::Unknown:
      diags_.report(loc, DiagKind::err_lower_symbolic, "a value", "?",
                    "croqc could not analyse this value; use parameters, constants and loop variables");
      return m().intc(0);
  }
  return m().intc(0);
}

const Expr* Lowerer::lowerInt(const ast::Expr* e) { return m().convert(lowerExpr(e), kir::ScalarType::integer()); }

const Expr* Lowerer::lowerCondition(const ast::Expr* e) {
  const Expr* c = lowerExpr(e);
  if (c->type.kind == kir::ScalarType::Kind::Bool) return c;
  return m().binary("!=", c, m().intc(0), kir::ScalarType::boolean());
}

namespace {

llvm::StringRef binarySpelling(TokenKind op) {
  switch (op) {
    case TokenKind::plus: return "+";
    case TokenKind::minus: return "-";
    case TokenKind::star: return "*";
    case TokenKind::slash: return "/";
    case TokenKind::percent: return "%";
    case TokenKind::less: return "<";
    case TokenKind::lessequal: return "<=";
    case TokenKind::greater: return ">";
    case TokenKind::greaterequal: return ">=";
    case TokenKind::equalequal: return "==";
    case TokenKind::exclaimequal: return "!=";
    case TokenKind::ampamp: return "&&";
    case TokenKind::pipepipe: return "||";
    case TokenKind::amp: return "&";
    case TokenKind::pipe: return "|";
    case TokenKind::caret: return "^";
    case TokenKind::lessless: return "<<";
    case TokenKind::greatergreater: return ">>";
    default: return "";
  }
}

bool isComparison(llvm::StringRef op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=" || op == "&&" || op == "||";
}

/// Math builtins (spec 15.2): the f32 intrinsic (KIR_MATH_INTRINSIC of
/// kir/Intrinsics.def) each calls, or an empty string.
llvm::StringRef mathBuiltin(llvm::StringRef name) {
  // Spec 15.2 spells them `__exp`, `__max`, ...; the plain names work too,
  // and so do the C names `expf`, `exp2f` and `fabs`.
  name.consume_front("__");
  name = llvm::StringSwitch<llvm::StringRef>(name).Case("expf", "exp").Case("exp2f", "exp2").Case("fabs", "abs").Default(name);
#define KIR_INTRINSIC(Kir, Cxx)
#define KIR_MATH_INTRINSIC(Kir, Cxx) .Case(Kir, true)
  const bool math = llvm::StringSwitch<bool>(name)
#include "kir/Intrinsics.def"
                        .Default(false);
  return math ? name : llvm::StringRef();
}

}  // namespace

// An integer expression whose value sema knows symbolically, over values
// lowering has bound: that value (nullptr otherwise).
const Expr* Lowerer::lowerKnownInteger(const ast::Expr* e, const sema::Type* t) {
  if (t && (t->kind == sema::TypeKind::Int || t->kind == sema::TypeKind::Bounded) && t->values.size() == 1 &&
      !sym::isUnknown(t->values[0]) && !llvm::isa<NameExpr>(e)) {
    bool known = true;
    std::function<void(const sym::SymExpr*)> check = [&](const sym::SymExpr* x) {
      if (!known) return;
      if (llvm::isa<sym::SymbolExpr>(x)) {
        if (!symValues_.count(x)) known = false;
        return;
      }
      if (const auto* a = llvm::dyn_cast<sym::AddExpr>(x))
        for (const sym::SymTerm& term : a->terms()) check(term.monomial);
      if (const auto* mu = llvm::dyn_cast<sym::MulExpr>(x))
        for (const sym::SymExpr* f : mu->factors()) check(f);
      if (const auto* d = llvm::dyn_cast<sym::DivisionExpr>(x)) {
        check(d->numerator());
        check(d->divisor());
      }
      if (const auto* mm = llvm::dyn_cast<sym::MinMaxExpr>(x))
        for (const sym::SymExpr* o : mm->operands()) check(o);
      if (llvm::isa<sym::UnknownExpr>(x)) known = false;
    };
    check(t->values[0]);
    if (known) return lowerSym(t->values[0], e->loc());
  }
  return nullptr;

}

const Expr* Lowerer::lowerName(const ast::NameExpr* e) {
  const sema::Symbol* s = sema_.references.lookup(e);
  // A qualified name that is not the program's (`mylib::MY_CONST`) is a C++
  // entity of the host code, which nvcc resolves.
  if (!s && e->name.contains("::")) return m().var(e->name, typeOf(e));
  if (!s) {
    unsupported(DiagKind::err_unsupported_device_expr, e->range(), nodeKindName(e->kind()));
    return m().intc(0);
  }
  auto it = values_.find(s);
  if (it != values_.end()) return it->second;
  if (s->value && !sym::isUnknown(s->value) && !llvm::isa<sym::SymbolExpr>(s->value))
    return lowerSym(s->value, e->loc());
  if (s->value) {
    auto sv = symValues_.find(s->value);
    if (sv != symValues_.end()) return sv->second;
  }
  if (s->type.kind == sema::TypeKind::Data) {
    // A rank-0 read of a one-element buffer is not a scalar; report.
    unsupported(DiagKind::err_unsupported_span_as_scalar, e->range());
    return m().intc(0);
  }
  diags_.report(e->loc(), DiagKind::err_lower_symbolic, "the name", s->name,
                "declare it before the parallel, or give it a value inside");
  return m().intc(0);
}

const Expr* Lowerer::lowerBinary(const ast::BinaryExpr* b) {
  llvm::StringRef op = binarySpelling(b->op);
  if (op.empty()) {
    unsupported(DiagKind::err_unsupported_device_expr, b->range(), nodeKindName(b->kind()));
    return m().intc(0);
  }
  const Expr* l = lowerExpr(b->lhs);
  const Expr* r = lowerExpr(b->rhs);
  kir::ScalarType ty = typeOf(b);
  kir::ScalarType operandType = ty;
  if (isComparison(op)) {
    operandType = l->type.isElem() ? l->type : r->type;
    ty = kir::ScalarType::boolean();
  }
  if (operandType.isElem()) {
    operandType = kir::ScalarType::element(kir::computeType(operandType.elem));
    l = m().convert(l, operandType);
    r = m().convert(r, operandType);
    if (!isComparison(op)) ty = operandType;
  }
  if (op == "&&" || op == "||") {
    l = l->type.kind == kir::ScalarType::Kind::Bool ? l : m().binary("!=", l, m().intc(0), ty);
    r = r->type.kind == kir::ScalarType::Kind::Bool ? r : m().binary("!=", r, m().intc(0), ty);
  }
  // Arithmetic on fp6 and fp4 values gives a value of their type (the
  // f32 result rounded to it), as in Croqtile's runtime; 8- and 16-bit
  // floats keep the f32 result.
  if (kir::ScalarType result = typeOf(b); !isComparison(op) && result.isElem() && target::isFloatType(result.elem) &&
                                          target::elementBits(result.elem) < 8)
    return m().convert(m().binary(op, l, r, ty), result);
  return m().binary(op, l, r, ty);
}

const Expr* Lowerer::lowerCall(const ast::CallExpr* c) {
  const sema::Type* t = sema_.typeOf(c);
  std::vector<const Expr*> args;
  for (const ast::Expr* a : c->args) {
    // Spanned data (a buffer, a window of one, a future's `.data`) is passed
    // to a user function as a pointer to its first element.
    const sema::Type* at = sema_.typeOf(a);
    if (at && (at->kind == sema::TypeKind::Data || at->kind == sema::TypeKind::Future) && c->viaCallKeyword) {
      std::optional<kir::Tile> tile = lowerTile(a, "a call argument");
      args.push_back(tile ? m().address(tile->buffer, tile->offset) : m().intc(0));
      continue;
    }
    args.push_back(lowerExpr(a));
  }
  kir::ScalarType ty = typeOf(c);
  llvm::StringRef math = mathBuiltin(c->callee);
  if (!math.empty() && !c->viaCallKeyword) {
    for (const Expr*& a : args) a = m().convert(a, kir::ScalarType::element(TokenKind::ty_f32));
    return m().intrinsic(math, args, kir::ScalarType::element(TokenKind::ty_f32));
  }
  if (c->callee == "croq::cuda::setreg_inc" || c->callee == "croq::cuda::setreg_dec") checkRegisterRealloc(c->range());
  llvm::StringRef plain = c->callee;
  plain.consume_front("__");
  if ((plain == "min" || plain == "max") && args.size() == 2) {
    if (!args[0]->type.isElem() && !args[1]->type.isElem())
      return plain == "min" ? m().min(args[0], args[1]) : m().max(args[0], args[1]);
    for (const Expr*& a : args) a = m().convert(a, kir::ScalarType::element(TokenKind::ty_f32));
    return m().intrinsic(plain == "min" ? "fmin" : "fmax", args, kir::ScalarType::element(TokenKind::ty_f32));
  }
  if ((plain == "alignup" || plain == "aligndown") && args.size() == 2)
    return m().intrinsic(plain, args, kir::ScalarType::integer());
  if (plain == "isfinite" && args.size() == 1) {
    args[0] = m().convert(args[0], kir::ScalarType::element(TokenKind::ty_f32));
    return m().intrinsic("is_finite", args, kir::ScalarType::boolean());
  }
  if (c->callee == "cdiv" && args.size() == 2) return m().cdiv(args[0], args[1]);
  if (c->callee == "select" && !c->viaCallKeyword && args.size() >= 2) {
    // A scalar `select(i, v0, v1, ...)` is `v_i`; a run-time index past the
    // last choice picks the last one (a constant one is an error in sema).
    const Expr* chosen = m().convert(args.back(), ty);
    for (size_t i = args.size() - 2; i >= 1; --i)
      chosen = m().select(m().eq(args[0], m().intc(static_cast<std::int64_t>(i - 1))), m().convert(args[i], ty),
                          chosen, ty);
    return chosen;
  }
  std::vector<kir::TemplateArg> templateArgs;
  for (const ast::Expr* ta : c->templateArgs) {
    kir::TemplateArg arg;
    const sema::Type* at = sema_.typeOf(ta);
    if (const auto* et = llvm::dyn_cast<ElementTypeExpr>(ta)) arg.elem = et->type;
    else if (at && at->kind == sema::TypeKind::TypeName) arg.elem = at->elem;
    else arg.value = lowerExpr(ta);
    templateArgs.push_back(arg);
  }
  if (ty.kind == kir::ScalarType::Kind::Int && t && t->kind == sema::TypeKind::Opaque)
    ty = kir::ScalarType::integer();
  // `f<>(x)`: an empty argument list still names the template.
  std::string callee = c->callee.str();
  if (c->hasTemplateArgs && templateArgs.empty()) callee += "<>";
  return m().call(callee, args, ty, std::move(templateArgs));
}

/// Whether C++'s `++`/`--` applies to `v` in place: integers and the element
/// types C++ computes in (f32, f64, the integer elements). A 16-bit or
/// narrower float is computed in f32 and stored converted, which only a
/// statement of its own does (lowerIncrementStmt); as a value it is reported.
bool Lowerer::incrementInPlace(const Expr* v, const ast::Expr* e) {
  if (!v->type.isElem() || kir::computeType(v->type.elem) == v->type.elem) return true;
  std::string text = sourceText(e->range());
  unsupported(DiagKind::err_unsupported_increment_value, e->range(), text, tokenKindSpelling(v->type.elem), text);
  return false;
}

/// `v++;`, `--v;` as a statement of their own of a 16-bit or narrower float
/// `v`: `v += 1` (computed in f32, assignScalar), or nothing when `e` is no
/// increment of such a scalar name.
bool Lowerer::lowerIncrementStmt(const ast::Expr* e) {
  const ast::Expr* operand = nullptr;
  TokenKind op = TokenKind::eof;
  if (const auto* p = llvm::dyn_cast<PostfixExpr>(e)) {
    operand = p->operand;
    op = p->op;
  } else if (const auto* u = llvm::dyn_cast<UnaryExpr>(e)) {
    operand = u->operand;
    op = u->op;
  }
  if (!operand || (op != TokenKind::plusplus && op != TokenKind::minusminus) || !llvm::isa<NameExpr>(operand))
    return false;
  const Expr* v = lowerExpr(operand);
  if (v->kind != kir::ExprKind::Var || !v->type.isElem() || kir::computeType(v->type.elem) == v->type.elem) return false;
  assignScalar(v->name, v->type, op == TokenKind::plusplus ? "+=" : "-=", m().intc(1), e->loc());
  return true;
}

const Expr* Lowerer::lowerExpr(const ast::Expr* e) {
  const sema::Type* t = sema_.typeOf(e);
  if (const Expr* known = lowerKnownInteger(e, t)) return known;

  switch (e->kind()) {
    case NodeKind::IntLiteralExpr: {
      const auto* i = llvm::cast<IntLiteralExpr>(e);
      // Sema rejected literals out of range.
      return m().intc(i->signedValue().value_or(0));
    }
    case NodeKind::FloatLiteralExpr: {
      const auto* f = llvm::cast<FloatLiteralExpr>(e);
      std::string text;
      double v = f->value.value;  // already negative for `-1.0f` (the parser folds the sign in)
      if (std::isinf(v)) text = v > 0 ? "inf" : "-inf";
      else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", v);
        text = buf;
        if (text.find_first_of(".e") == std::string::npos) text += ".0";
        text += "f";
      }
      return m().floatc(text, TokenKind::ty_f32);
    }
    case NodeKind::BoolLiteralExpr: return m().boolc(llvm::cast<BoolLiteralExpr>(e)->value);
    // `nullptr`: an argument of a `call` or under a foreign cast
    // (`__to<"const float*">(nullptr)`), a C++ value as those are.
    case NodeKind::NullptrLiteralExpr: return m().var("nullptr", typeOf(e));
    case NodeKind::NameExpr: return lowerName(llvm::cast<NameExpr>(e));
    case NodeKind::UnaryExpr: {
      const auto* u = llvm::cast<UnaryExpr>(e);
      const Expr* v = lowerExpr(u->operand);
      if (u->op == TokenKind::exclaim) return m().unary("!", v, kir::ScalarType::boolean());
      if (u->op == TokenKind::plus) return v;
      // `&x.at(i)` (an argument of a `call`) and `++x`, `--x` keep their
      // operand's type and spelling.
      if (u->op == TokenKind::amp) return m().unary("&", v, v->type);
      if (u->op == TokenKind::plusplus || u->op == TokenKind::minusminus) {
        if (!incrementInPlace(v, e)) return v;
        return m().unary(u->op == TokenKind::plusplus ? "++" : "--", v, v->type);
      }
      kir::ScalarType ty = v->type;
      if (ty.isElem()) {
        ty = kir::ScalarType::element(kir::computeType(ty.elem));
        v = m().convert(v, ty);
      }
      return m().unary(u->op == TokenKind::tilde ? "~" : "-", v, ty);
    }
    case NodeKind::PostfixExpr: {
      // `v++`, `v--` of a mutable scalar: the value before, as in C++.
      const auto* p = llvm::cast<PostfixExpr>(e);
      const Expr* v = lowerExpr(p->operand);
      if (!incrementInPlace(v, e)) return v;
      return m().unary(p->op == TokenKind::plusplus ? "x++" : "x--", v, v->type);
    }
    case NodeKind::BinaryExpr: return lowerBinary(llvm::cast<BinaryExpr>(e));
    case NodeKind::ConditionalExpr: {
      const auto* c = llvm::cast<ConditionalExpr>(e);
      const Expr* a = lowerExpr(c->then);
      const Expr* b = lowerExpr(c->otherwise);
      kir::ScalarType ty = typeOf(e);
      if (ty.isElem()) {
        ty = kir::ScalarType::element(kir::computeType(ty.elem));
        a = m().convert(a, ty);
        b = m().convert(b, ty);
      }
      return m().select(lowerCondition(c->cond), a, b, ty);
    }
    case NodeKind::MethodExpr: {
      const auto* mm = llvm::cast<MethodExpr>(e);
      if (mm->method == TokenKind::m_at && t && t->kind == sema::TypeKind::Element) return lowerElementAccess(mm);
      break;
    }
    case NodeKind::ElementOfExpr:
    case NodeKind::SubscriptExpr: {
      if (t && t->kind == sema::TypeKind::Element) {
        const auto* sub = llvm::dyn_cast<SubscriptExpr>(e);
        if (sub) {
          const kir::Buffer* buffer = nullptr;
          const Expr* index = elementIndex(sub->base, sub->indices, &buffer);
          if (index && buffer) return loadElement(buffer, index);
        }
      }
      break;
    }
    case NodeKind::CastExpr: {
      const auto* c = llvm::cast<CastExpr>(e);
      const Expr* v = lowerExpr(c->operand);
      if (c->type == TokenKind::eof) {
        return m().call("static_cast<" + c->cxxType.str() + ">", {v}, kir::ScalarType::integer());
      }
      if (c->type == TokenKind::kw_int) return m().convert(v, kir::ScalarType::integer());
      return m().convert(v, kir::ScalarType::element(c->type));
    }
    case NodeKind::CallExpr: return lowerCall(llvm::cast<CallExpr>(e));
    default: break;
  }
  unsupported(DiagKind::err_unsupported_device_expr, e->range(), nodeKindName(e->kind()));
  return m().intc(0);
}

const Expr* Lowerer::lowerElementAccess(const MethodExpr* mm) {
  if (std::optional<const Expr*> acc = accumulatorElement(mm->base, mm->args)) return *acc ? *acc : m().intc(0);
  const kir::Buffer* buffer = nullptr;
  const Expr* index = elementIndex(mm->base, mm->args, &buffer);
  if (!index || !buffer) return m().intc(0);
  return loadElement(buffer, index);
}

const Expr* Lowerer::loadElement(const kir::Buffer* buffer, const Expr* index) {
  // Elements live on the device: host code reads them one at a time.
  if (host_) return m().intrinsic("host_load", {m().var(buffer->name), index}, kir::ScalarType::element(buffer->elem));
  return m().load(buffer, index);
}

}  // namespace croqc::lower
