// The abstract syntax tree of a `.co` file. Nodes live in an ASTContext arena
// and are trivially destructible: text is referenced as StringRef into the
// preprocessed source (or copied into the arena) and children are ArrayRefs
// of arena memory. `llvm::isa`/`dyn_cast` work through `classof`.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Allocator.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "ast/ASTExpr.h"

namespace croqc::ast {

// ---------------------------------------------------------------------------
// Types, parameters, attributes

enum class Storage : std::uint8_t { None, Global, Shared, Local };
llvm::StringRef storageName(Storage s);

/// The type of a parameter, return value or scalar declaration.
struct TypeRef {
  enum class Kind : std::uint8_t { Void, Auto, Int, Bool, Stream, Scalar, Spanned, RankedSpan };
  Kind kind = Kind::Void;
  /// Element type for Scalar/Spanned/RankedSpan (aliases like `half` already
  /// mapped to `ty_f16`).
  TokenKind elem = TokenKind::eof;
  llvm::ArrayRef<Expr*> dims;  // Spanned
  unsigned rank = 0;           // RankedSpan: `f16 mdspan<2>`
  llvm::SMRange range;
};

struct Param {
  Storage storage = Storage::None;
  TypeRef type;
  bool byRef = false;
  llvm::StringRef name;  // may be empty
  llvm::SMRange range;
};

/// `[[name(args)]]`; for `[[schedule(k_tiles(7, 6))]]` name is "schedule" and
/// `sub` is "k_tiles".
struct Attribute {
  llvm::StringRef name;
  llvm::StringRef sub;
  llvm::ArrayRef<Expr*> args;
  llvm::SMRange range;
};

// ---------------------------------------------------------------------------
// Statements

class Stmt : public Node {
 public:
  static bool classof(const Node* n) {
    return n->kind() >= NodeKind::CompoundStmt && n->kind() <= NodeKind::DirectiveStmt;
  }

 protected:
  using Node::Node;
};

class CompoundStmt : public Stmt {
 public:
  CompoundStmt(llvm::SMRange r, llvm::ArrayRef<Stmt*> body) : Stmt(NodeKind::CompoundStmt, r), body(body) {}
  CROQC_CLASSOF(CompoundStmt)
  llvm::ArrayRef<Stmt*> body;
};

class NullStmt : public Stmt {
 public:
  explicit NullStmt(llvm::SMRange r) : Stmt(NodeKind::NullStmt, r) {}
  CROQC_CLASSOF(NullStmt)
};

/// An expression evaluated for its effect: `call f(x);`, `++i;`,
/// `__atomic_add(c.at(i), 1);`.
class ExprStmt : public Stmt {
 public:
  ExprStmt(llvm::SMRange r, Expr* expr) : Stmt(NodeKind::ExprStmt, r), expr(expr) {}
  CROQC_CLASSOF(ExprStmt)
  Expr* expr;
};

/// `target = value`, `target += value`, ... An untyped `name = value` is a
/// binding or a re-assignment; sema decides which.
class AssignStmt : public Stmt {
 public:
  AssignStmt(llvm::SMRange r, Expr* target, TokenKind op, Expr* value)
      : Stmt(NodeKind::AssignStmt, r), target(target), op(op), value(value) {}
  CROQC_CLASSOF(AssignStmt)
  Expr* target;
  TokenKind op;  // equal, or the arithmetic operator of `op=`
  Expr* value;
};

/// `mdspan<2> s : [M, N];` or `s : [M, N];`.
class MdspanDeclStmt : public Stmt {
 public:
  MdspanDeclStmt(llvm::SMRange r, llvm::StringRef name, Expr* init)
      : Stmt(NodeKind::MdspanDeclStmt, r), name(name), init(init) {}
  CROQC_CLASSOF(MdspanDeclStmt)
  llvm::StringRef name;
  Expr* init;
  std::optional<unsigned> rank;
  bool keyword = false;  // written with `mdspan`
};

/// `ituple<3> t = {1, 2, 3};`.
class ItupleDeclStmt : public Stmt {
 public:
  ItupleDeclStmt(llvm::SMRange r, llvm::StringRef name, Expr* init)
      : Stmt(NodeKind::ItupleDeclStmt, r), name(name), init(init) {}
  CROQC_CLASSOF(ItupleDeclStmt)
  llvm::StringRef name;
  Expr* init;  // may be null (diagnosed by sema)
  std::optional<unsigned> rank;
};

/// One declared name: `x`, `x = e`, `x {e}`, `buf[STAGES]`, `e[2] = ready`.
struct Declarator {
  llvm::StringRef name;
  llvm::ArrayRef<Expr*> arrayDims;
  Expr* init = nullptr;
  bool braceInit = false;
  llvm::SMRange range;
};

/// `[storage] [mutable] type x = e, y;` for `int`, `bool` and element types.
class ScalarDeclStmt : public Stmt {
 public:
  ScalarDeclStmt(llvm::SMRange r, TypeRef type, llvm::ArrayRef<Declarator> decls)
      : Stmt(NodeKind::ScalarDeclStmt, r), type(type), decls(decls) {}
  CROQC_CLASSOF(ScalarDeclStmt)
  TypeRef type;
  llvm::ArrayRef<Declarator> decls;
  Storage storage = Storage::None;
  bool isMutable = false;
};

/// `[storage] T [d0, d1] name[arr] {init}, ...;`.
class SpannedDeclStmt : public Stmt {
 public:
  SpannedDeclStmt(llvm::SMRange r, TokenKind elem, llvm::ArrayRef<Expr*> dims, llvm::ArrayRef<Declarator> decls)
      : Stmt(NodeKind::SpannedDeclStmt, r), elem(elem), dims(dims), decls(decls) {}
  CROQC_CLASSOF(SpannedDeclStmt)
  TokenKind elem;
  llvm::ArrayRef<Expr*> dims;
  llvm::ArrayRef<Declarator> decls;
  Storage storage = Storage::None;
  /// The shape was written as one expression (`f32 [lhs.span] out`), not a list.
  bool shapeIsExpr = false;
};

/// `frag T [d0, d1] name {init};`.
class FragDeclStmt : public Stmt {
 public:
  FragDeclStmt(llvm::SMRange r, TokenKind elem, llvm::ArrayRef<Expr*> dims, llvm::ArrayRef<Declarator> decls)
      : Stmt(NodeKind::FragDeclStmt, r), elem(elem), dims(dims), decls(decls) {}
  CROQC_CLASSOF(FragDeclStmt)
  TokenKind elem;
  llvm::ArrayRef<Expr*> dims;
  llvm::ArrayRef<Declarator> decls;
};

/// `shared event full[S], empty[S] = ready;` (`init` of a declarator is a
/// NameExpr such as `ready`).
class EventDeclStmt : public Stmt {
 public:
  EventDeclStmt(llvm::SMRange r, llvm::ArrayRef<Declarator> decls)
      : Stmt(NodeKind::EventDeclStmt, r), decls(decls) {}
  CROQC_CLASSOF(EventDeclStmt)
  llvm::ArrayRef<Declarator> decls;
  Storage storage = Storage::None;
  Expr* count = nullptr;  // `event<N>`
};

enum class ParallelLevel : std::uint8_t { None, Term, Device, Cluster, Block, Group4, Group, Thread };
llvm::StringRef parallelLevelName(ParallelLevel level);

/// One `pb [: level]` item of a parallel statement.
struct ParallelBinding {
  /// The variable for `p by E`, or the tuple name for `idx = {p, q} by [...]`.
  llvm::StringRef name;
  /// `{p, q}` element names.
  llvm::ArrayRef<llvm::StringRef> elements;
  llvm::ArrayRef<Expr*> extents;
  bool bracketed = false;  // extents written as `[E0, E1]`
  ParallelLevel level = ParallelLevel::None;
  llvm::StringRef levelTag;  // `block(tag)`
  bool cooperative = false;  // `block<cooperative>`
  llvm::SMRange range;
};

class ParallelStmt : public Stmt {
 public:
  ParallelStmt(llvm::SMRange r, llvm::ArrayRef<ParallelBinding> bindings, Stmt* body)
      : Stmt(NodeKind::ParallelStmt, r), bindings(bindings), body(body) {}
  CROQC_CLASSOF(ParallelStmt)
  llvm::ArrayRef<ParallelBinding> bindings;
  Stmt* body;
  llvm::ArrayRef<Attribute> attributes;
  bool isAsync = false;
  llvm::StringRef stream;  // `parallel<s>`
};

/// `x in E`, `{x, y} in E`, `idx = {x, y} in E` in `with` and `foreach`; in a
/// `foreach`, also a bare bounded variable with an optional range:
/// `foreach k`, `foreach k(1:)`, `foreach c = k(1:-1:2)`.
struct IterBinding {
  llvm::StringRef name;
  llvm::ArrayRef<llvm::StringRef> elements;
  Expr* extent = nullptr;  // null for a bare variable
  Expr* lo = nullptr;
  Expr* hi = nullptr;
  Expr* step = nullptr;
  bool hasRange = false;
  llvm::StringRef alias;  // `c = k(...)`: `alias` is c, `name` is k
  llvm::SMRange range;
};

struct WherePair {
  llvm::StringRef lhs;
  llvm::StringRef rhs;
  llvm::SMRange range;
};

class WithStmt : public Stmt {
 public:
  WithStmt(llvm::SMRange r, llvm::ArrayRef<IterBinding> bindings, Stmt* body)
      : Stmt(NodeKind::WithStmt, r), bindings(bindings), body(body) {}
  CROQC_CLASSOF(WithStmt)
  llvm::ArrayRef<IterBinding> bindings;
  llvm::ArrayRef<WherePair> where;
  Stmt* body;
};

/// `: unroll`, `: unroll(4)`, `: vectorize(i, 4)`.
struct LoopSuffix {
  TokenKind kind;  // kw_unroll or kw_vectorize
  llvm::StringRef var;
  Expr* factor = nullptr;
  llvm::SMRange range;
};

class ForeachStmt : public Stmt {
 public:
  ForeachStmt(llvm::SMRange r, llvm::ArrayRef<IterBinding> bindings, Stmt* body)
      : Stmt(NodeKind::ForeachStmt, r), bindings(bindings), body(body) {}
  CROQC_CLASSOF(ForeachStmt)
  llvm::ArrayRef<IterBinding> bindings;
  llvm::ArrayRef<LoopSuffix> suffixes;
  Stmt* body;
};

class WhileStmt : public Stmt {
 public:
  WhileStmt(llvm::SMRange r, Expr* cond, Stmt* body) : Stmt(NodeKind::WhileStmt, r), cond(cond), body(body) {}
  CROQC_CLASSOF(WhileStmt)
  Expr* cond;
  Stmt* body;
};

class IfStmt : public Stmt {
 public:
  IfStmt(llvm::SMRange r, Expr* cond, Stmt* then, Stmt* otherwise)
      : Stmt(NodeKind::IfStmt, r), cond(cond), then(then), otherwise(otherwise) {}
  CROQC_CLASSOF(IfStmt)
  Expr* cond;
  Stmt* then;
  Stmt* otherwise;  // may be null
};

class InthreadsStmt : public Stmt {
 public:
  InthreadsStmt(llvm::SMRange r, Expr* cond, Stmt* body)
      : Stmt(NodeKind::InthreadsStmt, r), cond(cond), body(body) {}
  CROQC_CLASSOF(InthreadsStmt)
  Expr* cond;
  Stmt* body;
  bool isAsync = false;
};

/// `apply {i, j} in acc.span { ... }`.
class ApplyStmt : public Stmt {
 public:
  ApplyStmt(llvm::SMRange r, llvm::ArrayRef<llvm::StringRef> names, Expr* source, Stmt* body)
      : Stmt(NodeKind::ApplyStmt, r), names(names), source(source), body(body) {}
  CROQC_CLASSOF(ApplyStmt)
  llvm::ArrayRef<llvm::StringRef> names;
  Expr* source;
  Stmt* body;
};

/// A modifier of a copy: `.swiz<N>`, `.zfill`, `.evict_first`, `.sp<2:4>`, ...
struct DmaModifier {
  TokenKind kind;  // the member token
  llvm::ArrayRef<Expr*> args;
  llvm::SMRange range;
};

/// `[f =] dma|tma .copy|.load|.pad|.transp [<config>] [.async[<event>]] {mod} SRC => DST [after f];`
/// and `f = dma.any;` (op `m_any`, no source or destination).
class DmaStmt : public Stmt {
 public:
  DmaStmt(llvm::SMRange r, TokenKind engine, TokenKind op) : Stmt(NodeKind::DmaStmt, r), engine(engine), op(op) {}
  CROQC_CLASSOF(DmaStmt)
  TokenKind engine;  // kw_dma or kw_tma
  TokenKind op;      // m_copy, m_load, m_pad, m_transp, m_any
  llvm::StringRef future;
  llvm::ArrayRef<Expr*> config;  // `<0, 2, 1>` or the four parts of a pad config
  bool isAsync = false;
  Expr* asyncEvent = nullptr;  // legacy `tma.copy.async<full[s]>`
  llvm::ArrayRef<DmaModifier> modifiers;
  Expr* source = nullptr;
  Expr* dest = nullptr;  // null when the destination is a storage keyword
  Storage destStorage = Storage::None;
  llvm::ArrayRef<Expr*> after;
};

/// `mc = mma.fill[.T] v;` or `mma.fill mc, v;`.
class MmaFillStmt : public Stmt {
 public:
  MmaFillStmt(llvm::SMRange r, Expr* value) : Stmt(NodeKind::MmaFillStmt, r), value(value) {}
  CROQC_CLASSOF(MmaFillStmt)
  llvm::StringRef result;   // binding form
  Expr* target = nullptr;   // re-initialisation form
  TokenKind elem = TokenKind::eof;
  Expr* value;
  /// Written `frag name[i]... {v};`: declares the accumulator array `name`
  /// when no such name is in scope (spec 13.10), else re-initialises it.
  bool fragSyntax = false;
};

/// `ma = mma.load[.frag][.swiz<N>][.async] SRC;` or `mma.load SRC, frag;`.
class MmaLoadStmt : public Stmt {
 public:
  MmaLoadStmt(llvm::SMRange r, Expr* source) : Stmt(NodeKind::MmaLoadStmt, r), source(source) {}
  CROQC_CLASSOF(MmaLoadStmt)
  llvm::StringRef result;
  Expr* target = nullptr;
  Expr* source;
  bool toFrag = false;
  bool isAsync = false;
  bool hasSwizzle = false;
  Expr* swizzle = nullptr;  // null with hasSwizzle: `.swiz` without an argument
};

/// `[f =] mma.row.col[.sp|.scale][.async] acc, a, b [, extra...];`.
class MmaExecStmt : public Stmt {
 public:
  MmaExecStmt(llvm::SMRange r, bool rowA, bool rowB, Expr* acc, Expr* a, Expr* b)
      : Stmt(NodeKind::MmaExecStmt, r), rowA(rowA), rowB(rowB), acc(acc), a(a), b(b) {}
  CROQC_CLASSOF(MmaExecStmt)
  bool rowA;
  bool rowB;
  Expr* acc;
  Expr* a;
  Expr* b;
  llvm::ArrayRef<Expr*> extra;  // sparse metadata, or the two scales
  bool sparse = false;
  bool scale = false;
  bool isAsync = false;
  llvm::StringRef result;
  llvm::ArrayRef<Attribute> attributes;  // `[[schedule(k_tiles(...))]]`
};

/// `mma.store[.transp|.async|.mask] acc, DST[, rows[, cols]];`.
class MmaStoreStmt : public Stmt {
 public:
  MmaStoreStmt(llvm::SMRange r, Expr* acc, Expr* dest) : Stmt(NodeKind::MmaStoreStmt, r), acc(acc), dest(dest) {}
  CROQC_CLASSOF(MmaStoreStmt)
  Expr* acc;
  Expr* dest;
  bool transpose = false;
  bool isAsync = false;
  bool mask = false;
  llvm::ArrayRef<Expr*> maskArgs;
};

/// `mma.scale acc, sa, sb;`.
class MmaScaleStmt : public Stmt {
 public:
  MmaScaleStmt(llvm::SMRange r, Expr* acc, Expr* scaleA, Expr* scaleB)
      : Stmt(NodeKind::MmaScaleStmt, r), acc(acc), scaleA(scaleA), scaleB(scaleB) {}
  CROQC_CLASSOF(MmaScaleStmt)
  Expr* acc;
  Expr* scaleA;
  Expr* scaleB;
};

class MmaCommitStmt : public Stmt {
 public:
  explicit MmaCommitStmt(llvm::SMRange r) : Stmt(NodeKind::MmaCommitStmt, r) {}
  CROQC_CLASSOF(MmaCommitStmt)
};

/// `mma.wait<n>;`.
class MmaWaitStmt : public Stmt {
 public:
  MmaWaitStmt(llvm::SMRange r, Expr* count) : Stmt(NodeKind::MmaWaitStmt, r), count(count) {}
  CROQC_CLASSOF(MmaWaitStmt)
  Expr* count;
};

/// `reduce_max(dst, src, dim);`, `reduce_sum(...)`, `all_reduce_sum(v);`,
/// `copy(dst, src);`.
class FragOpStmt : public Stmt {
 public:
  FragOpStmt(llvm::SMRange r, TokenKind op, llvm::ArrayRef<Expr*> args)
      : Stmt(NodeKind::FragOpStmt, r), op(op), args(args) {}
  CROQC_CLASSOF(FragOpStmt)
  TokenKind op;
  llvm::ArrayRef<Expr*> args;
};

/// `wait f;`, `wait e0, e1;`.
class WaitStmt : public Stmt {
 public:
  WaitStmt(llvm::SMRange r, llvm::ArrayRef<Expr*> targets) : Stmt(NodeKind::WaitStmt, r), targets(targets) {}
  CROQC_CLASSOF(WaitStmt)
  llvm::ArrayRef<Expr*> targets;
};

/// `trigger[.level] e0, e1 [after f0, f1];`.
class TriggerStmt : public Stmt {
 public:
  TriggerStmt(llvm::SMRange r, llvm::ArrayRef<Expr*> targets)
      : Stmt(NodeKind::TriggerStmt, r), targets(targets) {}
  CROQC_CLASSOF(TriggerStmt)
  llvm::ArrayRef<Expr*> targets;
  llvm::ArrayRef<Expr*> after;
  ParallelLevel level = ParallelLevel::None;
};

/// `swap(a, b);` / `rotate(a, b, c);`.
class SwapStmt : public Stmt {
 public:
  SwapStmt(llvm::SMRange r, bool rotate, llvm::ArrayRef<Expr*> names)
      : Stmt(NodeKind::SwapStmt, r), rotate(rotate), names(names) {}
  CROQC_CLASSOF(SwapStmt)
  bool rotate;
  llvm::ArrayRef<Expr*> names;
};

class ReturnStmt : public Stmt {
 public:
  ReturnStmt(llvm::SMRange r, Expr* value) : Stmt(NodeKind::ReturnStmt, r), value(value) {}
  CROQC_CLASSOF(ReturnStmt)
  Expr* value;  // may be null
};

/// `sync.shared`, `sync.global`, `sync.local`, `sync.barrier : level`,
/// `sync.fence : level [<storage>]`.
class SyncStmt : public Stmt {
 public:
  enum class Kind : std::uint8_t { Storage, Barrier, Fence };
  SyncStmt(llvm::SMRange r, Kind syncKind) : Stmt(NodeKind::SyncStmt, r), syncKind(syncKind) {}
  CROQC_CLASSOF(SyncStmt)
  Kind syncKind;
  Storage storage = Storage::None;
  ParallelLevel level = ParallelLevel::None;
};

/// `__cpp__("...")`: verbatim code.
class CppStmt : public Stmt {
 public:
  CppStmt(llvm::SMRange r, llvm::StringRef code) : Stmt(NodeKind::CppStmt, r), code(code) {}
  CROQC_CLASSOF(CppStmt)
  llvm::StringRef code;
};

class BreakStmt : public Stmt {
 public:
  explicit BreakStmt(llvm::SMRange r) : Stmt(NodeKind::BreakStmt, r) {}
  CROQC_CLASSOF(BreakStmt)
};

class ContinueStmt : public Stmt {
 public:
  explicit ContinueStmt(llvm::SMRange r) : Stmt(NodeKind::ContinueStmt, r) {}
  CROQC_CLASSOF(ContinueStmt)
};

class YieldStmt : public Stmt {
 public:
  explicit YieldStmt(llvm::SMRange r) : Stmt(NodeKind::YieldStmt, r) {}
  CROQC_CLASSOF(YieldStmt)
};

/// One operand of an asm statement: `[name] "constraint" (expr)`.
struct AsmOperand {
  llvm::StringRef symbolicName;
  llvm::StringRef constraint;
  Expr* value;
  llvm::SMRange range;
};

/// `__asm__ [volatile] ("template" : outs : ins : clobbers);`.
class AsmStmt : public Stmt {
 public:
  AsmStmt(llvm::SMRange r, llvm::StringRef asmTemplate) : Stmt(NodeKind::AsmStmt, r), asmTemplate(asmTemplate) {}
  CROQC_CLASSOF(AsmStmt)
  llvm::StringRef asmTemplate;
  bool isVolatile = false;
  llvm::ArrayRef<AsmOperand> outputs;
  llvm::ArrayRef<AsmOperand> inputs;
  llvm::ArrayRef<llvm::StringRef> clobbers;
};

/// `print(...)`, `println(...)`, and the compile-time `print!`, `println!`.
class PrintStmt : public Stmt {
 public:
  PrintStmt(llvm::SMRange r, llvm::ArrayRef<Expr*> args) : Stmt(NodeKind::PrintStmt, r), args(args) {}
  CROQC_CLASSOF(PrintStmt)
  llvm::ArrayRef<Expr*> args;
  bool newline = false;
  bool compileTime = false;
};

/// `assert(cond, "message");`.
class AssertStmt : public Stmt {
 public:
  AssertStmt(llvm::SMRange r, Expr* cond, llvm::StringRef message)
      : Stmt(NodeKind::AssertStmt, r), cond(cond), message(message) {}
  CROQC_CLASSOF(AssertStmt)
  Expr* cond;
  llvm::StringRef message;
};

/// A preprocessor line kept inside a `__co__` body (`#define`, `#pragma`).
class DirectiveStmt : public Stmt {
 public:
  DirectiveStmt(llvm::SMRange r, llvm::StringRef text) : Stmt(NodeKind::DirectiveStmt, r), text(text) {}
  CROQC_CLASSOF(DirectiveStmt)
  llvm::StringRef text;
};

// ---------------------------------------------------------------------------
// Top level

/// Host C++ copied through verbatim.
class HostCode : public Node {
 public:
  HostCode(llvm::SMRange r, llvm::StringRef text) : Node(NodeKind::HostCode, r), text(text) {}
  CROQC_CLASSOF(HostCode)
  llvm::StringRef text;
};

/// A `__device__` or `__co_device__` definition or a `__cok__` block, kept
/// verbatim.
class DeviceCode : public Node {
 public:
  DeviceCode(llvm::SMRange r, TokenKind regionKind, llvm::StringRef text, llvm::StringRef name)
      : Node(NodeKind::DeviceCode, r), regionKind(regionKind), text(text), name(name) {}
  CROQC_CLASSOF(DeviceCode)
  TokenKind regionKind;  // device_text, co_device_text or cok_text
  llvm::StringRef text;
  llvm::StringRef name;  // the function's name where it could be found
};

class CoFunction : public Node {
 public:
  CoFunction(llvm::SMRange r, TypeRef returnType, llvm::StringRef name, llvm::ArrayRef<Param> params,
             CompoundStmt* body)
      : Node(NodeKind::CoFunction, r), returnType(returnType), name(name), params(params), body(body) {}
  CROQC_CLASSOF(CoFunction)
  TypeRef returnType;
  llvm::StringRef name;
  llvm::ArrayRef<Param> params;
  CompoundStmt* body;
};

#undef CROQC_CLASSOF

class Program {
 public:
  explicit Program(llvm::ArrayRef<Node*> items) : items(items) {}
  llvm::ArrayRef<Node*> items;
};

/// Owns every node of one AST.
class ASTContext {
 public:
  template <typename T, typename... Args>
  T* create(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>, "AST nodes live in an arena");
    return new (arena_.Allocate<T>()) T(std::forward<Args>(args)...);
  }

  template <typename T>
  llvm::ArrayRef<T> copy(llvm::ArrayRef<T> items) {
    static_assert(std::is_trivially_destructible_v<T>, "AST nodes live in an arena");
    if (items.empty()) return {};
    T* mem = arena_.Allocate<T>(items.size());
    std::uninitialized_copy(items.begin(), items.end(), mem);
    return {mem, items.size()};
  }

  llvm::StringRef copy(llvm::StringRef s) {
    if (s.empty()) return {};
    char* mem = arena_.Allocate<char>(s.size());
    std::copy(s.begin(), s.end(), mem);
    return {mem, s.size()};
  }

 private:
  llvm::BumpPtrAllocator arena_;
};

}  // namespace croqc::ast
