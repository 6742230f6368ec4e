// Semantic analysis of the four-step MMA abstraction (spec section 13):
// accumulator and fragment types, the M/N/K shape derivation of each layout
// suffix, accumulator type inference, and the legal configurations of the
// warp-level (`mma.sync`) and warpgroup-level (WGMMA) instructions.
#include <cctype>

#include "sema/SemaImpl.h"
#include "target/Target.h"

namespace croqc::sema {

using namespace ast;
using llvm::StringRef;
using sym::Truth;

namespace {

/// The name an accumulator expression starts from: `mc`, or `mc` of an
/// element `mc[i][j]` of an accumulator array.
const NameExpr* accumulatorName(const Expr* e) {
  while (const auto* sub = llvm::dyn_cast<SubscriptExpr>(e)) e = sub->base;
  return llvm::dyn_cast<NameExpr>(e);
}

}  // namespace

/// `frag mc[2][3] {0.0};` with no `mc` in scope declares an array of
/// accumulators whose type and shape come from use.
bool Checker::declareAccumulatorArray(const MmaFillStmt* s) {
  const NameExpr* name = accumulatorName(s->target);
  if (!s->fragSyntax || !name || name == s->target || lookup(name->name)) return false;
  llvm::SmallVector<ast::Expr*, 2> dims;
  for (const Expr* e = s->target; const auto* sub = llvm::dyn_cast<SubscriptExpr>(e); e = sub->base)
    dims.insert(dims.begin(), sub->indices.begin(), sub->indices.end());
  Type acc = Type::simple(TypeKind::Accumulator);
  acc.arrayDims = arrayDimensions(dims, name->name);
  Symbol* sym = declare(name->name, name->loc(), Symbol::Kind::Variable, acc, false);
  result_.references[name] = sym;
  result_.declarations[s].push_back(sym);
  return true;
}

void Checker::checkMmaFill(const MmaFillStmt* s) {
  Type value = check(s->value);
  (void)value;
  if (parallels_.empty()) report(s->range(), DiagKind::err_device_only_statement, "`mma.fill`");
  if (s->target) {
    if (declareAccumulatorArray(s)) return;
    Type t = check(s->target);
    if (!t.isError() && t.kind != TypeKind::Accumulator && t.kind != TypeKind::Fragment)
      report(s->target->range(), DiagKind::err_mma_fill_target, exprText(s->target), describe(t));
    if (t.kind == TypeKind::Fragment) noteFragmentUse(s->target, 0);
    return;
  }
  Type acc = Type::simple(TypeKind::Accumulator);
  acc.elem = s->elem;
  Symbol* sym = lookupLocal(s->result);
  if (sym && (sym->type.kind == TypeKind::Accumulator || sym->type.isError())) {
    sym->type = acc;
  } else {
    sym = declare(s->result, s->loc(), Symbol::Kind::Variable, acc, false);
  }
  result_.declarations[s].push_back(sym);
}

// A fragment that `mma.load` brought in is an accumulator (C) when an MMA
// accumulates into it; one that an MMA reads as A or B cannot be filled,
// whichever of the two statements comes first. `operand` is 'A' or 'B' for an
// MMA operand, 0 for the target of `mma.fill`.
void Checker::noteFragmentUse(const Expr* e, char operand) {
  const auto* n = llvm::dyn_cast<NameExpr>(e);
  const Symbol* sym = n ? result_.references.lookup(n) : nullptr;
  if (!sym) return;
  FragmentUses& u = fragmentUses_[sym];
  if (!operand && !u.fill.isValid()) u.fill = e->range();
  if (operand && !u.operand) {
    u.operand = operand;
    u.operandAt = e->range();
  }
  if (u.reported || !u.fill.isValid() || !u.operand) return;
  u.reported = true;
  std::string which(1, u.operand);
  report(u.fill, DiagKind::err_mma_fill_operand, sym->name, which)
      .note(u.operandAt.Start, DiagKind::note_mma_operand_here, sym->name, which);
}

void Checker::checkMmaLoad(const MmaLoadStmt* s) {
  if (parallels_.empty()) report(s->range(), DiagKind::err_device_only_statement, "`mma.load`");
  if (s->swizzle) {
    std::optional<std::int64_t> v = constantOf(s->swizzle);
    if (!v || !(*v == 0 || *v == 1 || *v == 2 || *v == 3 || *v == 32 || *v == 64 || *v == 128))
      report(s->swizzle->range(), DiagKind::err_swizzle_value, exprText(s->swizzle));
  }
  ++readOnlyOperand_;
  Type src = check(s->source);
  --readOnlyOperand_;
  if (src.kind == TypeKind::Future) src.kind = TypeKind::Data;
  if (!src.isError() && src.kind != TypeKind::Data) {
    report(s->source->range(), DiagKind::err_mma_load_source, exprText(s->source), describe(src));
    src = Type::error();
  }
  if (s->target) {
    check(s->target);
    return;
  }
  Type frag = src;
  if (!frag.isError()) {
    frag.kind = TypeKind::Fragment;
    frag.arrayDims.clear();
  }
  Symbol* sym = lookupLocal(s->result);
  if (sym && (sym->type.kind == TypeKind::Fragment || sym->type.isError())) {
    sym->type = frag;
  } else {
    sym = declare(s->result, s->loc(), Symbol::Kind::Variable, frag, false);
  }
  result_.declarations[s].push_back(sym);
  // Without `.frag` a global tile under `group-4` is read through a
  // descriptor too: lowering stages B (and A passed to SS mode) through
  // shared memory.
  if (!s->toFrag && (src.storage == Storage::Shared || src.storage == Storage::Global)) {
    sharedFragments_.insert(sym);
    registerLoads_.erase(sym);
  } else {
    sharedFragments_.erase(sym);
    registerLoads_[sym] = s;
  }
  // Spec 21.3: the swizzle of the copy that wrote the buffer and of the load
  // that reads it must agree.
  if (s->swizzle && src.buffer) {
    std::optional<std::int64_t> v = constantOf(s->swizzle);
    auto written = bufferSwizzles_.find(src.buffer);
    if (v && written != bufferSwizzles_.end()) {
      std::int64_t bytes = target::swizzleBytesFromArgument(static_cast<std::uint64_t>(*v)).value_or(0);
      if (bytes != written->second.bytes)
        report(s->swizzle->range(), DiagKind::err_swizzle_mismatch, bytes, src.buffer->name, written->second.bytes)
            .note(written->second.loc, DiagKind::note_swizzle_written_here, src.buffer->name, written->second.bytes);
    }
  }
}

// The cooperating unit of an MMA is the innermost enclosing level, except
// that a `thread` level spanning a whole warp or warpgroup just below it
// (spec 8.2, 14.4: `parallel wg by 2 : group-4, t by 128 : thread`) leaves
// the MMA to that warp or warpgroup.
ast::ParallelLevel Checker::mmaUnit() const {
  ParallelLevel unit = ParallelLevel::None, outer = ParallelLevel::None;
  for (const ParallelFrame& f : parallels_)
    for (ParallelLevel l : f.levels) {
      outer = unit;
      unit = l;
    }
  if (unit == ParallelLevel::Thread && (outer == ParallelLevel::Group || outer == ParallelLevel::Group4) && kernel_) {
    std::optional<std::int64_t> threads;
    for (const ParallelLevelInfo& l : kernel_->levels) {
      bool onPath = llvm::any_of(parallels_, [&](const ParallelFrame& f) { return f.stmt == l.stmt; });
      if (!onPath || l.level != ParallelLevel::Thread) continue;
      threads = 1;
      for (const SymExpr* e : l.extents) threads = *threads * sym::constantValue(e).value_or(0);
    }
    if (threads == (outer == ParallelLevel::Group ? 32 : 128)) unit = outer;
  }
  return unit;
}

// Why no MMA atom of the target takes this MMA, with the values and a hint.
void Checker::reportMmaSelection(const MmaExecStmt* s, const target::MmaQuery& query,
                                 const target::MmaSelection& sel, bool warpgroup) {
  TokenKind accElem = query.accType.value_or(TokenKind::ty_f32);
  std::int64_t m = static_cast<std::int64_t>(query.m);
  std::string config = target::formatMmaConfig(query);
  std::string where, hint;
  switch (sel.failure) {
    case target::MmaFailure::TypeCombination:
      where = warpgroup ? "by a warpgroup: no WGMMA takes these operand types" : "by a warp: no mma.sync takes these operand types";
      hint = "use f16, bf16, tf32, fp8 or 8-bit integer operands of the same kind";
      break;
    case target::MmaFailure::AccumulatorType:
      where = "with a `" + tokenKindSpelling(accElem).str() + "` accumulator";
      hint = "f16 operands accumulate in f16 or f32; bf16 and tf32 in f32; 8-bit integers in s32 (`mma.fill.f32 0.0f`)";
      break;
    case target::MmaFailure::NeedsNewerSm:
    case target::MmaFailure::NeedsWgmma: {
      // The instruction and the first row of the target table that has it.
      const target::TargetInfo* first = target::firstTargetWithAtom(*sel.atom);
      bool wgmma = sel.atom->instr == target::MmaInstr::Wgmma;
      std::string needed = first ? first->name.str() : "sm_" + std::to_string(sel.atom->minSm);
      std::string types = tokenKindSpelling(sel.aType).str();
      if (sel.bType != sel.aType) types += " x " + tokenKindSpelling(sel.bType).str();
      where = "on " + target_.name + " (`" + target::mmaInstrName(sel.atom->instr, sel.atom->sparse).str() + "` on " +
              types + " needs " + needed + (wgmma ? "" : " or newer") +
              (sel.failure == target::MmaFailure::NeedsWgmma ? "; " + target_.name + " has no WGMMA" : "") + ")";
      hint = "compile with `--arch=" + needed + "`" + (wgmma ? ", or use `: group` (warp) MMAs" : " or a newer `--arch`");
      break;
    }
    case target::MmaFailure::KNotMultiple:
      if (warpgroup) {
        where = "(K must be a multiple of the instruction's K = " + std::to_string(sel.instrK) + ")";
        hint = "tile K by a multiple of " + std::to_string(sel.instrK);
        break;
      }
      [[fallthrough]];
    case target::MmaFailure::MNotMultiple:
    case target::MmaFailure::NNotMultiple:
      where = "by one warp: no mma.sync shape of these types (" + target::describeWarpAtoms(query, *target_.info) +
              ") divides it";
      hint = "warp tiles are split into such atoms; use M, N and K multiples of one of them";
      break;
    case target::MmaFailure::MNotWarpgroupM:
      where = "by one warpgroup (WGMMA M is 64)";
      hint = "split M across warpgroups with `parallel p by " + std::to_string(std::max<std::int64_t>(m / 64, 1)) +
             " : group-4` and `subspan(64, ...).at(p, 0)`";
      break;
    case target::MmaFailure::NOutOfRange:
    case target::MmaFailure::NNotAllowed:
      where = "by one warpgroup: WGMMA N must be " +
              (sel.atom ? target::describeNSet(sel.atom->n) : std::string("a multiple of 8 from 8 to 256"));
      hint = "use an N tile such as 64, 128 or 256";
      break;
    case target::MmaFailure::OperandSource: {
      where = std::string("with operand ") + static_cast<char>(std::toupper(sel.failingOperand)) +
              (sel.failingOperand == 'b' ? " in registers: WGMMA reads B from shared memory" : " from this place");
      hint = "pass the shared-memory view (or `mma.load` without `.frag`)";
      const auto* name = llvm::dyn_cast<NameExpr>(sel.failingOperand == 'b' ? s->b : s->a);
      const Symbol* operand = name ? result_.references.lookup(name) : nullptr;
      auto load = operand ? registerLoads_.find(operand) : registerLoads_.end();
      if (load == registerLoads_.end()) break;
      if (!load->second->toFrag)
        hint = "copy the tile into a `shared` buffer and pass that view (or `mma.load` it from there)";
      report(s->range(), DiagKind::err_mma_unsupported, config, where, hint)
          .note(load->second->loc(), DiagKind::note_loaded_into_registers, operand->name);
      return;
    }
    case target::MmaFailure::OperandLayout:
      where = std::string("with operand ") + static_cast<char>(std::toupper(sel.failingOperand)) +
              " stored MN-major: only 16-bit WGMMA reads transposed shared operands";
      hint = "store the operand K-major and use the `row` suffix for it";
      break;
    case target::MmaFailure::None: break;
  }
  report(s->range(), DiagKind::err_mma_unsupported, config, where, hint);
}

void Checker::checkMmaExec(const MmaExecStmt* s) {
  Type acc = check(s->acc);
  Type a = check(s->a);
  Type b = check(s->b);
  for (const Expr* e : s->extra) check(e);
  if (acc.isError() || a.isError() || b.isError()) return;
  // Spec 17.3: the 2:4 metadata of a sparse MMA is a register fragment.
  if (s->sparse && !s->extra.empty()) {
    Type meta = check(s->extra[0]);
    if (!meta.isError() && meta.kind != TypeKind::Fragment) {
      report(s->extra[0]->range(), DiagKind::err_mma_sparse_metadata, exprText(s->extra[0]), describe(meta));
      return;
    }
  }
  ParallelLevel unit = mmaUnit();
  if (unit != ParallelLevel::Group && unit != ParallelLevel::Group4) {
    report(s->range(), DiagKind::err_mma_scope,
           unit == ParallelLevel::None ? std::string("host code") : "`" + parallelLevelName(unit).str() + "`");
    return;
  }
  bool warpgroup = unit == ParallelLevel::Group4;
  checkMmaAttributes(s, warpgroup);
  const NameExpr* accName = accumulatorName(s->acc);
  Symbol* accSym = accName ? const_cast<Symbol*>(result_.references.lookup(accName)) : nullptr;
  // `mc = mma.load C;` before the loop: the accumulator starts from memory.
  if (acc.kind == TypeKind::Fragment && !warpgroup && accSym && accName == s->acc &&
      (registerLoads_.count(accSym) || sharedFragments_.count(accSym)) &&
      acc.rank() == 2) {
    acc.kind = TypeKind::Accumulator;
    accSym->type.kind = TypeKind::Accumulator;
    if (acc.elem != TokenKind::ty_f16 && acc.elem != TokenKind::ty_f32 && acc.elem != TokenKind::ty_s32)
      acc.elem = TokenKind::eof;
    accSym->type.elem = acc.elem;
  }
  if (acc.kind != TypeKind::Accumulator) {
    report(s->acc->range(), DiagKind::err_mma_accumulator, exprText(s->acc), describe(acc));
    return;
  }
  auto operandOk = [&](const Type& t, const Expr* e, StringRef which) {
    bool ok = t.kind == TypeKind::Fragment || (t.kind == TypeKind::Data && t.storage == Storage::Shared) ||
              t.kind == TypeKind::Future;
    if (!ok) {
      report(e->range(), DiagKind::err_mma_operand, which, exprText(e), describe(t));
      return false;
    }
    if (t.rank() != 2) {
      report(e->range(), DiagKind::err_mma_operand_rank, which, exprText(e), t.rank());
      return false;
    }
    return true;
  };
  if (!operandOk(a, s->a, "A") || !operandOk(b, s->b, "B")) return;
  if (a.kind == TypeKind::Fragment) noteFragmentUse(s->a, 'A');
  if (b.kind == TypeKind::Fragment) noteFragmentUse(s->b, 'B');
  // Spec 13.4: the shape derivation of each layout suffix.
  const SymExpr* M = s->rowA ? a.shape[0] : a.shape[1];
  const SymExpr* Ka = s->rowA ? a.shape[1] : a.shape[0];
  const SymExpr* N = s->rowB ? b.shape[0] : b.shape[1];
  const SymExpr* Kb = s->rowB ? b.shape[1] : b.shape[0];
  if (s->sparse) Ka = sym().mul(Ka, sym().constant(2));
  std::string layout = std::string(s->rowA ? "row" : "col") + "." + (s->rowB ? "row" : "col");
  if (sym().proveEQ(Ka, Kb) == Truth::False) {
    report(s->range(), DiagKind::err_mma_k_mismatch, sym::printForUser(Ka), sym::printForUser(Kb));
    return;
  }
  bool fp8 = [](TokenKind k) {
    return k == TokenKind::ty_f8 || k == TokenKind::ty_f8_e4m3 || k == TokenKind::ty_f8_e5m2;
  }(a.elem) && [](TokenKind k) { return k == TokenKind::ty_f8 || k == TokenKind::ty_f8_e4m3 || k == TokenKind::ty_f8_e5m2; }(b.elem);
  if (a.elem != b.elem && !fp8) {
    report(s->range(), DiagKind::err_mma_type_mismatch, tokenKindSpelling(a.elem), tokenKindSpelling(b.elem));
    return;
  }
  // Infer the accumulator's type and shape from its first use.
  TokenKind accElem =
      acc.elem == TokenKind::eof ? target::defaultAccumulatorType(a.elem).value_or(TokenKind::ty_f32) : acc.elem;
  if (acc.shape.empty()) {
    if (accSym) {
      accSym->type.shape = {M, N};
      accSym->type.elem = accElem;
    }
  } else if (acc.rank() != 2 || sym().proveEQ(acc.shape[0], M) == Truth::False ||
             sym().proveEQ(acc.shape[1], N) == Truth::False) {
    report(s->range(), DiagKind::err_mma_acc_shape, printShape(acc.shape), layout, printShape(a.shape),
           printShape(b.shape), sym::printForUser(M), sym::printForUser(N));
    return;
  } else if (accSym && accSym->type.elem == TokenKind::eof) {
    accSym->type.elem = accElem;
  }
  // Legal configurations (spec 13.11), from the target description.
  std::optional<std::int64_t> m = sym::constantValue(M), n = sym::constantValue(N), kk = sym::constantValue(Kb);
  if (!m || !n || !kk || *m <= 0 || *n <= 0 || *kk <= 0) {
    std::string accSpelling = tokenKindSpelling(accElem).str();
    report(s->range(), DiagKind::err_mma_unsupported,
           "[" + tokenKindSpelling(a.elem).str() + "(a)" + tokenKindSpelling(b.elem).str() + "(b)" + accSpelling +
               "(c)" + accSpelling + "(d): m" + sym::printForUser(M) + "n" + sym::printForUser(N) + "k" + sym::printForUser(Kb) + "]",
           "with a tile shape that is not a compile-time constant",
           "MMA tiles come from shared buffers or views of constant shape");
    return;
  }
  target::MmaQuery query;
  query.scope = warpgroup ? target::MmaScope::Warpgroup : target::MmaScope::Warp;
  query.aType = a.elem;
  query.bType = b.elem;
  query.accType = accElem;
  query.m = static_cast<std::uint64_t>(*m);
  query.n = static_cast<std::uint64_t>(*n);
  query.k = static_cast<std::uint64_t>(*kk);
  query.sparse = s->sparse;
  if (warpgroup) {
    query.aSource = a.kind == TypeKind::Fragment && !isSharedFragment(s->a) ? target::OperandSource::Registers
                                                                             : target::OperandSource::Shared;
    query.bSource = b.kind == TypeKind::Fragment && !isSharedFragment(s->b) ? target::OperandSource::Registers
                                                                             : target::OperandSource::Shared;
    query.aMnMajor = !s->rowA;
    query.bMnMajor = !s->rowB;
  }
  target::MmaSelection sel = target::selectMma(query, *target_.info);
  if (sel.ok()) {
    result_.mmaAtoms[s] = static_cast<unsigned>(sel.atom->id);
    for (const Attribute& at : s->attributes) {
      if (at.name == "schedule" && warpgroup) {
        checkMmaSchedule(s, at, sel);
        break;
      }
    }
    if (!s->result.empty()) {
      Type fut = Type::simple(TypeKind::MmaFuture);
      Symbol* f = lookup(s->result);
      if (f && (f->type.kind == TypeKind::MmaFuture || f->type.isError())) f->type = fut;
      else declare(s->result, s->loc(), Symbol::Kind::Variable, fut, false);
    }
    return;
  }
  reportMmaSelection(s, query, sel, warpgroup);
}

// The attributes before an MMA: `[[schedule(k_tiles(...))]]`, on a
// warpgroup MMA (checked against its K tiles once its atom is chosen);
// `[[maxnreg]]` and `[[launch_bounds]]` belong to the kernel's `parallel`.
void Checker::checkMmaAttributes(const MmaExecStmt* s, bool warpgroup) {
  const Attribute* schedule = nullptr;
  for (const Attribute& a : s->attributes) {
    if (a.name != "schedule") {
      report(a.range, DiagKind::err_attribute_not_parallel, a.name);
    } else if (schedule) {
      report(a.range, DiagKind::err_mma_schedule_twice);
    } else {
      schedule = &a;
      if (a.sub != "k_tiles")
        report(a.range, DiagKind::err_mma_schedule_form,
               a.sub.empty() ? std::string("no schedule") : "`" + a.sub.str() + "(...)`");
      else if (!warpgroup)
        report(a.range, DiagKind::err_mma_schedule_scope);
    }
  }
}

// `k_tiles(t0, t1, ...)`: the K tiles of the MMA (K / the atom's K of
// them), each once, in the order they are to be issued.
void Checker::checkMmaSchedule(const MmaExecStmt* s, const Attribute& a, const target::MmaSelection& sel) {
  if (a.sub != "k_tiles") return;
  const std::int64_t tiles = static_cast<std::int64_t>(sel.countK);
  std::vector<std::int64_t> order;
  std::string listed, problem;
  for (const Expr* e : a.args) {
    if (!listed.empty()) listed += ", ";
    listed += exprText(e);
    std::optional<std::int64_t> v = constantOf(e);
    if (!v) {
      if (problem.empty()) problem = "`" + exprText(e) + "` is not an integer constant";
      continue;
    }
    order.push_back(*v);
  }
  if (problem.empty()) {
    std::vector<int> seen(static_cast<size_t>(std::max<std::int64_t>(tiles, 0)), 0);
    for (std::int64_t v : order) {
      if (v < 0 || v >= tiles) {
        problem = std::to_string(v) + " is not one of the " + std::to_string(tiles) + " tiles";
        break;
      }
      if (++seen[static_cast<size_t>(v)] == 2) {
        problem = "tile " + std::to_string(v) + " is listed twice";
        break;
      }
    }
    if (problem.empty()) {
      for (std::int64_t t = 0; t < tiles && problem.empty(); ++t)
        if (!seen[static_cast<size_t>(t)]) problem = "tile " + std::to_string(t) + " is missing";
    }
  }
  if (!problem.empty()) {
    report(a.range, DiagKind::err_mma_schedule_permutation, listed, tiles, problem,
           static_cast<std::int64_t>(sel.countK * sel.instrK), static_cast<std::int64_t>(sel.instrK), tiles - 1);
    return;
  }
  result_.mmaSchedules[s] = std::move(order);
}

/// A fragment bound by `mma.load` of a shared view without `.frag`: under
/// `group-4` it stands for a shared-memory descriptor (SS mode).
bool Checker::isSharedFragment(const Expr* e) const {
  const auto* name = llvm::dyn_cast<NameExpr>(e);
  const Symbol* s = name ? result_.references.lookup(name) : nullptr;
  return s && sharedFragments_.count(s);
}

void Checker::checkMmaStore(const MmaStoreStmt* s) {
  Type acc = check(s->acc);
  Type dst = check(s->dest);
  for (const Expr* e : s->maskArgs) intValue(e, "an `mma.store.mask` bound");
  if (acc.isError() || dst.isError()) return;
  if (acc.kind != TypeKind::Accumulator && acc.kind != TypeKind::Fragment) {
    report(s->acc->range(), DiagKind::err_mma_accumulator, exprText(s->acc), describe(acc));
    return;
  }
  if (dst.kind == TypeKind::Future) dst.kind = TypeKind::Data;
  if (dst.kind != TypeKind::Data) {
    report(s->dest->range(), DiagKind::err_mma_store_dest, exprText(s->dest), describe(dst));
    return;
  }
  if (acc.shape.empty()) return;
  SymList want = acc.shape;
  if (s->transpose && want.size() == 2) std::swap(want[0], want[1]);
  if (dst.rank() != want.size()) {
    report(s->range(), DiagKind::err_mma_store_shape, printShape(dst.shape), printShape(want));
    return;
  }
  bool smaller = false;
  for (size_t d = 0; d < want.size(); ++d) {
    if (sym().proveGT(dst.shape[d], want[d]) == Truth::True) {
      report(s->range(), DiagKind::err_mma_store_shape, printShape(dst.shape), printShape(want));
      return;
    }
    if (sym().proveEQ(dst.shape[d], want[d]) != Truth::True) smaller = true;
  }
  if (smaller && !s->mask)
    diags_.report(s->loc(), DiagKind::warn_mma_store_masked, printShape(dst.shape), printShape(want)).range(s->range());
}

void Checker::checkMmaScale(const MmaScaleStmt* s) {
  Type acc = check(s->acc);
  check(s->scaleA);
  check(s->scaleB);
  if (!acc.isError() && acc.kind != TypeKind::Accumulator)
    report(s->acc->range(), DiagKind::err_mma_accumulator, exprText(s->acc), describe(acc));
}

void Checker::checkFragOp(const FragOpStmt* s) {
  if (parallels_.empty()) report(s->range(), DiagKind::err_device_only_statement, "a fragment operation");
  size_t fragments = s->op == TokenKind::kw_all_reduce_sum ? 1 : 2;
  size_t want = s->op == TokenKind::kw_all_reduce_sum ? 1 : s->op == TokenKind::kw_copy ? 2 : 3;
  if (s->args.size() != want) {
    report(s->range(), DiagKind::err_builtin_arity, tokenKindSpelling(s->op), want, s->args.size());
    return;
  }
  for (size_t i = 0; i < s->args.size(); ++i) {
    Type t = check(s->args[i]);
    if (t.isError()) continue;
    if (i < fragments && t.kind != TypeKind::Fragment && t.kind != TypeKind::Accumulator)
      report(s->args[i]->range(), DiagKind::err_frag_op_operand, tokenKindSpelling(s->op), exprText(s->args[i]),
             describe(t));
  }
  if (s->op != TokenKind::kw_all_reduce_sum && s->op != TokenKind::kw_copy) intValue(s->args[2], "a dimension");
}

}  // namespace croqc::sema
