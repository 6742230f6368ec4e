// The `--emit=ast` printer. The format is part of croqc's test surface: lit
// tests compare against it, so it must stay deterministic (no addresses, no
// hash-map order) and change only deliberately.
#include "ast/ASTDumper.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "ast/AST.h"
#include "ast/ASTExprPrinter.h"

namespace croqc::ast {

namespace {

class Dumper {
 public:
  Dumper(const llvm::SourceMgr& sm, llvm::raw_ostream& os) : sm_(sm), os_(os) {}

  void program(const Program& p) {
    os_ << "Program\n";
    ++indent_;
    for (const Node* n : p.items) top(n);
    --indent_;
  }

 private:
  void line(const Node* n) { line(llvm::StringRef(nodeKindName(n->kind())), n->loc()); }

  void line(llvm::StringRef label, llvm::SMLoc loc) {
    os_.indent(indent_ * 2) << label << " <";
    if (loc.isValid()) {
      auto [l, c] = sm_.getLineAndColumn(loc);
      os_ << l << ":" << c;
    } else {
      os_ << "?";
    }
    os_ << ">";
  }

  void child(const Expr* e, llvm::StringRef label) {
    if (!e) return;
    os_.indent(indent_ * 2) << label << ": ";
    printExpr(e, os_);
    os_ << "\n";
  }

  void children(llvm::ArrayRef<Expr*> list, llvm::StringRef label) {
    if (list.empty()) return;
    os_.indent(indent_ * 2) << label << ": ";
    printExprList(list, os_);
    os_ << "\n";
  }

  void type(const TypeRef& t) {
    switch (t.kind) {
      case TypeRef::Kind::Void: os_ << "void"; return;
      case TypeRef::Kind::Auto: os_ << "auto"; return;
      case TypeRef::Kind::Int: os_ << "int"; return;
      case TypeRef::Kind::Bool: os_ << "bool"; return;
      case TypeRef::Kind::Stream: os_ << "stream"; return;
      case TypeRef::Kind::Scalar: os_ << tokenKindSpelling(t.elem); return;
      case TypeRef::Kind::Spanned:
        os_ << tokenKindSpelling(t.elem) << " [";
        printExprList(t.dims, os_);
        os_ << "]";
        return;
      case TypeRef::Kind::RankedSpan: os_ << tokenKindSpelling(t.elem) << " mdspan<" << t.rank << ">"; return;
    }
  }

  void top(const Node* n) {
    if (const auto* h = llvm::dyn_cast<HostCode>(n)) {
      line(n);
      llvm::StringRef first = h->text.trim().split('\n').first.rtrim();
      if (!first.empty()) {
        os_ << " ";
        printQuoted(first.take_front(60), os_);
      }
      os_ << "\n";
      return;
    }
    if (const auto* d = llvm::dyn_cast<DeviceCode>(n)) {
      line(n);
      os_ << " " << tokenKindName(d->regionKind);
      if (!d->name.empty()) os_ << " " << d->name;
      os_ << " " << d->text.size() << " bytes\n";
      return;
    }
    const auto* f = llvm::cast<CoFunction>(n);
    line(n);
    os_ << " " << f->name << " -> ";
    type(f->returnType);
    os_ << "\n";
    ++indent_;
    for (const Param& p : f->params) {
      line("Param", p.range.Start);
      if (p.storage != Storage::None) os_ << " " << storageName(p.storage);
      os_ << " ";
      type(p.type);
      if (p.byRef) os_ << " &";
      if (!p.name.empty()) os_ << " " << p.name;
      os_ << "\n";
    }
    stmt(f->body);
    --indent_;
  }

  void declarators(llvm::ArrayRef<Declarator> decls) {
    for (const Declarator& d : decls) {
      line("Declarator", d.range.Start);
      os_ << " " << d.name;
      for (const Expr* e : d.arrayDims) {
        os_ << "[";
        printExpr(e, os_);
        os_ << "]";
      }
      if (d.init) {
        os_ << (d.braceInit ? " {" : " = ");
        printExpr(d.init, os_);
        if (d.braceInit) os_ << "}";
      }
      os_ << "\n";
    }
  }

  void iterBindings(llvm::ArrayRef<IterBinding> bindings) {
    for (const IterBinding& b : bindings) {
      line("Binding", b.range.Start);
      if (!b.alias.empty()) os_ << " " << b.alias << " =";
      if (!b.name.empty()) os_ << " " << b.name;
      if (!b.elements.empty()) {
        os_ << (b.name.empty() ? " {" : " = {");
        llvm::interleave(b.elements, os_, ", ");
        os_ << "}";
      }
      if (b.extent) {
        os_ << " in ";
        printExpr(b.extent, os_);
      }
      if (b.hasRange) {
        os_ << " range(";
        if (b.lo) printExpr(b.lo, os_);
        os_ << ":";
        if (b.hi) printExpr(b.hi, os_);
        if (b.step) {
          os_ << ":";
          printExpr(b.step, os_);
        }
        os_ << ")";
      }
      os_ << "\n";
    }
  }

  void attributes(llvm::ArrayRef<Attribute> attrs) {
    for (const Attribute& a : attrs) {
      line("Attribute", a.range.Start);
      os_ << " " << a.name;
      if (!a.sub.empty()) os_ << " " << a.sub;
      if (!a.args.empty()) {
        os_ << "(";
        printExprList(a.args, os_);
        os_ << ")";
      }
      os_ << "\n";
    }
  }

  void body(const Stmt* s) {
    ++indent_;
    stmt(s);
    --indent_;
  }

  void flag(bool on, llvm::StringRef name) {
    if (on) os_ << " " << name;
  }

  void stmt(const Stmt* s) {
    if (!s) return;
    line(s);
    switch (s->kind()) {
      case NodeKind::CompoundStmt:
        os_ << "\n";
        ++indent_;
        for (const Stmt* c : llvm::cast<CompoundStmt>(s)->body) stmt(c);
        --indent_;
        return;
      case NodeKind::NullStmt:
      case NodeKind::MmaCommitStmt:
      case NodeKind::BreakStmt:
      case NodeKind::ContinueStmt:
      case NodeKind::YieldStmt: os_ << "\n"; return;
      case NodeKind::ExprStmt:
        os_ << " ";
        printExpr(llvm::cast<ExprStmt>(s)->expr, os_);
        os_ << "\n";
        return;
      case NodeKind::AssignStmt: {
        const auto* a = llvm::cast<AssignStmt>(s);
        os_ << " ";
        printExpr(a->target, os_);
        os_ << " " << (a->op == TokenKind::equal ? "" : tokenKindSpelling(a->op)) << "= ";
        printExpr(a->value, os_);
        os_ << "\n";
        return;
      }
      case NodeKind::MdspanDeclStmt:
      case NodeKind::ItupleDeclStmt:
      case NodeKind::ScalarDeclStmt:
      case NodeKind::SpannedDeclStmt:
      case NodeKind::FragDeclStmt:
      case NodeKind::EventDeclStmt: declStmt(s); return;
      case NodeKind::ParallelStmt:
      case NodeKind::WithStmt:
      case NodeKind::ForeachStmt:
      case NodeKind::WhileStmt:
      case NodeKind::IfStmt:
      case NodeKind::InthreadsStmt:
      case NodeKind::ApplyStmt: controlStmt(s); return;
      case NodeKind::DmaStmt:
      case NodeKind::MmaFillStmt:
      case NodeKind::MmaLoadStmt:
      case NodeKind::MmaExecStmt:
      case NodeKind::MmaStoreStmt:
      case NodeKind::MmaScaleStmt:
      case NodeKind::MmaWaitStmt:
      case NodeKind::FragOpStmt: deviceStmt(s); return;
      case NodeKind::WaitStmt:
      case NodeKind::TriggerStmt:
      case NodeKind::SwapStmt:
      case NodeKind::ReturnStmt:
      case NodeKind::SyncStmt: eventStmt(s); return;
      case NodeKind::CppStmt:
        os_ << " ";
        printQuoted(llvm::cast<CppStmt>(s)->code, os_);
        os_ << "\n";
        return;
      case NodeKind::AsmStmt: {
        const auto* a = llvm::cast<AsmStmt>(s);
        flag(a->isVolatile, "volatile");
        os_ << " ";
        printQuoted(a->asmTemplate, os_);
        os_ << "\n";
        ++indent_;
        auto operands = [&](llvm::ArrayRef<AsmOperand> ops, llvm::StringRef label) {
          for (const AsmOperand& op : ops) {
            os_.indent(indent_ * 2) << label << ": ";
            if (!op.symbolicName.empty()) os_ << "[" << op.symbolicName << "] ";
            printQuoted(op.constraint, os_);
            os_ << " (";
            printExpr(op.value, os_);
            os_ << ")\n";
          }
        };
        operands(a->outputs, "out");
        operands(a->inputs, "in");
        for (llvm::StringRef c : a->clobbers) {
          os_.indent(indent_ * 2) << "clobber: ";
          printQuoted(c, os_);
          os_ << "\n";
        }
        --indent_;
        return;
      }
      case NodeKind::PrintStmt: {
        const auto* p = llvm::cast<PrintStmt>(s);
        os_ << " " << (p->newline ? "println" : "print") << (p->compileTime ? "!" : "") << "(";
        printExprList(p->args, os_);
        os_ << ")\n";
        return;
      }
      case NodeKind::AssertStmt: {
        const auto* a = llvm::cast<AssertStmt>(s);
        os_ << " ";
        printExpr(a->cond, os_);
        os_ << " ";
        printQuoted(a->message, os_);
        os_ << "\n";
        return;
      }
      case NodeKind::DirectiveStmt:
        os_ << " ";
        printQuoted(llvm::cast<DirectiveStmt>(s)->text.trim(), os_);
        os_ << "\n";
        return;
#define EXPR(Name) case NodeKind::Name##Expr:
#define TOP(Name) case NodeKind::Name:
#include "ast/ASTNodes.def"
        os_ << " (not a statement)\n";
        return;
    }
  }

  // Declarations.
  void declStmt(const Stmt* s) {
    switch (s->kind()) {
      case NodeKind::MdspanDeclStmt: {
        const auto* d = llvm::cast<MdspanDeclStmt>(s);
        os_ << " " << d->name;
        if (d->rank) os_ << " rank=" << *d->rank;
        os_ << " : ";
        printExpr(d->init, os_);
        os_ << "\n";
        return;
      }
      case NodeKind::ItupleDeclStmt: {
        const auto* d = llvm::cast<ItupleDeclStmt>(s);
        os_ << " " << d->name;
        if (d->rank) os_ << " rank=" << *d->rank;
        if (d->init) {
          os_ << " = ";
          printExpr(d->init, os_);
        }
        os_ << "\n";
        return;
      }
      case NodeKind::ScalarDeclStmt: {
        const auto* d = llvm::cast<ScalarDeclStmt>(s);
        if (d->storage != Storage::None) os_ << " " << storageName(d->storage);
        flag(d->isMutable, "mutable");
        if (d->type.kind != TypeRef::Kind::Auto) {
          os_ << " ";
          type(d->type);
        }
        os_ << "\n";
        ++indent_;
        declarators(d->decls);
        --indent_;
        return;
      }
      case NodeKind::SpannedDeclStmt: {
        const auto* d = llvm::cast<SpannedDeclStmt>(s);
        if (d->storage != Storage::None) os_ << " " << storageName(d->storage);
        os_ << " " << tokenKindSpelling(d->elem) << " [";
        printExprList(d->dims, os_);
        os_ << "]\n";
        ++indent_;
        declarators(d->decls);
        --indent_;
        return;
      }
      case NodeKind::FragDeclStmt: {
        const auto* d = llvm::cast<FragDeclStmt>(s);
        os_ << " " << tokenKindSpelling(d->elem) << " [";
        printExprList(d->dims, os_);
        os_ << "]\n";
        ++indent_;
        declarators(d->decls);
        --indent_;
        return;
      }
      case NodeKind::EventDeclStmt: {
        const auto* d = llvm::cast<EventDeclStmt>(s);
        if (d->storage != Storage::None) os_ << " " << storageName(d->storage);
        if (d->count) {
          os_ << " count=";
          printExpr(d->count, os_);
        }
        os_ << "\n";
        ++indent_;
        declarators(d->decls);
        --indent_;
        return;
      }
      default: return;
    }
  }

  // Parallelism, loops and conditions.
  void controlStmt(const Stmt* s) {
    switch (s->kind()) {
      case NodeKind::ParallelStmt: {
        const auto* p = llvm::cast<ParallelStmt>(s);
        flag(p->isAsync, "async");
        if (!p->stream.empty()) os_ << " stream=" << p->stream;
        os_ << "\n";
        ++indent_;
        attributes(p->attributes);
        for (const ParallelBinding& b : p->bindings) {
          line("Binding", b.range.Start);
          if (!b.name.empty()) os_ << " " << b.name;
          if (!b.elements.empty()) {
            os_ << (b.name.empty() ? " {" : " = {");
            llvm::interleave(b.elements, os_, ", ");
            os_ << "}";
          }
          os_ << " by ";
          if (b.bracketed) os_ << "[";
          printExprList(b.extents, os_);
          if (b.bracketed) os_ << "]";
          if (b.level != ParallelLevel::None) os_ << " : " << parallelLevelName(b.level);
          if (!b.levelTag.empty()) os_ << "(" << b.levelTag << ")";
          flag(b.cooperative, "<cooperative>");
          os_ << "\n";
        }
        stmt(p->body);
        --indent_;
        return;
      }
      case NodeKind::WithStmt: {
        const auto* w = llvm::cast<WithStmt>(s);
        os_ << "\n";
        ++indent_;
        iterBindings(w->bindings);
        for (const WherePair& wp : w->where) {
          line("Where", wp.range.Start);
          os_ << " " << wp.lhs << " <-> " << wp.rhs << "\n";
        }
        stmt(w->body);
        --indent_;
        return;
      }
      case NodeKind::ForeachStmt: {
        const auto* f = llvm::cast<ForeachStmt>(s);
        for (const LoopSuffix& sfx : f->suffixes) {
          os_ << " " << tokenKindSpelling(sfx.kind);
          if (sfx.factor) {
            os_ << "(";
            if (!sfx.var.empty()) os_ << sfx.var << ", ";
            printExpr(sfx.factor, os_);
            os_ << ")";
          }
        }
        os_ << "\n";
        ++indent_;
        iterBindings(f->bindings);
        stmt(f->body);
        --indent_;
        return;
      }
      case NodeKind::WhileStmt: {
        const auto* w = llvm::cast<WhileStmt>(s);
        os_ << " ";
        printExpr(w->cond, os_);
        os_ << "\n";
        body(w->body);
        return;
      }
      case NodeKind::IfStmt: {
        const auto* i = llvm::cast<IfStmt>(s);
        os_ << " ";
        printExpr(i->cond, os_);
        os_ << "\n";
        body(i->then);
        if (i->otherwise) {
          os_.indent(indent_ * 2) << "else\n";
          body(i->otherwise);
        }
        return;
      }
      case NodeKind::InthreadsStmt: {
        const auto* i = llvm::cast<InthreadsStmt>(s);
        flag(i->isAsync, "async");
        os_ << " ";
        printExpr(i->cond, os_);
        os_ << "\n";
        body(i->body);
        return;
      }
      case NodeKind::ApplyStmt: {
        const auto* a = llvm::cast<ApplyStmt>(s);
        os_ << " {";
        llvm::interleave(a->names, os_, ", ");
        os_ << "} in ";
        printExpr(a->source, os_);
        os_ << "\n";
        body(a->body);
        return;
      }
      default: return;
    }
  }

  // Copies, MMA steps, events, returns and `sync`.
  void deviceStmt(const Stmt* s) {
    switch (s->kind()) {
      case NodeKind::DmaStmt: {
        const auto* d = llvm::cast<DmaStmt>(s);
        os_ << " " << tokenKindSpelling(d->engine) << tokenKindSpelling(d->op);
        if (!d->future.empty()) os_ << " future=" << d->future;
        flag(d->isAsync, "async");
        if (d->asyncEvent) {
          os_ << " event=";
          printExpr(d->asyncEvent, os_);
        }
        for (const DmaModifier& m : d->modifiers) {
          os_ << " " << tokenKindSpelling(m.kind);
          if (!m.args.empty()) {
            os_ << "<";
            printExprList(m.args, os_);
            os_ << ">";
          }
        }
        os_ << "\n";
        ++indent_;
        children(d->config, "config");
        child(d->source, "from");
        if (d->dest) child(d->dest, "to");
        if (d->destStorage != Storage::None) os_.indent(indent_ * 2) << "to: " << storageName(d->destStorage) << "\n";
        children(d->after, "after");
        --indent_;
        return;
      }
      case NodeKind::MmaFillStmt: {
        const auto* m = llvm::cast<MmaFillStmt>(s);
        if (!m->result.empty()) os_ << " result=" << m->result;
        if (m->elem != TokenKind::eof) os_ << " type=" << tokenKindSpelling(m->elem);
        os_ << "\n";
        ++indent_;
        child(m->target, "acc");
        child(m->value, "value");
        --indent_;
        return;
      }
      case NodeKind::MmaLoadStmt: {
        const auto* m = llvm::cast<MmaLoadStmt>(s);
        if (!m->result.empty()) os_ << " result=" << m->result;
        flag(m->toFrag, "frag");
        flag(m->isAsync, "async");
        if (m->hasSwizzle) {
          os_ << " swiz";
          if (m->swizzle) {
            os_ << "<";
            printExpr(m->swizzle, os_);
            os_ << ">";
          }
        }
        os_ << "\n";
        ++indent_;
        child(m->source, "from");
        child(m->target, "into");
        --indent_;
        return;
      }
      case NodeKind::MmaExecStmt: {
        const auto* m = llvm::cast<MmaExecStmt>(s);
        os_ << " " << (m->rowA ? "row" : "col") << "." << (m->rowB ? "row" : "col");
        flag(m->sparse, "sp");
        flag(m->scale, "scale");
        flag(m->isAsync, "async");
        if (!m->result.empty()) os_ << " result=" << m->result;
        os_ << "\n";
        ++indent_;
        attributes(m->attributes);
        child(m->acc, "acc");
        child(m->a, "a");
        child(m->b, "b");
        children(m->extra, "extra");
        --indent_;
        return;
      }
      case NodeKind::MmaStoreStmt: {
        const auto* m = llvm::cast<MmaStoreStmt>(s);
        flag(m->transpose, "transp");
        flag(m->isAsync, "async");
        flag(m->mask, "mask");
        os_ << "\n";
        ++indent_;
        child(m->acc, "acc");
        child(m->dest, "to");
        children(m->maskArgs, "mask");
        --indent_;
        return;
      }
      case NodeKind::MmaScaleStmt: {
        const auto* m = llvm::cast<MmaScaleStmt>(s);
        os_ << "\n";
        ++indent_;
        child(m->acc, "acc");
        child(m->scaleA, "scale_a");
        child(m->scaleB, "scale_b");
        --indent_;
        return;
      }
      case NodeKind::MmaWaitStmt:
        os_ << " ";
        printExpr(llvm::cast<MmaWaitStmt>(s)->count, os_);
        os_ << "\n";
        return;
      case NodeKind::FragOpStmt: {
        const auto* f = llvm::cast<FragOpStmt>(s);
        os_ << " " << tokenKindSpelling(f->op) << "(";
        printExprList(f->args, os_);
        os_ << ")\n";
        return;
      }
      default: return;
    }
  }

  // Events, `swap`, returns and `sync`.
  void eventStmt(const Stmt* s) {
    switch (s->kind()) {
      case NodeKind::WaitStmt:
        os_ << " ";
        printExprList(llvm::cast<WaitStmt>(s)->targets, os_);
        os_ << "\n";
        return;
      case NodeKind::TriggerStmt: {
        const auto* t = llvm::cast<TriggerStmt>(s);
        if (t->level != ParallelLevel::None) os_ << " ." << parallelLevelName(t->level);
        os_ << " ";
        printExprList(t->targets, os_);
        if (!t->after.empty()) {
          os_ << " after ";
          printExprList(t->after, os_);
        }
        os_ << "\n";
        return;
      }
      case NodeKind::SwapStmt: {
        const auto* sw = llvm::cast<SwapStmt>(s);
        os_ << (sw->rotate ? " rotate " : " swap ");
        printExprList(sw->names, os_);
        os_ << "\n";
        return;
      }
      case NodeKind::ReturnStmt: {
        const auto* r = llvm::cast<ReturnStmt>(s);
        if (r->value) {
          os_ << " ";
          printExpr(r->value, os_);
        }
        os_ << "\n";
        return;
      }
      case NodeKind::SyncStmt: {
        const auto* sy = llvm::cast<SyncStmt>(s);
        switch (sy->syncKind) {
          case SyncStmt::Kind::Storage: os_ << " " << storageName(sy->storage); break;
          case SyncStmt::Kind::Barrier: os_ << " barrier : " << parallelLevelName(sy->level); break;
          case SyncStmt::Kind::Fence:
            os_ << " fence : " << parallelLevelName(sy->level);
            if (sy->storage != Storage::None) os_ << "<" << storageName(sy->storage) << ">";
            break;
        }
        os_ << "\n";
        return;
      }
      default: return;
    }
  }

  const llvm::SourceMgr& sm_;
  llvm::raw_ostream& os_;
  unsigned indent_ = 0;
};

}  // namespace

void dumpAST(const Program& program, const llvm::SourceMgr& sm, llvm::raw_ostream& os) {
  Dumper(sm, os).program(program);
}

}  // namespace croqc::ast
