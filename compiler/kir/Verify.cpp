#include "kir/Verify.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/Support/FormatVariadic.h>

#include <algorithm>

#include "kir/KIR.h"
#include "target/ElementTypes.h"
#include "target/Target.h"

namespace croqc::kir {

namespace {

std::string bufferName(const Buffer* b) { return b->name.empty() ? "<unnamed>" : b->name; }

/// A type a value can have: bool, int, or an element type (not void).
bool isScalar(ScalarType t) {
  if (t.kind == ScalarType::Kind::Elem) return target::elementBits(t.elem) > 0;
  return t.kind != ScalarType::Kind::Void;
}

class Verifier {
 public:
  explicit Verifier(std::vector<std::string>& problems) : problems_(problems) {}

  void function(const Function& f) {
    llvm::DenseSet<const Kernel*> own;
    for (const std::unique_ptr<Kernel>& k : f.kernels) {
      own.insert(k.get());
      kernel(*k);
    }
    where_ = "function `" + f.name + "`";
    for (const HostStmt& h : f.wrapper) hostStmt(h, own);
  }

 private:
  // --- kernels -------------------------------------------------------------

  void kernel(const Kernel& k) {
    where_ = "kernel `" + k.name + "`";
    kernel_ = &k;
    depth_ = 0;
    declaredLocals_.clear();
    declaredPointers_.clear();
    asyncWgmmaOpen_ = nullptr;
    shared_.clear();
    accumulatorsFenced_ = k.accumulatorsFenced;
    if (k.threads <= 0) problem("launches {0} threads per block", k.threads);
    if (k.launchBoundThreads && k.launchBoundThreads < k.threads)
      problem("has a launch bound of {0} threads below its {1} threads per block", k.launchBoundThreads, k.threads);
    if (k.maxRegisters && (k.launchBoundThreads || k.launchMinBlocks))
      problem("has both a register cap and launch bounds, which nvcc rejects together");
    for (const Buffer* b : k.sharedBuffers) {
      if (!b) {
        problem("lists a null shared buffer");
        continue;
      }
      shared_.insert(b);
      if (b->space != Space::Shared) problem("lists {0} buffer `{1}` as shared", spaceName(b->space), bufferName(b));
    }
    block(k.body);
    if (asyncWgmmaOpen_)
      problem("an asynchronous WGMMA into `{0}` is never committed (no WGMMA commit follows it)",
              asyncWgmmaOpen_->frag ? asyncWgmmaOpen_->frag->name : "?");
    if (k.sharedLaidOut) sharedLayout(k);
  }

  void block(const std::vector<Stmt*>& body) {
    const size_t factorsInScope = factors_.size();
    for (size_t i = 0; i < body.size(); ++i) {
      if (accumulatorsFenced_ && body[i]) operandFences(body, i);
      stmt(body[i]);
    }
    factors_.resize(factorsInScope);
  }

  /// Once `wgmma-operand-fences` ran: a fill, store or scale of an
  /// accumulator of asynchronous WGMMAs follows an operand fence of each of
  /// its rows (and nothing else after them).
  void operandFences(const std::vector<Stmt*>& body, size_t at) {
    const Fragment* f = asyncAccumulatorAccessed(body[at]);
    if (!f) return;
    llvm::DenseSet<std::int64_t> fenced;
    for (size_t i = at; i-- > 0;) {
      const Stmt* s = body[i];
      if (!s || s->kind != StmtKind::WgmmaFence || s->frag != f) break;
      fenced.insert(s->count);
    }
    for (std::int64_t row = 0; row < f->rows; ++row) {
      if (fenced.contains(row)) continue;
      problem("{0} touches `{1}`, an accumulator of asynchronous WGMMAs, without an operand fence of its row {2} "
              "right before it",
              stmtKindName(body[at]->kind), f->name, row);
      return;
    }
  }

  void stmt(const Stmt* s) {
    if (!s) {
      problem("holds a null statement");
      return;
    }
    stmt_ = s;
    switch (s->kind) {
      case StmtKind::For:
      case StmtKind::If:
      case StmtKind::While:
      case StmtKind::Let:
      case StmtKind::Assign:
      case StmtKind::Store:
      case StmtKind::Eval:
      case StmtKind::Print:
      case StmtKind::Rotate: scalar(s); break;
      case StmtKind::Copy:
      case StmtKind::TmaLoad:
      case StmtKind::TmaStore: copy(s); break;
      case StmtKind::FragDecl:
      case StmtKind::FragFill:
      case StmtKind::FragUpdate:
      case StmtKind::FragStore:
      case StmtKind::AtomLoad:
      case StmtKind::AtomMma:
      case StmtKind::AtomStore:
      case StmtKind::AccScaleLoad:
      case StmtKind::AccScale:
      case StmtKind::WgmmaExec:
      case StmtKind::WgmmaFence: fragmentOp(s); break;
      case StmtKind::Barrier:
      case StmtKind::AsyncWait:
      case StmtKind::TmaWait:
      case StmtKind::EventArrive:
      case StmtKind::EventWait:
      case StmtKind::WgmmaCommit:
      case StmtKind::WgmmaWait:
      case StmtKind::MbarrierInit:
      case StmtKind::EventInit: synchronisation(s); break;
      case StmtKind::LocalArray:
      case StmtKind::BufferPointer: declaration(s); break;
      // Kinds with no operands of their own to check.
      case StmtKind::Block:
      case StmtKind::WgmmaArrive:
      case StmtKind::AsyncCommit:
      case StmtKind::Fence:
      case StmtKind::GridSync:
      case StmtKind::Raw:
      case StmtKind::Return:
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Comment: break;
    }
    for (const Expr* e : {s->lo, s->hi, s->cond, s->value, s->index, s->i, s->j, s->k, s->mbarrierIndex}) expr(e);
    for (const Expr* e : s->fragIndex) expr(e);
    for (const Expr* e : s->args) expr(e);
    if (s->frag && !s->fragIndex.empty() && s->fragIndex.size() != s->frag->arrayDims.size())
      problem("{0} indexes accumulator array `{1}` with {2} indices; it has {3} dimensions", stmtKindName(s->kind),
              s->frag->name, s->fragIndex.size(), s->frag->arrayDims.size());
    const Stmt* self = s;
    ++depth_;
    block(s->body);
    block(s->elseBody);
    --depth_;
    stmt_ = self;
  }

  // Loops, conditionals, variables, stores and expression statements.
  void scalar(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::For:
        need(!s->var.empty(), "has no induction variable");
        need(s->lo && s->hi, "has no bounds");
        need(s->step != 0, "steps by 0");
        break;
      case StmtKind::If:
      case StmtKind::While: need(s->cond, "has no condition"); break;
      case StmtKind::Let:
        need(!s->var.empty(), "names no variable");
        need(s->value, "has no value");
        if (!isScalar(s->type))
          problem("let `{0}` is of type `{1}`, which is not a scalar type", s->var, typeName(s->type));
        break;
      case StmtKind::Assign:
        need(!s->var.empty(), "names no variable");
        need(s->value && !s->op.empty(), "has no value or operator");
        break;
      case StmtKind::Store:
        if (need(s->buffer, "has no buffer")) use(s->buffer);
        need(s->index, "has no index");
        need(s->value && !s->op.empty(), "has no value or operator");
        break;
      case StmtKind::Eval: need(s->value, "has no expression"); break;
      case StmtKind::Print: need(!s->text.empty(), "has no format"); break;
      case StmtKind::Rotate:
        need(s->args.size() >= 2 && std::all_of(s->args.begin(), s->args.end(),
                                                  [](const Expr* a) { return a && a->kind == ExprKind::Var; }),
             "does not name two or more variables");
        break;
      default: break;
    }
  }

  // Copies between tiles, by threads or by TMA.
  void copy(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Copy:
        need(s->threads > 0, "has no participating threads");
        tile(s->dst, "destination");
        tile(s->src, "source");
        break;
      case StmtKind::TmaLoad:
        need(!s->text.empty(), "names no tensor map");
        need(!s->var.empty(), "names no mbarrier");
        need(s->cond, "has no condition for using TMA");
        need(s->count > 0 && s->k && s->index && s->value, "has no box count, box width or destination placement");
        need(s->src.row0 && s->src.col0, "has no source origin");
        if (tile(s->dst, "destination") && s->dst.buffer->space != Space::Shared)
          problem("{0} copies into {1} buffer `{2}`; TMA writes shared memory", stmtKindName(s->kind),
                  spaceName(s->dst.buffer->space), bufferName(s->dst.buffer));
        break;
      case StmtKind::TmaStore:
        need(!s->text.empty(), "names no tensor map");
        need(s->cond, "has no condition for using TMA");
        need(s->count > 0 && s->k, "has no box count or box width");
        need(s->dst.row0 && s->dst.col0, "has no destination origin");
        if (tile(s->src, "source") && s->src.buffer->space != Space::Shared)
          problem("{0} reads {1} buffer `{2}`; TMA reads shared memory", stmtKindName(s->kind),
                  spaceName(s->src.buffer->space), bufferName(s->src.buffer));
        break;
      default: break;
    }
  }

  // Fragments, MMA atoms and WGMMAs: the fragments' roles, atom indices and tiles.
  void fragmentOp(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::FragDecl: need(s->frag, "declares no fragment"); break;
      case StmtKind::FragFill:
      case StmtKind::FragUpdate:
        fragment(s->frag, "", {FragRole::A, FragRole::B, FragRole::C, FragRole::E});
        need(s->value, "has no value");
        break;
      case StmtKind::FragStore: need(s->index && s->value, "has no element or value"); break;
      case StmtKind::AtomLoad:
        fragment(s->frag, "", {FragRole::A, FragRole::B, FragRole::C, FragRole::E});
        need(s->i && s->j, "has no atom indices");
        tile(s->src, "source");
        break;
      case StmtKind::AtomMma:
        fragment(s->frag, "accumulator ", {FragRole::C});
        fragment(s->fragA, "A operand ", {FragRole::A});
        fragment(s->fragB, "B operand ", {FragRole::B});
        if (s->fragE) fragment(s->fragE, "metadata ", {FragRole::E});
        need(s->i && s->j && s->k, "has no atom indices");
        break;
      case StmtKind::AtomStore:
        fragment(s->frag, "", {FragRole::C});
        need(s->i && s->j, "has no atom indices");
        tile(s->dst, "destination");
        break;
      case StmtKind::AccScaleLoad:
        fragment(s->frag, "", {FragRole::C});
        need(s->i && s->value && !s->var.empty(), "has no atom index, factor or name");
        tile(s->src, "scale");
        factors_.push_back(s->var);
        break;
      case StmtKind::AccScale:
        fragment(s->frag, "", {FragRole::C});
        fragment(s->fragB, "partial ", {FragRole::C});
        if (need(s->i && !s->var.empty(), "has no atom index or row factors") &&
            std::find(factors_.begin(), factors_.end(), s->var) == factors_.end())
          problem("accumulator scale uses row factors `{0}` that no accumulator scale load before it in scope "
                  "defines",
                  s->var);
        break;
      case StmtKind::WgmmaExec: wgmma(s); break;
      case StmtKind::WgmmaFence: fragment(s->frag, "", {FragRole::A, FragRole::C, FragRole::E}); break;
      default: break;
    }
  }

  // Barriers, waits, event arrivals and mbarrier initialisation.
  void synchronisation(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::Barrier:
        if (s->count > 0 && s->scope == Scope::Cta)
          need(s->threads > 0 && s->threads % 32 == 0, "is a named barrier over a number of threads that is not whole warps");
        break;
      case StmtKind::AsyncWait: need(s->value, "has no group count"); break;
      case StmtKind::TmaWait: need(!s->var.empty() && s->cond, "names no mbarrier or has no condition"); break;
      case StmtKind::EventArrive:
      case StmtKind::EventWait:
        if (need(s->buffer && s->index, "names no event")) event(s);
        if (s->kind == StmtKind::EventWait) need(s->value || !s->var.empty(), "has no parity");
        break;
      case StmtKind::WgmmaCommit: asyncWgmmaOpen_ = nullptr; break;
      case StmtKind::WgmmaWait: need(s->count >= 0, "waits for a negative number of groups"); break;
      case StmtKind::MbarrierInit:
      case StmtKind::EventInit: mbarrierInit(s); break;
      default: break;
    }
  }

  /// The mbarrier of an arrival or wait: an event is a u64 in shared memory.
  void event(const Stmt* s) {
    const Buffer* b = s->buffer;
    if (b->elem != TokenKind::ty_u64 || b->space != Space::Shared)
      problem("{0} is on `{1}`, a {2} buffer of {3} elements; an event is a u64 mbarrier in shared memory",
              stmtKindName(s->kind), bufferName(b), spaceName(b->space), typeName(ScalarType::element(b->elem)));
    use(b);
  }

  void mbarrierInit(const Stmt* s) {
    if (need(s->buffer, "has no buffer")) {
      if (s->buffer->space != Space::Shared)
        problem("{0} of `{1}` places it in {2} memory; mbarriers live in shared memory", stmtKindName(s->kind),
                bufferName(s->buffer), spaceName(s->buffer->space));
      if (!shared_.count(s->buffer))
        problem("{0} of `{1}`, which is not among the kernel's shared buffers", stmtKindName(s->kind), bufferName(s->buffer));
    }
    need(s->count > 0, "initialises no mbarrier (a count of 0)");
    if (s->kind == StmtKind::EventInit) need(s->threads > 0, "expects no arrivals per phase");
  }

  // Local arrays and pointers to storage: what later statements may use.
  void declaration(const Stmt* s) {
    switch (s->kind) {
      case StmtKind::LocalArray:
        if (need(s->buffer, "declares no buffer")) {
          if (s->buffer->space != Space::Local)
            problem("{0} declares {1} buffer `{2}`", stmtKindName(s->kind), spaceName(s->buffer->space), bufferName(s->buffer));
          else if (s->buffer->runtimeElements && depth_ != 0)
            problem(
                "{0} `{1}` has a run-time size but is not a top-level statement of the kernel (it would allocate "
                "at every execution)",
                stmtKindName(s->kind), bufferName(s->buffer));
          else if (s->buffer->runtimeElements && kernel_ &&
                   llvm::find(kernel_->runtimeLocals, s->buffer) == kernel_->runtimeLocals.end())
            problem(
                "{0} `{1}` has a run-time size but is not among the kernel's run-time local buffers, whose stack "
                "the wrapper reserves",
                stmtKindName(s->kind), bufferName(s->buffer));
          else if (!s->buffer->runtimeElements && s->buffer->totalElements() <= 0)
            problem("{0} `{1}` has {2} elements; local buffers have a constant, positive size", stmtKindName(s->kind),
                    bufferName(s->buffer), s->buffer->totalElements());
          declaredLocals_.insert(s->buffer);
        }
        break;
      case StmtKind::BufferPointer:
        if (need(s->buffer && s->src.buffer, "has no pointer or storage")) {
          if (!s->buffer->pointer) problem("{0} declares `{1}`, which is not a pointer", stmtKindName(s->kind), bufferName(s->buffer));
          if (s->buffer->space != s->src.buffer->space || s->buffer->elem != s->src.buffer->elem)
            problem("{0} `{1}` points at `{2}`, a buffer of another space or element type", stmtKindName(s->kind),
                    bufferName(s->buffer), bufferName(s->src.buffer));
          use(s->src.buffer);
          declaredPointers_.insert(s->buffer);
        }
        break;
      default: break;
    }
  }

  void wgmma(const Stmt* s) {
    fragment(s->frag, "accumulator ", {FragRole::C});
    if (s->frag && !s->frag->warpgroup) problem("{0} accumulates into `{1}`, which is not a warpgroup fragment", stmtKindName(s->kind), s->frag->name);
    if (s->fragA) fragment(s->fragA, "A operand ", {FragRole::A});
    else tile(s->src, "A operand");
    if (s->fragB) fragment(s->fragB, "metadata ", {FragRole::E});
    if (s->fragB && s->fragB->role == FragRole::E && s->frag &&
        (s->fragB->rows < s->frag->rows || s->fragB->cols < s->count))
      problem("{0} issues {1} x {2} sparse instructions, but metadata `{3}` covers {4} x {5}", stmtKindName(s->kind),
              s->frag->rows, s->count, s->fragB->name, s->fragB->rows, s->fragB->cols);
    tile(s->dst, "B operand");
    need(s->count > 0 && s->step > 0, "has no K steps");
    if (!s->kOrder.empty()) {
      std::vector<bool> seen(static_cast<size_t>(std::max<std::int64_t>(s->count, 0)), false);
      bool permutation = static_cast<std::int64_t>(s->kOrder.size()) == s->count;
      for (std::int64_t k : s->kOrder) {
        if (!permutation || k < 0 || k >= s->count || seen[static_cast<size_t>(k)]) {
          permutation = false;
          break;
        }
        seen[static_cast<size_t>(k)] = true;
      }
      if (!permutation) problem("{0} has an issue order that is not a permutation of its {1} K steps", stmtKindName(s->kind), s->count);
    }
    if (s->cond) need(s->cond->type.kind == ScalarType::Kind::Bool, "has a scale-d condition that is not a bool");
    if (s->async) asyncWgmmaOpen_ = s;
  }

  void fragment(const Fragment* f, llvm::StringRef which, std::initializer_list<FragRole> roles) {
    if (!f) {
      problem("{0} has no {1}fragment", stmtKindName(stmt_->kind), which);
      return;
    }
    if (std::find(roles.begin(), roles.end(), f->role) == roles.end())
      problem("{0} uses {1}fragment `{2}`, whose role is {3}", stmtKindName(stmt_->kind), which, f->name, fragRoleName(f->role));
  }

  /// Checks `t` and the buffer it points into; false when it has none.
  bool tile(const Tile& t, llvm::StringRef which) {
    if (!t.buffer) {
      problem("{0}'s {1} tile has no buffer", stmtKindName(stmt_->kind), which);
      return false;
    }
    use(t.buffer);
    unsigned rank = t.rank();
    if (t.strides.size() != rank)
      problem("{0}'s {1} tile of `{2}` has {3} dimensions and {4} strides", stmtKindName(stmt_->kind), which,
              bufferName(t.buffer), rank, t.strides.size());
    if (!t.valid.empty() && t.valid.size() != rank)
      problem("{0}'s {1} tile of `{2}` has {3} dimensions and {4} validity bounds", stmtKindName(stmt_->kind), which,
              bufferName(t.buffer), rank, t.valid.size());
    if (!t.runtimeExtents.empty() && t.runtimeExtents.size() != rank)
      problem("{0}'s {1} tile of `{2}` has {3} dimensions and {4} run-time extents", stmtKindName(stmt_->kind), which,
              bufferName(t.buffer), rank, t.runtimeExtents.size());
    for (size_t d = 0; d < rank; ++d) {
      bool runtime = d < t.runtimeExtents.size() && t.runtimeExtents[d];
      if (t.extents[d] == 0 || (t.extents[d] < 0 && !runtime))
        problem("{0}'s {1} tile of `{2}` has extent {3} in dimension {4}", stmtKindName(stmt_->kind), which,
                bufferName(t.buffer), t.extents[d], d);
    }
    for (const Expr* e : {t.offset, t.inside, t.row0, t.col0}) expr(e);
    for (const Expr* e : t.valid) expr(e);
    for (const Expr* e : t.runtimeExtents) expr(e);
    return true;
  }

  /// A buffer a statement of the kernel reads or writes must be placed.
  void use(const Buffer* b) {
    if (!b) return;
    if (b->pointer) {
      if (!declaredPointers_.count(b) && !unplacedReported_.count(b)) {
        unplacedReported_.insert(b);
        problem("{0} uses pointer `{1}` before its declaration", stmtKindName(stmt_->kind), bufferName(b));
      }
      return;
    }
    switch (b->space) {
      case Space::Global: return;
      case Space::Shared:
        if (!shared_.count(b) && !unplacedReported_.count(b)) {
          unplacedReported_.insert(b);
          problem("{0} uses shared buffer `{1}`, which is not among the kernel's shared buffers (it has no place in shared memory)",
                  stmtKindName(stmt_->kind), bufferName(b));
        }
        return;
      case Space::Local:
        if (!declaredLocals_.count(b) && !unplacedReported_.count(b)) {
          unplacedReported_.insert(b);
          problem("{0} uses local buffer `{1}` before its declaration", stmtKindName(stmt_->kind), bufferName(b));
        }
        return;
    }
  }

  void expr(const Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Unary:
        if (e->operands.size() != 1) problem("{0} holds a {1}-operand unary expression", stmtKindName(stmt_->kind), e->operands.size());
        break;
      case ExprKind::Convert:
        if (e->operands.size() != 1) problem("{0} holds a {1}-operand unary expression", stmtKindName(stmt_->kind), e->operands.size());
        if (!isScalar(e->type))
          problem("{0} holds a conversion to `{1}`, which is not a scalar type", stmtKindName(stmt_->kind),
                  typeName(e->type));
        break;
      case ExprKind::Binary:
        if (e->operands.size() != 2) problem("{0} holds a binary `{1}` of {2} operands", stmtKindName(stmt_->kind), e->name, e->operands.size());
        break;
      case ExprKind::Select:
        if (e->operands.size() != 3) problem("{0} holds a selection of {1} operands", stmtKindName(stmt_->kind), e->operands.size());
        break;
      case ExprKind::Load:
      case ExprKind::Address:
        if (!e->buffer || e->operands.size() != 1) {
          problem("{0} holds {1} without a buffer and one index", stmtKindName(stmt_->kind),
                  e->kind == ExprKind::Load ? "a load" : "an element address");
          return;
        }
        use(e->buffer);
        break;
      case ExprKind::FragElem:
        if (!e->frag || e->operands.size() != 3) problem("{0} holds an accumulator element without its fragment and indices", stmtKindName(stmt_->kind));
        else if (e->frag->role != FragRole::C)
          problem("{0} reads an accumulator element of `{1}`, whose role is {2}", stmtKindName(stmt_->kind), e->frag->name, fragRoleName(e->frag->role));
        break;
      case ExprKind::Var:
        if (e->name.empty()) problem("{0} holds a variable without a name", stmtKindName(stmt_->kind));
        break;
      case ExprKind::Builtin:
        if (e->intValue < 0 || e->intValue > 2)
          problem("{0} reads a launch coordinate along dimension {1}", stmtKindName(stmt_->kind), e->intValue);
        break;
      case ExprKind::ViewExtent:
        problem("{0} reads the extent of host view `{1}`, which only the wrapper has", stmtKindName(stmt_->kind),
                e->name);
        break;
      default: break;
    }
    for (const Expr* o : e->operands) {
      if (!o) problem("{0} holds an expression with a null operand", stmtKindName(stmt_->kind));
      else expr(o);
    }
  }

  // --- shared memory -------------------------------------------------------

  /// Buffers of constant size are aligned, inside the kernel's shared memory,
  /// and share bytes only when both may be reused and a CTA barrier at the
  /// kernel's top level lies between their uses.
  void sharedLayout(const Kernel& k) {
    stmt_ = nullptr;
    if (k.sharedOptIn != (k.sharedBytes > target::kDefaultSharedBytes))
      problem("has {0} bytes of shared memory but {1} opt in to more than the default {2}", k.sharedBytes,
              k.sharedOptIn ? "does" : "does not", target::kDefaultSharedBytes);
    struct Placed {
      const Buffer* b;
      std::int64_t begin, end;
      std::int64_t first = -1, last = -1;
    };
    std::vector<Placed> placed;
    for (const Buffer* b : k.sharedBuffers) {
      if (!b || b->space != Space::Shared) continue;
      if (b->runtimeElements) {
        if (!b->sharedOffsetExpr) problem("shared buffer `{0}` of run-time size has no offset", bufferName(b));
        if (!k.runtimeSharedBytes) problem("shared buffer `{0}` has a run-time size, but the kernel's shared memory does not", bufferName(b));
        continue;
      }
      std::int64_t bytes = b->totalElements() * target::elementBytes(b->elem);
      if (bytes <= 0) {
        problem("shared buffer `{0}` has {1} bytes", bufferName(b), bytes);
        continue;
      }
      if (b->sharedOffset < 0 || b->sharedOffset % std::max<unsigned>(16, b->alignBytes) != 0)
        problem("shared buffer `{0}` is at byte {1}, not a multiple of its alignment {2}", bufferName(b), b->sharedOffset,
                std::max<unsigned>(16, b->alignBytes));
      if (b->sharedOffset + bytes > k.sharedBytes)
        problem("shared buffer `{0}` ends at byte {1}, past the kernel's {2} bytes of shared memory", bufferName(b),
                b->sharedOffset + bytes, k.sharedBytes);
      placed.push_back({b, b->sharedOffset, b->sharedOffset + bytes});
    }
    // Top-level lifetimes, as the placement sees them.
    std::vector<std::int64_t> barriers;
    for (size_t i = 0; i < k.body.size(); ++i) {
      const Stmt* s = k.body[i];
      if (s && s->kind == StmtKind::Barrier && s->scope == Scope::Cta && s->count == 0) barriers.push_back(static_cast<std::int64_t>(i));
      llvm::DenseSet<const Buffer*> used;
      if (s) forEachBufferUse(*s, [&](const Buffer* b) { used.insert(b); });
      for (Placed& p : placed) {
        if (!used.count(p.b)) continue;
        if (p.first < 0) p.first = static_cast<std::int64_t>(i);
        p.last = static_cast<std::int64_t>(i);
      }
    }
    auto separated = [&](const Placed& a, const Placed& b) {
      if (a.last < 0 || b.first < 0 || a.last >= b.first) return false;
      return std::any_of(barriers.begin(), barriers.end(), [&](std::int64_t i) { return i > a.last && i < b.first; });
    };
    for (size_t x = 0; x < placed.size(); ++x) {
      for (size_t y = x + 1; y < placed.size(); ++y) {
        const Placed &a = placed[x], &b = placed[y];
        if (a.end <= b.begin || b.end <= a.begin) continue;
        if (a.b->reusable && b.b->reusable && (separated(a, b) || separated(b, a))) continue;
        problem("shared buffers `{0}` (bytes {1} to {2}) and `{3}` (bytes {4} to {5}) overlap while both may be in use",
                bufferName(a.b), a.begin, a.end, bufferName(b.b), b.begin, b.end);
      }
    }
  }

  // --- host wrappers -------------------------------------------------------

  void hostStmt(const HostStmt& h, const llvm::DenseSet<const Kernel*>& own) {
    switch (h.kind) {
      case HostStmt::Kind::Launch:
        if (!h.kernel) problem("launches no kernel");
        else if (!own.count(h.kernel)) problem("launches kernel `{0}`, which belongs to another function", h.kernel->name);
        break;
      case HostStmt::Kind::AllocDevice:
      case HostStmt::Kind::CopyOut:
        if (!h.buffer) problem("allocates or copies out no buffer");
        else if (h.buffer->space != Space::Global)
          problem("allocates or copies out {0} buffer `{1}` on the host", spaceName(h.buffer->space), bufferName(h.buffer));
        else if (h.kind == HostStmt::Kind::AllocDevice && !h.buffer->wrapperOwned)
          problem("allocates buffer `{0}`, which is not marked as the wrapper's own", bufferName(h.buffer));
        break;
      case HostStmt::Kind::Let:
      case HostStmt::Kind::Local:
        if (h.var.empty() || !h.value) problem("declares a host value without a name or a value");
        break;
      case HostStmt::Kind::CheckShape:
        if (!h.cond) problem("checks a shape without a condition");
        break;
      case HostStmt::Kind::DataPointer:
        if (!h.buffer || h.from.empty()) problem("takes a device pointer without a buffer or a host view");
        else if (h.buffer->space != Space::Global)
          problem("takes the device pointer of {0} buffer `{1}`", spaceName(h.buffer->space), bufferName(h.buffer));
        break;
      case HostStmt::Kind::TensorMap:
        if (h.text.empty() || !h.buffer) problem("encodes a tensor map without a name or a tensor");
        if (h.boxRows <= 0 || h.boxCols <= 0 || h.boxRows > 256 || h.boxCols > 256)
          problem("encodes tensor map `{0}` with a {1} x {2} box; a TMA box is 1 to 256 elements per dimension", h.text,
                  h.boxRows, h.boxCols);
        if (h.swizzle != 0 && h.swizzle != 32 && h.swizzle != 64 && h.swizzle != 128)
          problem("encodes tensor map `{0}` with a {1}-byte swizzle", h.text, h.swizzle);
        break;
      default: break;
    }
  }

  // --- reporting -----------------------------------------------------------

  bool need(bool ok, llvm::StringRef what) {
    if (!ok) problem("{0} {1}", stmt_ ? stmtKindName(stmt_->kind) : "statement", what);
    return ok;
  }

  template <typename... Ts>
  void problem(const char* format, Ts&&... values) {
    problems_.push_back(where_ + ": " + llvm::formatv(format, std::forward<Ts>(values)...).str());
  }

  std::vector<std::string>& problems_;
  std::string where_;
  const Stmt* stmt_ = nullptr;
  const Kernel* kernel_ = nullptr;
  /// How many loops and conditionals enclose the statement being checked.
  unsigned depth_ = 0;
  const Stmt* asyncWgmmaOpen_ = nullptr;
  bool accumulatorsFenced_ = false;
  llvm::DenseSet<const Buffer*> shared_;
  llvm::DenseSet<const Buffer*> declaredLocals_;
  llvm::DenseSet<const Buffer*> declaredPointers_;
  llvm::DenseSet<const Buffer*> unplacedReported_;
  /// The row factors the accumulator scale loads in scope define.
  std::vector<std::string> factors_;
};

}  // namespace

std::vector<std::string> verify(const Module& m) {
  std::vector<std::string> problems;
  Verifier v(problems);
  for (const std::unique_ptr<Function>& f : m.functions)
    if (f) v.function(*f);
  return problems;
}

}  // namespace croqc::kir
