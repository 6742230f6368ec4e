// Semantic analysis of expressions (spec sections 4.6, 4.7, 5, 6): the type
// of every expression and the symbolic value of every integer expression.
// Calls, casts and `sizeof` are in SemaCall.cpp.
#include <llvm/Support/raw_ostream.h>

#include "ast/ASTExprPrinter.h"
#include "sema/SemaImpl.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;

bool isIntegerElem(TokenKind k) {
  switch (k) {
    case TokenKind::ty_u8: case TokenKind::ty_s8: case TokenKind::ty_u16: case TokenKind::ty_s16:
    case TokenKind::ty_u32: case TokenKind::ty_s32: case TokenKind::ty_u64: case TokenKind::ty_s64: return true;
    default: return false;
  }
}

bool isFloatElem(TokenKind k) {
  switch (k) {
    case TokenKind::ty_f16: case TokenKind::ty_bf16: case TokenKind::ty_f32: case TokenKind::ty_tf32:
    case TokenKind::ty_f64: case TokenKind::ty_f8: case TokenKind::ty_f8_e4m3: case TokenKind::ty_f8_e5m2:
      return true;
    default: return false;
  }
}

TokenKind promoteElem(TokenKind a, TokenKind b) {
  if (a == TokenKind::eof) return b;
  if (b == TokenKind::eof) return a;
  if (a == b) return a;
  if (a == TokenKind::ty_f64 || b == TokenKind::ty_f64) return TokenKind::ty_f64;
  if (isFloatElem(a) || isFloatElem(b)) return TokenKind::ty_f32;
  return TokenKind::ty_s64;
}

namespace {

/// What `o`, which has no storage, is, for `&o` and `++o`: a call's result,
/// a literal, a conversion's result, the value before an increment (`x++`),
/// or an operator's result.
const char* storagelessValueKind(const Expr* o) {
  if (llvm::isa<CallExpr>(o)) return "the result of a call";
  if (llvm::isa<IntLiteralExpr, FloatLiteralExpr, BoolLiteralExpr, NullptrLiteralExpr, StringLiteralExpr>(o))
    return "a literal";
  if (llvm::isa<CastExpr>(o)) return "the result of a conversion";
  if (llvm::isa<PostfixExpr>(o)) return "the value before an increment";
  return "the result of an operator";
}

bool isComparison(TokenKind op) {
  return op == TokenKind::less || op == TokenKind::lessequal || op == TokenKind::greater ||
         op == TokenKind::greaterequal || op == TokenKind::equalequal || op == TokenKind::exclaimequal;
}

}  // namespace

std::string Checker::exprText(const Expr* e) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  printExpr(e, os);
  os.flush();
  // The printer parenthesises every operator; a message quotes the outermost
  // one without them (`64 / n`, not `(64 / n)`).
  if (llvm::isa<BinaryExpr, UnaryExpr, PostfixExpr, ConditionalExpr>(e) && s.size() >= 2 && s.front() == '(' &&
      s.back() == ')')
    s = s.substr(1, s.size() - 2);
  return s;
}

std::string Checker::describe(const Type& t) const { return printType(t); }

Type Checker::check(const Expr* e) {
  if (!e) return Type::error();
  auto found = result_.exprTypes.find(e);
  if (found != result_.exprTypes.end()) return found->second;
  Type t = checkUncached(e);
  result_.exprTypes[e] = t;
  return t;
}

const SymExpr* Checker::valueOf(const Expr* e) {
  Type t = check(e);
  if ((t.kind == TypeKind::Int || t.kind == TypeKind::Bounded) && t.values.size() == 1) return t.values[0];
  return unknown();
}

SymList Checker::tupleValues(const Type& t) {
  if (t.values.size() == t.shape.size()) return t.values;
  return SymList(t.shape.size(), unknown());
}

const SymExpr* Checker::intValue(const Expr* e, StringRef what) {
  Type t = check(e);
  if (t.isError()) return unknown();
  // Integer data (`s32`, `u32`, ...) is a runtime value, not a symbolic one.
  if (t.kind == TypeKind::Element && isIntegerElem(t.elem)) return integerDataValue(e);
  if (t.kind == TypeKind::Opaque) return unknown();
  if (!t.isIntegral()) {
    report(e->range(), DiagKind::err_type_mismatch, "an integer for " + what.str(), "a value", describe(t));
    return unknown();
  }
  return valueOf(e);
}

// The symbolic value of an integer (valueOf) or of integer data (`s32`,
// `u32`, ...), a run-time value: a named one (`block_m = sched.at(i)`,
// `s32 seg = offsets.at(e)`) has a symbol of its own, and sums, differences
// and products of such names, integers and parameters are followed
// symbolically (`seg_start + iv_m * 64`).
const SymExpr* Checker::integerDataValue(const Expr* e) {
  Type t = check(e);
  if (t.isIntegral()) return valueOf(e);
  if (t.kind != TypeKind::Element || !isIntegerElem(t.elem)) return unknown();
  if (const auto* n = llvm::dyn_cast<NameExpr>(e)) {
    if (const Symbol* s = result_.references.lookup(n); s && s->value) return s->value;
    return unknown();
  }
  const auto* b = llvm::dyn_cast<BinaryExpr>(e);
  if (!b) {
    // Any other read (`expert_idx.at(0)`, a call): a symbol of its own,
    // evaluated where it is used.
    if (llvm::isa<ElementOfExpr, MethodExpr, SubscriptExpr, CallExpr, CastExpr>(e)) {
      auto [it, inserted] = result_.dataSymbols.try_emplace(e, nullptr);
      if (inserted) {
        it->second = sym().freshSymbol(exprText(e), std::nullopt);
        result_.dataExprs[it->second] = e;
      }
      return it->second;
    }
    return unknown();
  }
  const SymExpr* l = integerDataValue(b->lhs);
  const SymExpr* r = integerDataValue(b->rhs);
  if (sym::isUnknown(l) || sym::isUnknown(r)) return unknown();
  switch (b->op) {
    case TokenKind::plus: return sym().add(l, r);
    case TokenKind::minus: return sym().sub(l, r);
    case TokenKind::star: return sym().mul(l, r);
    default: return unknown();
  }
}

/// Integer data made only of integers and entry values (isEntryValue:
/// `{1, x, 3}` of an `s32 x` parameter) as an ituple element or mdspan
/// extent; null for any other value.
const SymExpr* Checker::integerEntryValue(const Expr* e, const Type& t) {
  if (t.kind != TypeKind::Element || !isIntegerElem(t.elem)) return nullptr;
  bool onlyEntryValues = true;
  std::function<void(const Expr*)> visit = [&](const Expr* x) {
    if (const auto* n = llvm::dyn_cast<NameExpr>(x)) {
      const Symbol* s = result_.references.lookup(n);
      onlyEntryValues &= isEntryValue(s) || (s && s->type.isIntegral());
    } else if (const auto* b = llvm::dyn_cast<BinaryExpr>(x)) {
      visit(b->lhs);
      visit(b->rhs);
    } else if (!llvm::isa<IntLiteralExpr>(x)) {
      onlyEntryValues = false;
    }
  };
  visit(e);
  if (!onlyEntryValues) return nullptr;
  const SymExpr* v = integerDataValue(e);
  return sym::isUnknown(v) ? nullptr : v;
}

std::optional<std::int64_t> Checker::constantOf(const Expr* e) {
  Type t = check(e);
  if (t.kind == TypeKind::Bool && t.values.size() == 1) return sym::constantValue(t.values[0]);
  if (!t.isIntegral() || t.values.size() != 1) return std::nullopt;
  return sym::constantValue(t.values[0]);
}

std::optional<SymList> Checker::shapeOf(const Expr* e, StringRef what) {
  if (!e) return std::nullopt;
  Type t = check(e);
  switch (t.kind) {
    case TypeKind::Error: return std::nullopt;
    case TypeKind::Mdspan:
    case TypeKind::Data:
    case TypeKind::Fragment:
    case TypeKind::Accumulator:
    case TypeKind::Future:
    case TypeKind::BoundedTuple: return t.shape;
    case TypeKind::Int:
    case TypeKind::Bounded: return SymList{valueOf(e)};
    case TypeKind::Ituple: return t.values;
    default:
      report(e->range(), DiagKind::err_type_mismatch, what.str(), "a value", describe(t));
      return std::nullopt;
  }
}

Type Checker::checkUncached(const Expr* e) {
  switch (e->kind()) {
    case NodeKind::IntLiteralExpr: {
      const auto* i = llvm::cast<IntLiteralExpr>(e);
      std::optional<std::int64_t> v = i->signedValue();
      if (!v) {
        report(i->range(), DiagKind::err_int_literal_out_of_range, i->spelling.str());
        return Type::error();
      }
      Type t = Type::simple(TypeKind::Int);
      t.values = {sym().constant(*v)};
      return t;
    }
    case NodeKind::FloatLiteralExpr: {
      const auto* f = llvm::cast<FloatLiteralExpr>(e);
      Type t = Type::simple(TypeKind::Element);
      t.elem = f->value.isF32 ? TokenKind::ty_f32 : TokenKind::ty_f64;
      t.values = {sym().constant(0)};  // marks a literal: no conversion warning
      return t;
    }
    case NodeKind::BoolLiteralExpr: {
      Type t = Type::simple(TypeKind::Bool);
      t.values = {sym().constant(llvm::cast<BoolLiteralExpr>(e)->value ? 1 : 0)};
      return t;
    }
    // A C++ pointer, which only an argument that C++ receives may be
    // (checkCxxOperand).
    case NodeKind::NullptrLiteralExpr:
      report(e->range(), DiagKind::err_nullptr_value);
      return Type::error();
    case NodeKind::StringLiteralExpr: return Type::simple(TypeKind::String);
    case NodeKind::NameExpr: return checkName(llvm::cast<NameExpr>(e));
    case NodeKind::WildcardExpr:
    case NodeKind::DynamicDimExpr: return Type::simple(TypeKind::Void);
    case NodeKind::ElementTypeExpr: {
      Type t = Type::simple(TypeKind::TypeName);
      t.elem = llvm::cast<ElementTypeExpr>(e)->type;
      return t;
    }
    case NodeKind::UnaryExpr: return checkUnary(llvm::cast<UnaryExpr>(e));
    case NodeKind::PostfixExpr: return checkPostfix(llvm::cast<PostfixExpr>(e));
    case NodeKind::BinaryExpr: return checkBinary(llvm::cast<BinaryExpr>(e));
    case NodeKind::ConditionalExpr: return checkConditional(llvm::cast<ConditionalExpr>(e));
    case NodeKind::ItupleExpr: return checkItuple(llvm::cast<ItupleExpr>(e));
    case NodeKind::MdspanExpr: return checkMdspan(llvm::cast<MdspanExpr>(e));
    case NodeKind::MemberExpr: return checkMember(llvm::cast<MemberExpr>(e));
    case NodeKind::MethodExpr: return checkMethod(llvm::cast<MethodExpr>(e));
    case NodeKind::ElementOfExpr: return checkElementOf(llvm::cast<ElementOfExpr>(e));
    case NodeKind::RangeExpr: {
      const auto* r = llvm::cast<RangeExpr>(e);
      for (const Expr* part : {r->lo, r->hi, r->step})
        if (part) intValue(part, "a range bound");
      return Type::simple(TypeKind::Opaque);
    }
    case NodeKind::SubscriptExpr: return checkSubscript(llvm::cast<SubscriptExpr>(e));
    case NodeKind::CallExpr: return checkCall(llvm::cast<CallExpr>(e));
    case NodeKind::CastExpr: return checkCast(llvm::cast<CastExpr>(e));
    case NodeKind::SizeOfExpr: return checkSizeOf(llvm::cast<SizeOfExpr>(e));
#define STMT(Name) case NodeKind::Name##Stmt:
#define TOP(Name) case NodeKind::Name:
#include "ast/ASTNodes.def"
      break;
  }
  return Type::error();
}

Type Checker::checkName(const NameExpr* n) {
  Symbol* s = lookup(n->name);
  // A qualified name (`cuda::ptx::fence`) is C++ that nvcc resolves.
  if (!s && n->name.contains("::")) return Type::simple(TypeKind::Opaque);
  if (!s) {
    std::string suggestion = suggestName(n->name);
    if (suggestion.empty()) report(n->range(), DiagKind::err_undeclared, n->name);
    else report(n->range(), DiagKind::err_undeclared_suggest, n->name, suggestion);
    // Declare it as an error value so later uses do not repeat the error.
    Symbol* placeholder = result_.newSymbol();
    placeholder->name = n->name.str();
    placeholder->type = Type::error();
    scopes_.back()->names[n->name] = placeholder;
    return Type::error();
  }
  ++s->uses;
  result_.references[n] = s;
  Type t = s->type;
  if ((t.kind == TypeKind::Int || t.kind == TypeKind::Bounded) && s->value) t.values = {s->value};
  if (!t.buffer) t.buffer = s;
  noteBufferUse(s, t, n->range());
  return t;
}

Type Checker::checkUnary(const UnaryExpr* u) {
  Type operand = check(u->operand);
  if (operand.isError()) return operand;
  switch (u->op) {
    case TokenKind::hash: {
      if (operand.kind == TypeKind::Bounded) {
        Type t = Type::simple(TypeKind::Int);
        t.values = {operand.shape.empty() ? unknown() : operand.shape[0]};
        return t;
      }
      if (operand.kind == TypeKind::BoundedTuple) {
        Type t = Type::simple(TypeKind::Ituple);
        t.values = operand.shape;
        return t;
      }
      report(u->range(), DiagKind::err_extent_of_unbounded, exprText(u->operand), describe(operand));
      return Type::error();
    }
    case TokenKind::exclaim: {
      Type t = Type::simple(TypeKind::Bool);
      if (operand.values.size() == 1) {
        if (std::optional<std::int64_t> c = sym::constantValue(operand.values[0])) t.values = {sym().constant(*c == 0)};
      }
      return t;
    }
    case TokenKind::amp: {
      // Only a variable or an element has an address: `&x`, `&buf.at(i)`,
      // `&a[i]`, `&f.data`; a call's result or an arithmetic value does not.
      const Expr* o = u->operand;
      if (llvm::isa<NameExpr, MemberExpr, MethodExpr, ElementOfExpr, SubscriptExpr>(o))
        return Type::simple(TypeKind::Opaque);
      report(u->range(), DiagKind::err_address_of_value, exprText(o), storagelessValueKind(o));
      return Type::error();
    }
    case TokenKind::plusplus:
    case TokenKind::minusminus: {
      if (!checkIncrementOperand(u->op, u->operand)) return Type::error();
      Type t = operand;
      if (t.kind == TypeKind::Int) t.values = {unknown()};
      return t;
    }
    case TokenKind::minus:
    case TokenKind::tilde: {
      if (operand.isIntegral()) {
        Type t = Type::simple(TypeKind::Int);
        const SymExpr* v = operand.values.empty() ? unknown() : operand.values[0];
        std::optional<std::int64_t> c = sym::constantValue(v);
        t.values = {u->op == TokenKind::minus ? sym().neg(v) : c ? sym().constant(~*c) : unknown()};
        // Symbolic arithmetic on constants gives up (unknown) on overflow.
        if (c && u->op == TokenKind::minus && !sym::isConstant(t.values[0])) {
          report(u->range(), DiagKind::err_constant_negate_overflow, exprText(u), *c);
          return Type::error();
        }
        return t;
      }
      if (operand.kind == TypeKind::Element) {
        if (!checkIntegerOperands(u->op, {{u->operand, &operand}})) return Type::error();
        return operand;
      }
      report(u->range(), DiagKind::err_operand_type, tokenKindSpelling(u->op), describe(operand));
      return Type::error();
    }
    default: break;
  }
  return Type::error();
}

/// `++x`, `x--`: only a variable or an element (or `++x`, which C++ makes
/// one) has storage to change, and only a mutable variable may change.
bool Checker::checkIncrementOperand(TokenKind op, const Expr* o) {
  if (const auto* n = llvm::dyn_cast<NameExpr>(o)) {
    const Symbol* s = result_.references.lookup(n);
    if (s && !isMutableValue(s)) {
      report(n->range(), DiagKind::err_reassign_immutable, n->name);
      return false;
    }
    if (s) checkNotCaptured(s, n);
    return true;
  }
  if (llvm::isa<MethodExpr, ElementOfExpr, SubscriptExpr>(o)) return true;
  if (const auto* u = llvm::dyn_cast<UnaryExpr>(o); u && (u->op == TokenKind::plusplus || u->op == TokenKind::minusminus))
    return true;
  report(o->range(), DiagKind::err_increment_of_value, tokenKindSpelling(op), exprText(o), storagelessValueKind(o));
  return false;
}

Type Checker::checkPostfix(const PostfixExpr* p) {
  Type operand = check(p->operand);
  if (operand.isError()) return operand;
  if (!checkIncrementOperand(p->op, p->operand)) return Type::error();
  Type t = operand;
  if (t.kind == TypeKind::Int) t.values = {unknown()};
  return t;
}

namespace {
/// True when `l op r`, both constants, is arithmetic whose exact result does
/// not fit in 64 bits: the symbolic arithmetic then gives `result` unknown
/// (it checks every step), and a shift says so by its own numbers.
bool overflowsOnConstants(TokenKind op, const SymExpr* l, const SymExpr* r, const SymExpr* result) {
  std::optional<std::int64_t> cl = sym::constantValue(l), cr = sym::constantValue(r);
  if (!cl || !cr) return false;
  switch (op) {
    case TokenKind::plus: case TokenKind::hashplus:
    case TokenKind::minus: case TokenKind::hashminus:
    case TokenKind::star: case TokenKind::hashstar:
    case TokenKind::slash: case TokenKind::hashslash:
    case TokenKind::percent: case TokenKind::hashpercent: return !sym::isConstant(result);
    case TokenKind::lessless:
      // `a << b` in range: b < 64 and a * 2^b fits.
      return *cr >= 0 && *cr < 64 && (*cl >= 0 ? *cl > (std::numeric_limits<std::int64_t>::max() >> *cr)
                                              : *cl < (std::numeric_limits<std::int64_t>::min() >> *cr));
    default: return false;
  }
}
}  // namespace

bool Checker::checkIntegerOperands(TokenKind op, std::initializer_list<std::pair<const Expr*, const Type*>> operands) {
  switch (op) {
    case TokenKind::percent: case TokenKind::amp: case TokenKind::pipe: case TokenKind::caret:
    case TokenKind::lessless: case TokenKind::greatergreater: case TokenKind::tilde: break;
    default: return true;
  }
  for (const auto& [e, t] : operands) {
    if (t->kind != TypeKind::Element || isIntegerElem(t->elem)) continue;
    report(e->range(), DiagKind::err_integer_operator_on_float, tokenKindSpelling(op), exprText(e),
           tokenKindSpelling(t->elem));
    return false;
  }
  return true;
}

Type Checker::checkBinary(const BinaryExpr* b) {
  Type lhs = check(b->lhs);
  Type rhs = check(b->rhs);
  if (lhs.isError() || rhs.isError()) return Type::error();
  TokenKind op = b->op;
  if (op == TokenKind::hash) {
    // Compose: a # b = a * #b + b, itself bounded by #a * #b.
    if (rhs.kind != TypeKind::Bounded) {
      report(b->rhs->range(), DiagKind::err_compose_unbounded, exprText(b->rhs), describe(rhs));
      return Type::error();
    }
    const SymExpr* inner = rhs.shape.empty() ? unknown() : rhs.shape[0];
    const SymExpr* outerValue = lhs.isIntegral() && !lhs.values.empty() ? lhs.values[0] : unknown();
    const SymExpr* outerExtent = lhs.kind == TypeKind::Bounded && !lhs.shape.empty() ? lhs.shape[0] : unknown();
    Type t = Type::simple(TypeKind::Bounded);
    t.shape = {sym().mul(outerExtent, inner)};
    t.values = {sym().add(sym().mul(outerValue, inner), rhs.values.empty() ? unknown() : rhs.values[0])};
    return t;
  }
  if (op == TokenKind::ampamp || op == TokenKind::pipepipe) {
    Type t = Type::simple(TypeKind::Bool);
    auto cl = lhs.values.size() == 1 ? sym::constantValue(lhs.values[0]) : std::nullopt;
    auto cr = rhs.values.size() == 1 ? sym::constantValue(rhs.values[0]) : std::nullopt;
    if (cl && cr) t.values = {sym().constant(op == TokenKind::ampamp ? (*cl && *cr) : (*cl || *cr))};
    return t;
  }
  // Shapes and tuples: element-wise with an int, ituple or mdspan of equal rank.
  if (lhs.isShape() || (lhs.isIntegral() && rhs.isShape())) return checkShapeBinary(b, lhs, rhs);
  if (lhs.isIntegral() && rhs.isIntegral()) return checkIntegerBinary(b, lhs, rhs);
  bool numeric = [](const Type& t) {
    return t.isIntegral() || t.kind == TypeKind::Element || t.kind == TypeKind::Opaque || t.kind == TypeKind::Bool;
  }(lhs) && [](const Type& t) {
    return t.isIntegral() || t.kind == TypeKind::Element || t.kind == TypeKind::Opaque || t.kind == TypeKind::Bool;
  }(rhs);
  if (!numeric) {
    const Type& bad = (lhs.isIntegral() || lhs.kind == TypeKind::Element) ? rhs : lhs;
    report(b->range(), DiagKind::err_operand_type, tokenKindSpelling(op), describe(bad));
    return Type::error();
  }
  if (isComparison(op)) return Type::simple(TypeKind::Bool);
  if (!checkIntegerOperands(op, {{b->lhs, &lhs}, {b->rhs, &rhs}})) return Type::error();
  Type t = Type::simple(TypeKind::Element);
  t.elem = promoteElem(lhs.kind == TypeKind::Element ? lhs.elem : TokenKind::eof,
                   rhs.kind == TypeKind::Element ? rhs.elem : TokenKind::eof);
  if (t.elem == TokenKind::eof) t = Type::simple(TypeKind::Opaque);
  // Arithmetic on literals (`-2.5f + -inf`) is a literal too: no conversion
  // warning when it initialises a narrower element.
  auto literal = [](const Type& x) { return x.values.size() == 1 && sym::isConstant(x.values[0]); };
  if (t.kind == TypeKind::Element && literal(lhs) && literal(rhs)) t.values = {sym().constant(0)};
  return t;
}

Type Checker::checkShapeBinary(const BinaryExpr* b, const Type& lhs, const Type& rhs) {
  TokenKind op = b->op;
  if (isComparison(op)) return Type::simple(TypeKind::Bool);
  // `5 + d.span`: the integer applies to every element of the shape.
  bool intLeft = lhs.isIntegral();
  const Type& shape = intLeft ? rhs : lhs;
  SymList left = shape.shapeItems();
  SymList right;
  if (intLeft) {
    right = left;
    left.assign(right.size(), lhs.values.empty() ? unknown() : lhs.values[0]);
  } else if (rhs.isIntegral()) {
    right.assign(left.size(), rhs.values.empty() ? unknown() : rhs.values[0]);
  } else if (rhs.isShape()) {
    right = rhs.shapeItems();
  } else {
    report(b->range(), DiagKind::err_operand_type, tokenKindSpelling(op), describe(rhs));
    return Type::error();
  }
  if (left.size() != right.size()) {
    report(b->range(), DiagKind::err_shape_op_mismatch, tokenKindSpelling(op), printShape(left), printShape(right));
    return Type::error();
  }
  Type t = shape;
  SymList out;
  for (size_t i = 0; i < left.size(); ++i) {
    const SymExpr *l = left[i], *r = right[i];
    switch (op) {
      case TokenKind::plus: out.push_back(sym().add(l, r)); break;
      case TokenKind::minus: out.push_back(sym().sub(l, r)); break;
      case TokenKind::star: out.push_back(sym().mul(l, r)); break;
      case TokenKind::slash: out.push_back(sym().floorDiv(l, r)); break;
      case TokenKind::percent: out.push_back(sym().mod(l, r)); break;
      default: out.push_back(unknown()); break;
    }
    if (sym::isDivisionByZero(out.back())) {
      report(b->range(), DiagKind::err_division_by_zero, exprText(b));
      return Type::error();
    }
  }
  if (t.kind == TypeKind::Mdspan) t.shape = out;
  else t.values = out;
  return t;
}

Type Checker::checkIntegerBinary(const BinaryExpr* b, const Type& lhs, const Type& rhs) {
  TokenKind op = b->op;
  const SymExpr* l = lhs.values.empty() ? unknown() : lhs.values[0];
  const SymExpr* r = rhs.values.empty() ? unknown() : rhs.values[0];
  // Bound-aware arithmetic (`q #- 1`, `p # q #+ 1`): the value and its bound
  // move together, so the result is a bounded variable again.
  bool boundAware = op == TokenKind::hashplus || op == TokenKind::hashminus || op == TokenKind::hashstar ||
                    op == TokenKind::hashslash || op == TokenKind::hashpercent;
  if (boundAware && lhs.kind == TypeKind::Bounded && lhs.shape.size() == 1) {
    const SymExpr* bound = lhs.shape[0];
    Type t = Type::simple(TypeKind::Bounded);
    switch (op) {
      case TokenKind::hashplus: t.shape = {sym().add(bound, r)}; t.values = {sym().add(l, r)}; break;
      case TokenKind::hashminus: t.shape = {sym().sub(bound, r)}; t.values = {sym().sub(l, r)}; break;
      case TokenKind::hashstar: t.shape = {sym().mul(bound, r)}; t.values = {sym().mul(l, r)}; break;
      case TokenKind::hashslash: t.shape = {sym().cdiv(bound, r)}; t.values = {sym().floorDiv(l, r)}; break;
      default: t.shape = {r}; t.values = {sym().mod(l, r)}; break;
    }
    if (sym::isDivisionByZero(t.shape[0]) || sym::isDivisionByZero(t.values[0])) {
      report(b->range(), DiagKind::err_division_by_zero, exprText(b));
      return Type::error();
    }
    if (std::optional<std::int64_t> c = sym::constantValue(t.shape[0]); c && *c <= 0) {
      report(b->range(), DiagKind::err_bound_not_positive, exprText(b), *c, exprText(b->lhs), sym::printForUser(bound));
      return Type::error();
    }
    return t;
  }
  Type t = Type::simple(isComparison(op) ? TypeKind::Bool : TypeKind::Int);
  const SymExpr* v = unknown();
  switch (op) {
    case TokenKind::plus: case TokenKind::hashplus: v = sym().add(l, r); break;
    case TokenKind::minus: case TokenKind::hashminus: v = sym().sub(l, r); break;
    case TokenKind::star: case TokenKind::hashstar: v = sym().mul(l, r); break;
    case TokenKind::slash: case TokenKind::hashslash: v = sym().floorDiv(l, r); break;
    case TokenKind::percent: case TokenKind::hashpercent: v = sym().mod(l, r); break;
    case TokenKind::equalequal: {
      sym::Truth truth = sym().proveEQ(l, r);
      if (truth != sym::Truth::Unknown) v = sym().constant(truth == sym::Truth::True);
      break;
    }
    case TokenKind::exclaimequal: {
      sym::Truth truth = sym().proveNE(l, r);
      if (truth != sym::Truth::Unknown) v = sym().constant(truth == sym::Truth::True);
      break;
    }
    case TokenKind::less:
    case TokenKind::lessequal:
    case TokenKind::greater:
    case TokenKind::greaterequal: {
      sym::Truth truth = op == TokenKind::less        ? sym().proveLT(l, r)
                         : op == TokenKind::lessequal ? sym().proveLE(l, r)
                         : op == TokenKind::greater   ? sym().proveGT(l, r)
                                                      : sym().proveGE(l, r);
      if (truth != sym::Truth::Unknown) v = sym().constant(truth == sym::Truth::True);
      break;
    }
    default: {
      auto cl = sym::constantValue(l), cr = sym::constantValue(r);
      if (cl && cr) {
        bool shiftable = *cr >= 0 && *cr < 64;
        switch (op) {
          case TokenKind::amp: v = sym().constant(*cl & *cr); break;
          case TokenKind::pipe: v = sym().constant(*cl | *cr); break;
          case TokenKind::caret: v = sym().constant(*cl ^ *cr); break;
          case TokenKind::lessless:
            if (shiftable) v = sym().constant(static_cast<std::int64_t>(static_cast<std::uint64_t>(*cl) << *cr));
            break;
          case TokenKind::greatergreater:
            if (shiftable) v = sym().constant(*cl >> *cr);
            break;
          default: break;
        }
      }
      break;
    }
  }
  if (sym::isDivisionByZero(v)) {
    report(b->range(), DiagKind::err_division_by_zero, exprText(b));
    return Type::error();
  }
  if (overflowsOnConstants(op, l, r, v)) {
    report(b->range(), DiagKind::err_constant_overflow, exprText(b), *sym::constantValue(l), tokenKindSpelling(op),
           *sym::constantValue(r));
    return Type::error();
  }
  t.values = {v};
  return t;
}

/// The value of `c ? a : b` when `c` is known only at run time: `min`/`max`
/// when it compares its two branches (`a < b ? a : b`), else a value known
/// to lie between the bounds of the branches (`x == 5 ? 2 : 3`), else unknown.
const SymExpr* Checker::runtimeChoice(const ConditionalExpr* c, std::optional<sym::Interval> thenRange,
                                      std::optional<sym::Interval> elseRange) {
  // Integers and integer data (`64 < rows - i * 64 ? 64 : rows - i * 64`).
  const SymExpr* a = integerDataValue(c->then);
  const SymExpr* b = integerDataValue(c->otherwise);
  if (const auto* cmp = llvm::dyn_cast<BinaryExpr>(c->cond)) {
    const SymExpr* l = integerDataValue(cmp->lhs);
    const SymExpr* r = integerDataValue(cmp->rhs);
    bool less = cmp->op == TokenKind::less || cmp->op == TokenKind::lessequal;
    bool greater = cmp->op == TokenKind::greater || cmp->op == TokenKind::greaterequal;
    if ((less || greater) && !sym::isUnknown(l) && !sym::isUnknown(r)) {
      if (l == a && r == b) return less ? sym().min(a, b) : sym().max(a, b);
      if (l == b && r == a) return less ? sym().max(a, b) : sym().min(a, b);
    }
  }
  // Each branch's values where it is chosen, else all its values: then the
  // choice's range is wider than its values, and a subscript does not judge it.
  bool narrowed = thenRange && elseRange;
  sym::Interval x = narrowed ? *thenRange : sym().bounds(a), y = narrowed ? *elseRange : sym().bounds(b);
  if (x.lo && x.hi && y.lo && y.hi) {
    const SymExpr* choice =
        sym().freshSymbol(exprText(c), std::min(*x.lo, *y.lo), sym().constant(std::max(*x.hi, *y.hi) + 1));
    if (!narrowed) impreciseChoices_[llvm::cast<sym::SymbolExpr>(choice)] = unknown();
    return choice;
  }
  return unknown();
}

Type Checker::checkConditional(const ConditionalExpr* c) {
  check(c->cond);
  Type a, b;
  std::optional<sym::Interval> thenRange, elseRange;
  auto rangeOf = [&](const Expr* e, const Type& t) -> std::optional<sym::Interval> {
    const SymExpr* v = t.isIntegral() || (t.kind == TypeKind::Element && isIntegerElem(t.elem)) ? integerDataValue(e)
                                                                                               : unknown();
    if (sym::isUnknown(v)) return std::nullopt;
    return pathBounds(v);
  };
  underCondition(c->cond, false, [&] {
    a = check(c->then);
    thenRange = rangeOf(c->then, a);
  });
  underCondition(c->cond, true, [&] {
    b = check(c->otherwise);
    elseRange = rangeOf(c->otherwise, b);
  });
  if (a.isError() || b.isError()) return Type::error();
  if (a.isIntegral() && b.isIntegral()) {
    Type t = Type::simple(TypeKind::Int);
    std::optional<std::int64_t> cond = constantOf(c->cond);
    if (cond) t.values = {*cond ? valueOf(c->then) : valueOf(c->otherwise)};
    else t.values = {runtimeChoice(c, thenRange, elseRange)};
    return t;
  }
  auto integerData = [](const Type& x) { return x.kind == TypeKind::Element && isIntegerElem(x.elem); };
  // An integer or integer data (`c ? 64 : rows`): an integer chosen at run
  // time, followed symbolically where sema can.
  if ((a.isIntegral() && integerData(b)) || (integerData(a) && b.isIntegral())) {
    Type t = Type::simple(TypeKind::Int);
    t.values = {runtimeChoice(c, thenRange, elseRange)};
    return t;
  }
  // Otherwise an element when either branch is one (`c ? 0 : x` of an f32
  // x is an f32), with no value known before run time.
  if ((a.kind == TypeKind::Element || b.kind == TypeKind::Element) && !(integerData(a) && integerData(b))) {
    Type t = Type::simple(TypeKind::Element);
    t.elem = promoteElem(a.kind == TypeKind::Element ? a.elem : TokenKind::eof,
                         b.kind == TypeKind::Element ? b.elem : TokenKind::eof);
    if (t.elem == TokenKind::eof) t = Type::simple(TypeKind::Opaque);
    return t;
  }
  return a;
}

Type Checker::checkItuple(const ItupleExpr* tuple) {
  Type t = Type::simple(TypeKind::Ituple);
  for (const Expr* e : tuple->elements) {
    Type el = check(e);
    if (el.isError()) return el;
    if (el.kind == TypeKind::Ituple) {
      t.values.append(el.values.begin(), el.values.end());
    } else if (el.isIntegral()) {
      t.values.push_back(valueOf(e));
    } else if (el.kind == TypeKind::BoundedTuple) {
      SymList values = tupleValues(el);
      t.values.append(values.begin(), values.end());
    } else if (const SymExpr* v = integerEntryValue(e, el)) {
      t.values.push_back(v);
    } else {
      report(e->range(), DiagKind::err_type_mismatch, "an integer in the ituple", "a value", describe(el));
      return Type::error();
    }
  }
  return t;
}

Type Checker::checkMdspan(const MdspanExpr* m) {
  Type t = Type::simple(TypeKind::Mdspan);
  for (const Expr* e : m->dims) {
    Type d = check(e);
    if (d.isError()) return d;
    if (d.kind == TypeKind::Mdspan) {
      t.shape.append(d.shape.begin(), d.shape.end());
    } else if (d.isIntegral()) {
      t.shape.push_back(valueOf(e));
    } else if (d.kind == TypeKind::Ituple) {
      t.shape.append(d.values.begin(), d.values.end());
    } else if (const SymExpr* v = integerEntryValue(e, d)) {
      t.shape.push_back(v);
    } else {
      report(e->range(), DiagKind::err_mdspan_non_integer, describe(d));
      return Type::error();
    }
  }
  return t;
}

Type Checker::checkMember(const MemberExpr* m) {
  Type base = check(m->base);
  if (base.isError()) return base;
  switch (m->member) {
    case TokenKind::m_span: {
      if (base.kind == TypeKind::Data || base.kind == TypeKind::Future || base.kind == TypeKind::Fragment ||
          base.kind == TypeKind::Accumulator || base.kind == TypeKind::BoundedTuple || base.kind == TypeKind::Mdspan) {
        Type t = Type::simple(TypeKind::Mdspan);
        t.shape = base.shape;
        return t;
      }
      break;
    }
    case TokenKind::m_data:
    case TokenKind::m_mdata: {
      if (base.kind == TypeKind::Future) {
        if (const auto* name = llvm::dyn_cast<NameExpr>(m->base)) {
          const Symbol* s = result_.references.lookup(name);
          auto it = s ? futures_.find(s) : futures_.end();
          if (it != futures_.end() && it->second.async && !it->second.waited && loopDepth_ == 0)
            report(m->range(), DiagKind::err_data_before_wait, name->name)
                .note(it->second.boundAt, DiagKind::note_bound_here, name->name);
        }
        Type t = base;
        t.kind = TypeKind::Data;
        return t;
      }
      // `x.data` of spanned data is the data itself, as Croqtile reads it
      // (`call f(a.data)` with `a` a parameter).
      if (m->member == TokenKind::m_data && base.kind == TypeKind::Data) return base;
      report(m->range(), DiagKind::err_data_of_non_future, tokenKindSpelling(m->member), exprText(m->base),
             describe(base));
      return Type::error();
    }
    default: break;
  }
  report(m->range(), DiagKind::err_member_not_applicable, tokenKindSpelling(m->member), describe(base), exprText(m->base));
  return Type::error();
}

Type Checker::checkElementOf(const ElementOfExpr* e) {
  Type base = check(e->base);
  for (const Expr* a : e->args) check(a);
  if (base.isError()) return base;
  // Ituple sugar `t {(0), 2}`.
  if (e->args.size() == 1 && llvm::isa<ItupleExpr>(e->args[0])) return check(e->args[0]);
  if (base.kind == TypeKind::Opaque && llvm::isa<NameExpr>(e->base)) {
    // A `__device__` function is called with `call`, unless an intrinsic
    // pragma registered its name (spec 16.1, 16.3).
    const Symbol* callee = result_.references.lookup(e->base);
    StringRef name = llvm::cast<NameExpr>(e->base)->name;
    if (callee && callee->kind == Symbol::Kind::Function &&
        llvm::none_of(intrinsicPrefixes_, [&](const std::string& p) { return name.startswith(p); })) {
      report(e->range(), DiagKind::err_not_a_call_target, name);
      return Type::error();
    }
    return Type::simple(TypeKind::Opaque);
  }
  std::optional<std::int64_t> firstIndex =
      e->args.size() == 1 && !llvm::isa<RangeExpr>(e->args[0]) ? constantOf(e->args[0]) : std::nullopt;
  if (base.kind == TypeKind::Bounded && base.rankOneTuple && e->args.size() == 1 &&
      !llvm::isa<RangeExpr>(e->args[0]) && !(firstIndex && *firstIndex < 0)) {
    // `y(0)` of `with y in [512]`: the only element of a rank-1 bounded ituple
    // (`y(-1)` is the range probe below, as for a bounded int).
    std::optional<std::int64_t> index = firstIndex;
    if (!index) {
      report(e->args[0]->range(), DiagKind::err_element_of_non_constant, exprText(e->base), exprText(e->args[0]));
      return Type::error();
    }
    if (*index != 0) {
      report(e->args[0]->range(), DiagKind::err_element_of_out_of_range, *index, exprText(e->base), 1);
      return Type::error();
    }
    Type t = base;
    t.rankOneTuple = false;
    return t;
  }
  if (base.kind == TypeKind::Bounded) {
    // A range probe `y(-1)` (a value relative to the bound) or `y(lo:hi)`.
    Type t = base;
    if (e->args.size() == 1 && !llvm::isa<RangeExpr>(e->args[0])) {
      t = Type::simple(TypeKind::Int);
      const SymExpr* extent = base.shape.empty() ? unknown() : base.shape[0];
      const SymExpr* offset = valueOf(e->args[0]);
      std::optional<std::int64_t> c = sym::constantValue(offset);
      t.values = {c && *c < 0 ? sym().add(extent, offset) : offset};
    }
    return t;
  }
  if (base.kind == TypeKind::BoundedTuple) {
    std::optional<std::int64_t> index = e->args.size() == 1 ? constantOf(e->args[0]) : std::nullopt;
    if (!index || *index < 0 || *index >= static_cast<std::int64_t>(base.shape.size())) {
      report(e->range(), DiagKind::err_element_of_out_of_range, index.value_or(-1), exprText(e->base), base.shape.size());
      return Type::error();
    }
    Type t = Type::simple(TypeKind::Bounded);
    t.shape = {base.shape[static_cast<size_t>(*index)]};
    t.values = {tupleValues(base)[static_cast<size_t>(*index)]};
    return t;
  }
  SymList items;
  if (base.kind == TypeKind::Mdspan) items = base.shape;
  else if (base.kind == TypeKind::Ituple) items = base.values;
  else {
    report(e->range(), DiagKind::err_member_not_applicable, "(...)", describe(base), exprText(e->base));
    return Type::error();
  }
  if (e->args.size() != 1) {
    report(e->range(), DiagKind::err_builtin_arity, exprText(e->base), 1, e->args.size());
    return Type::error();
  }
  std::optional<std::int64_t> index = constantOf(e->args[0]);
  if (!index) {
    report(e->args[0]->range(), DiagKind::err_element_of_non_constant, exprText(e->base), exprText(e->args[0]));
    return Type::error();
  }
  if (*index < 0 || *index >= static_cast<std::int64_t>(items.size())) {
    report(e->args[0]->range(), DiagKind::err_element_of_out_of_range, *index, exprText(e->base), items.size());
    return Type::error();
  }
  Type t = Type::simple(TypeKind::Int);
  t.values = {items[static_cast<size_t>(*index)]};
  return t;
}

Type Checker::checkSubscript(const SubscriptExpr* s) {
  Type base = check(s->base);
  if (base.isError()) {
    for (const Expr* i : s->indices) check(i);
    return base;
  }
  // Shape sugar: `shape[(0) / 2, (1) + 1]`, where `(i)` is dimension i.
  if (base.kind == TypeKind::Mdspan) {
    std::function<const SymExpr*(const Expr*)> eval = [&](const Expr* e) -> const SymExpr* {
      if (const auto* lit = llvm::dyn_cast<IntLiteralExpr>(e); lit && lit->parenthesized) {
        auto dim = static_cast<size_t>(lit->value.value);
        if (dim >= base.shape.size()) {
          report(e->range(), DiagKind::err_element_of_out_of_range, dim, exprText(s->base), base.shape.size());
          return unknown();
        }
        return base.shape[dim];
      }
      if (const auto* b = llvm::dyn_cast<BinaryExpr>(e)) {
        const SymExpr* l = eval(b->lhs);
        const SymExpr* r = eval(b->rhs);
        switch (b->op) {
          case TokenKind::plus: return sym().add(l, r);
          case TokenKind::minus: return sym().sub(l, r);
          case TokenKind::star: return sym().mul(l, r);
          case TokenKind::slash: return sym().floorDiv(l, r);
          case TokenKind::percent: return sym().mod(l, r);
          default: return unknown();
        }
      }
      return intValue(e, "a dimension");
    };
    Type t = Type::simple(TypeKind::Mdspan);
    for (const Expr* i : s->indices) t.shape.push_back(eval(i));
    return t;
  }
  for (const Expr* i : s->indices) check(i);
  if (base.arrayDims.empty()) {
    report(s->range(), DiagKind::err_not_an_array, exprText(s->base));
    return Type::error();
  }
  if (s->indices.size() > base.arrayDims.size()) {
    report(s->range(), DiagKind::err_array_index_count, exprText(s->base), base.arrayDims.size(), s->indices.size());
    return Type::error();
  }
  for (size_t d = 0; d < s->indices.size(); ++d) {
    Type it = check(s->indices[d]);
    // An integer element (`mutable u32 stage`) indexes as its value does.
    bool integerElement = it.kind == TypeKind::Element && isIntegerElem(it.elem);
    if (!it.isIntegral() && !integerElement) {
      if (!it.isError())
        report(s->indices[d]->range(), DiagKind::err_type_mismatch, "an integer index", "a value", describe(it));
      continue;
    }
    std::optional<std::int64_t> c = constantOf(s->indices[d]);
    std::optional<std::int64_t> bound = sym::constantValue(base.arrayDims[d]);
    if (c && bound && (*c < 0 || *c >= *bound)) {
      report(s->indices[d]->range(), DiagKind::err_array_index_out_of_range, *c, d, exprText(s->base), *bound);
      continue;
    }
    if (c || !bound || !it.isIntegral()) continue;
    // An index that runs over bounded variables (`b[wg - 1]` in `parallel
    // wg by 3`) must stay in range for every value they take on this path.
    const SymExpr* v = valueOf(s->indices[d]);
    if (sym::isUnknown(v) || sym::isUnknown(sym().substitute(v, impreciseChoices_))) continue;
    std::optional<sym::Interval> r = pathBounds(v);
    if (!r || !r->lo || !r->hi || (*r->lo >= 0 && *r->hi < *bound)) continue;
    std::string index = "`" + exprText(s->indices[d]) + "`";
    std::string value = sym::printForUser(v);
    if ("`" + value + "`" != index) index += " (`" + value + "`)";
    report(s->indices[d]->range(), DiagKind::err_array_index_range_out_of_range, index, d, exprText(s->base), *bound,
           *r->lo, *r->hi);
  }
  Type t = base;
  t.arrayDims.erase(t.arrayDims.begin(), t.arrayDims.begin() + static_cast<std::ptrdiff_t>(s->indices.size()));
  return t;
}

}  // namespace croqc::sema
