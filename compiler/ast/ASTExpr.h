// The node base of the abstract syntax tree and its expressions (AST.h has
// the types, statements and top-level items). Nodes live in an ASTContext
// arena and are trivially destructible; `llvm::isa`/`dyn_cast` work through
// `classof`. Include "ast/AST.h", not this header.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/Casting.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "lex/Token.h"

namespace croqc::ast {

enum class NodeKind : std::uint8_t {
#define EXPR(Name) Name##Expr,
#define STMT(Name) Name##Stmt,
#define TOP(Name) Name,
#include "ast/ASTNodes.def"
};

llvm::StringRef nodeKindName(NodeKind kind);

class Node {
 public:
  NodeKind kind() const { return kind_; }
  llvm::SMRange range() const { return range_; }
  llvm::SMLoc loc() const { return range_.Start; }
  void setRange(llvm::SMRange r) { range_ = r; }

 protected:
  Node(NodeKind kind, llvm::SMRange range) : kind_(kind), range_(range) {}

 private:
  NodeKind kind_;
  llvm::SMRange range_;
};

// ---------------------------------------------------------------------------
// Expressions

class Expr : public Node {
 public:
  static bool classof(const Node* n) {
    return n->kind() >= NodeKind::IntLiteralExpr && n->kind() <= NodeKind::SizeOfExpr;
  }

 protected:
  using Node::Node;
};

#define CROQC_CLASSOF(Name) \
  static bool classof(const Node* n) { return n->kind() == NodeKind::Name; }

/// `42`, `0x10u`, `7ll`.
class IntLiteralExpr : public Expr {
 public:
  IntLiteralExpr(llvm::SMRange r, llvm::StringRef spelling, IntLiteralValue value)
      : Expr(NodeKind::IntLiteralExpr, r), spelling(spelling), value(value) {}
  CROQC_CLASSOF(IntLiteralExpr)
  llvm::StringRef spelling;
  IntLiteralValue value;
  bool negative = false;  // written with a leading `-`
  /// The value as a 64-bit signed integer, with its sign; nullopt when it is
  /// out of that range (`9223372036854775808` without a `-`).
  /// The literal is its digits: a signed 64-bit value of at most
  /// 9223372036854775807 before the sign, so `-9223372036854775808` is out
  /// of range (Croqtile's rule; `-9223372036854775807 - 1` is the minimum).
  std::optional<std::int64_t> signedValue() const {
    if (value.value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    auto v = static_cast<std::int64_t>(value.value);
    return negative ? -v : v;
  }
  /// Written as `(N)`: inside a shape subscript `s[(0) / 2]` this names
  /// dimension N of `s` (spec 5.1).
  bool parenthesized = false;
};

/// `1.5`, `0.0f`, `inf`, `-inf`.
class FloatLiteralExpr : public Expr {
 public:
  FloatLiteralExpr(llvm::SMRange r, llvm::StringRef spelling, FloatLiteralValue value)
      : Expr(NodeKind::FloatLiteralExpr, r), spelling(spelling), value(value) {}
  CROQC_CLASSOF(FloatLiteralExpr)
  llvm::StringRef spelling;
  FloatLiteralValue value;
  bool negative = false;
};

class BoolLiteralExpr : public Expr {
 public:
  BoolLiteralExpr(llvm::SMRange r, bool value) : Expr(NodeKind::BoolLiteralExpr, r), value(value) {}
  CROQC_CLASSOF(BoolLiteralExpr)
  bool value;
};

class NullptrLiteralExpr : public Expr {
 public:
  explicit NullptrLiteralExpr(llvm::SMRange r) : Expr(NodeKind::NullptrLiteralExpr, r) {}
  CROQC_CLASSOF(NullptrLiteralExpr)
};

/// One or more adjacent string literals, concatenated.
class StringLiteralExpr : public Expr {
 public:
  StringLiteralExpr(llvm::SMRange r, llvm::StringRef value) : Expr(NodeKind::StringLiteralExpr, r), value(value) {}
  CROQC_CLASSOF(StringLiteralExpr)
  llvm::StringRef value;  // decoded contents
  bool raw = false;
};

/// A name, possibly qualified (`croq::cuda::setreg_dec`).
class NameExpr : public Expr {
 public:
  NameExpr(llvm::SMRange r, llvm::StringRef name) : Expr(NodeKind::NameExpr, r), name(name) {}
  CROQC_CLASSOF(NameExpr)
  llvm::StringRef name;
};

/// `_`: "the whole dimension" in views, "unused" elsewhere.
class WildcardExpr : public Expr {
 public:
  explicit WildcardExpr(llvm::SMRange r) : Expr(NodeKind::WildcardExpr, r) {}
  CROQC_CLASSOF(WildcardExpr)
};

/// `?` or `??` in a parameter shape.
class DynamicDimExpr : public Expr {
 public:
  DynamicDimExpr(llvm::SMRange r, bool unbounded) : Expr(NodeKind::DynamicDimExpr, r), unbounded(unbounded) {}
  CROQC_CLASSOF(DynamicDimExpr)
  bool unbounded;  // `??`
};

/// A type used as a value: template argument `f16`, `|f16|`, `__to<f32>`.
class ElementTypeExpr : public Expr {
 public:
  ElementTypeExpr(llvm::SMRange r, TokenKind type) : Expr(NodeKind::ElementTypeExpr, r), type(type) {}
  CROQC_CLASSOF(ElementTypeExpr)
  TokenKind type;
};

/// Prefix `! ~ - ++ -- & #` (the last is the extent of a bounded variable).
class UnaryExpr : public Expr {
 public:
  UnaryExpr(llvm::SMRange r, TokenKind op, Expr* operand) : Expr(NodeKind::UnaryExpr, r), op(op), operand(operand) {}
  CROQC_CLASSOF(UnaryExpr)
  TokenKind op;
  Expr* operand;
};

/// `x++`, `x--`.
class PostfixExpr : public Expr {
 public:
  PostfixExpr(llvm::SMRange r, TokenKind op, Expr* operand)
      : Expr(NodeKind::PostfixExpr, r), op(op), operand(operand) {}
  CROQC_CLASSOF(PostfixExpr)
  TokenKind op;
  Expr* operand;
};

/// Every binary operator of spec 6.1, including compose `a # b`.
class BinaryExpr : public Expr {
 public:
  BinaryExpr(llvm::SMRange r, TokenKind op, Expr* lhs, Expr* rhs)
      : Expr(NodeKind::BinaryExpr, r), op(op), lhs(lhs), rhs(rhs) {}
  CROQC_CLASSOF(BinaryExpr)
  TokenKind op;
  Expr* lhs;
  Expr* rhs;
};

class ConditionalExpr : public Expr {
 public:
  ConditionalExpr(llvm::SMRange r, Expr* cond, Expr* then, Expr* otherwise)
      : Expr(NodeKind::ConditionalExpr, r), cond(cond), then(then), otherwise(otherwise) {}
  CROQC_CLASSOF(ConditionalExpr)
  Expr* cond;
  Expr* then;
  Expr* otherwise;
};

/// `{a, b, c}`.
class ItupleExpr : public Expr {
 public:
  ItupleExpr(llvm::SMRange r, llvm::ArrayRef<Expr*> elements)
      : Expr(NodeKind::ItupleExpr, r), elements(elements) {}
  CROQC_CLASSOF(ItupleExpr)
  llvm::ArrayRef<Expr*> elements;
};

/// `[a, b, c]`.
class MdspanExpr : public Expr {
 public:
  MdspanExpr(llvm::SMRange r, llvm::ArrayRef<Expr*> dims) : Expr(NodeKind::MdspanExpr, r), dims(dims) {}
  CROQC_CLASSOF(MdspanExpr)
  llvm::ArrayRef<Expr*> dims;
};

/// A member without arguments: `x.span`, `f.data`, `f.mdata`.
class MemberExpr : public Expr {
 public:
  MemberExpr(llvm::SMRange r, Expr* base, TokenKind member)
      : Expr(NodeKind::MemberExpr, r), base(base), member(member) {}
  CROQC_CLASSOF(MemberExpr)
  Expr* base;
  TokenKind member;
};

/// A member with arguments: views (`.chunkat(...)`, `.subspan(e : s)`,
/// `.step(...)`, `.at(...)`, `.view(...)`, `.from(...)`, `.span_as(...)`,
/// `.sqz()`, ...) and element access `.at(i, j)`. `strides` holds the list
/// after `:` in `.view(e0, e1 : s0, s1)`.
class MethodExpr : public Expr {
 public:
  MethodExpr(llvm::SMRange r, Expr* base, TokenKind method, llvm::ArrayRef<Expr*> args,
             llvm::ArrayRef<Expr*> strides)
      : Expr(NodeKind::MethodExpr, r), base(base), method(method), args(args), strides(strides) {}
  CROQC_CLASSOF(MethodExpr)
  Expr* base;
  TokenKind method;
  llvm::ArrayRef<Expr*> args;
  llvm::ArrayRef<Expr*> strides;
  bool hasStrides = false;
};

/// `e(i)`: a dimension of a shape, an element of an ituple, or a range probe
/// of a bounded variable (`y(-1)`, `b(1:-1)`).
class ElementOfExpr : public Expr {
 public:
  ElementOfExpr(llvm::SMRange r, Expr* base, llvm::ArrayRef<Expr*> args)
      : Expr(NodeKind::ElementOfExpr, r), base(base), args(args) {}
  CROQC_CLASSOF(ElementOfExpr)
  Expr* base;
  llvm::ArrayRef<Expr*> args;
};

/// `lo:hi[:step]` inside `v(...)`; every part may be absent.
class RangeExpr : public Expr {
 public:
  RangeExpr(llvm::SMRange r, Expr* lo, Expr* hi, Expr* step)
      : Expr(NodeKind::RangeExpr, r), lo(lo), hi(hi), step(step) {}
  CROQC_CLASSOF(RangeExpr)
  Expr* lo;
  Expr* hi;
  Expr* step;
};

/// `x[i]`, `x[i, j]` (buffer and event arrays, shape sugar `s[(0), 1]`).
class SubscriptExpr : public Expr {
 public:
  SubscriptExpr(llvm::SMRange r, Expr* base, llvm::ArrayRef<Expr*> indices)
      : Expr(NodeKind::SubscriptExpr, r), base(base), indices(indices) {}
  CROQC_CLASSOF(SubscriptExpr)
  Expr* base;
  llvm::ArrayRef<Expr*> indices;
};

/// A call: `call f<T, 4>(args)` (the `call` keyword), a builtin such as
/// `__exp(x)`, `cdiv(a, b)`, `select(i, a, b)`, `__atomic_add(x.at(i), 1)`.
class CallExpr : public Expr {
 public:
  CallExpr(llvm::SMRange r, llvm::StringRef callee, llvm::ArrayRef<Expr*> templateArgs,
           llvm::ArrayRef<Expr*> args)
      : Expr(NodeKind::CallExpr, r), callee(callee), templateArgs(templateArgs), args(args) {}
  CROQC_CLASSOF(CallExpr)
  llvm::StringRef callee;
  llvm::ArrayRef<Expr*> templateArgs;
  llvm::ArrayRef<Expr*> args;
  bool viaCallKeyword = false;
  bool hasTemplateArgs = false;
};

/// `__to<T>(e)`, or `__to<"c++ type">(e)` when `cxxType` is set.
class CastExpr : public Expr {
 public:
  CastExpr(llvm::SMRange r, TokenKind type, llvm::StringRef cxxType, Expr* operand)
      : Expr(NodeKind::CastExpr, r), type(type), cxxType(cxxType), operand(operand) {}
  CROQC_CLASSOF(CastExpr)
  TokenKind type;  // TokenKind::eof when cxxType is used
  llvm::StringRef cxxType;
  Expr* operand;
};

/// `|e|`: element count of a shape, or size in bytes of a type.
class SizeOfExpr : public Expr {
 public:
  SizeOfExpr(llvm::SMRange r, Expr* operand) : Expr(NodeKind::SizeOfExpr, r), operand(operand) {}
  CROQC_CLASSOF(SizeOfExpr)
  Expr* operand;
};

}  // namespace croqc::ast
