// KIR's types and the names of its kinds, and the Module's construction of
// nodes, with the folding constructors of index arithmetic. Printing is in
// Print.cpp, the verifier in Verify.cpp.
#include "kir/KIR.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringSwitch.h>

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

#include "target/ElementTypes.h"

namespace croqc::kir {

// ---------------------------------------------------------------------------
// Types

std::string cxxElementType(TokenKind elem) {
  switch (elem) {
    case TokenKind::ty_f32: return "float";
    case TokenKind::ty_f64: return "double";
    default: return "croq::" + tokenKindSpelling(elem).str();
  }
}

KernelParam KernelParam::ofBuffer(const Buffer* b) {
  KernelParam p;
  p.kind = Kind::Buffer;
  p.name = b->name;
  p.buffer = b;
  p.argument = b->name;
  return p;
}

KernelParam KernelParam::scalar(std::string name, ScalarType type, std::string argument) {
  KernelParam p;
  p.kind = Kind::Scalar;
  p.name = std::move(name);
  p.type = type;
  p.argument = std::move(argument);
  return p;
}

KernelParam KernelParam::tensorMap(std::string name) {
  KernelParam p;
  p.kind = Kind::TensorMap;
  p.argument = name;
  p.name = std::move(name);
  return p;
}

Type paramType(const KernelParam& p) {
  switch (p.kind) {
    case KernelParam::Kind::Buffer: return Type::pointer(p.buffer->elem, p.buffer->space);
    case KernelParam::Kind::Scalar: return Type::of(p.type);
    case KernelParam::Kind::TensorMap: return Type::tensorMap();
  }
  return Type::of(p.type);
}

std::string typeName(ScalarType t) {
  switch (t.kind) {
    case ScalarType::Kind::Void: return "void";
    case ScalarType::Kind::Bool: return "bool";
    case ScalarType::Kind::Int: return "int";
    case ScalarType::Kind::Elem: return tokenKindSpelling(t.elem).str();
  }
  return "int";
}

std::string typeName(const Type& t) {
  std::string elem = typeName(t.scalar);
  switch (t.kind) {
    case Type::Kind::Scalar: return elem;
    case Type::Kind::Pointer: return elem + "* " + spaceName(t.space).str();
    case Type::Kind::TensorMap: return "tensor-map";
    case Type::Kind::View: return "view<" + elem + ", " + std::to_string(t.rank) + ">";
    case Type::Kind::Data: return "data<" + elem + ", " + std::to_string(t.rank) + ">";
    case Type::Kind::Stream: return "stream";
  }
  return elem;
}

std::string cxxTypeName(ScalarType t) {
  switch (t.kind) {
    case ScalarType::Kind::Void: return "void";
    case ScalarType::Kind::Bool: return "bool";
    case ScalarType::Kind::Int: return "int";
    case ScalarType::Kind::Elem: return cxxElementType(t.elem);
  }
  return "int";
}

TokenKind computeType(TokenKind elem) {
  if (target::isFloatType(elem) && target::elementBits(elem) < 32) return TokenKind::ty_f32;
  return elem;
}

llvm::StringRef spaceName(Space s) {
  switch (s) {
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Local: return "local";
  }
  return "?";
}

llvm::StringRef scopeName(Scope s) {
  switch (s) {
    case Scope::Thread: return "thread";
    case Scope::Warp: return "warp";
    case Scope::Warpgroup: return "warpgroup";
    case Scope::Cta: return "cta";
    case Scope::Cluster: return "cluster";
  }
  return "?";
}

llvm::StringRef fragRoleName(FragRole r) {
  switch (r) {
    case FragRole::A: return "A";
    case FragRole::B: return "B";
    case FragRole::C: return "C";
    case FragRole::E: return "E";
  }
  return "?";
}

llvm::StringRef stmtKindName(StmtKind k) {
  switch (k) {
#define KIR_STMT(Name, Keyword, Description) \
  case StmtKind::Name: return Description;
#include "kir/StmtKinds.def"
  }
  return "statement";
}

llvm::StringRef stmtKeyword(StmtKind k) {
  switch (k) {
#define KIR_STMT(Name, Keyword, Description) \
  case StmtKind::Name: return Keyword;
#include "kir/StmtKinds.def"
  }
  return "?";
}

std::int64_t Buffer::slotCount() const {
  std::int64_t n = 1;
  for (std::int64_t d : arrayDims) n *= d;
  return n;
}

std::int64_t Buffer::swizzleRows() const {
  std::int64_t n = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    if (!shape[d]->isConst()) return 0;
    n *= shape[d]->intValue;
  }
  return n;
}

bool Tile::alwaysFull() const {
  return inside == nullptr && llvm::all_of(valid, [](const Expr* v) { return v == nullptr; });
}

bool readsNonLocalMemory(const Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::Load && e->buffer && e->buffer->space != Space::Local) return true;
  for (const Expr* o : e->operands)
    if (readsNonLocalMemory(o)) return true;
  return false;
}

const Fragment* asyncAccumulatorAccessed(const Stmt* s) {
  const Fragment* f = nullptr;
  switch (s->kind) {
    case StmtKind::FragFill: f = s->frag; break;
    case StmtKind::AtomStore:
      if (s->i && s->i->isConst(0)) f = s->frag;
      break;
    case StmtKind::AccScale:
      if (s->i && s->i->isConst(0)) f = s->fragB;
      break;
    default: break;
  }
  return f && f->warpgroup && f->asyncUse ? f : nullptr;
}

namespace {

void forEachBufferLoaded(const Expr* e, llvm::function_ref<void(const Buffer*)> fn) {
  if (!e) return;
  if (e->buffer) fn(e->buffer);
  for (const Expr* o : e->operands) forEachBufferLoaded(o, fn);
}

}  // namespace

void forEachBufferUse(const Stmt& s, llvm::function_ref<void(const Buffer*)> fn) {
  if (s.kind == StmtKind::MbarrierInit || s.kind == StmtKind::EventInit || s.kind == StmtKind::BufferPointer) return;
  if (s.buffer) fn(s.buffer);
  for (const Expr* e : {s.lo, s.hi, s.cond, s.value, s.index, s.rank, s.i, s.j, s.k, s.mbarrierIndex})
    forEachBufferLoaded(e, fn);
  for (const std::vector<const Expr*>* list : {&s.fragIndex, &s.args})
    for (const Expr* e : *list) forEachBufferLoaded(e, fn);
  for (const Tile* t : {&s.dst, &s.src}) {
    if (t->buffer) fn(t->buffer);
    for (const Expr* e : {t->offset, t->inside, t->row0, t->col0}) forEachBufferLoaded(e, fn);
    for (const std::vector<const Expr*>* list : {&t->valid, &t->runtimeExtents, &t->strides})
      for (const Expr* e : *list) forEachBufferLoaded(e, fn);
  }
  for (const std::vector<Stmt*>* list : {&s.body, &s.elseBody})
    for (const Stmt* c : *list)
      if (c) forEachBufferUse(*c, fn);
}

std::int64_t knownMultiple(const Expr* e) {
  constexpr std::int64_t kCap = 1 << 20;
  if (!e) return 1;
  switch (e->kind) {
    case ExprKind::IntConst: {
      if (e->intValue == 0) return kCap;
      std::int64_t v = e->intValue < 0 ? -e->intValue : e->intValue;
      std::int64_t p = 1;
      while (p < kCap && v % (p * 2) == 0) p *= 2;
      return p;
    }
    case ExprKind::Binary:
      if (e->name == "*") return std::min(kCap, knownMultiple(e->operands[0]) * knownMultiple(e->operands[1]));
      if (e->name == "+" || e->name == "-")
        return std::min(knownMultiple(e->operands[0]), knownMultiple(e->operands[1]));
      return 1;
    default: return 1;
  }
}

// ---------------------------------------------------------------------------
// Construction

Module::Module() = default;
Module::~Module() = default;

Stmt* Module::stmt(StmtKind kind, llvm::SMLoc loc) {
  Stmt& s = stmts_.emplace_back();
  s.kind = kind;
  s.loc = loc;
  return &s;
}

Buffer* Module::buffer() { return &buffers_.emplace_back(); }
Fragment* Module::fragment() { return &fragments_.emplace_back(); }

const Expr* Module::make(Expr e) { return &exprs_.emplace_back(std::move(e)); }

const Expr* Module::intc(std::int64_t v) {
  Expr e;
  e.kind = ExprKind::IntConst;
  e.intValue = v;
  return make(std::move(e));
}

const Expr* Module::boolc(bool v) {
  Expr e;
  e.kind = ExprKind::BoolConst;
  e.type = ScalarType::boolean();
  e.intValue = v;
  return make(std::move(e));
}

const Expr* Module::floatc(llvm::StringRef spelling, TokenKind elem) {
  Expr e;
  e.kind = ExprKind::FloatConst;
  e.type = ScalarType::element(elem);
  e.name = spelling.str();
  return make(std::move(e));
}

const Expr* Module::var(llvm::StringRef name, ScalarType t) {
  Expr e;
  e.kind = ExprKind::Var;
  e.name = name.str();
  e.type = t;
  return make(std::move(e));
}

const Expr* Module::builtin(Builtin builtin, int dim) {
  Expr e;
  e.kind = ExprKind::Builtin;
  e.builtin = builtin;
  e.intValue = dim;
  e.type = ScalarType::integer();
  return make(std::move(e));
}

const Expr* Module::unary(llvm::StringRef op, const Expr* a, ScalarType t) {
  if (op == "-" && a->isConst()) return intc(-a->intValue);
  Expr e;
  e.kind = ExprKind::Unary;
  e.name = op.str();
  e.operands = {a};
  e.type = t;
  return make(std::move(e));
}

const Expr* Module::binary(llvm::StringRef op, const Expr* a, const Expr* b, ScalarType t) {
  Expr e;
  e.kind = ExprKind::Binary;
  e.name = op.str();
  e.operands = {a, b};
  e.type = t;
  return make(std::move(e));
}

const Expr* Module::add(const Expr* a, const Expr* b) {
  if (std::int64_t folded; a->isConst() && b->isConst() && !__builtin_add_overflow(a->intValue, b->intValue, &folded))
    return intc(folded);
  if (a->isConst(0)) return b;
  if (b->isConst(0)) return a;
  if (b->isConst() && b->intValue < 0 && b->intValue != std::numeric_limits<std::int64_t>::min())
    return binary("-", a, intc(-b->intValue), ScalarType::integer());
  return binary("+", a, b, ScalarType::integer());
}

const Expr* Module::sub(const Expr* a, const Expr* b) {
  if (std::int64_t folded; a->isConst() && b->isConst() && !__builtin_sub_overflow(a->intValue, b->intValue, &folded))
    return intc(folded);
  if (b->isConst(0)) return a;
  if (a == b) return intc(0);
  return binary("-", a, b, ScalarType::integer());
}

const Expr* Module::mul(const Expr* a, const Expr* b) {
  if (std::int64_t folded; a->isConst() && b->isConst() && !__builtin_mul_overflow(a->intValue, b->intValue, &folded))
    return intc(folded);
  if (a->isConst(0) || b->isConst(0)) return intc(0);
  if (a->isConst(1)) return b;
  if (b->isConst(1)) return a;
  if (a->isConst() && !b->isConst()) std::swap(a, b);
  return binary("*", a, b, ScalarType::integer());
}

const Expr* Module::div(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst() && b->intValue > 0 && a->intValue >= 0) return intc(a->intValue / b->intValue);
  if (b->isConst(1)) return a;
  if (a->isConst(0)) return a;
  return binary("/", a, b, ScalarType::integer());
}

const Expr* Module::mod(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst() && b->intValue > 0 && a->intValue >= 0) return intc(a->intValue % b->intValue);
  if (b->isConst(1)) return intc(0);
  return binary("%", a, b, ScalarType::integer());
}

const Expr* Module::cdiv(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst() && b->intValue > 0 && a->intValue >= 0)
    return intc((a->intValue + b->intValue - 1) / b->intValue);
  if (b->isConst(1)) return a;
  return intrinsic("cdiv", {a, b}, ScalarType::integer());
}

const Expr* Module::min(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return intc(std::min(a->intValue, b->intValue));
  if (a == b) return a;
  return intrinsic("min", {a, b}, ScalarType::integer());
}

const Expr* Module::max(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return intc(std::max(a->intValue, b->intValue));
  if (a == b) return a;
  return intrinsic("max", {a, b}, ScalarType::integer());
}

const Expr* Module::lt(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return boolc(a->intValue < b->intValue);
  return binary("<", a, b, ScalarType::boolean());
}

const Expr* Module::eq(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return boolc(a->intValue == b->intValue);
  return binary("==", a, b, ScalarType::boolean());
}

const Expr* Module::logicalAnd(const Expr* a, const Expr* b) {
  if (!a) return b;
  if (!b) return a;
  if (a->kind == ExprKind::BoolConst) return a->intValue ? b : a;
  if (b->kind == ExprKind::BoolConst) return b->intValue ? a : b;
  return binary("&&", a, b, ScalarType::boolean());
}

const Expr* Module::select(const Expr* c, const Expr* a, const Expr* b, ScalarType t) {
  if (c->kind == ExprKind::BoolConst) return c->intValue ? a : b;
  Expr e;
  e.kind = ExprKind::Select;
  e.operands = {c, a, b};
  e.type = t;
  return make(std::move(e));
}

const Expr* Module::call(llvm::StringRef callee, std::vector<const Expr*> args, ScalarType t,
                         std::vector<TemplateArg> templateArgs) {
  Expr e;
  e.kind = ExprKind::Call;
  e.name = callee.str();
  e.operands = std::move(args);
  e.templateArgs = std::move(templateArgs);
  e.type = t;
  return make(std::move(e));
}

const Expr* Module::intrinsic(llvm::StringRef name, std::vector<const Expr*> args, ScalarType t) {
  assert(!cxxIntrinsic(name).empty() && "not an intrinsic of kir/Intrinsics.def");
  Expr e;
  e.kind = ExprKind::Call;
  e.name = name.str();
  e.intrinsic = true;
  e.operands = std::move(args);
  e.type = t;
  return make(std::move(e));
}

llvm::StringRef cxxIntrinsic(llvm::StringRef name) {
#define KIR_INTRINSIC(Kir, Cxx) .Case(Kir, Cxx)
  return llvm::StringSwitch<llvm::StringRef>(name)
#include "kir/Intrinsics.def"
      .Default("");
}

const Expr* Module::address(const Buffer* b, const Expr* index) {
  Expr e;
  e.kind = ExprKind::Address;
  e.buffer = b;
  e.operands = {index};
  e.type = ScalarType::integer();
  return make(std::move(e));
}

const Expr* Module::load(const Buffer* b, const Expr* index) {
  Expr e;
  e.kind = ExprKind::Load;
  e.buffer = b;
  e.operands = {index};
  e.type = ScalarType::element(b->elem);
  return make(std::move(e));
}

const Expr* Module::fragElem(const Fragment* f, const Expr* atomRow, const Expr* atomCol, const Expr* elem) {
  Expr e;
  e.kind = ExprKind::FragElem;
  e.frag = f;
  e.operands = {atomRow, atomCol, elem};
  e.type = ScalarType::element(f->accType);
  return make(std::move(e));
}

const Expr* Module::convert(const Expr* e, ScalarType to) {
  if (e->type.kind == to.kind && e->type.elem == to.elem) return e;
  // Integer constants become constants of the target type.
  if (e->kind == ExprKind::IntConst && to.kind == ScalarType::Kind::Elem) {
    if (target::isIntegerType(to.elem)) {
      Expr c = *e;
      c.type = to;
      return make(std::move(c));
    }
    if (to.elem == TokenKind::ty_f32 || to.elem == TokenKind::ty_f64) {
      std::string text = std::to_string(e->intValue) + ".0";
      return floatc(to.elem == TokenKind::ty_f32 ? text + "f" : text, to.elem);
    }
  }
  if (e->kind == ExprKind::IntConst && to.kind == ScalarType::Kind::Int) {
    Expr c = *e;
    c.type = to;
    return make(std::move(c));
  }
  Expr c;
  c.kind = ExprKind::Convert;
  c.operands = {e};
  c.type = to;
  return make(std::move(c));
}

const Expr* Module::viewExtent(llvm::StringRef view, std::int64_t dim) {
  Expr e;
  e.kind = ExprKind::ViewExtent;
  e.name = view.str();
  e.intValue = dim;
  e.type = ScalarType::integer();
  return make(std::move(e));
}

}  // namespace croqc::kir
