// The lowering's internal interface, shared by the Lower*.cpp files.
#pragma once

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Support/SourceMgr.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ast/AST.h"
#include "basic/Diagnostic.h"
#include "lower/Lower.h"
#include "sema/SemaTypes.h"
#include "target/Target.h"

namespace croqc::lower {

using kir::Expr;
using kir::Stmt;
using kir::StmtKind;

/// Calls `f` on `s` and on every statement nested in it: the bodies of
/// compound statements, parallels, `with`, `foreach`, `while` and
/// `inthreads`, and both branches of `if`.
void forEachStmt(const ast::Stmt* s, llvm::function_ref<void(const ast::Stmt*)> f);

/// The KIR type of a scalar sema type: an element type, bool, or int (every
/// integral kind).
inline kir::ScalarType scalarTypeOf(const sema::Type& t) {
  if (t.kind == sema::TypeKind::Element) return kir::ScalarType::element(t.elem);
  if (t.kind == sema::TypeKind::Bool) return kir::ScalarType::boolean();
  return kir::ScalarType::integer();
}

/// One level of thread mapping inside a kernel: which threads form one
/// instance of the level (`span` consecutive thread ids) and how many
/// threads the enclosing level has (`parentSpan`).
struct LevelFrame {
  ast::ParallelLevel level = ast::ParallelLevel::Block;
  std::int64_t span = 1;
  std::int64_t parentSpan = 1;
};

/// The expression `e` as a message quotes it (one line, as sema prints it).
std::string exprText(const ast::Expr* e);
/// The source text of `r`, as written.
inline std::string sourceText(llvm::SMRange r) { return std::string(r.Start.getPointer(), r.End.getPointer()); }

/// How an operand fragment is used by the MMAs of a function: A, B, the
/// accumulator or the metadata of a sparse A (E), and stored MN-major (`col`
/// layout of A, `col` of B in `row.col`).
struct MmaOperandUse {
  kir::FragRole role;
  bool transposed;
  /// The atom sema chose for the MMA that reads it (null: none recorded).
  const target::MmaAtom* atom = nullptr;
  /// The element type of that MMA's A operand and its shape (M x K as
  /// stored; -1 where not a constant).
  TokenKind aElem = TokenKind::eof;
  std::int64_t aRows = -1, aCols = -1;
};

class Lowerer {
 public:
  Lowerer(sema::SemaResult& sema, const LowerOptions& options, DiagnosticEngine& diags);
  std::unique_ptr<kir::Module> run(const ast::Program& program);

 private:
  // ---- Functions, wrappers, statements (Lower.cpp) ----
  void lowerFunction(const ast::CoFunction& fn, const sema::FunctionInfo& info);
  /// Appends a statement of `kind` to the wrapper of the function being lowered.
  kir::HostStmt& appendHostStmt(kir::HostStmt::Kind kind);
  /// Parameter `i` of `fn`: its place in the wrapper's signature and the value kernels read.
  void lowerWrapperParam(const ast::CoFunction& fn, size_t i, const sema::FunctionInfo& info,
                         llvm::DenseMap<const sym::SymExpr*, std::string>& dimSource);
  /// A spanned parameter: the wrapper reads its dimensions (the first parameter with a symbolic
  /// dimension names it, in `dimSource`; later ones are checked against it), checks its shape, and
  /// passes its device data, copied in when it is host data.
  void lowerDataParam(const ast::Param& p, const sema::Symbol* s, const std::string& name,
                      llvm::DenseMap<const sym::SymExpr*, std::string>& dimSource);
  /// After the body: the wrapper's stream waits for the other streams' work when it frees device
  /// memory, tensor maps of tensors nothing writes may be staged, and the host parameters kernels
  /// wrote are copied back.
  void finishWrapper(const ast::CoFunction& fn);
  void lowerHostStmt(const ast::Stmt* s);
  /// Scalar host code (integers, conditions, loops, print) as KIR statements
  /// the wrapper runs.
  void lowerHostCode(const ast::Stmt* s);
  void lowerLaunch(const ast::ParallelStmt* p);
  /// Work about to be enqueued on `stream` comes after the wrapper's work so
  /// far: a stream wait when that went on another stream.
  void orderAfterPreviousWork(const std::string& stream, llvm::SMLoc loc);
  void lowerPrint(const ast::PrintStmt* p);
  void lowerAssert(const ast::AssertStmt* a);
  /// Merges dimensions both tiles of a copy store densely into one.
  void collapseContiguousDims(kir::Tile& dst, kir::Tile& src);
  /// A copy of any rank and run-time extents, element by element over
  /// `threads` threads (this one being `rank`).
  void emitElementCopy(const kir::Tile& dst, const kir::Tile& src, std::int64_t threads, const Expr* rank, bool zfill,
                       llvm::SMLoc loc);
  /// `buffer[index]` as a value: a load in device code, one transfer
  /// (`host_load`) in host code.
  const Expr* loadElement(const kir::Buffer* buffer, const Expr* index);
  void lowerKernel(const ast::ParallelStmt* root, const sema::KernelInfo& info);
  /// The kernel's name, block size, grid and cluster.
  void kernelLaunchShape(kir::Kernel& k, const ast::ParallelStmt* root, const sema::KernelInfo& info);
  /// The kernel's parameters: the global buffers and the values the wrapper computes or receives.
  void kernelParams(kir::Kernel& k);
  /// Forgets the previous kernel's lowering state and runs the searches of `root` that lowering reads.
  void resetKernelState(const ast::ParallelStmt* root, const sema::KernelInfo& info);
  /// Completes the prologue once the body is lowered: the async-copy counter, the events' arrival
  /// counts, the fence and barrier after mbarrier initialisation.
  void finishPrologue(const kir::Kernel& k, llvm::SMLoc loc);
  /// The wrapper's `tma_ok_N`, a host-local value passed to the kernel: true when every tensor map
  /// could be made and the run-time extents of the tiles TMA copies are the boxes'.
  void tmaLaunchCondition(kir::Kernel& k);
  void lowerStmt(const ast::Stmt* s);
  void lowerBody(const ast::Stmt* s);
  void lowerCompound(const ast::CompoundStmt* c);
  void lowerScalarDecl(const ast::ScalarDeclStmt* d);
  void lowerSpannedDecl(const ast::SpannedDeclStmt* d);
  void lowerAssign(const ast::AssignStmt* a);
  /// `var op value` (`op`: `=`, `+=`, ...) of a scalar variable of type `t`;
  /// a 16-bit or narrower float is computed in f32 and stored converted.
  void assignScalar(const std::string& var, kir::ScalarType t, llvm::StringRef op, const Expr* v, llvm::SMLoc loc);
  void lowerForeach(const ast::ForeachStmt* f);
  std::vector<Stmt*>* loopOverTuple(const sema::Symbol* tuple, const ast::ForeachStmt* f, bool unroll,
                                    std::vector<Stmt*>* into,
                                    std::vector<std::pair<const sema::Symbol*, const Expr*>>& saved);
  void lowerWith(const ast::WithStmt* w);
  void lowerIf(const ast::IfStmt* s);
  void lowerWhile(const ast::WhileStmt* s);
  void lowerSync(const ast::SyncStmt* s);
  /// The template of `a` with each `%[name]` replaced by the operand's
  /// number; nullopt after a diagnostic for a name no operand has.
  std::optional<std::string> numberNamedAsmOperands(const ast::AsmStmt& a);
  void lowerCpp(const ast::Stmt* s);
  void noteCppNamedBuffers(llvm::StringRef code);
  /// `--target=cpu`: host and `__device__` code that only a GPU can run
  /// (inline PTX, CUDA device functions the CPU runtime lacks) is reported
  /// where it is written.
  void checkHostCodeForCpu(llvm::StringRef code, llvm::SMLoc loc);
  kir::Buffer* makeBuffer(const sema::Symbol* sym, kir::Space space, TokenKind elem, const sema::SymList& shape,
                          llvm::ArrayRef<std::int64_t> arrayDims, llvm::SMLoc loc);
  void declareLocalBuffer(const kir::Buffer* b, llvm::SMLoc loc);
  /// Whether `b`, if it has a run-time size, is sized by values its kernel
  /// has when it starts; reports the first value that is not otherwise.
  bool sizedAtLaunch(const kir::Buffer* b, llvm::StringRef name, llvm::SMRange range);
  /// An index into an array of buffers or events that the kernel has when it
  /// starts and that is not constant: the wrapper checks it before the
  /// launch (`launchChecks_`).
  void checkIndexAtLaunch(const Expr* index, std::int64_t bound, llvm::StringRef array, size_t dim,
                          const ast::Expr* source);

  // ---- Parallel levels (LowerParallel.cpp) ----
  bool groupedBlockOrder(const sema::ParallelLevelInfo& info) const;
  void lowerGroupedBlocks(const sema::ParallelLevelInfo& info, llvm::SMLoc loc, std::vector<kir::Stmt*>& into);
  void lowerParallel(const ast::ParallelStmt* p);
  /// The frame a statement at the current position runs in.
  const LevelFrame& currentFrame() const { return frames_.back(); }
  /// A level of `span` threads per instance has one instance per block
  /// (never in a kernel of a run-time number of warps).
  bool coversBlock(std::int64_t span) const;
  /// Emits `body` for the threads that do block-wide work of `scope`.
  void firstInstanceOnly(kir::Scope scope, llvm::SMLoc loc, llvm::function_ref<void()> body);
  /// The group level of a run-time number of warps (LowerParallel.cpp).
  std::vector<kir::Stmt*>* lowerRuntimeWarps(const ast::ParallelBinding& b, const sema::ParallelLevelInfo& info,
                                              std::vector<kir::Stmt*>* into);
  /// True for this thread when it is the one that performs a side effect
  /// of the current scope (spec 10.3).
  const Expr* leaderCondition();
  kir::Scope scopeForLevel(ast::ParallelLevel level) const;
  /// The deepest sub-block level whose variables `e` reads (Block if none).
  ast::ParallelLevel deepestLevelUsed(const ast::Expr* e) const;
  /// Calls `fn` on every symbol `e` names, and on those the views and
  /// integers bound to those names use.
  void forEachSymbolUsed(const ast::Expr* e, llvm::function_ref<void(const sema::Symbol&)> fn) const;

  // ---- Expressions (LowerExpr.cpp) ----
  const Expr* lowerKnownInteger(const ast::Expr* e, const sema::Type* t);
  const Expr* lowerName(const ast::NameExpr* e);
  const Expr* lowerBinary(const ast::BinaryExpr* b);
  const Expr* lowerCall(const ast::CallExpr* c);
  bool incrementInPlace(const Expr* v, const ast::Expr* e);
  bool lowerIncrementStmt(const ast::Expr* e);
  const Expr* lowerExpr(const ast::Expr* e);
  const Expr* lowerInt(const ast::Expr* e);
  const Expr* lowerCondition(const ast::Expr* e);
  const Expr* lowerSym(const sym::SymExpr* e, llvm::SMLoc loc);
  const Expr* lowerElementAccess(const ast::MethodExpr* m);
  /// The buffer index of an element access `x.at(i...)` or of a name that is
  /// a rank-0 access; null (with a diagnostic) when it cannot be lowered.
  const Expr* elementIndex(const ast::Expr* base, llvm::ArrayRef<ast::Expr*> indices, const kir::Buffer** buffer);
  kir::ScalarType typeOf(const ast::Expr* e) const;
  std::string nameFor(const sema::Symbol* s);
  void bindValue(const sema::Symbol* s, const Expr* value);

  // ---- Views (LowerView.cpp) ----
  /// The tile a view expression denotes; nullopt after a diagnostic.
  /// `lastExtent`, when larger than the constant last extent of a window of
  /// a buffer, widens the window to it, bounded by the buffer as every
  /// window is; other tiles keep their extents.
  std::optional<kir::Tile> lowerTile(const ast::Expr* e, llvm::StringRef what, std::int64_t lastExtent = 0);
  /// Sets the 2-D origin (row0, col0) of `tile`, a view `e` of type `t` of
  /// a swizzled WGMMA operand buffer; false after reporting a view it
  /// cannot place.
  bool placeSwizzledTile(const ast::Expr* e, const sema::Type& t, kir::Tile& tile);
  /// Limits the valid part of each dimension whose box is a bound of a
  /// run-time extent to that extent.
  void limitToRuntimeExtents(kir::Tile& tile);
  const sema::Symbol* rootSymbol(const ast::Expr* e, std::vector<const ast::Expr*>* arrayIndices) const;
  const kir::Buffer* bufferFor(const sema::Symbol* s) const;
  /// Records the views bound to names (`ref = buf.subspan(R, C).at(s, 0);`)
  /// before the pre-passes that look for the buffers copies and MMAs use,
  /// so that `rootSymbol` sees through the names there too, and the
  /// integers bound to names, so that `deepestLevelUsed` does.
  void findViewBindings(const ast::Stmt* body);

  // ---- Copies (LowerCopy.cpp) ----
  void lowerDma(const ast::DmaStmt* d);
  void lowerWait(const ast::WaitStmt* w);
  /// Waits until this thread's async copy group `newestSeq` has landed, then
  /// makes the data visible to the scope (a barrier; the async-proxy fence
  /// when WGMMA reads shared memory).
  void waitAsyncCopies(const Expr* newestSeq, llvm::SMLoc loc);
  void lowerSwap(const ast::SwapStmt* s);
  void lowerFragDecl(const ast::FragDeclStmt* d);
  void lowerApply(const ast::ApplyStmt* s);
  void lowerFragOp(const ast::FragOpStmt* s);
  const kir::Buffer* fragmentBuffer(const ast::Expr* e, llvm::StringRef what);
  const sema::Symbol* applyIndexVar(const ast::ApplyStmt* s, size_t i) const;
  /// The MMA accumulator `e` names, if it names one.
  kir::Fragment* accumulatorOf(const ast::Expr* e);
  /// Element access to an accumulator (`acc.at(i, j)` inside an `apply` over
  /// its elements): its register; nullopt when `base` is no accumulator,
  /// null after a diagnostic.
  std::optional<const Expr*> accumulatorElement(const ast::Expr* base, llvm::ArrayRef<ast::Expr*> indices);
  bool checkAccumulatorElements(const kir::Fragment& f, llvm::SMRange where, llvm::StringRef what);
  void forEachAccumulatorElement(const kir::Fragment& f, llvm::SMLoc loc,
                                 llvm::function_ref<void(const Expr*, const Expr*, const Expr*)> body);
  void lowerAccumulatorApply(const ast::ApplyStmt* s, const kir::Fragment& f);
  void reduceAccumulatorRows(const ast::FragOpStmt* s, const kir::Buffer* dst, const kir::Fragment& f);
  void fillLocal(const kir::Buffer* b, const Expr* value, llvm::SMLoc loc);
  void forEachElement(const kir::Buffer* b, llvm::SMLoc loc, llvm::function_ref<void(const Expr*)> body);
  void squeezeCopyTiles(kir::Tile& dst, kir::Tile& src);
  /// Folds dimension d + 1 (of a constant extent, stored densely inside d)
  /// into dimension d.
  void mergeInnerDim(kir::Tile& t, size_t d);
  const sema::Symbol* futureOf(const ast::DmaStmt* d);
  std::optional<kir::Scope> copyScope(const ast::DmaStmt* d, const kir::Tile& dst, const kir::Tile& src);
  void recordAsyncFuture(const ast::DmaStmt* d, const sema::Symbol* future, bool async);
  void lowerPad(const ast::DmaStmt* d, const kir::Tile& src);
  void fillPadBorder(const kir::Tile& dst, llvm::ArrayRef<std::int64_t> interior, llvm::ArrayRef<std::int64_t> lo,
                     kir::Scope scope, const Expr* value, llvm::SMLoc loc);
  void emitCopy(const kir::Tile& dst, const kir::Tile& src, kir::Scope scope, bool async, bool zfill,
                llvm::SMLoc loc);
  std::optional<kir::Tile> unnamedCopyTile(const ast::DmaStmt* d, const kir::Tile& src);
  kir::Tile wholeStorageTile(const kir::Buffer* storage, const kir::Tile& src);
  bool placeCopyStorage(kir::Buffer* storage, llvm::StringRef name, llvm::SMRange range, llvm::SMLoc loc);
  kir::Buffer* futureStorage(const sema::Symbol* future, const sema::Type& type, llvm::SMLoc loc);
  /// The whole new buffer a copy of `src` into fresh `storage` (`f = dma.copy
  /// src => shared`) writes, as a tile; nullopt after a diagnostic.
  std::optional<kir::Tile> futureTile(const sema::Symbol* future, ast::Storage storage, const kir::Tile& src,
                                      llvm::SMLoc loc);

  // ---- MMA (LowerMma.cpp) ----
  void lowerMmaFill(const ast::MmaFillStmt* s);
  void lowerMmaLoad(const ast::MmaLoadStmt* s);
  /// The 2-D tile an `mma.load` reads; nullopt after a diagnostic.
  std::optional<kir::Tile> lowerMmaLoadSource(const ast::MmaLoadStmt* s, std::int64_t lastExtent = 0);
  void lowerMmaExec(const ast::MmaExecStmt* s);
  void lowerMmaStore(const ast::MmaStoreStmt* s);
  kir::Fragment* fragmentFor(const ast::Expr* e);
  /// The accumulator `e` names and, for an element `mc[i][j]` of an
  /// accumulator array, its indices (lowered); null fragment when none.
  kir::Fragment* accumulatorFor(const ast::Expr* e, std::vector<const Expr*>& index);
  /// Sets the warp atom of `f` (operands of `elem`): `atom`, or without one
  /// the Primary atom of the type on this target; false when lowering has
  /// no pattern for it.
  /// The fragment's mma.sync atom (sema's, else the target's for `elem`);
  /// the A of a sparse atom holds the packed half of its K.
  bool setWarpAtom(kir::Fragment* f, const target::MmaAtom* atom, TokenKind elem,
                   kir::FragRole role = kir::FragRole::C);
  /// A warp accumulator for `sym` of `elem` (f16, f32 or s32), its atoms from
  /// the MMA that uses it; null after reporting why not.
  kir::Fragment* makeWarpAccumulator(const sema::Symbol* sym, TokenKind elem, const ast::Stmt* s);
  void emitFillAll(kir::Fragment* f, const Expr* value, llvm::SMLoc loc);
  /// `acc op= value` on every element of an accumulator.
  bool lowerAccumulatorUpdate(const ast::AssignStmt* a, llvm::StringRef op);
  /// Binds `sym` to the new fragment `f` and declares it here.
  void declareFragment(const sema::Symbol* sym, kir::Fragment* f, llvm::SMLoc loc);
  /// `mma.fill`: every element of `f` set to the statement's value.
  Stmt* emitFill(kir::Fragment* f, const ast::MmaFillStmt* s);
  /// The fragment an `mma.fill`/`mma.load` binds (`result = ...`) or
  /// re-initialises (`target`).
  const sema::Symbol* mmaTarget(const ast::Stmt* s, llvm::StringRef result, const ast::Expr* target) const;
  void loadFragment(kir::Fragment* f, const kir::Tile& tile, bool transposed, llvm::SMLoc loc);
  /// `acc = mma.load C;`: the accumulator atoms read from `tile`.
  void loadAccumulator(kir::Fragment* f, const kir::Tile& tile, llvm::SMLoc loc);
  /// How the MMAs of the current function read the fragment `sym` (null
  /// when none does).
  const MmaOperandUse* operandUse(const sema::Symbol* sym);

  // ---- Warpgroup MMA on sm_90a and the CPU target (LowerWgmma.cpp) ----
  /// Marks the shared buffers the kernel's warpgroup MMAs read through
  /// descriptors (they get the swizzled K-major layout) before any buffer is
  /// made; tiles loaded into registers (RS-mode A) keep the plain layout.
  void findWgmmaOperands(const ast::Stmt* body);
  /// Whether an `mma.load` under `group-4` fills registers (an RS-mode A
  /// operand) rather than naming a shared tile for a descriptor (SS mode).
  bool wgmmaLoadsRegisters(const ast::MmaLoadStmt* s) const;
  void lowerWgmmaFill(const ast::MmaFillStmt* s);
  void lowerWgmmaLoad(const ast::MmaLoadStmt* s);
  void lowerWgmmaRegisterLoad(const ast::MmaLoadStmt* s, const sema::Symbol* sym);
  /// `me = mma.load meta_tile;` of a sparse warpgroup MMA's metadata: each
  /// thread's register per 64-row slab and K step (croq/device/wgmma_layout.h).
  /// A metadata `mma.load`: the symbol's fragment is set aside (`previous`,
  /// reused when the new one has its shape) and the symbol counts as failed
  /// until the load succeeds; the tile it reads.
  std::optional<kir::Tile> startSparseMetaLoad(const ast::MmaLoadStmt* s, const sema::Symbol* sym,
                                               kir::Fragment*& previous);
  void lowerSparseMetaLoad(const ast::MmaLoadStmt* s, const sema::Symbol* sym, const MmaOperandUse& use);
  void lowerWarpSparseMetaLoad(const ast::MmaLoadStmt* s, const sema::Symbol* sym, const MmaOperandUse& use);
  /// Loads A [64 * m, K] of `tile` into a warpgroup register fragment
  /// (`previous` when it has that shape); null after reporting why not.
  kir::Fragment* loadWgmmaRegisterA(llvm::StringRef name, const kir::Tile& tile, bool transposed,
                                    kir::Fragment* previous, llvm::SMRange where, llvm::SMLoc loc);
  /// Operand A of `s` when it is a `frag` fragment: loaded into registers.
  kir::Fragment* registerAFromLocalFragment(const ast::MmaExecStmt* s);
  /// The shared tile a warpgroup MMA reads through a descriptor for operand
  /// `e` (a view, or a name an `mma.load` bound to one), as a 2-D tile whose
  /// origin a descriptor can address; none after reporting why not.
  std::optional<kir::Tile> wgmmaSharedOperand(const ast::Expr* e, bool mnMajor);
  /// Copies `src`, a global tile a warpgroup MMA reads through a descriptor,
  /// into a new swizzled shared buffer (a slot per warpgroup) and returns
  /// the shared tile; none after reporting why it cannot.
  std::optional<kir::Tile> stageWgmmaOperand(const kir::Tile& src, llvm::SMRange where, llvm::SMLoc loc);
  void lowerWgmmaExec(const ast::MmaExecStmt* s);
  /// Orders the registers of atom `atom` of `f` (all of them: -1) before the
  /// next WGMMA and after the last (a WgmmaFence statement).
  void fenceFragment(const kir::Fragment& f, std::int64_t atom, llvm::SMLoc loc);
  void lowerWgmmaStore(const ast::MmaStoreStmt* s);
  /// Accumulators that `mma.scale` or `mma.<la>.<lb>.scale` scale: their
  /// MMAs go into a partial accumulator of one K block (spec 13.6).
  void findScaledAccumulators(const ast::Stmt* body);
  void lowerMmaScale(const ast::MmaScaleStmt* s);
  /// acc += (its K block's partial) * sa[row] * sb, then the partial is zeroed.
  void emitAccScale(const sema::Symbol* acc, const ast::Expr* sa, const ast::Expr* sb, llvm::SMRange where);
  /// `mma.commit` and `mma.wait<n>` (spec 13.8). A kernel with no
  /// `mma.wait` has every MMA complete before the next statement, so both
  /// need nothing; with one, its warpgroup MMAs are asynchronous:
  /// `mma.commit` closes a group and `mma.wait<n>` waits until at most n
  /// are in flight.
  void lowerMmaFence(const ast::Stmt* s);
  /// In a kernel whose `mma.commit`s wait (`commitWaits_`): MMAs issued
  /// since the last commit are committed and waited for before their
  /// accumulator is stored or refilled.
  void completeUncommittedMmas(llvm::SMLoc loc);

  // ---- TMA on sm_90a (LowerTma.cpp) ----
  void lowerTma(const ast::DmaStmt* d);
  /// The destination of a TMA load: the tile `d` names, or the new shared storage of `future`.
  std::optional<kir::Tile> tmaLoadDestination(const ast::DmaStmt* d, const kir::Tile& src,
                                              const sema::Symbol* future);
  /// The mbarrier of an asynchronous TMA future, `bar`, a pointer that `swap` exchanges, to its
  /// own storage, with the counter of its phases.
  void declareFutureMbarrier(const sema::Symbol* future, const std::string& bar, const std::string& phase,
                             llvm::SMLoc loc);
  /// A `tma.copy` between tiles that are not both 2-D: warned about, and
  /// lowered as the plain copy it stands for (as on the CPU target).
  bool tmaCopyIsPlain(const ast::DmaStmt* d);
  void lowerTmaStore(const ast::DmaStmt* d, const kir::Tile& src);
  /// Marks the buffers `tma` copies write (dense rows) before buffers are made.
  void findTmaDestinations(const ast::Stmt* body);
  /// The kernel parameter holding the tensor map of `global` in boxes of
  /// `rows` x `cols` with `swizzle`, made on the host by the wrapper.
  /// The global side of a TMA copy: the tensor as the map describes it
  /// (rows x cols, host expressions) and the tile's origin in it.
  struct TmaTensor {
    const Expr* rows = nullptr;
    const Expr* cols = nullptr;
    const Expr* row0 = nullptr;
    const Expr* col0 = nullptr;
  };
  std::string tensorMap(const kir::Buffer* global, const TmaTensor& tensor, std::int64_t rows, std::int64_t cols,
                        int swizzle);
  /// A new mbarrier in shared memory, initialised in the kernel prologue.
  kir::Buffer* newMbarrier(llvm::StringRef base);
  /// Where the boxes of a TMA copy lie in a shared tile: `boxes` boxes of
  /// `rows` x `boxCols` elements (one per swizzled column block of a WGMMA
  /// operand, or one dense box), the first `offset` elements into the
  /// buffer and each next one `boxStride` elements further.
  struct TmaSharedBoxes {
    std::int64_t rows = 0, boxCols = 0, boxes = 0;
    const Expr* offset = nullptr;
    const Expr* boxStride = nullptr;
  };
  static bool hasMulticast(const ast::DmaStmt* d);
  bool checkMulticast(const ast::DmaStmt* d, const TmaSharedBoxes& box, int swizzleBytes);
  /// The boxes of shared tile `t` (the view `view`), whole buffer or part of
  /// it; nullopt after a diagnostic when the copy engine cannot address it
  /// (a column range of a dense buffer, a swizzled box not on a column
  /// block, a start not aligned to 128 bytes or to the swizzle period).
  std::optional<TmaSharedBoxes> planTmaShared(const kir::Tile& t, const ast::Expr* view);
  /// The TMA box a global tile `src` is read or written in: the shared
  /// side's extents; a global extent known only at run time (`chunkat` of a
  /// symbolic dimension) must equal the box for TMA to be used, which the
  /// wrapper checks (`tmaHostConditions_`); false after a diagnostic.
  bool settleTmaGlobalTile(kir::Tile& global, const TmaSharedBoxes& box, const ast::Expr* view);
  /// The origin of view `e` along dimension `d` as the source spells it
  /// symbolically (for diagnostics).
  std::string viewOriginText(const ast::Expr* e, unsigned d) const;
  /// Whether `e` can be evaluated by the host wrapper (constants and the
  /// kernel's integer parameters).
  bool hostComputable(const Expr* e) const;

  // ---- Events and `inthreads` regions (LowerEvents.cpp) ----
  void lowerInthreads(const ast::InthreadsStmt* s);
  void lowerEventDecl(const ast::EventDeclStmt* d);
  void lowerTrigger(const ast::TriggerStmt* t);
  void lowerEventWait(const ast::Expr* target, llvm::SMLoc loc);
  /// An event element as lowering sees it: its mbarrier and, for
  /// `e.at(order)`, the parity of the phase (null: the waiter's own phase).
  struct EventRef {
    const sema::Symbol* symbol = nullptr;
    const kir::Buffer* buffer = nullptr;
    const Expr* index = nullptr;
    const Expr* parity = nullptr;
    /// `e.at(order++)`: the counter to advance after the statement.
    const sema::Symbol* advance = nullptr;
  };
  std::optional<EventRef> lowerEventRef(const ast::Expr* e);
  /// `e.at(order++)`: `order += 1` after the statement that used it.
  void advanceOrder(const EventRef& r, llvm::SMLoc loc);
  /// Finds the `trigger e after f` that binds each async TMA future.
  void findEventBoundCopies(const ast::Stmt* body);
  /// The value of a thread-mapping expression for thread `tid` of the
  /// block, when it depends on nothing else.
  std::optional<std::int64_t> threadValue(const Expr* e, std::int64_t tid, int depth = 0) const;
  /// Which threads of the block reach the current statement, as far as the
  /// masks of parallel levels and `inthreads` predicates tell.
  std::vector<bool> activeThreads() const;
  /// The threads a cooperative operation at this point spreads over and
  /// this thread's rank among them: the block, or the enclosing `inthreads`
  /// region; false (after a diagnostic) when the region is not a contiguous
  /// range of threads.
  bool regionThreads(llvm::SMRange where, std::int64_t& threads, const Expr*& rank);
  /// Warns when register reallocation (`setmaxnreg`, in `__cpp__` text or
  /// `croq::cuda::setreg_inc/dec`) runs in part of a warpgroup.
  void checkRegisterRealloc(llvm::SMRange where);
  /// The current kernel runs `setmaxnreg` somewhere.
  bool reallocatesRegisters_ = false;
  /// Emits a block barrier (over the enclosing region) before a cooperative
  /// read of the shared buffer `b` when element stores into it precede the
  /// read in the current statement list since the last block barrier.
  void barrierAfterStores(const kir::Buffer* b, llvm::SMLoc loc);
  /// Whether `body` holds a copy into shared memory.
  bool copiesIntoShared(const ast::Stmt* body) const;
  /// Whether croqc knows, per thread, which threads run the current
  /// statement (every active condition evaluates for every thread).
  bool activeThreadsKnown() const;
  /// Whether every thread of the enclosing `inthreads` region (or of the
  /// block) runs the current statement, as far as croqc knows: a barrier
  /// over the region is then reached by all of them.
  bool wholeRegionActive() const;
  /// The `setmaxnreg` statements that open an `inthreads` region holding
  /// part of a warpgroup (`body`'s first ones) run in every thread of that
  /// warpgroup instead, before the region's test: emits them so (with a
  /// warning) and returns how many, or returns 0 where that does not apply.
  /// `outer`: the threads that reach the test; `on`: the region's threads;
  /// `known`: both are known per thread.
  size_t widenRegisterRealloc(const std::vector<const ast::Stmt*>& body, const std::vector<bool>& outer, bool known,
                              const std::vector<bool>& on, const Expr* cond);

  // ---- Emission helpers ----
  Stmt* emit(StmtKind kind, llvm::SMLoc loc);
  /// Emits a barrier unless one of the same scope already separates the
  /// statements before it from the ones after it.
  void barrier(kir::Scope scope, llvm::SMLoc loc);
  bool barrierRedundant(kir::Scope scope, std::int64_t namedId) const;
  /// Emits `for (v = 0; v < trips; v += step)`, unrolled, and runs
  /// `body(v)` to fill it.
  template <typename F>
  void unrolledLoop(llvm::StringRef base, std::int64_t trips, llvm::SMLoc loc, F&& body, std::int64_t step = 1) {
    Stmt* loop = emit(StmtKind::For, loc);
    loop->var = fresh(base);
    loop->lo = m().intc(0);
    loop->hi = m().intc(trips);
    loop->step = step;
    loop->unroll = true;
    const Expr* v = m().var(loop->var);
    nested(loop->body, [&] { body(v); });
  }
  /// A mutable `int name = 0` declared in the kernel prologue (sequence
  /// numbers, mbarrier phases).
  void declareCounter(const std::string& name, llvm::SMLoc loc);
  /// Where the atoms of accumulator `c` go in `tile` (`mma.store`, with
  /// `.transp`): row and column strides and valid extents, clipped to a
  /// destination smaller than the accumulator (spec 12.10).
  struct StoreGeometry {
    const Expr* rowStride;
    const Expr* colStride;
    const Expr* rowsValid;
    const Expr* colsValid;
  };
  void maskStoreTile(const ast::MmaStoreStmt* s, kir::Tile& tile);
  StoreGeometry storeGeometry(const kir::Tile& tile, const kir::Fragment& c, bool transpose);
  /// The 2-D origin of a unit-stride view in its base (TMA coordinates);
  /// false after a diagnostic.
  bool viewOrigin2d(const ast::Expr* e, const kir::Buffer* global, TmaTensor& tensor);
  /// Runs `body` with emission redirected into `into`.
  template <typename F>
  void nested(std::vector<Stmt*>& into, F&& body) {
    std::vector<Stmt*>* saved = out_;
    out_ = &into;
    body();
    out_ = saved;
  }
  void comment(const ast::Node* n);
  /// The name (without directories) of the file that `loc` is in.
  llvm::StringRef sourceFileName(llvm::SMLoc loc) const;
  std::string sourceLine(llvm::SMLoc loc) const;
  std::string fresh(llvm::StringRef base);
  /// Reports a construct lowering cannot generate code for: `kind` is one of
  /// diag/LowerUnsupported.def, `args` fill its message and hint.
  template <typename... Args>
  void unsupported(DiagKind kind, llvm::SMRange where, const Args&... args) {
    diags_.report(where.Start, kind, args...).range(where);
  }
  /// A construct that the parser or sema rejects reached lowering: croqc stops
  /// with an internal compiler error (the crash handler names the pass), as
  /// bad input is never reported this way.
  [[noreturn]] static void unreachable(const char* what);
  /// `--target=cpu`: the CPU emulation runs the GPU lowering (sm_86's, and
  /// sm_90a's warpgroup MMAs for kernels with a `group-4` level).
  bool cpuTarget() const { return !target_.isGpu; }
  /// Reports a construct the CPU target cannot emulate.
  void cannotEmulate(llvm::SMRange where, llvm::StringRef what, llvm::StringRef hint);
  sym::SymContext& symbols() { return sema_.symbols(); }

  sema::SemaResult& sema_;
  const LowerOptions& options_;
  /// The row of target/Targets.def named by options_.arch: its feature columns
  /// pick the lowering of each construct.
  const target::TargetInfo& target_;
  DiagnosticEngine& diags_;
  const llvm::SourceMgr& sm_;
  std::unique_ptr<kir::Module> module_;
  kir::Module& m() { return *module_; }

  kir::Function* function_ = nullptr;
  const sema::FunctionInfo* functionInfo_ = nullptr;
  kir::Kernel* kernel_ = nullptr;
  /// Lowering statements of the host wrapper (outside every parallel).
  bool host_ = false;
  /// The stream the wrapper's last device work went on.
  std::string lastStream_;
  const sema::KernelInfo* kernelInfo_ = nullptr;
  std::vector<Stmt*>* out_ = nullptr;
  /// Kernel-scope declarations (future pointers, fragments) emitted before
  /// the body.
  std::vector<Stmt*> prologue_;
  std::vector<LevelFrame> frames_;
  /// Numbers the names `fresh` makes: from 0 in each function's wrapper
  /// and from 0 in each of its kernels.
  unsigned freshCounter_ = 0;
  /// The names of the current kernel's parameters before its body is
  /// lowered (the wrapper's values it reads): the names `fresh` makes in the
  /// kernel skip them.
  llvm::StringSet<> kernelParamNames_;
  /// The current kernel's array indices the wrapper checks before its launch:
  /// the condition, and what the failure says.
  std::vector<std::pair<const Expr*, std::string>> launchChecks_;

  /// The C++ names of the symbols of the current function's wrapper and,
  /// while a kernel is lowered, of that kernel.
  llvm::DenseMap<const sema::Symbol*, std::string> names_;
  llvm::DenseMap<const sym::SymExpr*, const Expr*> symValues_;
  llvm::DenseMap<const sema::Symbol*, const Expr*> values_;
  llvm::DenseMap<const sema::Symbol*, kir::Buffer*> buffers_;
  llvm::DenseMap<const sema::Symbol*, kir::Fragment*> fragments_;
  /// The `apply`s over accumulators being lowered, innermost last: the
  /// index variables and the element the current iteration visits.
  struct AccumulatorApply {
    const sema::Symbol* iv[2];
    const kir::Fragment* frag;
    const Expr* atomRow;
    const Expr* atomCol;
    const Expr* elem;
  };
  std::vector<AccumulatorApply> accApplies_;
  /// The role of every MMA operand fragment of `operandUsesOf_`, found once
  /// per function at its first `mma.load`.
  llvm::DenseMap<const sema::Symbol*, MmaOperandUse> operandUses_;
  const sema::FunctionInfo* operandUsesOf_ = nullptr;
  /// Names bound to views (`lhs_b = lhs.subspan(256).at(b);`): their
  /// expression, walked through when a view is lowered.
  llvm::DenseMap<const sema::Symbol*, const ast::Expr*> viewBindings_;
  /// Integers bound by declaration (`cidx = wg - 1;`): their first value,
  /// for `deepestLevelUsed`.
  llvm::DenseMap<const sema::Symbol*, const ast::Expr*> scalarBindings_;
  /// Values whose lowering already failed (reported once).
  llvm::DenseSet<const sema::Symbol*> failed_;
  /// Futures of async copies: the runtime variable holding the sequence
  /// number of the copy group.
  llvm::DenseSet<const sema::Symbol*> asyncFutures_;
  /// Host-memory parameters the kernels write (copied back by the wrapper).
  llvm::DenseSet<const kir::Buffer*> written_;
  /// Global buffers of the current function (parameters and allocations).
  std::vector<kir::Buffer*> globalBuffers_;
  bool anyAsyncCopy_ = false;
  /// The kernel's MMAs are warpgroup MMAs (a `group-4` level on sm_90a or
  /// the CPU target).
  bool wgmma_ = false;
  /// The kernel has an `mma.wait<n>` or an `mma.commit`: its warpgroup MMAs
  /// are asynchronous.
  bool asyncWgmma_ = false;
  /// The kernel has `mma.commit` but no `mma.wait`: a commit also waits for
  /// its group (spec 13.8), and an accumulator is waited for before it is
  /// stored when MMAs may have been issued since the last commit.
  bool commitWaits_ = false;
  bool wgmmaUncommitted_ = false;
  /// WGMMA operand buffers and their swizzle width in bytes.
  llvm::DenseMap<const sema::Symbol*, int> swizzled_;
  /// `ma = mma.load view` under WGMMA (SS mode): the view the descriptor
  /// describes.
  llvm::DenseMap<const sema::Symbol*, const ast::Expr*> wgOperands_;
  /// `mma.load`s of a global B tile: the shared tile each was staged into.
  llvm::DenseMap<const sema::Symbol*, kir::Tile> stagedOperands_;
  /// Scaled warpgroup accumulators and the partial accumulator of each.
  llvm::DenseSet<const sema::Symbol*> scaledAccumulators_;
  llvm::DenseMap<const sema::Symbol*, kir::Fragment*> kblockPartials_;
  /// Tensor maps of the current kernel: (buffer, box rows, box cols,
  /// swizzle) -> parameter name.
  struct TensorMapKey {
    const kir::Buffer* buffer;
    std::string shape;
    std::int64_t rows, cols;
    int swizzle;
  };
  std::vector<std::pair<TensorMapKey, std::string>> tensorMaps_;
  /// Futures of async TMA copies (their mbarrier `<name>_bar`, phase
  /// `<name>_phase`).
  llvm::DenseSet<const sema::Symbol*> tmaFutures_;
  /// Buffers TMA writes: dense rows, no padding.
  llvm::DenseSet<const sema::Symbol*> tmaDests_;
  /// Every kernel name of the module: overloads of one `__co__` name, or `f`'s
  /// second kernel next to a function `f_1`, get names of their own.
  llvm::StringSet<> kernelNames_;
  bool anyMbarrier_ = false;
  /// Conditions the wrapper checks before it lets the kernel use TMA (a
  /// run-time extent equal to its box).
  std::vector<const Expr*> tmaHostConditions_;

  /// An `inthreads` region being lowered: its threads (a contiguous range
  /// [lo, hi) when `contiguous`) and the named barrier its barriers use (0:
  /// the region is the whole block).
  struct Region {
    std::int64_t lo = 0, hi = 0, threads = 0;
    bool contiguous = true;
    std::int64_t barrierId = 0;
    llvm::SMRange range;
    bool reported = false;
    /// The predicate depends on a run-time value: which threads run is not
    /// known, so nothing may be counted over them.
    bool unknown = false;
  };
  std::vector<Region> regions_;
  /// Reports the region's unknown threads (once) at `where`.
  void reportUnknownRegion(Region& r, llvm::SMRange where);
  std::int64_t nextNamedBarrier_ = 1;
  /// The named barrier of warpgroup 0 (warpgroup w uses base + w); 0 until
  /// a warpgroup barrier is needed.
  std::int64_t warpgroupBarrierBase_ = 0;
  /// Conditions that mask threads at the current statement (parallel level
  /// masks, `inthreads` predicates).
  std::vector<const Expr*> activeConds_;
  /// Thread-mapping variables (`tid_`-derived lets) and their values.
  llvm::StringMap<const Expr*> threadLets_;
  /// Events of the current kernel.
  struct EventInfo {
    kir::Buffer* buffer = nullptr;
    std::int64_t elements = 1;
    bool array = false;
    bool ready = false;
    std::int64_t declaredCount = 0;
    /// The roles that trigger the event: sets of threads that share no
    /// thread, each with its first `trigger`.
    struct Triggers {
      std::vector<bool> threads;
      llvm::SMRange at;
    };
    std::vector<Triggers> roles;
    /// Arrivals per phase: one from each thread of every role (0: never
    /// triggered).
    std::int64_t arrivals() const {
      std::int64_t n = 0;
      for (const Triggers& r : roles) n += std::count(r.threads.begin(), r.threads.end(), true);
      return n;
    }
    std::string phases;
    kir::Stmt* init = nullptr;
    /// Released with `trigger.cluster`: each phase takes the arrivals of
    /// every block of the cluster (0: not yet triggered).
    std::int64_t cluster = 0;
    llvm::SMRange firstTrigger;
  };
  llvm::DenseMap<const sema::Symbol*, EventInfo> events_;
  /// Records the threads that arrive at a `trigger` of an event: the same
  /// threads as an earlier trigger's, or a new role that shares no thread
  /// with the earlier ones (its arrivals join each phase); else an error.
  void noteTriggeringThreads(EventInfo& info, const sema::Symbol& event, std::vector<bool> on, llvm::SMRange where);
  /// Async TMA futures whose completion a `trigger e after f` binds to an
  /// event, with that trigger's event expression.
  llvm::DenseMap<const sema::Symbol*, const ast::Expr*> eventBound_;
  /// Bytes an event-bound TMA copy delivers (per future), and bytes issued on
  /// an event by the legacy `tma.copy.async<e>` since its last trigger.
  llvm::DenseMap<const sema::Symbol*, std::int64_t> boundBytes_;
  llvm::DenseMap<const sema::Symbol*, std::int64_t> pendingEventBytes_;
};

}  // namespace croqc::lower
