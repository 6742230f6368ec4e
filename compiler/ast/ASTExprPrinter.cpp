// The expression notation of `--emit=ast`: one printer per expression node
// kind, dispatched over `ASTNodes.def` so that a new kind breaks the build
// until it has one. Like the rest of the dump, the notation is part of
// croqc's test surface and changes only deliberately.
#include "ast/ASTExprPrinter.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/raw_ostream.h>

#include "ast/AST.h"

namespace croqc::ast {

namespace {

// ---- literals and names ----

void print(const IntLiteralExpr* i, llvm::raw_ostream& os) { os << (i->negative ? "-" : "") << i->spelling; }

void print(const FloatLiteralExpr* f, llvm::raw_ostream& os) { os << (f->negative ? "-" : "") << f->spelling; }

void print(const BoolLiteralExpr* b, llvm::raw_ostream& os) { os << (b->value ? "true" : "false"); }

void print(const NullptrLiteralExpr*, llvm::raw_ostream& os) { os << "nullptr"; }

void print(const StringLiteralExpr* s, llvm::raw_ostream& os) { printQuoted(s->value, os); }

void print(const NameExpr* n, llvm::raw_ostream& os) { os << n->name; }

void print(const WildcardExpr*, llvm::raw_ostream& os) { os << "_"; }

void print(const DynamicDimExpr* d, llvm::raw_ostream& os) { os << (d->unbounded ? "??" : "?"); }

void print(const ElementTypeExpr* t, llvm::raw_ostream& os) { os << tokenKindSpelling(t->type); }

// ---- operators ----

void print(const UnaryExpr* u, llvm::raw_ostream& os) {
  os << "(" << tokenKindSpelling(u->op);
  printExpr(u->operand, os);
  os << ")";
}

void print(const PostfixExpr* p, llvm::raw_ostream& os) {
  os << "(";
  printExpr(p->operand, os);
  os << tokenKindSpelling(p->op) << ")";
}

void print(const BinaryExpr* b, llvm::raw_ostream& os) {
  os << "(";
  printExpr(b->lhs, os);
  os << " " << tokenKindSpelling(b->op) << " ";
  printExpr(b->rhs, os);
  os << ")";
}

void print(const ConditionalExpr* c, llvm::raw_ostream& os) {
  os << "(";
  printExpr(c->cond, os);
  os << " ? ";
  printExpr(c->then, os);
  os << " : ";
  printExpr(c->otherwise, os);
  os << ")";
}

void print(const SizeOfExpr* s, llvm::raw_ostream& os) {
  os << "|";
  printExpr(s->operand, os);
  os << "|";
}

// ---- tuples, shapes and ranges ----

void print(const ItupleExpr* t, llvm::raw_ostream& os) {
  os << "{";
  printExprList(t->elements, os);
  os << "}";
}

void print(const MdspanExpr* m, llvm::raw_ostream& os) {
  os << "[";
  printExprList(m->dims, os);
  os << "]";
}

void print(const RangeExpr* r, llvm::raw_ostream& os) {
  if (r->lo) printExpr(r->lo, os);
  os << ":";
  if (r->hi) printExpr(r->hi, os);
  if (r->step) {
    os << ":";
    printExpr(r->step, os);
  }
}

// ---- members, elements and calls ----

void print(const MemberExpr* m, llvm::raw_ostream& os) {
  printExpr(m->base, os);
  os << tokenKindSpelling(m->member);
}

void print(const MethodExpr* m, llvm::raw_ostream& os) {
  printExpr(m->base, os);
  os << tokenKindSpelling(m->method) << "(";
  printExprList(m->args, os);
  if (m->hasStrides) {
    os << " : ";
    printExprList(m->strides, os);
  }
  os << ")";
}

void print(const ElementOfExpr* el, llvm::raw_ostream& os) {
  printExpr(el->base, os);
  os << "(";
  printExprList(el->args, os);
  os << ")";
}

void print(const SubscriptExpr* s, llvm::raw_ostream& os) {
  printExpr(s->base, os);
  os << "[";
  printExprList(s->indices, os);
  os << "]";
}

void print(const CallExpr* c, llvm::raw_ostream& os) {
  if (c->viaCallKeyword) os << "call ";
  os << c->callee;
  if (c->hasTemplateArgs) {
    os << "<";
    printExprList(c->templateArgs, os);
    os << ">";
  }
  os << "(";
  printExprList(c->args, os);
  os << ")";
}

void print(const CastExpr* c, llvm::raw_ostream& os) {
  os << "__to<";
  if (c->type != TokenKind::eof) os << tokenKindSpelling(c->type);
  else printQuoted(c->cxxType, os);
  os << ">(";
  printExpr(c->operand, os);
  os << ")";
}

}  // namespace

void printExpr(const Expr* e, llvm::raw_ostream& os) {
  if (!e) {
    os << "<null>";
    return;
  }
  switch (e->kind()) {
#define EXPR(Name)            \
  case NodeKind::Name##Expr: \
    print(llvm::cast<Name##Expr>(e), os); \
    return;
#define STMT(Name) case NodeKind::Name##Stmt:
#define TOP(Name) case NodeKind::Name:
#include "ast/ASTNodes.def"
      os << "<not an expression>";
      return;
  }
}

void printExprList(llvm::ArrayRef<Expr*> items, llvm::raw_ostream& os) {
  bool first = true;
  for (const Expr* e : items) {
    if (!first) os << ", ";
    first = false;
    printExpr(e, os);
  }
}

void printQuoted(llvm::StringRef s, llvm::raw_ostream& os) {
  os << '"';
  llvm::printEscapedString(s, os);
  os << '"';
}

}  // namespace croqc::ast
