// Events (spec 14) and `inthreads` regions (spec 10.2).
//
// `inthreads (pred) body` is `if (pred) { body }`; the sync form adds a
// barrier after it. Which threads run the body is known at compile time:
// the predicate is over parallel variables, which are functions of the
// thread index, so lowering evaluates it for every thread of the block. The
// threads of a region form its scope: a cooperative copy spreads over them,
// one of them issues a TMA copy, and a barrier inside it is a named barrier
// (`bar.sync id, n`) over them instead of `__syncthreads()`, which the other
// roles never reach.
//
// `shared event e[N]` is an array of N mbarriers. Its arrival count per phase
// comes from the threads that trigger it: every thread that reaches a
// `trigger` arrives (each releases its own accesses before it), or one
// thread for a trigger bound to TMA copies (`trigger e after f`, or the
// legacy `tma.copy.async<e>`), whose arrival also expects the copies' bytes. All triggers of one event
// must agree. A `wait e[i]` waits for the phase whose parity is bit i of the
// waiting thread's phase mask and flips the bit (spec 14.2); `e.at(order)`
// names slot `order % N` and parity `(order / N) % 2` itself (spec 14.5).
// An event-bound TMA copy is issued on the event's mbarrier where it is
// written, without arriving; the trigger supplies the arrival.
#include "lower/LowerImpl.h"

#include <llvm/Support/FormatVariadic.h>

#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

// ---------------------------------------------------------------------------
// Threads known at compile time

std::optional<std::int64_t> Lowerer::threadValue(const Expr* e, std::int64_t tid, int depth) const {
  if (!e || depth > 64) return std::nullopt;
  switch (e->kind) {
    case kir::ExprKind::IntConst:
    case kir::ExprKind::BoolConst: return e->intValue;
    case kir::ExprKind::Var: {
      if (e->name == "tid_") return tid;
      auto it = threadLets_.find(e->name);
      if (it == threadLets_.end()) return std::nullopt;
      return threadValue(it->second, tid, depth + 1);
    }
    case kir::ExprKind::Convert: return threadValue(e->operands[0], tid, depth + 1);
    case kir::ExprKind::Unary: {
      std::optional<std::int64_t> a = threadValue(e->operands[0], tid, depth + 1);
      if (!a) return std::nullopt;
      if (e->name == "-") return -*a;
      if (e->name == "!") return *a == 0;
      return std::nullopt;
    }
    case kir::ExprKind::Select: {
      std::optional<std::int64_t> c = threadValue(e->operands[0], tid, depth + 1);
      if (!c) return std::nullopt;
      return threadValue(e->operands[*c ? 1 : 2], tid, depth + 1);
    }
    case kir::ExprKind::Binary: {
      std::optional<std::int64_t> a = threadValue(e->operands[0], tid, depth + 1);
      std::optional<std::int64_t> b = threadValue(e->operands[1], tid, depth + 1);
      if (!a || !b) return std::nullopt;
      llvm::StringRef op = e->name;
      if (op == "+") return *a + *b;
      if (op == "-") return *a - *b;
      if (op == "*") return *a * *b;
      if (op == "/") return *b ? std::optional<std::int64_t>(*a / *b) : std::nullopt;
      if (op == "%") return *b ? std::optional<std::int64_t>(*a % *b) : std::nullopt;
      if (op == "==") return *a == *b;
      if (op == "!=") return *a != *b;
      if (op == "<") return *a < *b;
      if (op == "<=") return *a <= *b;
      if (op == ">") return *a > *b;
      if (op == ">=") return *a >= *b;
      if (op == "&&") return *a && *b;
      if (op == "||") return *a || *b;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::vector<bool> Lowerer::activeThreads() const {
  std::vector<bool> on(static_cast<size_t>(kernel_->threads), true);
  for (const Expr* c : activeConds_)
    for (std::int64_t t = 0; t < kernel_->threads; ++t)
      if (std::optional<std::int64_t> v = threadValue(c, t)) on[t] = on[t] && *v != 0;
  return on;
}

bool Lowerer::regionThreads(llvm::SMRange where, std::int64_t& threads, const Expr*& rank) {
  threads = kernel_->threads;
  rank = m().var("tid_");
  if (regions_.empty()) return true;
  Region& r = regions_.back();
  if (r.unknown) {
    reportUnknownRegion(r, where);
    return false;
  }
  if (!r.contiguous) {
    if (!r.reported) unsupported(DiagKind::err_unsupported_cooperative_in_sparse_inthreads, where);
    r.reported = true;
    return false;
  }
  threads = r.threads;
  rank = m().sub(m().var("tid_"), m().intc(r.lo));
  return true;
}

void Lowerer::reportUnknownRegion(Region& r, llvm::SMRange where) {
  if (!r.reported) unsupported(DiagKind::err_unsupported_inthreads_runtime_predicate, where);
  r.reported = true;
}

void Lowerer::checkRegisterRealloc(llvm::SMRange where) {
  if (!kernel_ || cpuTarget()) return;
  reallocatesRegisters_ = true;
  std::vector<bool> on = activeThreads();
  for (size_t first = 0; first < on.size(); first += 128) {
    size_t last = std::min(on.size(), first + 128);
    std::int64_t count = std::count(on.begin() + static_cast<std::ptrdiff_t>(first),
                                    on.begin() + static_cast<std::ptrdiff_t>(last), true);
    if (count == 0 || count == 128) continue;
    diags_.report(where.Start, DiagKind::warn_setmaxnreg_partial_warpgroup, count, first / 128).range(where);
    return;
  }
}

// ---------------------------------------------------------------------------
// inthreads

namespace {

/// Whether `s` only reallocates the registers of its warpgroup: a
/// `croq::cuda::setreg_inc/dec(n)` call, or inline PTX that is one
/// `setmaxnreg` instruction and nothing else (no operands).
bool isRegisterRealloc(const ast::Stmt* s) {
  if (const auto* e = llvm::dyn_cast<ExprStmt>(s)) {
    const auto* c = llvm::dyn_cast_or_null<CallExpr>(e->expr);
    return c && (c->callee == "croq::cuda::setreg_inc" || c->callee == "croq::cuda::setreg_dec");
  }
  llvm::StringRef text;
  if (const auto* c = llvm::dyn_cast<CppStmt>(s)) {
    text = c->code.trim();
    if (!text.consume_front("asm")) return false;
    text = text.ltrim();
    text.consume_front("volatile");
    text = text.ltrim();
    if (!text.consume_front("(") || !text.consume_back(";")) return false;
    text = text.rtrim();
    if (!text.consume_back(")")) return false;
    text = text.trim();
    if (!text.consume_front("\"") || !text.consume_back("\"")) return false;
  } else if (const auto* a = llvm::dyn_cast<AsmStmt>(s)) {
    if (!a->outputs.empty() || !a->inputs.empty()) return false;
    text = a->asmTemplate;
  } else {
    return false;
  }
  // One `setmaxnreg.{inc,dec}.sync.aligned.u32 N;` instruction.
  text = text.trim();
  if (!text.consume_front("setmaxnreg.")) return false;
  if (!text.consume_front("inc") && !text.consume_front("dec")) return false;
  if (!text.consume_front(".sync.aligned.u32")) return false;
  text = text.trim();
  text.consume_back(";");
  text = text.rtrim();
  return !text.empty() && llvm::all_of(text, [](char ch) { return ch >= '0' && ch <= '9'; });
}

}  // namespace

bool Lowerer::copiesIntoShared(const ast::Stmt* body) const {
  bool writes = false;
  forEachStmt(body, [&](const ast::Stmt* s) {
    const auto* d = llvm::dyn_cast<DmaStmt>(s);
    if (!d || writes || d->op == TokenKind::m_any) return;
    if (!d->dest) {
      writes = d->destStorage == ast::Storage::Shared;
      return;
    }
    const sema::Type* t = sema_.typeOf(d->dest);
    writes = t && t->storage == ast::Storage::Shared;
  });
  return writes;
}

void Lowerer::lowerInthreads(const InthreadsStmt* s) {
  comment(s);
  const Expr* cond = lowerCondition(s->cond);
  // The threads that reach the region's test, and whether croqc knows them.
  const std::vector<bool> outer = activeThreads();
  const bool outerKnown = activeThreadsKnown();
  const bool outerWhole = wholeRegionActive();
  activeConds_.push_back(cond);
  std::vector<bool> on = activeThreads();
  Region r;
  r.range = s->range();
  r.lo = -1;
  for (std::int64_t t = 0; t < kernel_->threads; ++t) {
    if (!on[t]) continue;
    if (r.lo < 0) r.lo = t;
    r.hi = t + 1;
    ++r.threads;
  }
  if (r.lo < 0) r.lo = r.hi = 0;
  r.contiguous = r.threads == r.hi - r.lo;
  // A predicate croqc cannot evaluate per thread (a run-time value) leaves
  // the region's threads unknown: no barrier or cooperative copy inside it
  // can be counted, so those are reported rather than assumed block-wide.
  // So does a block of a run-time number of warps (the predicate is only
  // evaluated over the first instance's threads).
  bool known = !kernel_->instances;
  for (std::int64_t t = 0; known && t < kernel_->threads; ++t) known = threadValue(cond, t).has_value();
  if (!known) {
    r.contiguous = false;
    r.barrierId = -1;
    r.unknown = true;
  } else if (r.threads == kernel_->threads) {
    r.barrierId = 0;
  } else if (r.contiguous && r.lo % 32 == 0 && r.threads % 32 == 0) {
    // bar.sync 0 is __syncthreads; ids 1..15 are free.
    if (nextNamedBarrier_ > 15) unsupported(DiagKind::err_unsupported_too_many_inthreads, s->range());
    r.barrierId = nextNamedBarrier_++;
  } else {
    r.barrierId = -1;
  }
  std::vector<const ast::Stmt*> body;
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(s->body)) body.assign(c->body.begin(), c->body.end());
  else body.push_back(s->body);
  size_t widened = widenRegisterRealloc(body, outer, outerKnown && known, on, cond);
  // A region that copies into shared memory overwrites what threads outside
  // it may still be reading (the same buffer in the previous iteration of a
  // loop, say); the copy's own barrier is over the region's threads only. So
  // every thread that reaches the region's test first meets a barrier, as
  // the region's end meets one (the sync form). Async regions order their
  // copies with events.
  if (!s->isAsync && outerWhole && r.threads < std::count(outer.begin(), outer.end(), true) &&
      copiesIntoShared(s->body))
    barrier(kir::Scope::Cta, s->loc());
  Stmt* branch = emit(StmtKind::If, s->loc());
  branch->cond = cond;
  regions_.push_back(r);
  nested(branch->body, [&] {
    for (size_t i = widened; i < body.size(); ++i) lowerStmt(body[i]);
  });
  regions_.pop_back();
  activeConds_.pop_back();
  // The sync form: every thread continues once the region's threads are done.
  if (!s->isAsync) barrier(kir::Scope::Cta, s->range().End);
}

size_t Lowerer::widenRegisterRealloc(const std::vector<const ast::Stmt*>& body, const std::vector<bool>& outer,
                                     bool known, const std::vector<bool>& on, const Expr* cond) {
  if (!known || cpuTarget() || body.empty() || !isRegisterRealloc(body[0])) return 0;
  // The warpgroups the region holds part of; each must reach the region's
  // test whole, so that all of its threads run the reallocation there.
  std::vector<std::int64_t> groups;
  std::int64_t partCount = 0;
  for (std::int64_t first = 0; first < kernel_->threads; first += 128) {
    std::int64_t last = std::min<std::int64_t>(kernel_->threads, first + 128);
    std::int64_t in = 0, reach = 0;
    for (std::int64_t t = first; t < last; ++t) {
      in += on[t] ? 1 : 0;
      reach += outer[t] ? 1 : 0;
    }
    if (in == 0 || in == 128) continue;
    if (reach != 128) return 0;
    if (groups.empty()) partCount = in;
    groups.push_back(first / 128);
  }
  if (groups.empty()) return 0;
  size_t lead = 0;
  while (lead < body.size() && isRegisterRealloc(body[lead])) ++lead;
  const Expr* group = m().div(m().var("tid_"), m().intc(128));
  const Expr* wide = nullptr;
  for (std::int64_t g : groups) {
    const Expr* here = m().eq(group, m().intc(g));
    wide = wide ? m().binary("||", wide, here, kir::ScalarType::boolean()) : here;
  }
  // Every thread of those warpgroups runs the leading reallocations, then the
  // region's own threads run the rest.
  diags_.report(body[0]->range().Start, DiagKind::warn_setmaxnreg_widened, partCount, groups.front())
      .range(llvm::SMRange(body[0]->range().Start, body[lead - 1]->range().End));
  Stmt* branch = emit(StmtKind::If, body[0]->loc());
  branch->cond = wide;
  activeConds_.back() = wide;
  nested(branch->body, [&] {
    for (size_t i = 0; i < lead; ++i) lowerStmt(body[i]);
  });
  activeConds_.back() = cond;
  return lead;
}

// ---------------------------------------------------------------------------
// Event declarations and references

void Lowerer::lowerEventDecl(const EventDeclStmt* d) {
  auto decls = sema_.declarations.find(d);
  if (decls == sema_.declarations.end()) return;
  // An event is one set of mbarriers for the whole kernel, initialised in
  // its prologue: declared in a role or an inner `parallel` it is the same,
  // but a declaration in a loop would be a new event every iteration.
  bool inLoop = false;
  forEachStmt(kernelInfo_->root, [&](const ast::Stmt* s) {
    if ((llvm::isa<ForeachStmt>(s) || llvm::isa<WhileStmt>(s)) && s->range().Start.getPointer() < d->loc().getPointer() &&
        d->loc().getPointer() < s->range().End.getPointer())
      inLoop = true;
  });
  if (inLoop) {
    unsupported(DiagKind::err_unsupported_event_in_loop, d->range());
    return;
  }
  std::int64_t declared = 0;
  if (d->count) {
    const Expr* c = lowerInt(d->count);
    if (!c || !c->isConst() || c->intValue <= 0) {
      unsupported(DiagKind::err_unsupported_event_count, d->count->range());
      return;
    }
    declared = c->intValue;
  }
  for (size_t i = 0; i < d->decls.size() && i < decls->second.size(); ++i) {
    const sema::Symbol* sym = decls->second[i];
    const Declarator& decl = d->decls[i];
    EventInfo info;
    info.array = !sym->type.arrayDims.empty();
    for (const sym::SymExpr* n : sym->type.arrayDims) info.elements *= sym::constantValue(n).value_or(1);
    if (info.elements > 32) {
      unsupported(DiagKind::err_unsupported_event_array_size, decl.range);
      continue;
    }
    if (decl.init) {
      const auto* n = llvm::dyn_cast<NameExpr>(decl.init);
      if (!n || n->name != "ready") {
        unsupported(DiagKind::err_unsupported_event_init, decl.init->range());
        continue;
      }
      info.ready = true;
    }
    info.declaredCount = declared;
    kir::Buffer* b = m().buffer();
    b->name = fresh(nameFor(sym));
    b->elem = TokenKind::ty_u64;
    b->space = kir::Space::Shared;
    b->shape = {m().intc(info.elements)};
    b->strides = {m().intc(1)};
    b->rowStride = 1;
    b->slotElements = info.elements;
    b->loc = decl.range.Start;
    kernel_->sharedBuffers.push_back(b);
    info.buffer = b;
    // The arrival count is known once every trigger has been lowered; the
    // kernel fills it in (lowerKernel).
    std::vector<Stmt*>* saved = out_;
    out_ = &prologue_;
    info.init = emit(StmtKind::EventInit, d->loc());
    out_ = saved;
    anyMbarrier_ = true;
    events_[sym] = info;
  }
}

std::optional<Lowerer::EventRef> Lowerer::lowerEventRef(const ast::Expr* e) {
  EventRef ref;
  const ast::Expr* base = e;
  const ast::Expr* order = nullptr;
  const ast::Expr* index = nullptr;
  if (const auto* mth = llvm::dyn_cast<MethodExpr>(e); mth && mth->method == TokenKind::m_at) {
    base = mth->base;
    if (mth->args.size() != 1) {
      unsupported(DiagKind::err_unsupported_event_several_orders, e->range());
      return std::nullopt;
    }
    order = mth->args[0];
  } else if (const auto* sub = llvm::dyn_cast<SubscriptExpr>(e)) {
    base = sub->base;
    if (sub->indices.size() != 1) {
      unsupported(DiagKind::err_unsupported_event_multi_dim_index, e->range());
      return std::nullopt;
    }
    index = sub->indices[0];
  }
  const auto* name = llvm::dyn_cast<NameExpr>(base);
  const sema::Symbol* sym = name ? sema_.references.lookup(name) : nullptr;
  auto it = sym ? events_.find(sym) : events_.end();
  if (it == events_.end()) {
    unsupported(DiagKind::err_unsupported_event_reference, e->range());
    return std::nullopt;
  }
  const EventInfo& info = it->second;
  ref.symbol = sym;
  ref.buffer = info.buffer;
  if (order) {
    // `e.at(order++)`: the order before the increment; the caller advances it.
    const ast::Expr* o = order;
    if (const auto* post = llvm::dyn_cast<PostfixExpr>(order); post && post->op == TokenKind::plusplus) {
      o = post->operand;
      if (const auto* on = llvm::dyn_cast<NameExpr>(o)) ref.advance = sema_.references.lookup(on);
      if (!ref.advance) {
        unsupported(DiagKind::err_unsupported_event_order, order->range());
        return std::nullopt;
      }
    }
    const Expr* ord = lowerInt(o);
    if (!ord) return std::nullopt;
    const Expr* n = m().intc(info.elements);
    ref.index = m().mod(ord, n);
    const Expr* parity = m().mod(m().div(ord, n), m().intc(2));
    // `= ready`: generation 0 has completed already, so every parity is one
    // phase behind.
    if (info.ready) parity = m().sub(m().intc(1), parity);
    ref.parity = parity;
    return ref;
  }
  if (info.array && !index) {
    unsupported(DiagKind::err_unsupported_event_array_whole, e->range());
    return std::nullopt;
  }
  ref.index = index ? lowerInt(index) : m().intc(0);
  if (!ref.index) return std::nullopt;
  if (index && info.array) checkIndexAtLaunch(ref.index, info.elements, sym->name, 0, index);
  return ref;
}

void Lowerer::advanceOrder(const EventRef& r, llvm::SMLoc loc) {
  if (!r.advance) return;
  Stmt* inc = emit(StmtKind::Assign, loc);
  inc->var = nameFor(r.advance);
  inc->op = "+=";
  inc->value = m().intc(1);
}

void Lowerer::findEventBoundCopies(const ast::Stmt* body) {
  forEachStmt(body, [&](const ast::Stmt* s) {
    if (const auto* t = llvm::dyn_cast<TriggerStmt>(s); t && !t->after.empty() && t->targets.size() == 1)
      for (const ast::Expr* f : t->after)
        if (const auto* n = llvm::dyn_cast<NameExpr>(f))
          if (const sema::Symbol* sym = sema_.references.lookup(n)) eventBound_[sym] = t->targets[0];
  });
}

// ---------------------------------------------------------------------------
// trigger and wait

void Lowerer::noteTriggeringThreads(EventInfo& info, const sema::Symbol& event, std::vector<bool> on,
                                    llvm::SMRange where) {
  auto count = [](const std::vector<bool>& threads) { return std::count(threads.begin(), threads.end(), true); };
  for (const EventInfo::Triggers& role : info.roles) {
    if (role.threads == on) return;
    bool shares = false;
    for (size_t i = 0; i < role.threads.size() && i < on.size(); ++i) shares = shares || (role.threads[i] && on[i]);
    if (shares) {
      diags_.report(where.Start, DiagKind::err_event_arrivals_mismatch, event.name, count(on), count(role.threads))
          .range(where)
          .note(role.at.Start, DiagKind::note_event_first_trigger);
      return;
    }
  }
  info.roles.push_back({std::move(on), where});
}

void Lowerer::lowerTrigger(const TriggerStmt* t) {
  if (t->after.size() && t->targets.size() != 1) {
    unsupported(DiagKind::err_unsupported_trigger_after_several, t->range());
    return;
  }
  // TMA copies bound to the event: their bytes (GPU) or their completion
  // (the CPU target runs them as async copies, waited for here).
  std::int64_t bytes = 0;
  bool bound = false;
  std::vector<const sema::Symbol*> cpuCopies;
  for (const ast::Expr* f : t->after) {
    const auto* n = llvm::dyn_cast<NameExpr>(f);
    const sema::Symbol* sym = n ? sema_.references.lookup(n) : nullptr;
    if (!sym) continue;
    bound = true;
    if (auto it = boundBytes_.find(sym); it != boundBytes_.end()) bytes += it->second;
    else if (asyncFutures_.count(sym)) cpuCopies.push_back(sym);
  }
  if (!cpuCopies.empty()) {
    const Expr* newest = nullptr;
    for (const sema::Symbol* s : cpuCopies) {
      const Expr* seq = m().var(nameFor(s) + "_seq");
      newest = newest ? m().max(newest, seq) : seq;
    }
    waitAsyncCopies(newest, t->loc());
  }
  std::int64_t threads = 0;
  const Expr* rank = nullptr;
  const std::int64_t cluster = t->level == ParallelLevel::Cluster ? kernel_->clusterSize : 1;
  if (t->level == ParallelLevel::Cluster && bound) {
    unsupported(DiagKind::err_unsupported_trigger_cluster_after, t->range());
    return;
  }
  for (const ast::Expr* target : t->targets) {
    std::optional<EventRef> ref = lowerEventRef(target);
    if (!ref) continue;
    EventInfo& info = events_[ref->symbol];
    if (info.cluster && info.cluster != cluster) {
      diags_.report(t->loc(), DiagKind::err_event_cluster_mismatch, ref->symbol->name)
          .range(t->range())
          .note(info.firstTrigger.Start, DiagKind::note_event_first_trigger);
      return;
    }
    if (!info.cluster) {
      info.cluster = cluster;
      info.firstTrigger = t->range();
    }
    bool legacy = false;
    if (auto it = pendingEventBytes_.find(ref->symbol); it != pendingEventBytes_.end()) {
      bytes += it->second;
      pendingEventBytes_.erase(it);
      legacy = true;
    }
    Stmt* a = m().stmt(StmtKind::EventArrive, t->loc());
    a->buffer = ref->buffer;
    a->index = ref->index;
    std::vector<bool> on = activeThreads();
    if (bound || legacy) {
      // One elected thread, the region's first, arrives for the copies.
      if (!rank && !regionThreads(t->range(), threads, rank)) return;
      a->rank = rank;
      a->count = bytes;
      a->cond = bytes ? m().binary("!=", m().var("tma_ok_"), m().intc(0), kir::ScalarType::boolean()) : nullptr;
      std::int64_t elected = regions_.empty() ? 0 : regions_.back().lo;
      on.assign(on.size(), false);
      if (elected >= 0 && static_cast<size_t>(elected) < on.size()) on[elected] = true;
    } else {
      a->scope = kir::Scope::Thread;
      a->cluster = cluster;
    }
    noteTriggeringThreads(info, *ref->symbol, std::move(on), t->range());
    out_->push_back(a);
    advanceOrder(*ref, t->loc());
  }
}

void Lowerer::lowerEventWait(const ast::Expr* target, llvm::SMLoc loc) {
  std::optional<EventRef> ref = lowerEventRef(target);
  if (!ref) return;
  EventInfo& info = events_[ref->symbol];
  Stmt* w = emit(StmtKind::EventWait, loc);
  w->buffer = ref->buffer;
  w->index = info.array ? ref->index : m().intc(-1);
  w->op = ref->symbol->name;
  if (ref->parity) {
    w->value = ref->parity;
  } else {
    if (info.phases.empty()) {
      // Each waiting thread's phase bits, one per element.
      info.phases = info.buffer->name + "_ph";
      std::uint32_t all = info.elements >= 32 ? 0xFFFFFFFFu : (1u << info.elements) - 1u;
      Stmt* decl = m().stmt(StmtKind::Let, loc);
      decl->var = info.phases;
      decl->type = kir::ScalarType::element(TokenKind::ty_u32);
      decl->isMutable = true;
      decl->value = m().intc(info.ready ? all : 0);
      prologue_.push_back(decl);
    }
    w->var = info.phases;
  }
  advanceOrder(*ref, loc);
}

}  // namespace croqc::lower
