// Lowering of functions, host wrappers, buffers and plain statements.
#include "lower/LowerImpl.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/Path.h>

#include "sema/Sema.h"
#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

namespace {
const target::TargetInfo& targetNamed(llvm::StringRef arch) {
  // The driver accepts only names of the target table.
  const target::TargetInfo* info = target::lookupTarget(arch);
  if (!info) llvm::report_fatal_error(llvm::Twine("lower: no target called `") + arch + "`");
  return *info;
}
}  // namespace

Lowerer::Lowerer(sema::SemaResult& sema, const LowerOptions& options, DiagnosticEngine& diags)
    : sema_(sema), options_(options), target_(targetNamed(options.arch)), diags_(diags), sm_(diags.sourceMgr()) {}

std::unique_ptr<kir::Module> lowerProgram(const Program& program, sema::SemaResult& sema,
                                          const LowerOptions& options, DiagnosticEngine& diags) {
  return Lowerer(sema, options, diags).run(program);
}

std::unique_ptr<kir::Module> Lowerer::run(const Program& program) {
  module_ = std::make_unique<kir::Module>();
  unsigned errorsBefore = diags_.errorCount();
  // Sema's facts per function, found by declaration in constant time (a
  // search per function made lowering quadratic in their number).
  llvm::DenseMap<const CoFunction*, const sema::FunctionInfo*> infoOf;
  for (const sema::FunctionInfo& f : sema_.functions) infoOf[f.decl] = &f;
  for (const Node* item : program.items) {
    if (const auto* h = llvm::dyn_cast<HostCode>(item)) {
      if (cpuTarget()) checkHostCodeForCpu(h->text, h->loc());
      m().items.push_back({kir::TopItem::Kind::HostText, h->text.str(), h->loc(), nullptr});
    } else if (const auto* d = llvm::dyn_cast<DeviceCode>(item)) {
      if (cpuTarget()) checkHostCodeForCpu(d->text, d->loc());
      m().items.push_back({kir::TopItem::Kind::HostText, d->text.str(), d->loc(), nullptr});
    } else if (const auto* fn = llvm::dyn_cast<CoFunction>(item)) {
      const sema::FunctionInfo* info = infoOf.lookup(fn);
      if (!info) continue;
      lowerFunction(*fn, *info);
    }
  }
  if (diags_.errorCount() != errorsBefore) return nullptr;
  return std::move(module_);
}

// ---------------------------------------------------------------------------
// Helpers

Stmt* Lowerer::emit(StmtKind kind, llvm::SMLoc loc) {
  Stmt* s = m().stmt(kind, loc);
  if (out_) out_->push_back(s);
  return s;
}


void forEachStmt(const ast::Stmt* s, llvm::function_ref<void(const ast::Stmt*)> f) {
  if (!s) return;
  f(s);
  switch (s->kind()) {
    case NodeKind::CompoundStmt:
      for (const ast::Stmt* c : llvm::cast<CompoundStmt>(s)->body) forEachStmt(c, f);
      return;
    case NodeKind::ParallelStmt: forEachStmt(llvm::cast<ParallelStmt>(s)->body, f); return;
    case NodeKind::WithStmt: forEachStmt(llvm::cast<WithStmt>(s)->body, f); return;
    case NodeKind::ForeachStmt: forEachStmt(llvm::cast<ForeachStmt>(s)->body, f); return;
    case NodeKind::WhileStmt: forEachStmt(llvm::cast<WhileStmt>(s)->body, f); return;
    case NodeKind::InthreadsStmt: forEachStmt(llvm::cast<InthreadsStmt>(s)->body, f); return;
    case NodeKind::IfStmt:
      forEachStmt(llvm::cast<IfStmt>(s)->then, f);
      forEachStmt(llvm::cast<IfStmt>(s)->otherwise, f);
      return;
    default: return;
  }
}

std::string Lowerer::sourceLine(llvm::SMLoc loc) const {
  if (!loc.isValid()) return "";
  unsigned id = sm_.FindBufferContainingLoc(loc);
  if (!id) return "";
  const llvm::MemoryBuffer* buf = sm_.getMemoryBuffer(id);
  const char* begin = loc.getPointer();
  const char* end = begin;
  while (end < buf->getBufferEnd() && *end != '\n' && *end != '\r') ++end;
  std::string text(begin, end);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return text;
}

llvm::StringRef Lowerer::sourceFileName(llvm::SMLoc loc) const {
  unsigned id = sm_.FindBufferContainingLoc(loc);
  return id ? llvm::sys::path::filename(sm_.getMemoryBuffer(id)->getBufferIdentifier()) : "";
}

void Lowerer::comment(const Node* n) {
  if (!n || !n->loc().isValid()) return;
  unsigned line = sm_.getLineAndColumn(n->loc()).first;
  Stmt* c = emit(StmtKind::Comment, n->loc());
  c->text = llvm::formatv("{0}:{1}: {2}", sourceFileName(n->loc()), line, sourceLine(n->loc())).str();
}

void Lowerer::unreachable(const char* what) {
  llvm::report_fatal_error(llvm::Twine("internal compiler error: ") + what + " reached lowering, which sema rejects");
}

std::string Lowerer::fresh(llvm::StringRef base) {
  std::string name;
  do {
    name = (base + "_" + llvm::Twine(freshCounter_++)).str();
  } while (kernelParamNames_.contains(name));
  return name;
}

void Lowerer::cannotEmulate(llvm::SMRange where, llvm::StringRef what, llvm::StringRef hint) {
  diags_.report(where.Start, DiagKind::err_cpu_cannot_emulate, what, hint).range(where);
}

std::string Lowerer::nameFor(const sema::Symbol* s) {
  auto it = names_.find(s);
  if (it != names_.end()) return it->second;
  std::string n = s->name;
  // An element of a bounded ituple without named elements (`idx(0)`).
  if (size_t paren = n.find('('); paren != std::string::npos)
    n = fresh(n.substr(0, paren) + n.substr(paren + 1, n.size() - paren - 2));
  names_[s] = n;
  return n;
}

void Lowerer::bindValue(const sema::Symbol* s, const Expr* value) {
  values_[s] = value;
  if (s->value && llvm::isa<sym::SymbolExpr>(s->value)) symValues_[s->value] = value;
}

kir::Buffer* Lowerer::makeBuffer(const sema::Symbol* sym, kir::Space space, TokenKind elem, const sema::SymList& shape,
                                 llvm::ArrayRef<std::int64_t> arrayDims, llvm::SMLoc loc) {
  kir::Buffer* b = m().buffer();
  b->name = sym ? nameFor(sym) : fresh("buf");
  if (sym) b->sourceName = sym->name;
  b->elem = elem;
  b->space = space;
  b->loc = loc;
  b->arrayDims.assign(arrayDims.begin(), arrayDims.end());
  for (const sym::SymExpr* d : shape) b->shape.push_back(lowerSym(d, loc));
  // Physical layout: row-major; shared 2-D tiles of 16-bit elements whose
  // rows are a multiple of 64 bytes get 16 bytes of padding per row so that
  // the eight row addresses of an ldmatrix fall into different banks.
  std::int64_t rank = static_cast<std::int64_t>(b->shape.size());
  b->rowStride = 0;
  if (rank >= 1 && b->shape.back()->isConst()) b->rowStride = b->shape.back()->intValue;
  if (auto sw = sym ? swizzled_.find(sym) : swizzled_.end(); sw != swizzled_.end() && space == kir::Space::Shared) {
    b->swizzleBytes = sw->second;
    b->alignBytes = 1024;
  } else if (sym && tmaDests_.count(sym)) {
    b->alignBytes = 128;
  } else if (space == kir::Space::Shared && rank >= 2 && !(sym && sema_.reshapedBuffers.count(sym)) && b->shape.back()->isConst() &&
             target::elementBytes(elem) == 2 && (b->rowStride * 2) % 64 == 0) {
    b->rowStride += 8;
  }
  b->strides.assign(rank, nullptr);
  const Expr* stride = m().intc(1);
  for (std::int64_t d = rank - 1; d >= 0; --d) {
    b->strides[d] = stride;
    if (d == rank - 1 && rank >= 2 && b->rowStride) stride = m().intc(b->rowStride);
    else stride = m().mul(stride, b->shape[d]);
  }
  b->slotElements = stride->isConst() ? stride->intValue : 0;
  if (!stride->isConst()) {
    std::int64_t slots = 1;
    for (std::int64_t a : arrayDims) slots *= a;
    b->runtimeElements = m().mul(stride, m().intc(slots));
  }
  if (sym) buffers_[sym] = b;
  return b;
}

// ---------------------------------------------------------------------------
// Device statements

void Lowerer::lowerBody(const ast::Stmt* s) {
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(s)) lowerCompound(c);
  else lowerStmt(s);
}

void Lowerer::lowerCompound(const CompoundStmt* c) {
  for (const ast::Stmt* s : c->body) lowerStmt(s);
}

namespace {
/// Statements host code of a `__co__` function may hold (spec 8.7): scalar
/// logic only.
bool allowedOnHost(NodeKind k) {
  switch (k) {
    case NodeKind::CompoundStmt:
    case NodeKind::NullStmt:
    case NodeKind::MdspanDeclStmt:
    case NodeKind::ItupleDeclStmt:
    case NodeKind::DirectiveStmt:
    case NodeKind::AssignStmt:
    case NodeKind::ScalarDeclStmt:
    case NodeKind::WithStmt:
    case NodeKind::ForeachStmt:
    case NodeKind::WhileStmt:
    case NodeKind::IfStmt:
    case NodeKind::PrintStmt:
    case NodeKind::AssertStmt:
    case NodeKind::CppStmt:
    case NodeKind::BreakStmt:
    case NodeKind::ContinueStmt: return true;
    default: return false;
  }
}
}  // namespace

void Lowerer::lowerStmt(const ast::Stmt* s) {
  if (host_ && !allowedOnHost(s->kind())) {
    unsupported(DiagKind::err_unsupported_host_control_stmt, s->range(), nodeKindName(s->kind()));
    return;
  }
  switch (s->kind()) {
    case NodeKind::CompoundStmt: {
      Stmt* b = emit(StmtKind::Block, s->loc());
      nested(b->body, [&] { lowerCompound(llvm::cast<CompoundStmt>(s)); });
      return;
    }
    case NodeKind::NullStmt:
    case NodeKind::MdspanDeclStmt:
    case NodeKind::ItupleDeclStmt:
    case NodeKind::DirectiveStmt: return;
    case NodeKind::ExprStmt: {
      comment(s);
      if (lowerIncrementStmt(llvm::cast<ExprStmt>(s)->expr)) return;
      emit(StmtKind::Eval, s->loc())->value = lowerExpr(llvm::cast<ExprStmt>(s)->expr);
      return;
    }
    case NodeKind::AssignStmt: comment(s); lowerAssign(llvm::cast<AssignStmt>(s)); return;
    case NodeKind::ScalarDeclStmt: comment(s); lowerScalarDecl(llvm::cast<ScalarDeclStmt>(s)); return;
    case NodeKind::SpannedDeclStmt: comment(s); lowerSpannedDecl(llvm::cast<SpannedDeclStmt>(s)); return;
    case NodeKind::FragDeclStmt: comment(s); lowerFragDecl(llvm::cast<FragDeclStmt>(s)); return;
    case NodeKind::ApplyStmt: comment(s); lowerApply(llvm::cast<ApplyStmt>(s)); return;
    case NodeKind::FragOpStmt: comment(s); lowerFragOp(llvm::cast<FragOpStmt>(s)); return;
    case NodeKind::ParallelStmt: {
      // Each inner parallel gets its own C++ scope for its variables.
      Stmt* b = emit(StmtKind::Block, s->loc());
      nested(b->body, [&] { lowerParallel(llvm::cast<ParallelStmt>(s)); });
      return;
    }
    case NodeKind::WithStmt: lowerWith(llvm::cast<WithStmt>(s)); return;
    case NodeKind::ForeachStmt: comment(s); lowerForeach(llvm::cast<ForeachStmt>(s)); return;
    case NodeKind::WhileStmt: comment(s); lowerWhile(llvm::cast<WhileStmt>(s)); return;
    case NodeKind::IfStmt: comment(s); lowerIf(llvm::cast<IfStmt>(s)); return;
    case NodeKind::DmaStmt: comment(s); lowerDma(llvm::cast<DmaStmt>(s)); return;
    case NodeKind::WaitStmt: comment(s); lowerWait(llvm::cast<WaitStmt>(s)); return;
    case NodeKind::SwapStmt: comment(s); lowerSwap(llvm::cast<SwapStmt>(s)); return;
    case NodeKind::MmaFillStmt: comment(s); lowerMmaFill(llvm::cast<MmaFillStmt>(s)); return;
    case NodeKind::MmaLoadStmt: comment(s); lowerMmaLoad(llvm::cast<MmaLoadStmt>(s)); return;
    case NodeKind::MmaExecStmt: comment(s); lowerMmaExec(llvm::cast<MmaExecStmt>(s)); return;
    case NodeKind::MmaStoreStmt: comment(s); lowerMmaStore(llvm::cast<MmaStoreStmt>(s)); return;
    case NodeKind::MmaScaleStmt: comment(s); lowerMmaScale(llvm::cast<MmaScaleStmt>(s)); return;
    case NodeKind::MmaCommitStmt:
    case NodeKind::MmaWaitStmt:
      comment(s);
      lowerMmaFence(s);
      return;
    case NodeKind::SyncStmt: comment(s); lowerSync(llvm::cast<SyncStmt>(s)); return;
    case NodeKind::PrintStmt: comment(s); lowerPrint(llvm::cast<PrintStmt>(s)); return;
    case NodeKind::AssertStmt: comment(s); lowerAssert(llvm::cast<AssertStmt>(s)); return;
    case NodeKind::InthreadsStmt: lowerInthreads(llvm::cast<InthreadsStmt>(s)); return;
    case NodeKind::EventDeclStmt: comment(s); lowerEventDecl(llvm::cast<EventDeclStmt>(s)); return;
    case NodeKind::TriggerStmt: comment(s); lowerTrigger(llvm::cast<TriggerStmt>(s)); return;
    case NodeKind::CppStmt:
    case NodeKind::AsmStmt: comment(s); lowerCpp(s); return;
    case NodeKind::BreakStmt: emit(StmtKind::Break, s->loc()); return;
    case NodeKind::ContinueStmt: emit(StmtKind::Continue, s->loc()); return;
    case NodeKind::YieldStmt: emit(StmtKind::Return, s->loc()); return;
    case NodeKind::ReturnStmt: unreachable("a `return` inside a `parallel`");
    case NodeKind::HostCode:
    case NodeKind::DeviceCode:
    case NodeKind::CoFunction:
#define EXPR(Name) case NodeKind::Name##Expr:
#define STMT(Name)
#define TOP(Name)
#include "ast/ASTNodes.def"
      unreachable("an expression or a top-level item as a statement");
  }
}

void Lowerer::lowerScalarDecl(const ScalarDeclStmt* d) {
  auto decls = sema_.declarations.find(d);
  if (decls == sema_.declarations.end()) return;
  for (size_t i = 0; i < d->decls.size() && i < decls->second.size(); ++i) {
    const Declarator& decl = d->decls[i];
    const sema::Symbol* sym = decls->second[i];
    if (!decl.arrayDims.empty()) {
      unreachable("an array of scalars (the parser reads no array dimensions after a scalar declarator)");
    }
    kir::ScalarType t = scalarTypeOf(sym->type);
    // A declaration that shadows a name of an enclosing scope (`int a = a +
    // 7;` in a function with a parameter `a`) gets a name of its own: in C++
    // the new `a` would be in scope in its own initialiser, or clash with
    // the parameter.
    std::string name = nameFor(sym);
    if (llvm::any_of(names_, [&](const auto& other) { return other.first != sym && other.second == name; })) {
      name = fresh(name);
      names_[sym] = name;
    }
    Stmt* let = emit(StmtKind::Let, decl.range.Start);
    let->var = name;
    let->type = t;
    let->isMutable = sym->isMutable;
    let->value = decl.init ? m().convert(lowerExpr(decl.init), t)
                           : (t.isElem() ? m().convert(m().intc(0), t) : m().intc(0));
    bindValue(sym, m().var(name, t));
  }
}

void Lowerer::declareLocalBuffer(const kir::Buffer* b, llvm::SMLoc loc) {
  if (!b->runtimeElements) {
    emit(StmtKind::LocalArray, loc)->buffer = b;
    return;
  }
  // A run-time size: allocated once per thread at the top of the kernel, so
  // that a declaration inside a loop does not allocate at each iteration.
  std::vector<Stmt*>* saved = out_;
  out_ = &prologue_;
  emit(StmtKind::LocalArray, loc)->buffer = b;
  out_ = saved;
  kernel_->runtimeLocals.push_back(b);
}

namespace {
/// The first value in `e` that a kernel does not have when it starts (a
/// variable other than its scalar parameters, a launch coordinate, a load).
std::optional<std::string> notAtLaunch(const Expr* e, const llvm::StringSet<>& params) {
  if (!e) return std::nullopt;
  switch (e->kind) {
    case kir::ExprKind::Var:
      if (!params.contains(e->name)) return e->name;
      return std::nullopt;
    case kir::ExprKind::Builtin:
      return std::string(e->builtin == kir::Builtin::ThreadIdx  ? "threadIdx"
                         : e->builtin == kir::Builtin::BlockIdx ? "blockIdx"
                                                                : "gridDim");
    case kir::ExprKind::Load:
    case kir::ExprKind::FragElem: return std::string(e->buffer ? e->buffer->sourceName : std::string("memory"));
    default: break;
  }
  for (const Expr* o : e->operands)
    if (std::optional<std::string> v = notAtLaunch(o, params)) return v;
  return std::nullopt;
}
}  // namespace

void Lowerer::checkIndexAtLaunch(const Expr* index, std::int64_t bound, llvm::StringRef array, size_t dim,
                                 const ast::Expr* source) {
  // Constant indices are checked at compile time, indices that vary inside
  // the kernel are not checked at this level.
  if (!options_.entryChecks || !kernel_ || index->isConst() || notAtLaunch(index, kernelParamNames_)) return;
  std::string message = llvm::formatv("index `{0}` is out of bounds of dimension {1} of array `{2}`, whose valid range is [0, {3})",
                                      sourceText(source->range()), dim, array, bound)
                            .str();
  for (const auto& c : launchChecks_)
    if (c.second == message) return;
  const Expr* inside = m().logicalAnd(m().lt(m().intc(-1), index), m().lt(index, m().intc(bound)));
  launchChecks_.push_back({inside, std::move(message)});
}

bool Lowerer::sizedAtLaunch(const kir::Buffer* b, llvm::StringRef name, llvm::SMRange range) {
  if (!b->runtimeElements) return true;
  std::optional<std::string> v = notAtLaunch(b->runtimeElements, kernelParamNames_);
  if (!v) return true;
  diags_
      .report(range.Start, DiagKind::err_buffer_size_not_launch_value, kir::spaceName(b->space), name, *v,
              b->space == kir::Space::Shared ? "block" : "thread")
      .range(range);
  return false;
}

void Lowerer::lowerSpannedDecl(const SpannedDeclStmt* d) {
  auto decls = sema_.declarations.find(d);
  if (decls == sema_.declarations.end()) return;
  for (size_t i = 0; i < d->decls.size() && i < decls->second.size(); ++i) {
    const sema::Symbol* sym = decls->second[i];
    std::vector<std::int64_t> arrayDims;
    for (const sym::SymExpr* a : sym->type.arrayDims) arrayDims.push_back(sym::constantValue(a).value_or(1));
    // Sema gives a buffer declared without a storage inside a `parallel`
    // local storage (spec 5.4).
    Storage storage = sym->type.storage;
    kir::Space space = storage == Storage::Shared  ? kir::Space::Shared
                       : storage == Storage::Local ? kir::Space::Local
                                                   : kir::Space::Global;
    if (space == kir::Space::Global) {
      unsupported(DiagKind::err_unsupported_global_in_parallel, d->range());
      continue;
    }
    kir::Buffer* b = makeBuffer(sym, space, sym->type.elem, sym->type.shape, arrayDims, d->loc());
    // Shared and local buffers may be sized at the launch (spec 5.4).
    if (b->slotElements <= 0 && !b->runtimeElements) {
      // Sema rejects such a buffer; an error reported on its values may leave one.
      if (diags_.hasErrors()) continue;
      unreachable("a buffer whose shape is neither constant nor known at the launch");
    }
    if (!sizedAtLaunch(b, sym->name, d->decls[i].range)) continue;
    // Shared buffers and run-time sized local ones are declared at the top
    // of the kernel: a name of their own there.
    if (space == kir::Space::Shared || b->runtimeElements) b->name = fresh(nameFor(sym));
    if (space == kir::Space::Shared) {
      b->reusable = true;
      kernel_->sharedBuffers.push_back(b);
    } else {
      declareLocalBuffer(b, d->loc());
    }
    if (const ast::Expr* init = d->decls[i].init) {
      // `{v}`: every element starts as v; the threads of the scope fill it.
      const ast::Expr* value = init;
      if (const auto* tuple = llvm::dyn_cast<ItupleExpr>(init)) {
        if (tuple->elements.size() != 1) {
          unreachable("a buffer initialiser with more than one value");
        }
        value = tuple->elements[0];
      }
      const Expr* v = m().convert(lowerExpr(value), kir::ScalarType::element(b->elem));
      bool shared = space == kir::Space::Shared;
      // A shared buffer is filled by the threads of its scope: the block,
      // or the `inthreads` region it is declared in.
      std::int64_t threads = 1;
      const Expr* rank = m().intc(0);
      if (shared && !regionThreads(d->range(), threads, rank)) continue;
      std::string iv = fresh("e");
      firstInstanceOnly(shared ? kir::Scope::Cta : kir::Scope::Thread, d->loc(), [&] {
        Stmt* loop = emit(StmtKind::For, d->loc());
        loop->var = iv;
        loop->lo = rank;
        loop->hi = b->runtimeElements ? b->runtimeElements : m().intc(b->totalElements());
        loop->step = threads;
        nested(loop->body, [&] {
          Stmt* st = emit(StmtKind::Store, d->loc());
          st->buffer = b;
          st->index = m().var(iv);
          st->op = "=";
          st->value = v;
        });
      });
      if (shared) barrier(kir::Scope::Cta, d->loc());
    }
  }
}

void Lowerer::lowerAssign(const AssignStmt* a) {
  static const char* const kOps[] = {"=", "+=", "-=", "*=", "/=", "%="};
  std::string op = "=";
  switch (a->op) {
    case TokenKind::equal: op = "="; break;
    case TokenKind::plus: op = "+="; break;
    case TokenKind::minus: op = "-="; break;
    case TokenKind::star: op = "*="; break;
    case TokenKind::slash: op = "/="; break;
    case TokenKind::percent: op = "%="; break;
    default: op = "=";
  }
  (void)kOps;
  const ast::Expr* target = a->target;
  // `x = value` that binds a new name: a view (an alias of its expression)
  // or an integer/element value.
  if (auto decl = sema_.declarations.find(a); decl != sema_.declarations.end() && !decl->second.empty()) {
    const sema::Symbol* sym = decl->second.front();
    const sema::Type& t = sym->type;
    if (t.kind == sema::TypeKind::Data || t.kind == sema::TypeKind::Future) {
      viewBindings_[sym] = a->value;
      return;
    }
    if (t.kind == sema::TypeKind::Int || t.kind == sema::TypeKind::Element || t.kind == sema::TypeKind::Bool ||
        t.kind == sema::TypeKind::Bounded) {
      kir::ScalarType st = scalarTypeOf(t);
      std::string name = fresh(sym->name);
      Stmt* let = emit(StmtKind::Let, a->loc());
      let->var = name;
      let->type = st;
      let->isMutable = sym->isMutable;
      let->value = m().convert(lowerExpr(a->value), st);
      // An immutable value of the thread index (`producer = g == 0;`) is
      // known per thread, as the `inthreads` regions that test it need.
      if (kernel_ && !sym->isMutable) threadLets_[name] = let->value;
      bindValue(sym, m().var(name, st));
      return;
    }
    if (t.kind == sema::TypeKind::Mdspan || t.kind == sema::TypeKind::Ituple) return;
    unsupported(DiagKind::err_unsupported_binding_type, a->range(), sema::printType(t));
    return;
  }
  if (lowerAccumulatorUpdate(a, op)) return;
  // `x = value` of a scalar variable.
  if (const auto* n = llvm::dyn_cast<NameExpr>(target)) {
    const sema::Symbol* sym = sema_.references.lookup(n);
    if (!sym) return;
    if (sym->type.kind == sema::TypeKind::Element || sym->type.kind == sema::TypeKind::Int ||
        sym->type.kind == sema::TypeKind::Bool || sym->type.kind == sema::TypeKind::Bounded) {
      kir::ScalarType t = sym->type.kind == sema::TypeKind::Element ? kir::ScalarType::element(sym->type.elem)
                                                                     : kir::ScalarType::integer();
      const Expr* v = lowerExpr(a->value);
      assignScalar(nameFor(sym), t, op, v, a->loc());
      return;
    }
  }
  // `acc.at(i, j) = value` inside an `apply` over the accumulator.
  if (const auto* meth = llvm::dyn_cast<MethodExpr>(target); meth && meth->method == TokenKind::m_at) {
    if (std::optional<const Expr*> acc = accumulatorElement(meth->base, meth->args)) {
      if (!*acc) return;
      Stmt* s = emit(StmtKind::FragStore, a->loc());
      s->index = *acc;
      s->op = op;
      s->value = m().convert(lowerExpr(a->value), (*acc)->type);
      return;
    }
  }
  // `x.at(i...) = value`.
  const kir::Buffer* buffer = nullptr;
  const Expr* index = nullptr;
  if (const auto* meth = llvm::dyn_cast<MethodExpr>(target); meth && meth->method == TokenKind::m_at) {
    index = elementIndex(meth->base, meth->args, &buffer);
  } else if (const auto* sub = llvm::dyn_cast<SubscriptExpr>(target)) {
    index = elementIndex(sub->base, sub->indices, &buffer);
  }
  if (!index || !buffer) {
    if (!diags_.hasErrors()) unreachable("an assignment to a target other than a scalar name or an element");
    return;
  }
  const Expr* v = lowerExpr(a->value);
  kir::ScalarType t = kir::ScalarType::element(buffer->elem);
  if (op != "=") {
    kir::ScalarType ct = kir::ScalarType::element(kir::computeType(buffer->elem));
    v = m().binary(llvm::StringRef(op).drop_back(), m().convert(loadElement(buffer, index), ct),
                   m().convert(v, ct), ct);
  }
  if (buffer->space == kir::Space::Global) written_.insert(const_cast<kir::Buffer*>(buffer));
  if (host_) {
    // One element of device memory, written by the host.
    kir::ScalarType none{kir::ScalarType::Kind::Void, TokenKind::eof};
    emit(StmtKind::Eval, a->loc())->value =
        m().intrinsic("host_store", {m().var(buffer->name), index, m().convert(v, t)}, none);
    return;
  }
  const Expr* leader = buffer->space == kir::Space::Local ? nullptr : leaderCondition();
  std::vector<Stmt*>* target_out = out_;
  Stmt* guard = nullptr;
  if (leader) {
    guard = emit(StmtKind::If, a->loc());
    guard->cond = leader;
    target_out = &guard->body;
  }
  nested(*target_out, [&] {
    Stmt* s = emit(StmtKind::Store, a->loc());
    s->buffer = buffer;
    s->index = index;
    s->op = "=";
    s->value = m().convert(v, t);
  });
}

void Lowerer::assignScalar(const std::string& var, kir::ScalarType t, llvm::StringRef op, const Expr* v,
                           llvm::SMLoc loc) {
  Stmt* s = emit(StmtKind::Assign, loc);
  s->var = var;
  s->op = op.str();
  if (t.isElem() && kir::computeType(t.elem) != t.elem) {
    // 16-bit floats: compute in f32, store converted.
    const Expr* cur = m().convert(m().var(s->var, t), kir::ScalarType::element(kir::computeType(t.elem)));
    if (op != "=") v = m().binary(op.drop_back(), cur, m().convert(v, cur->type), cur->type);
    s->op = "=";
  }
  s->value = m().convert(v, t);
}

void Lowerer::lowerForeach(const ForeachStmt* f) {
  // Each binding iterates its variables, outer to inner; nested loops.
  std::vector<Stmt*>* into = out_;
  std::vector<std::pair<const sema::Symbol*, const Expr*>> saved;
  bool unroll = llvm::any_of(f->suffixes, [](const LoopSuffix& s) { return s.kind == TokenKind::kw_unroll; });
  for (const IterBinding& b : f->bindings) {
    // The variables this binding iterates: declared by the foreach (sugar)
    // or bound earlier by `with`.
    std::vector<const sema::Symbol*> vars;
    auto decls = sema_.declarations.find(f);
    llvm::SmallVector<llvm::StringRef, 4> names;
    if (!b.elements.empty()) names.append(b.elements.begin(), b.elements.end());
    else names.push_back(b.name);
    for (llvm::StringRef n : names) {
      const sema::Symbol* found = nullptr;
      if (decls != sema_.declarations.end())
        for (const sema::Symbol* s : decls->second)
          if (s->name == n && s->kind == sema::Symbol::Kind::IterVar) found = s;
      if (!found) {
        // A variable bound by an enclosing `with`.
        for (const sema::Symbol* s : sema_.allSymbols)
          if (s->name == n && s->kind == sema::Symbol::Kind::IterVar && s->loc.getPointer() < f->loc().getPointer())
            found = s;
      }
      if (found && found->type.kind == sema::TypeKind::Bounded) vars.push_back(found);
      else if (found && found->type.kind == sema::TypeKind::BoundedTuple) into = loopOverTuple(found, f, unroll, into, saved);
    }
    for (const sema::Symbol* v : vars) {
      std::string name = fresh(v->name);
      names_[v] = name;
      const Expr* extent = lowerSym(v->type.shape.empty() ? nullptr : v->type.shape[0], b.range.Start);
      Stmt* loop = m().stmt(StmtKind::For, f->loc());
      loop->var = name;
      loop->lo = m().intc(0);
      loop->hi = extent;
      // Short loops of constant trip count are unrolled (MMA k-steps).
      loop->unroll = unroll || (extent->isConst() && extent->intValue <= 8);
      if (b.hasRange && v->name == b.name) {
        if (b.lo) loop->lo = m().add(loop->lo, lowerInt(b.lo));
        if (b.hi) loop->hi = m().add(loop->hi, lowerInt(b.hi));
        if (b.step) loop->step = llvm::isa<IntLiteralExpr>(b.step) ? lowerInt(b.step)->intValue : 1;
      }
      auto old = values_.find(v);
      saved.push_back({v, old == values_.end() ? m().intc(0) : old->second});
      bindValue(v, m().var(name));
      into->push_back(loop);
      into = &loop->body;
    }
  }
  nested(*into, [&] { lowerBody(f->body); });
  // After the loop the variables read as before it (0 for `with`, spec 9.1).
  for (auto& [v, old] : saved) bindValue(v, old);
}

std::vector<Stmt*>* Lowerer::loopOverTuple(const sema::Symbol* tuple, const ForeachStmt* f, bool unroll,
                                          std::vector<Stmt*>* into,
                                          std::vector<std::pair<const sema::Symbol*, const Expr*>>& saved) {
  // `foreach index in [a, b]`: one loop per element, outer to inner.
  std::vector<const Expr*> elements;
  for (size_t d = 0; d < tuple->type.shape.size(); ++d) {
    std::string name = fresh(tuple->name + std::to_string(d));
    const Expr* extent = lowerSym(tuple->type.shape[d], f->loc());
    Stmt* loop = m().stmt(StmtKind::For, f->loc());
    loop->var = name;
    loop->lo = m().intc(0);
    loop->hi = extent;
    loop->unroll = unroll || (extent->isConst() && extent->intValue <= 8);
    elements.push_back(m().var(name));
    into->push_back(loop);
    into = &loop->body;
  }
  // The elements, declared with the tuple (`x`, `y` of `with index = {x, y}
  // in [...]`, else `index(0)`, `index(1)`), are the loop variables, and read
  // as before after the loop.
  size_t d = 0;
  for (const sema::Symbol* s : sema_.allSymbols) {
    if (d >= elements.size()) break;
    if (s == tuple || s->loc != tuple->loc || s->kind != sema::Symbol::Kind::IterVar ||
        s->type.kind != sema::TypeKind::Bounded)
      continue;
    auto old = values_.find(s);
    saved.push_back({s, old == values_.end() ? m().intc(0) : old->second});
    bindValue(s, elements[d++]);
  }
  return into;
}

void Lowerer::lowerWith(const WithStmt* w) {
  // `with` only binds: its variables read as 0 outside a foreach.
  for (const sema::Symbol* s : sema_.allSymbols) {
    if (s->kind != sema::Symbol::Kind::IterVar || s->type.kind != sema::TypeKind::Bounded) continue;
    if (s->loc.getPointer() < w->loc().getPointer() || s->loc.getPointer() > w->range().End.getPointer()) continue;
    if (!values_.count(s)) bindValue(s, m().intc(0));
  }
  lowerBody(w->body);
}

void Lowerer::lowerIf(const IfStmt* s) {
  Stmt* i = emit(StmtKind::If, s->loc());
  i->cond = lowerCondition(s->cond);
  nested(i->body, [&] { lowerBody(s->then); });
  if (s->otherwise) nested(i->elseBody, [&] { lowerBody(s->otherwise); });
}

void Lowerer::lowerWhile(const WhileStmt* s) {
  Stmt* w = emit(StmtKind::While, s->loc());
  w->cond = lowerCondition(s->cond);
  nested(w->body, [&] { lowerBody(s->body); });
}

void Lowerer::lowerSync(const SyncStmt* s) {
  switch (s->syncKind) {
    case SyncStmt::Kind::Storage:
      if (s->storage == Storage::Shared) {
        barrier(kir::Scope::Cta, s->loc());
      } else {
        emit(StmtKind::Fence, s->loc())->fence = kir::FenceKind::Device;
      }
      return;
    case SyncStmt::Kind::Barrier:
      // In a `block<cooperative>` kernel Croqtile's `sync.barrier : block`
      // is the grid barrier too (its cooperative-launch guide): a CTA
      // barrier in its place would let blocks read stale data.
      if (s->level == ParallelLevel::Device || (s->level == ParallelLevel::Block && kernel_ && kernel_->cooperative)) {
        // The kernel is launched cooperatively (kir::Kernel::cooperative;
        // on the CPU target every block runs at once on its own OS thread).
        emit(StmtKind::GridSync, s->loc());
        return;
      }
      barrier(kir::Scope::Cta, s->loc());
      return;
    case SyncStmt::Kind::Fence:
      emit(StmtKind::Fence, s->loc())->fence = s->level == ParallelLevel::Block || s->level == ParallelLevel::Thread
                                                   ? kir::FenceKind::Block
                                                   : kir::FenceKind::Device;
      return;
  }
}

}  // namespace croqc::lower
