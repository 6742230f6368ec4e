// Printing KIR: expressions as C++ (`printExpr`, shared by the emitters
// and by lowering where it builds host text), and `--emit=kir`, the module
// as indented text. The `--emit=kir` format is part of croqc's test
// surface: lit tests compare against it, so it stays deterministic and
// changes only deliberately.
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "kir/KIR.h"

namespace croqc::kir {

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

bool isComparison(const Expr* e) {
  if (e->kind != ExprKind::Binary) return false;
  int p = precedence(e);
  return p == 9 || p == 10;
}

bool isLogical(const Expr* e) { return e->kind == ExprKind::Binary && (e->name == "&&" || e->name == "||"); }

class ExprPrinter {
 public:
  explicit ExprPrinter(ExprSyntax syntax) : syntax_(syntax) {}

  std::string take() { return std::move(out_); }

  void print(const Expr* e) {
    switch (e->kind) {
      case ExprKind::IntConst: out_ += std::to_string(e->intValue); return;
      case ExprKind::BoolConst: out_ += e->intValue ? "true" : "false"; return;
      case ExprKind::FloatConst: floatConst(e); return;
      case ExprKind::Var: out_ += e->name; return;
      case ExprKind::Unary:
        // `x++` / `x--`: the postfix forms, whose operator follows the operand.
        if (e->name == "x++" || e->name == "x--") {
          operand(e->operands[0], 15, false);
          out_ += llvm::StringRef(e->name).drop_front();
          return;
        }
        out_ += e->name;
        operand(e->operands[0], 14, false);
        return;
      case ExprKind::Binary: {
        int p = precedence(e);
        bool parenComparisons = explicitConditions() && isLogical(e);
        for (int side = 0; side < 2; ++side) {
          if (side) out_ += " " + e->name + " ";
          const Expr* o = e->operands[side];
          if (parenComparisons && isComparison(o)) parenthesised(o);
          else operand(o, p, side == 1);
        }
        return;
      }
      case ExprKind::Select:
        if (explicitConditions()) parenthesised(e->operands[0]);
        else operand(e->operands[0], 3, false);
        out_ += " ? ";
        operand(e->operands[1], 3, false);
        out_ += " : ";
        operand(e->operands[2], 2, false);
        return;
      case ExprKind::Call:
        out_ += e->intrinsic && !kirNames() ? cxxIntrinsic(e->name).str() : e->name;
        if (!e->templateArgs.empty()) {
          out_ += '<';
          for (size_t i = 0; i < e->templateArgs.size(); ++i) {
            if (i) out_ += ", ";
            const TemplateArg& a = e->templateArgs[i];
            if (a.value) print(a.value);
            else out_ += kirNames() ? tokenKindSpelling(a.elem).str() : cxxElementType(a.elem);
          }
          out_ += '>';
        }
        out_ += '(';
        for (size_t i = 0; i < e->operands.size(); ++i) {
          if (i) out_ += ", ";
          print(e->operands[i]);
        }
        out_ += ')';
        return;
      case ExprKind::Load:
        out_ += e->buffer->name;
        out_ += '[';
        print(e->operands[0]);
        out_ += ']';
        return;
      case ExprKind::Address:
        out_ += "&";
        out_ += e->buffer->name;
        out_ += '[';
        print(e->operands[0]);
        out_ += ']';
        return;
      case ExprKind::Convert:
        out_ += kirNames() ? "cvt<" + typeName(e->type) + ">(" : "croq::cvt<" + cxxTypeName(e->type) + ">(";
        print(e->operands[0]);
        out_ += ')';
        return;
      case ExprKind::FragElem: fragElem(e); return;
      case ExprKind::Builtin: {
        static const char* const kNames[] = {"threadIdx", "blockIdx", "gridDim"};
        std::string coordinate = std::string(kNames[static_cast<int>(e->builtin)]) + "." + "xyz"[e->intValue];
        out_ += kirNames() ? coordinate : "static_cast<int>(" + coordinate + ")";
        return;
      }
      case ExprKind::ViewExtent:
        if (kirNames()) out_ += "extent(" + e->name + ", " + std::to_string(e->intValue) + ")";
        else out_ += "static_cast<int>(" + e->name + ".shape()[" + std::to_string(e->intValue) + "])";
        return;
    }
  }

 private:
  bool explicitConditions() const { return syntax_ == ExprSyntax::CxxCondition || syntax_ == ExprSyntax::Kir; }
  bool kirNames() const { return syntax_ == ExprSyntax::Kir || syntax_ == ExprSyntax::KirKernel; }

  void operand(const Expr* e, int parentPrec, bool rightSide) {
    int p = precedence(e);
    if (p < parentPrec || (rightSide && p == parentPrec)) parenthesised(e);
    else print(e);
  }

  void parenthesised(const Expr* e) {
    out_ += '(';
    print(e);
    out_ += ')';
  }

  /// A literal as written; the infinities as the runtime's `croq::infinity()`.
  void floatConst(const Expr* e) {
    if (!kirNames() && e->name == "inf") out_ += "croq::infinity()";
    else if (!kirNames() && e->name == "-inf") out_ += "(-croq::infinity())";
    else out_ += e->name;
  }

  void fragElem(const Expr* e) {
    // A warpgroup accumulator is `float acc[atoms][N / 2]`; a warp one
    // `croq::mma::frag_c<float> acc[M / 16][N / 8]` of four values each.
    out_ += e->frag->name;
    out_ += '[';
    print(e->operands[0]);
    if (!e->frag->warpgroup) {
      out_ += "][";
      print(e->operands[1]);
      out_ += "].r";
    }
    out_ += e->frag->warpgroup ? "][" : "[";
    print(e->operands[2]);
    out_ += ']';
  }

  ExprSyntax syntax_;
  std::string out_;
};

}  // namespace

std::string printExpr(const Expr* e, ExprSyntax syntax) {
  if (!e) return {};
  ExprPrinter p(syntax);
  p.print(e);
  return p.take();
}

// ---------------------------------------------------------------------------
// --emit=kir

namespace {

class KirPrinter {
 public:
  KirPrinter(const llvm::SourceMgr& sm, llvm::raw_ostream& os) : sm_(sm), os_(os) {}

  /// Expressions as KIR spells them: kernel code in KirKernel syntax unless
  /// a wrapper's statement asks for Kir.
  static std::string printExpr(const Expr* e, ExprSyntax syntax = ExprSyntax::KirKernel) {
    return kir::printExpr(e, syntax);
  }

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
    os_ << "function " << f.name << " " << where(f.loc) << " -> " << typeName(f.returnType) << "\n";
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
        case HostStmt::Kind::CheckShape:
          os_ << "check " << printExpr(h.cond, ExprSyntax::Kir) << "  \"" << h.message << "\"";
          break;
        case HostStmt::Kind::Let:
        case HostStmt::Kind::Local:
          os_ << (h.kind == HostStmt::Kind::Let ? "let " : "host-local ") << h.var << " : " << typeName(h.type) << " = "
              << printExpr(h.value, ExprSyntax::Kir);
          break;
        case HostStmt::Kind::DataPointer:
          os_ << "pointer " << h.buffer->name << " : " << typeName(Type::pointer(h.buffer->elem, h.buffer->space))
              << " = data(" << h.from << ")";
          break;
        case HostStmt::Kind::AllocDevice:
          os_ << "alloc " << h.buffer->name << " : " << tokenKindSpelling(h.buffer->elem) << " global";
          if (!h.from.empty()) os_ << " <- copy-in " << h.from;
          else if (h.value) os_ << " <- fill " << printExpr(h.value, ExprSyntax::Kir);
          os_ << " on " << h.stream;
          break;
        case HostStmt::Kind::Launch:
          os_ << "launch " << h.kernel->name << " on " << h.stream << (h.async ? " async" : "");
          break;
        case HostStmt::Kind::CopyOut: os_ << "copy-out " << h.buffer->name << " -> " << h.from << " on " << h.stream; break;
        case HostStmt::Kind::Return:
          os_ << "return " << (h.buffer ? h.buffer->name : printExpr(h.value, ExprSyntax::Kir)) << " on " << h.stream;
          break;
        case HostStmt::Kind::Raw: os_ << "host " << h.text; break;
        case HostStmt::Kind::Code: break;
        case HostStmt::Kind::StreamWait: os_ << "stream-wait " << h.text << " for " << h.from; break;
        case HostStmt::Kind::StreamSync: os_ << "stream-sync " << h.text; break;
        case HostStmt::Kind::TensorMap:
          os_ << "tensor-map " << h.text << " = " << h.buffer->name << " [" << printExpr(h.tensorRows, ExprSyntax::Kir)
              << ", " << printExpr(h.tensorCols, ExprSyntax::Kir) << "] box [" << h.boxRows << ", " << h.boxCols
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
        << (k.launchBoundThreads && k.launchBoundThreads != k.threads
                ? " max_threads(" + std::to_string(k.launchBoundThreads) + ")"
                : "")
        << (k.launchMinBlocks ? " min_blocks(" + std::to_string(k.launchMinBlocks) + ")" : "")
        << (k.maxRegisters ? " maxnreg(" + std::to_string(k.maxRegisters) + ")" : "") << " {\n";
    for (const KernelParam& p : k.params) os_ << "    param " << p.name << " : " << typeName(paramType(p)) << "\n";
    depth_ = 2;
    for (const Stmt* s : k.body) stmt(s);
    os_ << "  }\n";
  }

  /// The event an arrival or wait is on: `bar`, or `full[i]` for an element
  /// of an event array.
  static std::string event(const Stmt* s) {
    if (!s->buffer) return "?";
    if (!s->index || s->index->isConst(0) || s->index->isConst(-1)) return s->buffer->name;
    return s->buffer->name + "[" + printExpr(s->index) + "]";
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
      case StmtKind::For:
      case StmtKind::If:
      case StmtKind::While: controlFlow(s); return;
      case StmtKind::Let:
      case StmtKind::Assign:
      case StmtKind::Store:
      case StmtKind::Eval:
      case StmtKind::LocalArray:
      case StmtKind::BufferPointer:
      case StmtKind::Rotate:
      case StmtKind::Raw:
      case StmtKind::Print:
      case StmtKind::Comment: scalar(s); return;
      case StmtKind::Barrier:
      case StmtKind::EventArrive:
      case StmtKind::EventWait:
      case StmtKind::AsyncWait:
      case StmtKind::TmaWait:
      case StmtKind::Fence:
      case StmtKind::WgmmaWait:
      case StmtKind::WgmmaFence:
      case StmtKind::MbarrierInit:
      case StmtKind::EventInit: synchronisation(s); return;
      case StmtKind::Copy:
      case StmtKind::TmaLoad:
      case StmtKind::TmaStore: copy(s); return;
      case StmtKind::FragDecl:
      case StmtKind::FragFill:
      case StmtKind::FragUpdate:
      case StmtKind::FragStore:
      case StmtKind::AtomLoad:
      case StmtKind::AtomMma:
      case StmtKind::AtomStore:
      case StmtKind::AccScaleLoad:
      case StmtKind::AccScale:
      case StmtKind::WgmmaExec: fragmentOp(s); return;
      // Kinds that print as their keyword alone.
      case StmtKind::AsyncCommit:
      case StmtKind::GridSync:
      case StmtKind::WgmmaCommit:
      case StmtKind::WgmmaArrive:
      case StmtKind::Return:
      case StmtKind::Break:
      case StmtKind::Continue: keyword(s) << "\n"; return;
    }
  }

  /// Starts a statement with its keyword (`kir/StmtKinds.def`).
  llvm::raw_ostream& keyword(const Stmt* s) { return os_ << stmtKeyword(s->kind); }

  /// The rest of a statement that holds statements: ` {`, its body, `}`.
  void nested(const std::vector<Stmt*>& body) {
    os_ << " {\n";
    block(body);
    indent();
    os_ << "}\n";
  }

  // Blocks, loops and conditionals.
  void controlFlow(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Block:
        keyword(s) << "\n";
        block(s->body);
        indent();
        os_ << "}\n";
        return;
      case StmtKind::For:
        keyword(s) << " " << s->var << " in [" << printExpr(s->lo) << ", " << printExpr(s->hi) << ")";
        if (s->step != 1) os_ << " step " << s->step;
        if (s->unroll) os_ << " unroll";
        nested(s->body);
        return;
      case StmtKind::If:
        keyword(s) << " " << printExpr(s->cond) << " {\n";
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
        keyword(s) << " " << printExpr(s->cond);
        nested(s->body);
        return;
      default: return;
    }
  }

  // Variables, stores, declarations and statements copied through.
  void scalar(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Let:
        os_ << (s->isMutable ? "var" : stmtKeyword(s->kind)) << " " << s->var << " : " << typeName(s->type) << " = "
            << printExpr(s->value) << "\n";
        return;
      case StmtKind::Assign: os_ << s->var << " " << s->op << " " << printExpr(s->value) << "\n"; return;
      case StmtKind::Store:
        keyword(s) << " " << s->buffer->name << "[" << printExpr(s->index) << "] " << s->op << " "
            << printExpr(s->value) << "\n";
        return;
      case StmtKind::Eval: keyword(s) << " " << printExpr(s->value) << "\n"; return;
      case StmtKind::LocalArray:
        keyword(s) << " " << s->buffer->name << " : " << typeName(ScalarType::element(s->buffer->elem)) << "[";
        if (s->buffer->runtimeElements)
          os_ << printExpr(s->buffer->runtimeElements);
        else
          os_ << s->buffer->totalElements();
        os_ << "]\n";
        return;
      case StmtKind::BufferPointer:
        keyword(s) << " " << s->buffer->name << " : " << typeName(Type::pointer(s->buffer->elem, s->buffer->space))
            << " = " << s->src.buffer->name << "\n";
        return;
      case StmtKind::Rotate:
        keyword(s);
        for (size_t i = 0; i < s->args.size(); ++i) os_ << (i ? ", " : " ") << printExpr(s->args[i]);
        os_ << "\n";
        return;
      case StmtKind::Raw: keyword(s) << " " << s->text << "\n"; return;
      case StmtKind::Print:
        keyword(s) << " " << s->text;
        for (const Expr* a : s->args) os_ << ", " << printExpr(a);
        os_ << "\n";
        return;
      case StmtKind::Comment: keyword(s) << " " << s->text << "\n"; return;
      default: return;
    }
  }

  // Barriers, events, mbarriers, fences and waits.
  void synchronisation(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Barrier:
        keyword(s) << " " << scopeName(s->scope);
        if (s->scope == Scope::Warpgroup) os_ << " named " << s->count << " + warpgroup (128 threads)";
        else if (s->count > 0) os_ << " named " << s->count << " (" << s->threads << " threads)";
        os_ << "\n";
        return;
      case StmtKind::EventArrive:
        keyword(s) << " " << event(s);
        if (s->count > 0) os_ << " expect " << s->count << " bytes";
        if (s->rank) os_ << " by rank 0 of " << printExpr(s->rank);
        if (s->cluster > 1) os_ << " in all " << s->cluster << " blocks of the cluster";
        os_ << "\n";
        return;
      case StmtKind::EventWait:
        keyword(s) << " " << event(s) << " parity ";
        if (s->value) os_ << printExpr(s->value) << "\n";
        else os_ << s->var << "[" << printExpr(s->index) << "]\n";
        return;
      case StmtKind::AsyncWait: keyword(s) << " " << s->count << "\n"; return;
      case StmtKind::TmaWait:
        keyword(s) << " " << s->var << " phase " << s->op << " if " << printExpr(s->cond) << "\n";
        return;
      case StmtKind::Fence: keyword(s) << " " << fenceName(s->fence) << "\n"; return;
      case StmtKind::WgmmaWait: keyword(s) << " " << s->count << "\n"; return;
      case StmtKind::WgmmaFence:
        keyword(s) << " " << s->frag->name;
        if (s->count >= 0) os_ << "[" << s->count << "]";
        os_ << "\n";
        return;
      case StmtKind::MbarrierInit: keyword(s) << " " << s->buffer->name << " arrivals " << s->count << "\n"; return;
      case StmtKind::EventInit:
        keyword(s) << " " << s->buffer->name << " x" << s->count << " arrivals " << s->threads << " (`" << s->text
            << "`)\n";
        return;
      default: return;
    }
  }

  // Copies between tiles, by threads or by TMA.
  void copy(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Copy:
        keyword(s) << (s->async ? ".async " : " ") << scopeName(s->scope) << "(" << s->threads << ") "
            << tile(s->dst) << " <- " << tile(s->src) << (s->zfill ? " zfill" : "") << "\n";
        return;
      case StmtKind::TmaLoad:
        os_ << (s->async ? "tma.issue" : stmtKeyword(s->kind)) << " " << s->text << " box " << s->dst.extents[0] << "x" << printExpr(s->k) << " x" << s->count
            << " " << tile(s->dst) << " at [" << printExpr(s->index) << "] step " << printExpr(s->value) << " <- ("
            << printExpr(s->src.row0) << ", " << printExpr(s->src.col0) << ") on " << s->var
            << (s->mbarrierIndex ? "[" + printExpr(s->mbarrierIndex) + "]" : "") << " if "
            << printExpr(s->cond) << (s->cluster > 1 ? " multicast to " + std::to_string(s->cluster) + " blocks" : "")
            << " else";
        nested(s->body);
        return;
      case StmtKind::TmaStore:
        keyword(s) << " " << s->text << " box " << s->src.extents[0] << "x" << printExpr(s->k) << " x" << s->count
            << " (" << printExpr(s->dst.row0) << ", " << printExpr(s->dst.col0) << ") <- " << tile(s->src) << " if "
            << printExpr(s->cond) << " else";
        nested(s->body);
        return;
      default: return;
    }
  }

  void fragmentDecl(const Stmt* s) {
    const Fragment* f = s->frag;
    keyword(s) << " " << f->name << " : " << fragRoleName(f->role) << " " << tokenKindSpelling(f->inType);
    if (f->role == FragRole::C) os_ << " -> " << tokenKindSpelling(f->accType);
    os_ << " [" << f->logicalRows << ", " << f->logicalCols << "] atoms " << f->rows << "x" << f->cols
        << (f->warpgroup ? " warpgroup" : "");
    if (!f->warpgroup && !f->defaultAtom()) os_ << " m" << f->atomM << "n8k" << f->atomK;
    for (std::int64_t d : f->arrayDims) os_ << " [" << d << "]";
    os_ << "\n";
  }

  // Fragments, MMA atoms and WGMMAs.
  void fragmentOp(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::FragDecl: fragmentDecl(s); return;
      case StmtKind::FragFill: keyword(s) << " " << fragRef(s) << " = " << printExpr(s->value) << "\n"; return;
      case StmtKind::FragUpdate:
        keyword(s) << " " << fragRef(s) << " " << s->op << " " << printExpr(s->value) << "\n";
        return;
      case StmtKind::FragStore:
        keyword(s) << " " << printExpr(s->index) << " " << s->op << " " << printExpr(s->value) << "\n";
        return;
      case StmtKind::AtomLoad:
        keyword(s) << " " << fragRef(s) << "[" << printExpr(s->i) << "][" << printExpr(s->j) << "]"
            << (s->pairB ? "+pair" : "") << " <- " << tile(s->src) << (s->transposed ? " trans" : "")
            << (s->prepackV2 ? " prepack-v2" : s->useLdmatrix ? " ldmatrix" : " elementwise") << "\n";
        return;
      case StmtKind::AtomMma:
        keyword(s) << " m" << s->frag->atomM << "n8k" << (s->fragE ? s->fragE->atomK : s->fragA->atomK) << " " << fragRef(s) << "["
            << printExpr(s->i) << "][" << printExpr(s->j) << "] += " << s->fragA->name << "[" << printExpr(s->i) << "][" << printExpr(s->k) << "] * "
            << s->fragB->name << "[" << printExpr(s->j) << "][" << printExpr(s->k) << "]"
            << (s->fragE ? " sparse " + s->fragE->name + "[" + printExpr(s->i) + "][" + printExpr(s->k) + "]" : "")
            << "\n";
        return;
      case StmtKind::AtomStore:
        keyword(s) << " " << tile(s->dst) << " <- " << fragRef(s) << "[" << printExpr(s->i) << "]["
            << printExpr(s->j) << "]\n";
        return;
      case StmtKind::AccScaleLoad:
        keyword(s) << " " << s->var << " = rows of " << s->frag->name << "[" << printExpr(s->i) << "]: "
            << tile(s->src) << " * " << printExpr(s->value) << "\n";
        return;
      case StmtKind::AccScale:
        keyword(s) << " " << s->frag->name << "[" << printExpr(s->i) << "] += " << s->fragB->name << "["
            << printExpr(s->i) << "] * " << s->var << "\n";
        return;
      case StmtKind::WgmmaExec:
        keyword(s) << (s->async ? ".async m64n" : " m64n") << s->frag->logicalCols << "k" << s->step << " x "
            << s->count << " "
            << s->frag->name << " += " << (s->fragA ? s->fragA->name + " registers" : tile(s->src))
            << (s->transposed ? " (MN-major)" : "") << (s->fragB ? " sparse " + s->fragB->name : "") << " * "
            << tile(s->dst) << (s->transposedB ? " (MN-major)" : "") << kOrder(s)
            << (!s->cond                                                  ? ""
                : s->cond->kind == ExprKind::BoolConst && !s->cond->intValue ? " (first step overwrites)"
                                                                             : " (first step overwrites unless " +
                                                                                   printExpr(s->cond) + ")")
            << "\n";
        return;
      default: return;
    }
  }

  // ", K steps in order 3, 2, 1, 0" when a schedule reorders them.
  static std::string kOrder(const Stmt* s) {
    if (s->kOrder.empty()) return "";
    std::string out = ", K steps in order ";
    for (size_t i = 0; i < s->kOrder.size(); ++i) out += (i ? ", " : "") + std::to_string(s->kOrder[i]);
    return out;
  }

  const llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  unsigned depth_ = 0;
};

}  // namespace

void print(const Module& m, const llvm::SourceMgr& sm, llvm::raw_ostream& os) { KirPrinter(sm, os).module(m); }

}  // namespace croqc::kir
