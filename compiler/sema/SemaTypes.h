// What semantic analysis knows about a `.co` file: the type and symbolic
// shape of every value, every declared symbol with its scope-qualified name,
// and the normalised parallel structure of every kernel. Lowering reads this
// instead of re-deriving anything from the AST.
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ast/AST.h"
#include "sema/Symbolic.h"

namespace croqc::sema {

using sym::SymExpr;
using SymList = llvm::SmallVector<const SymExpr*, 4>;

enum class TypeKind : std::uint8_t {
  Error,         // the value of an erroneous expression; suppresses cascades
  Void,
  Int,           // control integer (`int`, literals, shape arithmetic)
  Bool,
  Element,       // a scalar of an element type (`f16 acc`, `s32 r`, `x.at(i)`)
  Mdspan,        // a shape: `[7, 8]`, `x.span`
  Ituple,        // `{1, 2}`
  Bounded,       // a bounded integer: parallel, foreach and with variables
  BoundedTuple,  // a bounded ituple: `idx` of `with idx in [10, 10]`
  Data,          // spanned data: a parameter, a buffer, a view, a future's data
  Future,        // a data future from `dma`/`tma`
  MmaFuture,     // an operation future from `mma....async`
  Event,
  Fragment,      // a register tile: `mma.load` result or `frag` declaration
  Accumulator,   // an MMA accumulator from `mma.fill`
  Stream,
  String,
  TypeName,      // a type used as a value (`|f16|`, template arguments)
  Opaque,        // a C++ value croqc does not model (`call` results, `&x`)
};

llvm::StringRef typeKindName(TypeKind k);

/// How a view selects elements of the buffer it was made from: element
/// `(i0, i1, ...)` of the view is element `origin[d] + i[d] * stride[d]` of
/// `base`. After `span_as` (`reshaped`) the data is a row-major array of
/// shape `reshapedShape` made of the contiguous elements that start at linear
/// offset `linearOffset` (null: 0) of the base; `origin` and `stride` are then
/// empty, or those of a window of that array, in its coordinates.
///
/// `origin` and `stride` have one entry per dimension of the base buffer (of
/// `reshapedShape` after `span_as`); `dimMap[i]` is the base dimension that
/// view dimension `i` walks (empty means the identity; `.sqz()` drops
/// dimensions from it).
struct ViewInfo {
  const struct Symbol* base = nullptr;
  SymList origin;
  SymList stride;
  llvm::SmallVector<unsigned, 4> dimMap;
  bool reshaped = false;
  SymList reshapedShape;
  const SymExpr* linearOffset = nullptr;
};

struct Type {
  TypeKind kind = TypeKind::Error;
  /// Element type of Element, Data, Future, Fragment and Accumulator values
  /// (TokenKind::eof while an accumulator's type is still to be inferred).
  TokenKind elem = TokenKind::eof;
  /// Where Data lives. `hostParam` marks a non-`global` spanned parameter
  /// (host memory the wrapper copies to the device).
  ast::Storage storage = ast::Storage::None;
  bool hostParam = false;
  /// Extents of Mdspan, Data, Future, Fragment, Accumulator; the extents
  /// (bounds) of a BoundedTuple.
  SymList shape;
  /// Element values of an Ituple, the value of an Int/Bounded.
  SymList values;
  /// Dimensions of a buffer or event array (`buf[STAGES]`).
  SymList arrayDims;
  /// Data that is a view of another buffer.
  std::shared_ptr<ViewInfo> view;
  /// The named buffer, parameter or future this value is or is a part of.
  const struct Symbol* buffer = nullptr;
  /// Futures: made by an `.async` copy.
  bool async = false;
  /// A Bounded value bound from a one-element shape (`with y in [512]`): it
  /// is also a bounded ituple of rank 1, so `y(0)` is its only element.
  bool rankOneTuple = false;

  static Type error() { return Type{}; }
  static Type simple(TypeKind k) {
    Type t;
    t.kind = k;
    return t;
  }
  bool isError() const { return kind == TypeKind::Error; }
  bool isIntegral() const { return kind == TypeKind::Int || kind == TypeKind::Bounded; }
  /// An mdspan or an ituple: a list of integers, its extents or its values.
  bool isShape() const { return kind == TypeKind::Mdspan || kind == TypeKind::Ituple; }
  /// Those integers (for an mdspan or an ituple only).
  const SymList& shapeItems() const { return kind == TypeKind::Mdspan ? shape : values; }
  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
};

/// A name bound in a scope.
struct Symbol {
  enum class Kind : std::uint8_t {
    Param,         // a parameter of the `__co__` function
    ShapeDim,      // `M` in `f16 [M, K] a`
    Variable,      // any declaration or binding in a body
    ParallelVar,   // `p` of `parallel p by ...`
    IterVar,       // `i` of `foreach`/`with`
    Function,      // a `__device__` function at file scope
  };
  Kind kind = Kind::Variable;
  std::string name;
  std::string qualifiedName;
  Type type;
  bool isMutable = false;
  llvm::SMLoc loc;
  /// The symbolic value: the value of an immutable int, the runtime symbol of
  /// a bounded variable.
  const SymExpr* value = nullptr;
  /// The expression an immutable `bool` binding names (`pred = p == 0;`),
  /// which an `inthreads` predicate may use in its place.
  const ast::Expr* boolDefinition = nullptr;
  /// The parallel level of a ParallelVar.
  ast::ParallelLevel level = ast::ParallelLevel::None;
  /// A parameter's index in the function's parameter list; a ShapeDim's
  /// parameter and dimension.
  int paramIndex = -1;
  int dimIndex = -1;
  unsigned uses = 0;
};

/// One level of a normalised parallel nest (spec 8.2, 8.3).
struct ParallelLevelInfo {
  ast::ParallelLevel level;
  SymList extents;                 // one per sub-dimension
  std::vector<const Symbol*> vars;  // the bound variables, one per sub-dimension
  const ast::ParallelStmt* stmt;
  bool implicit = false;  // filled in by level inference (extent 1)
};

/// A kernel: one top-level `parallel` of a `__co__` function.
struct KernelInfo {
  const ast::ParallelStmt* root = nullptr;
  std::string name;
  SymList gridDims;            // blockIdx.x, y, z extents
  std::int64_t threadsPerCta = 1;
  /// `parallel w by N : group` (or `: thread`) of a run-time N as the
  /// kernel's outermost sub-block level: the block runs N instances of
  /// `threadsPerCta` threads.
  const SymExpr* runtimeWarps = nullptr;
  std::int64_t sharedBytes = 0;  // peak shared memory, after lifetime reuse
  bool cooperative = false;
  /// `parallel {c} by [C] : cluster`: C blocks per cluster, consecutive in
  /// the first dimension of the block level inside it; `clusterRank` is c,
  /// `clusterBlockVar` that block dimension's variable (it differs between
  /// the blocks of a cluster). 1 and null without a cluster level.
  std::int64_t clusterSize = 1;
  const Symbol* clusterRank = nullptr;
  const Symbol* clusterBlockVar = nullptr;
  bool clusterLevel = false;
  std::vector<ParallelLevelInfo> levels;
  /// `[[launch_bounds(T, B)]]`: T (0 for `_` or none: the kernel's own
  /// thread count) and B (0: none); `[[maxnreg(n)]]`: n (0: none).
  std::int64_t launchBoundThreads = 0;
  std::int64_t launchMinBlocks = 0;
  std::int64_t maxRegisters = 0;
};

struct FunctionInfo {
  const ast::CoFunction* decl = nullptr;
  std::vector<const Symbol*> params;
  std::vector<const Symbol*> shapeDims;
  std::vector<KernelInfo> kernels;
  Type returnType;
};

/// Everything sema produced for one file.
class SemaResult {
 public:
  SemaResult() = default;
  SemaResult(const SemaResult&) = delete;
  SemaResult& operator=(const SemaResult&) = delete;

  sym::SymContext& symbols() { return sym_; }

  Symbol* newSymbol() { return &symbolStorage_.emplace_back(); }

  /// Every symbol in declaration order (for `--emit=sema`).
  std::vector<const Symbol*> allSymbols;
  llvm::DenseMap<const ast::Expr*, Type> exprTypes;
  /// The symbol a name refers to.
  llvm::DenseMap<const ast::Expr*, const Symbol*> references;
  /// The symbol a declaring statement binds (first declarator for lists).
  llvm::DenseMap<const ast::Node*, std::vector<const Symbol*>> declarations;
  /// The level each parallel statement got after inference.
  llvm::DenseMap<const ast::ParallelStmt*, std::vector<ast::ParallelLevel>> parallelLevels;
  std::vector<FunctionInfo> functions;
  /// Buffers, parameters and futures whose data some `span_as` reshapes:
  /// their rows must be laid out without padding.
  llvm::DenseSet<const Symbol*> reshapedBuffers;
  /// `assert`s whose condition sema found true at compile time: they leave
  /// no code (spec 15.5).
  llvm::DenseSet<const ast::Stmt*> provenAsserts;
  /// The hardware atom (an MmaAtoms.def row) each legal warp or warpgroup
  /// MMA execution tiles onto (target::selectMma's choice).
  llvm::DenseMap<const ast::MmaExecStmt*, unsigned> mmaAtoms;
  /// The issue order of a warpgroup MMA's K tiles that its
  /// `[[schedule(k_tiles(...))]]` gives: a permutation of [0, K tiles).
  llvm::DenseMap<const ast::MmaExecStmt*, std::vector<std::int64_t>> mmaSchedules;
  /// Integer data read where a tile is sized or placed (`w.at(e.at(0), k)`):
  /// the symbol sema gave the expression, and the expression, which
  /// lowering evaluates where the symbol is used.
  llvm::DenseMap<const ast::Expr*, const sym::SymExpr*> dataSymbols;
  llvm::DenseMap<const sym::SymExpr*, const ast::Expr*> dataExprs;

  const Type* typeOf(const ast::Expr* e) const {
    auto it = exprTypes.find(e);
    return it == exprTypes.end() ? nullptr : &it->second;
  }

 private:
  sym::SymContext sym_;
  std::deque<Symbol> symbolStorage_;
};

}  // namespace croqc::sema
