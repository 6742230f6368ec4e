// Semantic analysis, part one: the entry point, scopes and symbols, and the
// statements that are not declarations (SemaDecl.cpp) or about functions
// (SemaFunction.cpp), parallelism, data movement or MMA (spec sections 5, 7,
// 9, 10).
#include "sema/Sema.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/SourceMgr.h>

#include "basic/Saturating.h"
#include "sema/SemaImpl.h"
#include "target/ElementTypes.h"
#include "target/Target.h"

namespace croqc::sema {

using namespace ast;
using llvm::SMRange;
using llvm::StringRef;

bool isEntryValue(const Symbol* s) {
  return s && s->kind == Symbol::Kind::Param && s->type.kind == TypeKind::Element && isIntegerElem(s->type.elem);
}

namespace {

/// The first name in `e`, in the operands a shape or tuple expression is made
/// of, for which `pred` holds.
const NameExpr* findName(const Expr* e, llvm::function_ref<bool(const NameExpr*)> pred) {
  if (!e) return nullptr;
  if (const auto* n = llvm::dyn_cast<NameExpr>(e)) return pred(n) ? n : nullptr;
  llvm::SmallVector<const Expr*, 4> children;
  if (const auto* u = llvm::dyn_cast<UnaryExpr>(e)) children.push_back(u->operand);
  else if (const auto* b = llvm::dyn_cast<BinaryExpr>(e)) children.append({b->lhs, b->rhs});
  else if (const auto* c = llvm::dyn_cast<ConditionalExpr>(e)) children.append({c->cond, c->then, c->otherwise});
  else if (const auto* t = llvm::dyn_cast<ItupleExpr>(e)) children.append(t->elements.begin(), t->elements.end());
  else if (const auto* m = llvm::dyn_cast<MdspanExpr>(e)) children.append(m->dims.begin(), m->dims.end());
  else if (const auto* x = llvm::dyn_cast<CastExpr>(e)) children.push_back(x->operand);
  else if (const auto* call = llvm::dyn_cast<CallExpr>(e)) children.append(call->args.begin(), call->args.end());
  for (const Expr* c : children)
    if (const NameExpr* found = findName(c, pred)) return found;
  return nullptr;
}

}  // namespace

const NameExpr* findMutableName(const SemaResult& result, const Expr* e) {
  return findName(e, [&](const NameExpr* n) {
    const Symbol* s = result.references.lookup(n);
    return s && s->isMutable && !isEntryValue(s);
  });
}

void Checker::noteEntryValues(const Expr* e, llvm::SMLoc declaration, StringRef into) {
  findName(e, [&](const NameExpr* n) {
    const Symbol* s = result_.references.lookup(n);
    if (isEntryValue(s)) entryValueUses_.try_emplace(s, EntryValueUse{declaration, into.str()});
    return false;
  });
}

void Checker::checkNotCaptured(const Symbol* s, const NameExpr* name) {
  auto it = entryValueUses_.find(s);
  if (it == entryValueUses_.end()) return;
  report(name->range(), DiagKind::err_assign_captured_value, name->name, it->second.into)
      .note(it->second.at, DiagKind::note_captured_here, it->second.into, name->name);
}

std::unique_ptr<SemaResult> analyze(const Program& program, const SemaOptions& options, DiagnosticEngine& diags) {
  auto result = std::make_unique<SemaResult>();
  Checker(*result, options, diags).run(program);
  return result;
}

Checker::Checker(SemaResult& result, const SemaOptions& options, DiagnosticEngine& diags)
    : result_(result), options_(options), diags_(diags) {
  const target::TargetInfo* info = target::lookupTarget(options.arch);
  // The driver accepts only names of the target table.
  if (!info) llvm::report_fatal_error(llvm::Twine("sema: no target called `") + options.arch + "`");
  target_.info = info;
  target_.name = info->name.str();
  target_.isGpu = info->isGpu;
  target_.smVersion = static_cast<int>(info->smVersion);
  target_.maxThreadsPerCta = info->maxThreadsPerCta;
  target_.maxSharedBytes = info->maxSharedBytesPerCta;
  target_.hasWarpgroups = info->hasWarpgroups;
  target_.hasTma = info->hasTma;
  target_.hasClusters = info->hasClusters;
}

void Checker::run(const Program& program) {
  pushScope(ScopeKind::File, "");
  for (const Node* item : program.items) {
    if (diags_.shouldStop()) break;
    if (const auto* host = llvm::dyn_cast<HostCode>(item)) {
      noteIntrinsicPragmas(host->text);
      continue;
    }
    if (const auto* dev = llvm::dyn_cast<DeviceCode>(item)) {
      if (!dev->name.empty() && !lookupLocal(dev->name)) {
        Symbol* s = result_.newSymbol();
        s->kind = Symbol::Kind::Function;
        s->name = dev->name.str();
        s->qualifiedName = "::" + s->name;
        s->type = Type::simple(TypeKind::Opaque);
        s->loc = dev->loc();
        scopes_.back()->names[dev->name] = s;
      }
      continue;
    }
    if (const auto* fn = llvm::dyn_cast<CoFunction>(item)) checkFunction(*fn);
  }
  popScope();
}

void Checker::noteIntrinsicPragmas(StringRef text) {
  llvm::SmallVector<StringRef, 16> lines;
  text.split(lines, '\n');
  for (StringRef line : lines) {
    llvm::SmallVector<StringRef, 5> words;
    line.split(words, ' ', -1, false);
    if (words.size() == 5 && words[0] == "#pragma" && words[1] == "croq" && words[2] == "intrinsic" &&
        words[3] == "prefix")
      intrinsicPrefixes_.push_back(words[4].trim().str());
  }
}

// ---------------------------------------------------------------------------
// Scopes

void Checker::pushScope(ScopeKind kind, StringRef label) {
  auto scope = std::make_unique<Scope>();
  scope->kind = kind;
  scope->parent = scopes_.empty() ? nullptr : scopes_.back().get();
  if (scope->parent) {
    std::string name = label.str();
    if (kind != ScopeKind::Function) {
      unsigned n = scope->parent->childCounts[label]++;
      name += "_" + std::to_string(n);
    }
    scope->qualifiedName = scope->parent->qualifiedName + "::" + name;
  }
  scopes_.push_back(std::move(scope));
  if (kernel_) sharedByScope_.emplace_back();
}

void Checker::popScope() {
  scopes_.pop_back();
  if (!kernel_ || sharedByScope_.empty()) return;
  std::int64_t peak = saturatingAdd(sharedByScope_.back().own, sharedByScope_.back().childPeak);
  sharedByScope_.pop_back();
  if (sharedByScope_.empty()) kernel_->sharedBytes = peak;
  else sharedByScope_.back().childPeak = std::max(sharedByScope_.back().childPeak, peak);
}

void Checker::addSharedBytes(std::int64_t bytes) {
  if (!sharedByScope_.empty()) sharedByScope_.back().own = saturatingAdd(sharedByScope_.back().own, bytes);
}

Symbol* Checker::lookup(StringRef name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = (*it)->names.find(name);
    if (found != (*it)->names.end()) return found->second;
  }
  return nullptr;
}

Symbol* Checker::lookupLocal(StringRef name) const {
  if (scopes_.empty()) return nullptr;
  auto found = scopes_.back()->names.find(name);
  return found == scopes_.back()->names.end() ? nullptr : found->second;
}

Symbol* Checker::declare(StringRef name, llvm::SMLoc loc, Symbol::Kind kind, Type type, bool isMutable) {
  // A placeholder left by a use of an undeclared name (no location) is
  // replaced silently: the use was already reported.
  if (Symbol* previous = lookupLocal(name); previous && previous->loc.isValid()) {
    diags_.report(loc, DiagKind::err_redeclared, name).note(previous->loc, DiagKind::note_previous_declaration, name);
  }
  Symbol* s = result_.newSymbol();
  s->kind = kind;
  s->name = name.str();
  s->qualifiedName = scopes_.back()->qualifiedName + "::" + s->name;
  s->type = std::move(type);
  s->isMutable = isMutable;
  s->loc = loc;
  scopes_.back()->names[name] = s;
  result_.allSymbols.push_back(s);
  return s;
}

std::string Checker::suggestName(StringRef name) const {
  std::string best;
  unsigned bestDistance = name.size() <= 3 ? 1 : 2;
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    for (const auto& entry : (*it)->names) {
      unsigned d = name.edit_distance(entry.getKey(), true, bestDistance);
      if (d <= bestDistance && d != 0 && (best.empty() || d < bestDistance)) {
        best = entry.getKey().str();
        bestDistance = d;
      }
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Statements

void Checker::checkCompound(const CompoundStmt* c) {
  for (const Stmt* s : c->body) {
    if (diags_.shouldStop()) return;
    checkStmt(s);
  }
}

void Checker::checkBody(const Stmt* s, ScopeKind kind, StringRef label) {
  if (!s) return;
  pushScope(kind, label);
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(s)) checkCompound(c);
  else checkStmt(s);
  popScope();
}

void Checker::checkStmt(const Stmt* s) {
  switch (s->kind()) {
    case NodeKind::CompoundStmt: checkBody(s, ScopeKind::Block, "block"); return;
    case NodeKind::NullStmt: return;
    case NodeKind::DirectiveStmt: noteIntrinsicPragmas(llvm::cast<DirectiveStmt>(s)->text); return;
    case NodeKind::ExprStmt: {
      const Expr* e = llvm::cast<ExprStmt>(s)->expr;
      if (const auto* call = llvm::dyn_cast<CallExpr>(e); call && call->viaCallKeyword && parallels_.empty())
        report(call->range(), DiagKind::err_call_outside_parallel);
      check(e);
      return;
    }
    case NodeKind::AssignStmt: checkAssign(llvm::cast<AssignStmt>(s)); return;
    case NodeKind::MdspanDeclStmt: checkMdspanDecl(llvm::cast<MdspanDeclStmt>(s)); return;
    case NodeKind::ItupleDeclStmt: checkItupleDecl(llvm::cast<ItupleDeclStmt>(s)); return;
    case NodeKind::ScalarDeclStmt: checkScalarDecl(llvm::cast<ScalarDeclStmt>(s)); return;
    case NodeKind::SpannedDeclStmt: checkSpannedDecl(llvm::cast<SpannedDeclStmt>(s)); return;
    case NodeKind::FragDeclStmt: checkFragDecl(llvm::cast<FragDeclStmt>(s)); return;
    case NodeKind::EventDeclStmt: checkEventDecl(llvm::cast<EventDeclStmt>(s)); return;
    case NodeKind::ParallelStmt: checkParallel(llvm::cast<ParallelStmt>(s)); return;
    case NodeKind::WithStmt: checkWith(llvm::cast<WithStmt>(s)); return;
    case NodeKind::ForeachStmt: checkForeach(llvm::cast<ForeachStmt>(s)); return;
    case NodeKind::WhileStmt: checkWhile(llvm::cast<WhileStmt>(s)); return;
    case NodeKind::IfStmt: checkIf(llvm::cast<IfStmt>(s)); return;
    case NodeKind::InthreadsStmt: checkInthreads(llvm::cast<InthreadsStmt>(s)); return;
    case NodeKind::ApplyStmt: checkApply(llvm::cast<ApplyStmt>(s)); return;
    case NodeKind::DmaStmt: checkDma(llvm::cast<DmaStmt>(s)); return;
    case NodeKind::MmaFillStmt: checkMmaFill(llvm::cast<MmaFillStmt>(s)); return;
    case NodeKind::MmaLoadStmt: checkMmaLoad(llvm::cast<MmaLoadStmt>(s)); return;
    case NodeKind::MmaExecStmt: checkMmaExec(llvm::cast<MmaExecStmt>(s)); return;
    case NodeKind::MmaStoreStmt: checkMmaStore(llvm::cast<MmaStoreStmt>(s)); return;
    case NodeKind::MmaScaleStmt: checkMmaScale(llvm::cast<MmaScaleStmt>(s)); return;
    case NodeKind::MmaCommitStmt:
    case NodeKind::MmaWaitStmt:
      if (parallels_.empty()) report(s->range(), DiagKind::err_device_only_statement, "an MMA statement");
      if (const auto* w = llvm::dyn_cast<MmaWaitStmt>(s)) intValue(w->count, "the number of MMA groups");
      return;
    case NodeKind::FragOpStmt: checkFragOp(llvm::cast<FragOpStmt>(s)); return;
    case NodeKind::WaitStmt: checkWait(llvm::cast<WaitStmt>(s)); return;
    case NodeKind::TriggerStmt: checkTrigger(llvm::cast<TriggerStmt>(s)); return;
    case NodeKind::SwapStmt: checkSwap(llvm::cast<SwapStmt>(s)); return;
    case NodeKind::ReturnStmt: checkReturn(llvm::cast<ReturnStmt>(s)); return;
    case NodeKind::SyncStmt: checkSync(llvm::cast<SyncStmt>(s)); return;
    case NodeKind::CppStmt: inlineTexts_.push_back(llvm::cast<CppStmt>(s)->code); return;
    case NodeKind::BreakStmt:
    case NodeKind::ContinueStmt:
      if (loopDepth_ == 0)
        report(s->range(), DiagKind::err_break_outside_loop, s->kind() == NodeKind::BreakStmt ? "break" : "continue");
      return;
    case NodeKind::YieldStmt:
      if (parallels_.empty()) report(s->range(), DiagKind::err_yield_outside_parallel);
      return;
    case NodeKind::AsmStmt: {
      const auto* a = llvm::cast<AsmStmt>(s);
      inlineTexts_.push_back(a->asmTemplate);
      if (parallels_.empty()) report(s->range(), DiagKind::err_device_only_statement, "inline assembly");
      for (const AsmOperand& op : a->outputs) checkAsmOperand(op);
      for (const AsmOperand& op : a->inputs) checkAsmOperand(op);
      return;
    }
    case NodeKind::PrintStmt:
      for (const Expr* e : llvm::cast<PrintStmt>(s)->args) check(e);
      return;
    case NodeKind::AssertStmt: {
      const auto* a = llvm::cast<AssertStmt>(s);
      Type t = check(a->cond);
      if (!t.isError()) {
        if (std::optional<std::int64_t> c = constantOf(a->cond); c && *c == 0)
          report(a->range(), DiagKind::err_static_assert, a->message);
        else if (c)
          result_.provenAsserts.insert(a);
      }
      return;
    }
#define EXPR(Name) case NodeKind::Name##Expr:
#define TOP(Name) case NodeKind::Name:
#include "ast/ASTNodes.def"
      return;
  }
}

/// An operand of inline assembly: its value, and on a GPU target its
/// constraint, which nvcc accepts only in the PTX forms (one letter or a
/// matching operand's number, after `=`, `+` or `&`).
void Checker::checkAsmOperand(const AsmOperand& op) {
  check(op.value);
  if (!target_.isGpu) return;
  StringRef c = StringRef(op.constraint).ltrim("=+&");
  bool number = !c.empty() && llvm::all_of(c, [](char ch) { return ch >= '0' && ch <= '9'; });
  bool ok = number || (c.size() == 1 && StringRef("hrlqfdnC").contains(c[0]));
  if (!ok) report(op.range, DiagKind::err_asm_constraint, op.constraint);
}

void Checker::checkCondition(const Expr* cond) {
  Type t = check(cond);
  if (t.isError()) return;
  if (t.kind != TypeKind::Bool && !t.isIntegral() && t.kind != TypeKind::Element && t.kind != TypeKind::Opaque &&
      t.kind != TypeKind::Event)
    report(cond->range(), DiagKind::err_condition_type, describe(t));
}

void Checker::checkIf(const IfStmt* s) {
  checkCondition(s->cond);
  underCondition(s->cond, false, [&] { checkBody(s->then, ScopeKind::If, "if"); });
  if (s->otherwise) underCondition(s->cond, true, [&] { checkBody(s->otherwise, ScopeKind::If, "else"); });
}

void Checker::checkWhile(const WhileStmt* s) {
  checkCondition(s->cond);
  ++loopDepth_;
  underCondition(s->cond, false, [&] { checkBody(s->body, ScopeKind::While, "while"); });
  --loopDepth_;
}

bool Checker::isMutableValue(const Symbol* s) const {
  if (s->isMutable) return true;
  switch (s->type.kind) {
    case TypeKind::Future:
    case TypeKind::MmaFuture:
    case TypeKind::Fragment:
    case TypeKind::Accumulator: return true;
    // Typed element declarations (`f16 acc = 0.0f;`) are mutable, untyped
    // bindings of an element value (`x = buf.at(i);`) are not (spec 4.5).
    case TypeKind::Element: return s->kind == Symbol::Kind::Param;
    default: return false;
  }
}

void Checker::checkAssign(const AssignStmt* a) {
  if (const auto* name = llvm::dyn_cast<NameExpr>(a->target)) {
    Symbol* existing = lookup(name->name);
    if (!existing || (a->op == TokenKind::equal && !isMutableValue(existing) && !lookupLocal(name->name))) {
      if (a->op != TokenKind::equal) {
        check(a->target);
        check(a->value);
        return;
      }
      checkBinding(a, name);
      return;
    }
    result_.references[name] = existing;
    ++existing->uses;
    Type value = check(a->value);
    if (existing->type.kind == TypeKind::Data) {
      report(a->range(), DiagKind::err_whole_buffer_assign, name->name);
      return;
    }
    if (!isMutableValue(existing)) {
      report(name->range(), DiagKind::err_reassign_immutable, name->name)
          .note(existing->loc, DiagKind::note_previous_declaration, name->name);
      return;
    }
    checkNotCaptured(existing, name);
    if (existing->type.kind == TypeKind::Element) {
      if (!checkIntegerOperands(a->op, {{a->target, &existing->type}, {a->value, &value}})) return;
      checkConversion(value, existing->type.elem, a->value->range());
    }
    // `acc += v;` updates every element of an accumulator (spec 13.10).
    if (existing->type.kind == TypeKind::Accumulator && a->op != TokenKind::equal) {
      if (!value.isError() && value.kind != TypeKind::Element && !value.isIntegral())
        report(a->value->range(), DiagKind::err_accumulator_update_value, name->name, describe(value));
      result_.exprTypes[name] = existing->type;
      return;
    }
    // Futures and fragments may be re-bound to a new value of the same kind.
    if (existing->type.kind == TypeKind::Future || existing->type.kind == TypeKind::Fragment ||
        existing->type.kind == TypeKind::Accumulator)
      existing->type = value;
    result_.exprTypes[name] = existing->type;
    return;
  }
  Type target = check(a->target);
  Type value = check(a->value);
  if (target.isError() || value.isError()) return;
  // An element is assigned through `.at(...)` or `[...]`; other expressions
  // of element type (`--x.at(i)`, `a.at(i) + 1`) are values.
  const auto* method = llvm::dyn_cast<MethodExpr>(a->target);
  const bool elementAccess =
      (method && method->method == TokenKind::m_at) || llvm::isa<SubscriptExpr>(a->target);
  if (target.kind == TypeKind::Element && elementAccess) {
    if (!checkIntegerOperands(a->op, {{a->target, &target}, {a->value, &value}})) return;
    checkConversion(value, target.elem, a->value->range());
    return;
  }
  if (target.kind == TypeKind::Int && method) return;
  if (target.kind == TypeKind::Accumulator && target.arrayDims.empty() && a->op != TokenKind::equal) {
    if (value.kind != TypeKind::Element && !value.isIntegral())
      report(a->value->range(), DiagKind::err_accumulator_update_value, exprText(a->target), describe(value));
    return;
  }
  report(a->target->range(), DiagKind::err_assign_to_non_lvalue, "`" + exprText(a->target) + "`");
}

/// `name = value;` introduces an immutable binding whose type is the value's.
void Checker::checkBinding(const AssignStmt* a, const NameExpr* name) {
  Type value = check(a->value);
  if (value.kind == TypeKind::Void) value = Type::error();
  // Spec 17.3: "pointer variables are not supported", "string variables are
  // not supported yet".
  const auto* address = llvm::dyn_cast<UnaryExpr>(a->value);
  if (address && address->op == TokenKind::amp) {
    report(a->value->range(), DiagKind::err_unsupported_variable, name->name, "an address",
           "pass `&x.at(i)` to `call` directly");
    value = Type::error();
  } else if (value.kind == TypeKind::String) {
    report(a->value->range(), DiagKind::err_unsupported_variable, name->name, "a string",
           "strings are arguments of `print`, `assert` and `__cpp__`");
    value = Type::error();
  }
  if (value.kind == TypeKind::Ituple || value.kind == TypeKind::Mdspan) {
    if (const NameExpr* m = findMutableName(result_, a->value))
      report(m->range(), DiagKind::err_immutable_from_mutable, value.kind == TypeKind::Ituple ? "ituple" : "mdspan",
             name->name, m->name);
    noteEntryValues(a->value, name->loc(),
                    (llvm::Twine(value.kind == TypeKind::Ituple ? "ituple `" : "mdspan `") + name->name + "`").str());
  }
  Symbol* s = declare(name->name, name->loc(), Symbol::Kind::Variable, value, false);
  if (value.kind == TypeKind::Int || value.kind == TypeKind::Bounded) {
    s->value = valueOf(a->value);
    // A value chosen at run time (`X = c ? 2 : 3`) is known by the variable's
    // name from here on, with the bounds sema found for it.
    const auto* runtime = llvm::dyn_cast_or_null<sym::SymbolExpr>(s->value);
    if (runtime && runtime->freshId() != 0 && runtime->lowerBound())
      s->value = sym().boundedSymbol(s->qualifiedName, *runtime->lowerBound(), runtime->upperBound());
  }
  // An integer sema cannot follow (an element read from memory, say) is a
  // symbol of its own, which lowering binds to the variable.
  bool integerElement = value.kind == TypeKind::Element && isIntegerElem(value.elem);
  if ((value.kind == TypeKind::Int && sym::isUnknown(s->value)) || integerElement)
    s->value = sym().freshSymbol(name->name, std::nullopt);
  if (value.kind == TypeKind::Int) s->type.values = {s->value};
  if (value.kind == TypeKind::Bool) s->boolDefinition = a->value;
  result_.references[name] = s;
  result_.exprTypes[name] = value;
  result_.declarations[a].push_back(s);
}

void Checker::checkConversion(const Type& from, TokenKind to, SMRange where) {
  if (from.kind != TypeKind::Element || from.elem == TokenKind::eof || to == TokenKind::eof) return;
  TokenKind f = from.elem;
  if (f == to) return;
  auto bits = [](TokenKind k) -> int {
    switch (k) {
      case TokenKind::ty_u8: case TokenKind::ty_s8: case TokenKind::ty_f8: case TokenKind::ty_f8_e4m3:
      case TokenKind::ty_f8_e5m2: case TokenKind::ty_f8_ue4m3: case TokenKind::ty_f8_ue8m0: return 8;
      case TokenKind::ty_u16: case TokenKind::ty_s16: case TokenKind::ty_f16: case TokenKind::ty_bf16: return 16;
      case TokenKind::ty_u32: case TokenKind::ty_s32: case TokenKind::ty_f32: case TokenKind::ty_tf32: return 32;
      case TokenKind::ty_u64: case TokenKind::ty_s64: case TokenKind::ty_f64: return 64;
      default: return 0;
    }
  };
  auto isFloat = [](TokenKind k) {
    switch (k) {
      case TokenKind::ty_f16: case TokenKind::ty_bf16: case TokenKind::ty_f32: case TokenKind::ty_tf32:
      case TokenKind::ty_f64: case TokenKind::ty_f8: case TokenKind::ty_f8_e4m3: case TokenKind::ty_f8_e5m2:
      case TokenKind::ty_f8_ue4m3: case TokenKind::ty_f8_ue8m0: return true;
      default: return false;
    }
  };
  auto isUnsigned = [](TokenKind k) {
    return k == TokenKind::ty_u8 || k == TokenKind::ty_u16 || k == TokenKind::ty_u32 || k == TokenKind::ty_u64;
  };
  int fb = bits(f), tb = bits(to);
  if (fb == 0 || tb == 0) return;
  bool lossy = (isFloat(f) && !isFloat(to)) || (!isFloat(f) && isFloat(to) && fb >= tb) ||
               (isFloat(f) && isFloat(to) && (fb > tb || (fb == tb && f != to))) ||
               (!isFloat(f) && !isFloat(to) && fb > tb);
  // A literal such as `0.0f` assigned to f16 states its intent; only
  // variables and element reads warn.
  if (from.values.size() == 1 && sym::isConstant(from.values[0])) return;
  if (lossy) {
    diags_.report(where.Start, DiagKind::warn_lossy_conversion, tokenKindSpelling(f), tokenKindSpelling(to)).range(where);
  } else if (!isFloat(f) && !isFloat(to) && fb == tb && isUnsigned(f) != isUnsigned(to)) {
    diags_.report(where.Start, DiagKind::warn_sign_conversion, tokenKindSpelling(f), tokenKindSpelling(to)).range(where);
  }
}

/// Declares the variables of one `with`/`foreach` binding.
void Checker::bindIteration(const IterBinding& b, Symbol::Kind kind, bool isWith) {
  // Integer data (`s32 len`) gives a space of one dimension, its value where
  // the loop starts.
  std::optional<SymList> extents;
  const Type data = b.extent ? check(b.extent) : Type::error();
  const SymExpr* length = data.kind == TypeKind::Element && isIntegerElem(data.elem) ? integerDataValue(b.extent) : nullptr;
  if (length && !sym::isUnknown(length)) extents = SymList{length};
  else extents = shapeOf(b.extent, "an iteration space");
  if (!extents) extents.emplace();
  // A `with` names positions of a space, which needs at least one (a
  // `foreach` over an empty range is a loop that runs no time).
  for (size_t d = 0; isWith && b.extent && d < extents->size(); ++d) {
    std::optional<std::int64_t> c = sym::constantValue((*extents)[d]);
    if (c && *c <= 0) report(b.extent->range(), DiagKind::err_with_extent_not_positive, exprText(b.extent), d, *c);
  }
  auto bounded = [&](StringRef name, const SymExpr* extent, llvm::SMLoc loc) {
    if (name == "_") {
      diags_.report(loc, DiagKind::err_wildcard_binding);
      return (Symbol*)nullptr;
    }
    Type t = Type::simple(TypeKind::Bounded);
    t.shape = {extent};
    Symbol* s = declare(name, loc, kind, t, false);
    s->value = sym().boundedSymbol(s->qualifiedName, 0, extent);
    s->type.values = {s->value};
    return s;
  };
  if (!b.elements.empty()) {
    if (b.elements.size() != extents->size() && !extents->empty())
      report(b.range, DiagKind::err_with_count, b.elements.size(), extents->size());
    if (b.name == "_") report(b.range, DiagKind::err_wildcard_binding);
    // `index = {x, y} in [...]`: the tuple's values are its elements'.
    SymList values;
    for (size_t i = 0; i < b.elements.size(); ++i) {
      const Symbol* e = bounded(b.elements[i], i < extents->size() ? (*extents)[i] : unknown(), b.range.Start);
      values.push_back(e ? e->value : unknown());
    }
    if (b.name != "_" && !b.name.empty()) {
      Type t = Type::simple(TypeKind::BoundedTuple);
      t.shape = *extents;
      if (values.size() == extents->size()) t.values = values;
      declare(b.name, b.range.Start, kind, t, false);
    }
    return;
  }
  if (extents->size() == 1 && b.extent && !llvm::isa<MdspanExpr>(b.extent)) {
    bounded(b.name, (*extents)[0], b.range.Start);
    return;
  }
  if (b.name == "_") {
    report(b.range, DiagKind::err_wildcard_binding);
    return;
  }
  Type t = Type::simple(extents->size() == 1 ? TypeKind::Bounded : TypeKind::BoundedTuple);
  t.shape = *extents;
  t.rankOneTuple = t.kind == TypeKind::Bounded;
  Symbol* s = declare(b.name, b.range.Start, kind, t, false);
  if (t.kind == TypeKind::Bounded) {
    s->value = sym().boundedSymbol(s->qualifiedName, 0, (*extents)[0]);
    s->type.values = {s->value};
  } else {
    tupleElements(s);
  }
}

std::vector<Symbol*> Checker::tupleElements(Symbol* tuple) {
  std::vector<Symbol*> elements;
  tuple->type.values.clear();
  for (size_t d = 0; d < tuple->type.shape.size(); ++d) {
    Symbol* e = result_.newSymbol();
    e->kind = tuple->kind;
    e->name = tuple->name + "(" + std::to_string(d) + ")";
    e->qualifiedName = tuple->qualifiedName + "(" + std::to_string(d) + ")";
    e->loc = tuple->loc;
    e->level = tuple->level;
    e->type = Type::simple(TypeKind::Bounded);
    e->type.shape = {tuple->type.shape[d]};
    e->value = sym().boundedSymbol(e->qualifiedName, 0, tuple->type.shape[d]);
    e->type.values = {e->value};
    result_.allSymbols.push_back(e);
    tuple->type.values.push_back(e->value);
    elements.push_back(e);
  }
  return elements;
}

void Checker::checkWith(const WithStmt* w) {
  pushScope(ScopeKind::With, "within");
  for (const IterBinding& b : w->bindings) bindIteration(b, Symbol::Kind::IterVar, /*isWith=*/true);
  for (const WherePair& p : w->where) {
    for (StringRef n : {p.lhs, p.rhs})
      if (!lookup(n)) diags_.report(p.range.Start, DiagKind::err_undeclared, n).range(p.range);
  }
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(w->body)) checkCompound(c);
  else checkStmt(w->body);
  popScope();
}

void Checker::checkForeach(const ForeachStmt* f) {
  pushScope(ScopeKind::Foreach, "foreach");
  for (const IterBinding& b : f->bindings) {
    if (b.extent) {
      // The loop's own variables, for the lowering (the statements of a
      // macro expansion share one location, so it cannot find them by place).
      size_t first = result_.allSymbols.size();
      bindIteration(b, Symbol::Kind::IterVar, /*isWith=*/false);
      for (size_t i = first; i < result_.allSymbols.size(); ++i) result_.declarations[f].push_back(result_.allSymbols[i]);
      continue;
    }
    if (b.name == "_") {
      report(b.range, DiagKind::err_wildcard_binding);
      continue;
    }
    Symbol* v = lookup(b.name);
    if (!v) {
      std::string suggestion = suggestName(b.name);
      if (suggestion.empty()) report(b.range, DiagKind::err_undeclared, b.name);
      else report(b.range, DiagKind::err_undeclared_suggest, b.name, suggestion);
      continue;
    }
    ++v->uses;
    if (v->kind == Symbol::Kind::ParallelVar) {
      report(b.range, DiagKind::err_foreach_parallel_var, b.name).note(v->loc, DiagKind::note_previous_declaration, b.name);
      continue;
    }
    if (v->type.kind != TypeKind::Bounded && v->type.kind != TypeKind::BoundedTuple) {
      report(b.range, DiagKind::err_foreach_not_bounded, b.name, describe(v->type));
      continue;
    }
    if (b.hasRange && v->type.kind == TypeKind::BoundedTuple) report(b.range, DiagKind::err_range_on_tuple, b.name);
    if (b.lo) intValue(b.lo, "the start offset of a range");
    if (b.hi) intValue(b.hi, "the end offset of a range");
    if (b.step) {
      std::optional<std::int64_t> step = constantOf(b.step);
      if (!step || *step <= 0) report(b.step->range(), DiagKind::err_range_step, exprText(b.step));
    }
    if (!b.alias.empty()) {
      Symbol* alias = declare(b.alias, b.range.Start, Symbol::Kind::IterVar, v->type, false);
      alias->value = v->value;
    }
  }
  // The trip count of the innermost loop, when no range changes it.
  std::optional<std::int64_t> trip;
  if (!f->bindings.empty() && !f->bindings.back().hasRange) {
    const IterBinding& inner = f->bindings.back();
    const Symbol* v = lookup(inner.elements.empty() ? inner.name : inner.elements.back());
    if (v && (v->type.kind == TypeKind::Bounded || v->type.kind == TypeKind::BoundedTuple) && !v->type.shape.empty())
      trip = sym::constantValue(v->type.shape.back());
  }
  for (const LoopSuffix& sfx : f->suffixes) {
    if (!sfx.factor) continue;
    std::optional<std::int64_t> factor = constantOf(sfx.factor);
    if (sfx.kind == TokenKind::kw_unroll && (!factor || *factor <= 0))
      report(sfx.factor->range(), DiagKind::err_unroll_factor, exprText(sfx.factor));
    else if (sfx.kind == TokenKind::kw_unroll && trip && *factor > *trip)
      diags_.report(sfx.factor->loc(), DiagKind::warn_unroll_exceeds_trip, *factor, *trip).range(sfx.factor->range());
    if (sfx.kind == TokenKind::kw_vectorize && !lookup(sfx.var))
      diags_.report(sfx.range.Start, DiagKind::err_undeclared, sfx.var).range(sfx.range);
  }
  ++loopDepth_;
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(f->body)) checkCompound(c);
  else checkStmt(f->body);
  --loopDepth_;
  popScope();
}

void Checker::checkApply(const ApplyStmt* s) {
  Type source = check(s->source);
  SymList shape;
  // `apply ... in x.span` walks the elements a thread owns: `x` must be a
  // fragment or an accumulator.
  const auto* member = llvm::dyn_cast<MemberExpr>(s->source);
  Type owner = member && member->member == TokenKind::m_span ? check(member->base) : Type::error();
  if (member && !owner.isError() && owner.kind != TypeKind::Fragment && owner.kind != TypeKind::Accumulator) {
    report(s->source->range(), DiagKind::err_apply_source, exprText(member->base), describe(owner));
  } else if (source.kind == TypeKind::Mdspan) {
    shape = source.shape;
  } else if (!source.isError()) {
    report(s->source->range(), DiagKind::err_apply_source, exprText(s->source), describe(source));
  }
  if (!shape.empty() && shape.size() != s->names.size())
    report(s->range(), DiagKind::err_apply_count, s->names.size(), shape.size());
  pushScope(ScopeKind::Apply, "apply");
  for (size_t i = 0; i < s->names.size(); ++i) {
    Type t = Type::simple(TypeKind::Bounded);
    t.shape = {i < shape.size() ? shape[i] : unknown()};
    Symbol* v = declare(s->names[i], s->loc(), Symbol::Kind::IterVar, t, false);
    v->value = sym().boundedSymbol(v->qualifiedName, 0, t.shape[0]);
    v->type.values = {v->value};
  }
  if (const auto* c = llvm::dyn_cast<CompoundStmt>(s->body)) checkCompound(c);
  else checkStmt(s->body);
  popScope();
}

void Checker::checkReturn(const ReturnStmt* r) {
  if (!parallels_.empty()) {
    report(r->range(), DiagKind::err_return_in_parallel);
    return;
  }
  const TypeRef& declared = functionDecl_->returnType;
  if (!r->value) {
    if (declared.kind != TypeRef::Kind::Void && declared.kind != TypeRef::Kind::Auto)
      report(r->range(), DiagKind::err_return_missing_value, functionDecl_->name, printType(function_->returnType));
    return;
  }
  Type t = check(r->value);
  if (t.isError()) return;
  sawReturnValue_ = true;
  // A stream return type was reported at the declaration.
  if (declared.kind != TypeRef::Kind::Spanned && declared.kind != TypeRef::Kind::Void &&
      declared.kind != TypeRef::Kind::Auto) {
    const Type& want = function_->returnType;
    bool scalar = t.isIntegral() || t.kind == TypeKind::Bool || t.kind == TypeKind::Element;
    if (!want.isError() && !scalar)
      report(r->value->range(), DiagKind::err_return_mismatch, printType(t), printType(want));
    else if (want.kind == TypeKind::Element)
      checkConversion(t, want.elem, r->value->range());
    return;
  }
  // `auto`: a scalar the host computed (spec 7), or spanned data.
  bool scalar = t.isIntegral() || t.kind == TypeKind::Bool || t.kind == TypeKind::Element;
  if (scalar && declared.kind == TypeRef::Kind::Auto) {
    Type result = Type::simple(t.kind == TypeKind::Bool ? TypeKind::Bool
                               : t.kind == TypeKind::Element ? TypeKind::Element
                                                             : TypeKind::Int);
    result.elem = t.elem;
    if (function_->returnType.isError()) function_->returnType = result;
    else if (function_->returnType.kind != result.kind || function_->returnType.elem != result.elem)
      report(r->value->range(), DiagKind::err_return_mismatch, printType(t), printType(function_->returnType));
    return;
  }
  if (t.kind != TypeKind::Data || t.view || t.storage == Storage::Shared || t.storage == Storage::Local) {
    report(r->value->range(), DiagKind::err_return_type, describe(t));
    return;
  }
  if (declared.kind == TypeRef::Kind::Void) {
    report(r->value->range(), DiagKind::err_return_mismatch, printType(t), "void");
    return;
  }
  if (declared.kind == TypeRef::Kind::Auto) {
    if (!function_->returnType.isError() && function_->returnType.kind != TypeKind::Data)
      report(r->value->range(), DiagKind::err_return_mismatch, printType(t), printType(function_->returnType));
    else
      function_->returnType = t;
    return;
  }
  const Type& want = function_->returnType;
  bool same = want.elem == t.elem && want.rank() == t.rank();
  for (size_t i = 0; same && i < t.rank(); ++i) same = sym().proveEQ(want.shape[i], t.shape[i]) != sym::Truth::False;
  if (!same) report(r->value->range(), DiagKind::err_return_mismatch, printType(t), printType(want));
}

void Checker::checkInthreads(const InthreadsStmt* s) {
  if (parallels_.empty()) {
    report(s->range(), DiagKind::err_inthreads_host);
  } else if (s->isAsync && inthreadsDepth_ > 0) {
    report(s->range(), DiagKind::err_inthreads_nested_async);
  }
  Type t = check(s->cond);
  // The predicate must be a comparison over parallel variables.
  std::function<bool(const Expr*)> usesOnlyParallelVars = [&](const Expr* e) -> bool {
    if (const auto* b = llvm::dyn_cast<BinaryExpr>(e)) return usesOnlyParallelVars(b->lhs) && usesOnlyParallelVars(b->rhs);
    if (const auto* u = llvm::dyn_cast<UnaryExpr>(e)) return usesOnlyParallelVars(u->operand);
    if (llvm::isa<IntLiteralExpr>(e) || llvm::isa<BoolLiteralExpr>(e)) return true;
    if (const auto* n = llvm::dyn_cast<NameExpr>(e)) {
      auto it = result_.references.find(n);
      if (it == result_.references.end()) return true;
      const Symbol* sym = it->second;
      if (sym->kind == Symbol::Kind::ParallelVar || sym->kind == Symbol::Kind::ShapeDim) return true;
      if (sym->type.kind == TypeKind::Int && sym->value && !sym->isMutable) return true;
      // `pred = p == 0; inthreads (pred)`: the comparison the binding names.
      if (sym->boolDefinition && !sym->isMutable) return usesOnlyParallelVars(sym->boolDefinition);
      report(n->range(), DiagKind::err_inthreads_predicate, n->name);
      return false;
    }
    return true;
  };
  if (!t.isError() && !parallels_.empty()) {
    usesOnlyParallelVars(s->cond);
    if (std::optional<std::int64_t> c = constantOf(s->cond))
      report(s->cond->range(), DiagKind::err_inthreads_not_divergent, *c ? "true" : "false");
  }
  ++inthreadsDepth_;
  underCondition(s->cond, false, [&] { checkBody(s->body, ScopeKind::Inthreads, "inthreads"); });
  --inthreadsDepth_;
}

}  // namespace croqc::sema
