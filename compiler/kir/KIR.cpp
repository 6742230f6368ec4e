#include "kir/KIR.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
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
  return call("croq::cdiv", {a, b}, ScalarType::integer());
}

const Expr* Module::min(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return intc(std::min(a->intValue, b->intValue));
  if (a == b) return a;
  return call("croq::imin", {a, b}, ScalarType::integer());
}

const Expr* Module::max(const Expr* a, const Expr* b) {
  if (a->isConst() && b->isConst()) return intc(std::max(a->intValue, b->intValue));
  if (a == b) return a;
  return call("croq::imax", {a, b}, ScalarType::integer());
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

const Expr* Module::call(llvm::StringRef callee, std::vector<const Expr*> args, ScalarType t) {
  Expr e;
  e.kind = ExprKind::Call;
  e.name = callee.str();
  e.operands = std::move(args);
  e.type = t;
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

// ---------------------------------------------------------------------------
// Printing expressions as C++

namespace {

int precedence(const Expr* e) {
  switch (e->kind) {
    case ExprKind::Binary: {
      llvm::StringRef op = e->name;
      if (op == "*" || op == "/" || op == "%") return 13;
      if (op == "+" || op == "-") return 12;
      if (op == "<<" || op == ">>") return 11;
      if (op == "<" || op == "<=" || op == ">" || op == ">=") return 10;
      if (op == "==" || op == "!=") return 9;
      if (op == "&") return 8;
      if (op == "^") return 7;
      if (op == "|") return 6;
      if (op == "&&") return 5;
      if (op == "||") return 4;
      return 3;
    }
    case ExprKind::Select: return 2;
    case ExprKind::Unary: return 14;
    default: return 16;
  }
}

const char* fenceName(FenceKind f) {
  switch (f) {
    case FenceKind::Device: return "device";
    case FenceKind::Block: return "block";
    case FenceKind::ProxyAsyncShared: return "proxy.async.shared";
    case FenceKind::MbarrierInit: return "mbarrier.init";
  }
  return "?";
}

void printInto(const Expr* e, std::string& out);

void printOperand(const Expr* e, int parentPrec, bool rightSide, std::string& out) {
  int p = precedence(e);
  bool parens = p < parentPrec || (rightSide && p == parentPrec);
  if (parens) out += '(';
  printInto(e, out);
  if (parens) out += ')';
}

void printInto(const Expr* e, std::string& out) {
  switch (e->kind) {
    case ExprKind::IntConst:
      out += std::to_string(e->intValue);
      return;
    case ExprKind::BoolConst:
      out += e->intValue ? "true" : "false";
      return;
    case ExprKind::FloatConst:
      out += e->name;
      return;
    case ExprKind::Var:
      out += e->name;
      return;
    case ExprKind::Unary:
      out += e->name;
      printOperand(e->operands[0], 14, false, out);
      return;
    case ExprKind::Binary: {
      int p = precedence(e);
      printOperand(e->operands[0], p, false, out);
      out += ' ';
      out += e->name;
      out += ' ';
      printOperand(e->operands[1], p, true, out);
      return;
    }
    case ExprKind::Select:
      printOperand(e->operands[0], 3, false, out);
      out += " ? ";
      printOperand(e->operands[1], 3, false, out);
      out += " : ";
      printOperand(e->operands[2], 2, false, out);
      return;
    case ExprKind::Call:
      out += e->name;
      out += '(';
      for (size_t i = 0; i < e->operands.size(); ++i) {
        if (i) out += ", ";
        printInto(e->operands[i], out);
      }
      out += ')';
      return;
    case ExprKind::Load:
      out += e->buffer->name;
      out += '[';
      printInto(e->operands[0], out);
      out += ']';
      return;
    case ExprKind::Convert:
      out += "croq::cvt<" + cxxTypeName(e->type) + ">(";
      printInto(e->operands[0], out);
      out += ')';
      return;
    case ExprKind::FragElem:
      // A warpgroup accumulator is `float acc[atoms][N / 2]`; a warp one
      // `croq::mma::frag_c<float> acc[M / 16][N / 8]` of four values each.
      out += e->frag->name;
      out += '[';
      printInto(e->operands[0], out);
      if (!e->frag->warpgroup) {
        out += "][";
        printInto(e->operands[1], out);
        out += "].r";
      }
      out += e->frag->warpgroup ? "][" : "[";
      printInto(e->operands[2], out);
      out += ']';
      return;
  }
}

}  // namespace

std::string printExpr(const Expr* e) {
  std::string out;
  if (e) printInto(e, out);
  return out;
}

// ---------------------------------------------------------------------------
// --emit=kir

namespace {

class KirPrinter {
 public:
  KirPrinter(const llvm::SourceMgr& sm, llvm::raw_ostream& os) : sm_(sm), os_(os) {}

  void module(const Module& m) {
    for (const TopItem& item : m.items) {
      if (item.kind == TopItem::Kind::HostText) {
        os_ << "host-code " << where(item.loc) << " (" << item.text.size() << " bytes)\n";
        continue;
      }
      function(*item.function);
    }
  }

 private:
  std::string where(llvm::SMLoc loc) const {
    if (!loc.isValid()) return "<builtin>";
    auto [line, col] = sm_.getLineAndColumn(loc);
    return std::to_string(line) + ":" + std::to_string(col);
  }

  void indent() { os_.indent(depth_ * 2); }

  void function(const Function& f) {
    os_ << "function " << f.name << " " << where(f.loc) << " -> " << f.returnType << "\n";
    for (const auto& k : f.kernels) kernel(*k);
    os_ << "  wrapper (stream " << f.stream << ") {\n";
    for (const HostStmt& h : f.wrapper) {
      if (h.kind == HostStmt::Kind::Code) {
        depth_ = 2;
        for (const Stmt* s : h.code) stmt(s);
        continue;
      }
      os_ << "    ";
      switch (h.kind) {
        case HostStmt::Kind::CheckShape: os_ << "check " << h.text << "  \"" << h.message << "\""; break;
        case HostStmt::Kind::Let: os_ << "let " << h.var << " : " << cxxTypeName(h.type) << " = " << h.text; break;
        case HostStmt::Kind::DataPointer:
          os_ << "pointer " << h.buffer->name << " : " << tokenKindSpelling(h.buffer->elem) << " global = " << h.from
              << ".data()";
          break;
        case HostStmt::Kind::AllocDevice:
          os_ << "alloc " << h.buffer->name << " : " << tokenKindSpelling(h.buffer->elem) << " global";
          if (!h.from.empty()) os_ << " <- copy-in " << h.from;
          else if (!h.text.empty()) os_ << " <- fill " << h.text;
          os_ << " on " << h.stream;
          break;
        case HostStmt::Kind::Launch:
          os_ << "launch " << h.kernel->name << " on " << h.stream << (h.async ? " async" : "");
          break;
        case HostStmt::Kind::CopyOut: os_ << "copy-out " << h.buffer->name << " -> " << h.from << " on " << h.stream; break;
        case HostStmt::Kind::Return:
          os_ << "return " << (h.buffer ? h.buffer->name : h.text) << " on " << h.stream;
          break;
        case HostStmt::Kind::Raw: os_ << "host " << h.text; break;
        case HostStmt::Kind::Code: break;
        case HostStmt::Kind::StreamWait: os_ << "stream-wait " << h.text << " for " << h.from; break;
        case HostStmt::Kind::StreamSync: os_ << "stream-sync " << h.text; break;
        case HostStmt::Kind::TensorMap:
          os_ << "tensor-map " << h.text << " = " << h.buffer->name << " [" << printExpr(h.tensorRows) << ", "
              << printExpr(h.tensorCols) << "] box [" << h.boxRows << ", " << h.boxCols
              << "] swizzle " << h.swizzle << (h.staged ? " staged on " + h.stream : std::string());
          break;
      }
      os_ << "\n";
    }
    os_ << "  }\n";
  }

  void kernel(const Kernel& k) {
    os_ << "  kernel " << k.name << " grid(";
    for (size_t i = 0; i < k.grid.size(); ++i) os_ << (i ? ", " : "") << printExpr(k.grid[i]);
    os_ << ") threads(" << k.threads << ") shared(" << k.sharedBytes << " B"
        << (k.runtimeSharedBytes ? ", at launch " + printExpr(k.runtimeSharedBytes) + " B" : "") << ")"
        << (k.cooperative ? " cooperative" : "")
        << (k.clusterSize > 1 ? " cluster(" + std::to_string(k.clusterSize) + ")" : "")
        << " {\n";
    for (const KernelParam& p : k.params) os_ << "    param " << p.name << " : " << p.cxxType << "\n";
    depth_ = 2;
    for (const Stmt* s : k.body) stmt(s);
    os_ << "  }\n";
  }

  /// `frag`, or `frag[a][b]` for an element of an accumulator array.
  static std::string fragRef(const Stmt* s) {
    std::string r = s->frag->name;
    for (const Expr* i : s->fragIndex) r += "[" + printExpr(i) + "]";
    return r;
  }

  std::string tile(const Tile& t) {
    std::string s = t.buffer ? t.buffer->name : "?";
    s += "[" + printExpr(t.offset) + "]";
    if (t.buffer && t.buffer->swizzleBytes)
      s += "(" + printExpr(t.row0) + ", " + printExpr(t.col0) + " swizzle " + std::to_string(t.buffer->swizzleBytes) +
           ")";
    s += " <";
    for (size_t d = 0; d < t.extents.size(); ++d) s += (d ? "x" : "") + std::to_string(t.extents[d]);
    s += "> stride(";
    for (size_t d = 0; d < t.strides.size(); ++d) s += (d ? ", " : "") + printExpr(t.strides[d]);
    s += ")";
    if (!t.alwaysFull()) {
      s += " valid(";
      for (size_t d = 0; d < t.valid.size(); ++d) s += (d ? ", " : "") + (t.valid[d] ? printExpr(t.valid[d]) : "all");
      s += ")";
      if (t.inside) s += " if " + printExpr(t.inside);
    }
    return s;
  }

  void block(const std::vector<Stmt*>& body) {
    ++depth_;
    for (const Stmt* s : body) stmt(s);
    --depth_;
  }

  void stmt(const Stmt* s) {
    indent();
    switch (s->kind) {
      case StmtKind::Block:
        os_ << "{\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::For:
        os_ << "for " << s->var << " in [" << printExpr(s->lo) << ", " << printExpr(s->hi) << ")";
        if (s->step != 1) os_ << " step " << s->step;
        if (s->unroll) os_ << " unroll";
        os_ << " {\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::If:
        os_ << "if " << printExpr(s->cond) << " {\n";
        block(s->body);
        if (!s->elseBody.empty()) {
          indent();
          os_ << "} else {\n";
          block(s->elseBody);
        }
        indent();
        os_ << "}\n";
        return;
      case StmtKind::While:
        os_ << "while " << printExpr(s->cond) << " {\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::Let:
        os_ << (s->isMutable ? "var " : "let ") << s->var << " : " << cxxTypeName(s->type) << " = "
            << printExpr(s->value) << "\n";
        return;
      case StmtKind::Assign: os_ << s->var << " " << s->op << " " << printExpr(s->value) << "\n"; return;
      case StmtKind::Store:
        os_ << "store " << s->buffer->name << "[" << printExpr(s->index) << "] " << s->op << " "
            << printExpr(s->value) << "\n";
        return;
      case StmtKind::Barrier:
        os_ << "barrier " << scopeName(s->scope);
        if (s->scope == Scope::Warpgroup) os_ << " named " << s->count << " + warpgroup (128 threads)";
        else if (s->count > 0) os_ << " named " << s->count << " (" << s->threads << " threads)";
        os_ << "\n";
        return;
      case StmtKind::EventArrive:
        os_ << "event.arrive " << s->text;
        if (s->count > 0) os_ << " expect " << s->count << " bytes";
        if (s->rank) os_ << " by rank 0 of " << printExpr(s->rank);
        if (s->cluster > 1) os_ << " in all " << s->cluster << " blocks of the cluster";
        os_ << "\n";
        return;
      case StmtKind::EventWait:
        os_ << "event.wait " << s->text << " parity ";
        if (s->value) os_ << printExpr(s->value) << "\n";
        else os_ << s->var << "[" << printExpr(s->index) << "]\n";
        return;
      case StmtKind::Copy:
        os_ << (s->async ? "copy.async " : "copy ") << scopeName(s->scope) << "(" << s->threads << ") "
            << tile(s->dst) << " <- " << tile(s->src) << (s->zfill ? " zfill" : "") << "\n";
        return;
      case StmtKind::AsyncCommit: os_ << "async.commit\n"; return;
      case StmtKind::AsyncWait: os_ << "async.wait " << s->count << "\n"; return;
      case StmtKind::FragDecl: {
        const Fragment* f = s->frag;
        const char* role = f->role == FragRole::A   ? "A"
                           : f->role == FragRole::B ? "B"
                           : f->role == FragRole::E ? "E"
                                                    : "C";
        os_ << "fragment " << f->name << " : " << role << " " << tokenKindSpelling(f->inType);
        if (f->role == FragRole::C) os_ << " -> " << tokenKindSpelling(f->accType);
        os_ << " [" << f->logicalRows << ", " << f->logicalCols << "] atoms " << f->rows << "x" << f->cols
            << (f->warpgroup ? " warpgroup" : "");
        if (!f->warpgroup && !f->defaultAtom()) os_ << " m" << f->atomM << "n8k" << f->atomK;
        for (std::int64_t d : f->arrayDims) os_ << " [" << d << "]";
        os_ << "\n";
        return;
      }
      case StmtKind::FragFill: os_ << "fill " << fragRef(s) << " = " << printExpr(s->value) << "\n"; return;
      case StmtKind::FragUpdate:
        os_ << "frag.update " << fragRef(s) << " " << s->op << " " << printExpr(s->value) << "\n";
        return;
      case StmtKind::FragStore:
        os_ << "frag.store " << printExpr(s->index) << " " << s->op << " " << printExpr(s->value) << "\n";
        return;
      case StmtKind::AtomLoad:
        os_ << "atom.load " << fragRef(s) << "[" << printExpr(s->i) << "][" << printExpr(s->j) << "]"
            << (s->pairB ? "+pair" : "") << " <- " << tile(s->src) << (s->transposed ? " trans" : "")
            << (s->prepackV2 ? " prepack-v2" : s->useLdmatrix ? " ldmatrix" : " elementwise") << "\n";
        return;
      case StmtKind::AtomMma:
        os_ << "atom.mma m" << s->frag->atomM << "n8k" << s->fragA->atomK << " " << fragRef(s) << "["
            << printExpr(s->i) << "][" << printExpr(s->j) << "] += " << s->fragA->name << "[" << printExpr(s->i) << "][" << printExpr(s->k) << "] * "
            << s->fragB->name << "[" << printExpr(s->j) << "][" << printExpr(s->k) << "]\n";
        return;
      case StmtKind::TmaLoad:
        os_ << (s->async ? "tma.issue " : "tma.load ") << s->text << " box " << s->dst.extents[0] << "x" << printExpr(s->k) << " x" << s->count
            << " " << tile(s->dst) << " at [" << printExpr(s->index) << "] step " << printExpr(s->value) << " <- ("
            << printExpr(s->src.row0) << ", " << printExpr(s->src.col0) << ") on " << s->var << " if "
            << printExpr(s->cond) << (s->cluster > 1 ? " multicast to " + std::to_string(s->cluster) + " blocks" : "")
            << " else {\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::TmaStore:
        os_ << "tma.store " << s->text << " box " << s->src.extents[0] << "x" << printExpr(s->k) << " x" << s->count
            << " (" << printExpr(s->dst.row0) << ", " << printExpr(s->dst.col0) << ") <- " << tile(s->src) << " if "
            << printExpr(s->cond) << " else {\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::TmaWait:
        os_ << "tma.wait " << s->var << " phase " << s->op << " if " << printExpr(s->cond) << "\n";
        return;
      case StmtKind::WgmmaExec:
        os_ << (s->async ? "wgmma.async m64n" : "wgmma m64n") << s->frag->logicalCols << "k" << s->step << " x "
            << s->count << " "
            << s->frag->name << " += " << (s->fragA ? s->fragA->name + " registers" : tile(s->src))
            << (s->transposed ? " (MN-major)" : "") << (s->fragB ? " sparse " + s->fragB->name : "") << " * "
            << tile(s->dst) << (s->transposedB ? " (MN-major)" : "") << "\n";
        return;
      case StmtKind::AtomStore:
        os_ << "atom.store " << tile(s->dst) << " <- " << fragRef(s) << "[" << printExpr(s->i) << "]["
            << printExpr(s->j) << "]\n";
        return;
      case StmtKind::AccScale:
        os_ << "acc.scale " << s->frag->name << "[" << printExpr(s->i) << "] += " << s->fragB->name << "["
            << printExpr(s->i) << "] * " << tile(s->src) << " * " << printExpr(s->value) << "\n";
        return;
      case StmtKind::Fence: os_ << "fence " << fenceName(s->fence) << "\n"; return;
      case StmtKind::GridSync: os_ << "grid.sync\n"; return;
      case StmtKind::WgmmaCommit: os_ << "wgmma.commit\n"; return;
      case StmtKind::WgmmaWait: os_ << "wgmma.wait " << s->count << "\n"; return;
      case StmtKind::WgmmaFence: os_ << "wgmma.fence " << s->frag->name << "[" << s->count << "]\n"; return;
      case StmtKind::MbarrierInit: os_ << "mbarrier.init " << s->buffer->name << " arrivals " << s->count << "\n"; return;
      case StmtKind::EventInit:
        os_ << "event.init " << s->buffer->name << " x" << s->count << " arrivals " << s->threads << " (`" << s->text
            << "`)\n";
        return;
      case StmtKind::Eval: os_ << "eval " << printExpr(s->value) << "\n"; return;
      case StmtKind::LocalArray:
        os_ << "local " << cxxElementType(s->buffer->elem) << " " << s->buffer->name << "["
            << s->buffer->totalElements() << "]\n";
        return;
      case StmtKind::BufferPointer:
        os_ << "pointer " << cxxElementType(s->buffer->elem) << "* " << s->buffer->name << " = " << s->src.buffer->name
            << "\n";
        return;
      case StmtKind::Rotate:
        os_ << "rotate";
        for (size_t i = 0; i < s->args.size(); ++i) os_ << (i ? ", " : " ") << printExpr(s->args[i]);
        os_ << "\n";
        return;
      case StmtKind::Raw: os_ << "raw " << s->text << "\n"; return;
      case StmtKind::Print:
        os_ << "print " << s->text;
        for (const Expr* a : s->args) os_ << ", " << printExpr(a);
        os_ << "\n";
        return;
      case StmtKind::Return: os_ << "return\n"; return;
      case StmtKind::Break: os_ << "break\n"; return;
      case StmtKind::Continue: os_ << "continue\n"; return;
      case StmtKind::Comment: os_ << "// " << s->text << "\n"; return;
    }
  }

  const llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  unsigned depth_ = 0;
};

}  // namespace

void print(const Module& m, const llvm::SourceMgr& sm, llvm::raw_ostream& os) { KirPrinter(sm, os).module(m); }

}  // namespace croqc::kir
