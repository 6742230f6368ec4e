// The checker's internal interface, shared by the Sema*.cpp files: one file
// per area of the language (declarations and statements, expressions, views,
// parallelism, data movement, MMA, dumping).
#pragma once

#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/StringMap.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "basic/Diagnostic.h"
#include "sema/Sema.h"
#include "target/Target.h"

namespace croqc::sema {

/// s8 ... u64: integer element types, whose values are runtime data.
bool isIntegerElem(TokenKind k);

/// The limits of the target the checker needs (spec 8.2, 13.11), copied from
/// its row of the target table (`info`).
struct TargetLimits {
  const target::TargetInfo* info = nullptr;
  std::string name;
  int smVersion = 0;
  std::int64_t maxThreadsPerCta = 0;
  std::int64_t maxSharedBytes = 0;
  bool hasWarpgroups = false;
  bool hasTma = false;
  bool hasClusters = false;
  /// The CPU target runs `__co__` functions on the host: they may return
  /// scalars (spec 2.2).
  bool isGpu = true;
};

bool isFloatElem(TokenKind k);
/// The element type of `a op b` for element operands (C++-like promotion).
TokenKind promoteElem(TokenKind a, TokenKind b);

/// An integer-data parameter (`s32 x`): a run-time value fixed at entry, which
/// ituples and mdspans may take while the body does not assign it after.
bool isEntryValue(const Symbol* s);

/// The first name in `e` that refers to a mutable value (spec 5.2: mdspans
/// and ituples cannot be initialised from mutable values); entry values
/// (isEntryValue) are not mutable here.
const ast::NameExpr* findMutableName(const SemaResult& result, const ast::Expr* e);

class Checker {
 public:
  Checker(SemaResult& result, const SemaOptions& options, DiagnosticEngine& diags);
  void run(const ast::Program& program);

 private:
  // ---- Scopes (Sema.cpp) ----
  enum class ScopeKind : std::uint8_t { File, Function, Block, Parallel, Foreach, With, If, While, Inthreads, Apply };
  struct Scope {
    ScopeKind kind;
    Scope* parent;
    std::string qualifiedName;
    llvm::StringMap<Symbol*> names;
    llvm::StringMap<unsigned> childCounts;
  };
  void pushScope(ScopeKind kind, llvm::StringRef label);
  void popScope();
  Symbol* lookup(llvm::StringRef name) const;
  Symbol* lookupLocal(llvm::StringRef name) const;
  Symbol* declare(llvm::StringRef name, llvm::SMLoc loc, Symbol::Kind kind, Type type, bool isMutable);
  std::string suggestName(llvm::StringRef name) const;

  // ---- Functions and statements (Sema.cpp) ----
  void checkFunction(const ast::CoFunction& fn);
  void checkParams(const ast::CoFunction& fn, FunctionInfo& info);
  void checkStmt(const ast::Stmt* s);
  void checkBody(const ast::Stmt* s, ScopeKind kind, llvm::StringRef label);
  void checkCompound(const ast::CompoundStmt* c);
  void checkAssign(const ast::AssignStmt* a);
  void checkBinding(const ast::AssignStmt* a, const ast::NameExpr* name);
  /// Integer-data parameters that an ituple or mdspan takes the value of in
  /// `e` (isEntryValue): the body may not assign them after (checkNotCaptured).
  void noteEntryValues(const ast::Expr* e, llvm::SMLoc declaration, llvm::StringRef into);
  void checkNotCaptured(const Symbol* s, const ast::NameExpr* name);
  struct EntryValueUse {
    llvm::SMLoc at;    // the first declaration that takes the value
    std::string into;  // "ituple `b`"
  };
  llvm::DenseMap<const Symbol*, EntryValueUse> entryValueUses_;
  void checkScalarDecl(const ast::ScalarDeclStmt* d);
  void checkSpannedDecl(const ast::SpannedDeclStmt* d);
  void checkFragDecl(const ast::FragDeclStmt* d);
  void checkEventDecl(const ast::EventDeclStmt* d);
  void checkMdspanDecl(const ast::MdspanDeclStmt* d);
  void checkItupleDecl(const ast::ItupleDeclStmt* d);
  void checkWith(const ast::WithStmt* w);
  void checkForeach(const ast::ForeachStmt* f);
  /// Declares the variables of one `with` (`isWith`) or `foreach` binding.
  void bindIteration(const ast::IterBinding& b, Symbol::Kind kind, bool isWith);
  void checkIf(const ast::IfStmt* s);
  void checkWhile(const ast::WhileStmt* s);
  void checkInthreads(const ast::InthreadsStmt* s);
  void checkApply(const ast::ApplyStmt* s);
  void checkReturn(const ast::ReturnStmt* r);
  void checkAsmOperand(const ast::AsmOperand& op);
  void checkRedefinition(const ast::CoFunction& fn, const FunctionInfo& info);
  void checkCondition(const ast::Expr* cond);
  SymList arrayDimensions(llvm::ArrayRef<ast::Expr*> dims, llvm::StringRef name);
  void checkConversion(const Type& from, TokenKind to, llvm::SMRange where);

  // ---- Expressions (SemaExpr.cpp) ----
  Type check(const ast::Expr* e);
  Type checkUncached(const ast::Expr* e);
  Type checkName(const ast::NameExpr* n);
  Type checkUnary(const ast::UnaryExpr* u);
  Type checkPostfix(const ast::PostfixExpr* p);
  bool checkIncrementOperand(TokenKind op, const ast::Expr* operand);
  Type checkBinary(const ast::BinaryExpr* b);
  /// `%`, `&`, `|`, `^`, `<<` and `>>` take integers: reports the first
  /// floating operand and returns false.
  bool checkIntegerOperands(TokenKind op, std::initializer_list<std::pair<const ast::Expr*, const Type*>> operands);
  /// An operator on a shape or an ituple (`lhs`), element by element with an integer, ituple or shape.
  Type checkShapeBinary(const ast::BinaryExpr* b, const Type& lhs, const Type& rhs);
  /// An operator on two integers: the symbolic value, with division by zero and overflow of
  /// constants diagnosed.
  Type checkIntegerBinary(const ast::BinaryExpr* b, const Type& lhs, const Type& rhs);
  Type checkConditional(const ast::ConditionalExpr* c);
  Type checkItuple(const ast::ItupleExpr* t);
  Type checkMdspan(const ast::MdspanExpr* m);
  Type checkMember(const ast::MemberExpr* m);
  Type checkElementOf(const ast::ElementOfExpr* e);
  Type checkSubscript(const ast::SubscriptExpr* s);
  Type checkCall(const ast::CallExpr* c);
  Type checkCast(const ast::CastExpr* c);
  /// check() of an argument that C++ receives (of a `call`, or the operand
  /// of a foreign cast), where `nullptr` may stand: it is a C++ value there.
  Type checkCxxOperand(const ast::Expr* e);
  Type checkSizeOf(const ast::SizeOfExpr* s);
  /// The symbolic integer value of an already checked expression (Unknown
  /// when it is not an integer known symbolically).
  const SymExpr* valueOf(const ast::Expr* e);
  /// The element values of a bounded ituple: its elements' values where they
  /// are named (`{x, y} in [...]`), else unknown ones.
  SymList tupleValues(const Type& t);
  /// Gives a bounded ituple without named elements (`with idx in [4, 4]`,
  /// `parallel idx by [2, 4]`) one bounded symbol per element, `idx(0)`,
  /// `idx(1)`, ..., declared at the tuple (no name can refer to them), and
  /// returns them.
  std::vector<Symbol*> tupleElements(Symbol* tuple);
  /// Checks `e` and returns its integer value, reporting non-integers.
  const SymExpr* intValue(const ast::Expr* e, llvm::StringRef what);
  const SymExpr* integerDataValue(const ast::Expr* e);
  const SymExpr* integerEntryValue(const ast::Expr* e, const Type& t);
  std::optional<std::int64_t> constantOf(const ast::Expr* e);
  /// The dimensions an expression denotes as a shape: an mdspan, an int
  /// (rank 1), a bounded ituple's extents or spanned data's shape.
  std::optional<SymList> shapeOf(const ast::Expr* e, llvm::StringRef what);
  bool isMutableValue(const Symbol* s) const;
  std::string describe(const Type& t) const;
  std::string exprText(const ast::Expr* e) const;
  const SymExpr* unknown() { return sym().unknown(); }

  // ---- Views (SemaView.cpp) ----
  Type checkMethod(const ast::MethodExpr* m);
  Type checkElementAccess(const ast::MethodExpr* m, const Type& base);
  Type checkTiling(const ast::MethodExpr* m, const Type& base, const ast::MethodExpr* at);
  const SymExpr* offsetBound(const ast::Expr* e);
  /// The value of `c ? a : b` chosen at run time, given the ranges of the
  /// branches where each is chosen (when known).
  const SymExpr* runtimeChoice(const ast::ConditionalExpr* c, std::optional<sym::Interval> thenRange,
                               std::optional<sym::Interval> elseRange);
  Type checkSubspan(const ast::MethodExpr* m, const Type& base, const ast::MethodExpr* step,
                    const ast::MethodExpr* at);
  Type checkWindow(const ast::MethodExpr* m, const Type& base, const ast::MethodExpr* from);
  Type checkSpanAs(const ast::MethodExpr* m, const Type& base);
  std::optional<Type> squeezedView(const Type& base, const SymList& shape);
  Type keepDimensions(const Type& base, llvm::ArrayRef<unsigned> kept);
  std::optional<const SymExpr*> contiguousWindowOffset(const ast::MethodExpr* m, const Type& base);
  bool isWholeReshape(const Type& base);
  Type checkSqueeze(const ast::MethodExpr* m, const Type& base);
  Type makeView(const Type& base, SymList extents, SymList origin, SymList stride);

  // ---- Parallelism (SemaParallel.cpp) ----
  void checkThreadsPerBlock(const ast::ParallelStmt* p);
  void checkParallelAttributes(const ast::ParallelStmt* p, bool root);
  void checkParallel(const ast::ParallelStmt* p);
  void inferLevels(const ast::ParallelStmt* root);
  unsigned nestHeight(const ast::Stmt* s) const;
  void finishKernel(KernelInfo& kernel);
  void checkClusterLevel(const ast::ParallelBinding& b, const ParallelLevelInfo& info);
  void checkMulticast(const ast::DmaStmt* d, const ast::DmaModifier& m);
  void checkSync(const ast::SyncStmt* s);

  // ---- Data movement, futures, events (SemaData.cpp) ----
  SymList copiedShape(const ast::DmaStmt* d, const Type& src);
  void checkCopyEnds(const ast::DmaStmt* d, const Type& src, const Type& dst, const SymList& produced, bool zfill);
  void checkDma(const ast::DmaStmt* d);
  void checkWait(const ast::WaitStmt* w);
  void checkTrigger(const ast::TriggerStmt* t);
  void checkSwap(const ast::SwapStmt* s);
  void finishFutures();

  // ---- MMA (SemaMma.cpp) ----
  void checkMmaFill(const ast::MmaFillStmt* s);
  void noteFragmentUse(const ast::Expr* e, char operand);
  ast::ParallelLevel mmaUnit() const;
  void reportMmaSelection(const ast::MmaExecStmt* s, const target::MmaQuery& query, const target::MmaSelection& sel,
                          bool warpgroup);
  void checkMmaLoad(const ast::MmaLoadStmt* s);
  void checkMmaExec(const ast::MmaExecStmt* s);
  void checkMmaAttributes(const ast::MmaExecStmt* s, bool warpgroup);
  void checkMmaSchedule(const ast::MmaExecStmt* s, const ast::Attribute& a, const target::MmaSelection& sel);
  void checkMmaStore(const ast::MmaStoreStmt* s);
  void checkMmaScale(const ast::MmaScaleStmt* s);
  void checkFragOp(const ast::FragOpStmt* s);

  sym::SymContext& sym() { return result_.symbols(); }
  template <typename... Args>
  DiagnosticBuilder report(llvm::SMRange r, DiagKind kind, const Args&... args) {
    return std::move(diags_.report(r.Start, kind, args...).range(r));
  }

  SemaResult& result_;
  const SemaOptions& options_;
  DiagnosticEngine& diags_;
  TargetLimits target_;

  std::vector<std::unique_ptr<Scope>> scopes_;
  FunctionInfo* function_ = nullptr;
  const ast::CoFunction* functionDecl_ = nullptr;
  bool sawReturnValue_ = false;
  /// The `__co__` functions defined so far, by name, with the signature of
  /// their C++ wrappers (overloads must differ in it).
  llvm::StringMap<std::vector<std::pair<std::string, const ast::CoFunction*>>> definedFunctions_;

  // Where the statement being checked sits.
  struct ParallelFrame {
    const ast::ParallelStmt* stmt;
    llvm::SmallVector<ast::ParallelLevel, 2> levels;
    bool cooperative = false;
  };
  std::vector<ParallelFrame> parallels_;
  bool runtimeWarpCountAllowed(const ast::ParallelBinding& b) const;
  KernelInfo* kernel_ = nullptr;
  /// The innermost `parallel` that fixed the current kernel's threads per block.
  const ast::ParallelStmt* threadsLeaf_ = nullptr;
  /// Name prefixes registered by `#pragma croq intrinsic prefix P` (spec
  /// 16.3): bare calls of functions with these names need no `call`.
  std::vector<std::string> intrinsicPrefixes_;
  void noteIntrinsicPragmas(llvm::StringRef text);
  unsigned loopDepth_ = 0;
  unsigned inthreadsDepth_ = 0;

  // ---- Path conditions (SemaGuard.cpp) ----
  /// A range that an enclosing condition (`if`, `while`, `inthreads`, `?:`)
  /// gives a bounded variable on the path being checked: `if (wg >= 1)`.
  struct Guard {
    const sym::SymbolExpr* symbol;
    std::optional<std::int64_t> lo;
    std::optional<std::int64_t> hi;
  };
  std::vector<Guard> guards_;
  /// Enclosing conditions that say more than ranges of bounded variables
  /// (`if (x != 2)`, `if (flag)`): the path's ranges are not known.
  unsigned opaqueGuards_ = 0;
  /// Values of `?:` whose range spans both branches' whole ranges, wider
  /// than the values chosen, each mapped to Unknown.
  sym::SymSubstitution impreciseChoices_;
  /// True while checking a function that may leave a block early under a
  /// condition (`if (p == 0) return;`, a `break` in an `if`, C++ text with
  /// `return`): the statements after it are guarded in ways not followed.
  bool conditionalExit_ = false;
  /// Appends the ranges that `cond` (or, with `negated`, its negation)
  /// gives bounded variables; false when it says anything else.
  bool collectGuards(const ast::Expr* cond, bool negated, std::vector<Guard>& out);
  /// Checks `body` with the ranges `cond` (or its negation) gives.
  template <typename Fn>
  void underCondition(const ast::Expr* cond, bool negated, Fn&& body) {
    std::vector<Guard> found;
    bool exact = collectGuards(cond, negated, found);
    size_t before = guards_.size();
    guards_.insert(guards_.end(), found.begin(), found.end());
    if (!exact) ++opaqueGuards_;
    body();
    if (!exact) --opaqueGuards_;
    guards_.resize(before);
  }
  /// The values an integer may take on the current path, or nothing when
  /// the path's conditions are not followed.
  std::optional<sym::Interval> pathBounds(const SymExpr* v);
  static bool hasConditionalExit(const ast::Stmt* s, bool conditional);
  /// The protocol state of every future of the current function: bound by
  /// an async copy, waited since, or still a `dma.any` placeholder.
  struct FutureState {
    bool async = false;
    bool waited = false;
    bool placeholder = false;
    bool tma = false;
    llvm::SMLoc boundAt;
    llvm::SMLoc waitedAt;
    const Scope* scope = nullptr;
  };
  llvm::DenseMap<const Symbol*, FutureState> futures_;

  /// Shared and local buffers of the current function, and what reads and
  /// writes them: a buffer that `mma.load` or a copy reads but that nothing
  /// else names (a copy into it, `mma.store`, an assignment, a call, C++ or
  /// assembly text) has undefined contents (warnBuffersNeverWritten; not
  /// after an error in the function).
  std::vector<const Symbol*> ownBuffers_;
  llvm::DenseMap<const Symbol*, llvm::SMRange> bufferReads_;
  llvm::DenseSet<const Symbol*> bufferWrites_;
  std::vector<llvm::StringRef> inlineTexts_;
  unsigned readOnlyOperand_ = 0;
  unsigned errorsBeforeFunction_ = 0;
  void noteBufferUse(const Symbol* s, const Type& t, llvm::SMRange where);
  void warnBuffersNeverWritten();
  Symbol* bindFuture(llvm::StringRef name, llvm::SMLoc loc, const Type& type, const ast::Node* stmt);

  /// Fragments bound by `mma.load` of a shared view without `.frag`: under
  /// `group-4` they stand for shared-memory descriptors (SS-mode WGMMA).
  llvm::DenseSet<const Symbol*> sharedFragments_;
  bool declareAccumulatorArray(const ast::MmaFillStmt* s);
  bool isSharedFragment(const ast::Expr* e) const;
  /// The latest `mma.load` that bound each register fragment (`.frag`, or a
  /// view outside shared memory), for notes on operands WGMMA cannot take
  /// from registers.
  llvm::DenseMap<const Symbol*, const ast::MmaLoadStmt*> registerLoads_;
  /// Where a fragment is first the target of `mma.fill` and first operand A
  /// or B of an MMA: one fragment cannot be both (reported once).
  struct FragmentUses {
    llvm::SMRange fill, operandAt;
    char operand = 0;
    bool reported = false;
  };
  llvm::DenseMap<const Symbol*, FragmentUses> fragmentUses_;
  /// The explicit swizzle (in bytes) of the copies that write each buffer.
  struct SwizzleUse {
    std::int64_t bytes;
    llvm::SMLoc loc;
  };
  llvm::DenseMap<const Symbol*, SwizzleUse> bufferSwizzles_;

  /// Shared bytes of the current kernel, per open scope, for the capacity
  /// check: a scope's buffers live as long as the scope, and sibling scopes
  /// reuse each other's storage, so a scope needs its own bytes plus the
  /// largest need of its children.
  struct SharedUse {
    std::int64_t own = 0;
    std::int64_t childPeak = 0;
  };
  std::vector<SharedUse> sharedByScope_;
  void addSharedBytes(std::int64_t bytes);
};

}  // namespace croqc::sema
