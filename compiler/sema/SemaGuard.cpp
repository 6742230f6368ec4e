// Path conditions: the ranges that enclosing `if`, `while`, `inthreads` and
// `?:` conditions give bounded variables, so that a subscript can be checked
// against the values its index takes where it executes (spec 11.9 and the
// `Index (wg - 1) is out of bounds` diagnostic of section 18).
#include <llvm/Support/Casting.h>

#include "sema/Sema.h"
#include "sema/SemaImpl.h"

namespace croqc::sema {

using namespace ast;

namespace {

/// The comparison that holds when `op` does not.
TokenKind negatedComparison(TokenKind op) {
  switch (op) {
    case TokenKind::less: return TokenKind::greaterequal;
    case TokenKind::lessequal: return TokenKind::greater;
    case TokenKind::greater: return TokenKind::lessequal;
    case TokenKind::greaterequal: return TokenKind::less;
    case TokenKind::equalequal: return TokenKind::exclaimequal;
    case TokenKind::exclaimequal: return TokenKind::equalequal;
    default: return TokenKind::eof;
  }
}

/// `c op x` written as `x op' c`.
TokenKind mirroredComparison(TokenKind op) {
  switch (op) {
    case TokenKind::less: return TokenKind::greater;
    case TokenKind::lessequal: return TokenKind::greaterequal;
    case TokenKind::greater: return TokenKind::less;
    case TokenKind::greaterequal: return TokenKind::lessequal;
    default: return op;
  }
}

/// `v` as `symbol + offset`, or null.
const sym::SymbolExpr* shiftedSymbol(const SymExpr* v, std::int64_t& offset) {
  offset = 0;
  if (const auto* s = llvm::dyn_cast<sym::SymbolExpr>(v)) return s;
  const auto* a = llvm::dyn_cast<sym::AddExpr>(v);
  if (!a || a->terms().size() != 1 || a->terms()[0].coefficient != 1) return nullptr;
  offset = a->constant();
  return llvm::dyn_cast<sym::SymbolExpr>(a->terms()[0].monomial);
}

}  // namespace

bool Checker::collectGuards(const Expr* cond, bool negated, std::vector<Guard>& out) {
  if (std::optional<std::int64_t> c = constantOf(cond)) return (*c != 0) != negated;
  if (const auto* n = llvm::dyn_cast<NameExpr>(cond)) {
    auto it = result_.references.find(n);
    if (it != result_.references.end() && it->second->boolDefinition && !it->second->isMutable)
      return collectGuards(it->second->boolDefinition, negated, out);
    return false;
  }
  if (const auto* u = llvm::dyn_cast<UnaryExpr>(cond))
    return u->op == TokenKind::exclaim && collectGuards(u->operand, !negated, out);
  const auto* b = llvm::dyn_cast<BinaryExpr>(cond);
  if (!b) return false;
  if ((b->op == TokenKind::ampamp && !negated) || (b->op == TokenKind::pipepipe && negated)) {
    bool lhs = collectGuards(b->lhs, negated, out);
    bool rhs = collectGuards(b->rhs, negated, out);
    return lhs && rhs;
  }
  TokenKind op = negated ? negatedComparison(b->op) : b->op;
  if (op == TokenKind::eof) return false;
  const SymExpr* l = valueOf(b->lhs);
  const SymExpr* r = valueOf(b->rhs);
  std::int64_t offset = 0;
  const sym::SymbolExpr* s = nullptr;
  std::int64_t c = 0;
  if (const auto* rc = llvm::dyn_cast<sym::ConstantExpr>(r)) {
    s = shiftedSymbol(l, offset);
    c = rc->value();
  } else if (const auto* lc = llvm::dyn_cast<sym::ConstantExpr>(l)) {
    s = shiftedSymbol(r, offset);
    c = lc->value();
    op = mirroredComparison(op);
  }
  if (!s) return false;
  // `s + offset op c`, so `s op c - offset`.
  c -= offset;
  Guard g{s, std::nullopt, std::nullopt};
  switch (op) {
    case TokenKind::less: g.hi = c - 1; break;
    case TokenKind::lessequal: g.hi = c; break;
    case TokenKind::greater: g.lo = c + 1; break;
    case TokenKind::greaterequal: g.lo = c; break;
    case TokenKind::equalequal: g.lo = g.hi = c; break;
    default: return false;
  }
  out.push_back(g);
  return true;
}

std::optional<sym::Interval> Checker::pathBounds(const SymExpr* v) {
  if (opaqueGuards_ > 0 || conditionalExit_) return std::nullopt;
  sym::SymSubstitution narrowed;
  for (const Guard& g : guards_) {
    auto it = narrowed.find(g.symbol);
    sym::Interval range = sym().bounds(it == narrowed.end() ? g.symbol : it->second);
    if (g.lo && (!range.lo || *g.lo > *range.lo)) range.lo = g.lo;
    if (g.hi && (!range.hi || *g.hi < *range.hi)) range.hi = g.hi;
    // The path never executes.
    if (range.lo && range.hi && *range.lo > *range.hi) return std::nullopt;
    if (!range.lo) return std::nullopt;
    narrowed[g.symbol] =
        sym().freshSymbol(g.symbol->name(), range.lo, range.hi ? sym().constant(*range.hi + 1) : nullptr);
  }
  return sym().bounds(sym().substitute(v, narrowed));
}

bool Checker::hasConditionalExit(const Stmt* s, bool conditional) {
  if (!s) return false;
  switch (s->kind()) {
    case NodeKind::ReturnStmt:
    case NodeKind::BreakStmt:
    case NodeKind::ContinueStmt:
    case NodeKind::YieldStmt: return conditional;
    case NodeKind::CppStmt: {
      llvm::StringRef code = llvm::cast<CppStmt>(s)->code;
      for (llvm::StringRef word : {"return", "break", "continue", "goto", "exit"})
        if (code.contains(word)) return true;
      return false;
    }
    case NodeKind::CompoundStmt:
      for (const Stmt* c : llvm::cast<CompoundStmt>(s)->body)
        if (hasConditionalExit(c, conditional)) return true;
      return false;
    case NodeKind::IfStmt: {
      const auto* i = llvm::cast<IfStmt>(s);
      return hasConditionalExit(i->then, true) || hasConditionalExit(i->otherwise, true);
    }
    case NodeKind::InthreadsStmt: return hasConditionalExit(llvm::cast<InthreadsStmt>(s)->body, true);
    case NodeKind::WhileStmt: return hasConditionalExit(llvm::cast<WhileStmt>(s)->body, true);
    case NodeKind::ForeachStmt: return hasConditionalExit(llvm::cast<ForeachStmt>(s)->body, true);
    case NodeKind::WithStmt: return hasConditionalExit(llvm::cast<WithStmt>(s)->body, conditional);
    case NodeKind::ApplyStmt: return hasConditionalExit(llvm::cast<ApplyStmt>(s)->body, conditional);
    case NodeKind::ParallelStmt: return hasConditionalExit(llvm::cast<ParallelStmt>(s)->body, conditional);
    default: return false;
  }
}

}  // namespace croqc::sema
