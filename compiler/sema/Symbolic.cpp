// Hash-consing and the canonicalising constructors of symbolic expressions
// (the canonical form is described in Symbolic.h). Every constructor looks at
// the top level of its operands only (operands are already canonical), so
// building a node costs O(number of operands * log) and never recurses down
// an expression; the depth and size caps are checked in `finish`.
#include "sema/Symbolic.h"

#include <llvm/ADT/STLExtras.h>

#include <algorithm>
#include <cstring>

#include "sema/SymbolicDetail.h"

namespace croqc::sym {

using namespace detail;

llvm::StringRef symKindName(SymKind kind) {
  switch (kind) {
#define SYM_EXPR(Name, Spelling) \
  case SymKind::Name:            \
    return Spelling;
#include "sema/SymKinds.def"
  }
  return "?";
}

llvm::StringRef truthName(Truth t) {
  switch (t) {
    case Truth::False:
      return "false";
    case Truth::True:
      return "true";
    case Truth::Unknown:
      return "unknown";
  }
  return "?";
}

// --- Profiles (the hash-consing keys) ------------------------------------------

namespace {

void profileKind(llvm::FoldingSetNodeID& id, SymKind k) { id.AddInteger(static_cast<unsigned>(k)); }

void profileConstant(llvm::FoldingSetNodeID& id, std::int64_t v) {
  profileKind(id, SymKind::Constant);
  id.AddInteger(v);
}

void profileSymbol(llvm::FoldingSetNodeID& id, llvm::StringRef name, unsigned freshId,
                   std::optional<std::int64_t> lo, const SymExpr* hi) {
  profileKind(id, SymKind::Symbol);
  id.AddString(name);
  id.AddInteger(freshId);
  id.AddBoolean(lo.has_value());
  id.AddInteger(lo.value_or(0));
  id.AddPointer(hi);
}

void profileAdd(llvm::FoldingSetNodeID& id, std::int64_t c, llvm::ArrayRef<SymTerm> terms) {
  profileKind(id, SymKind::Add);
  id.AddInteger(c);
  id.AddInteger(static_cast<unsigned>(terms.size()));
  for (const SymTerm& t : terms) {
    id.AddInteger(t.coefficient);
    id.AddPointer(t.monomial);
  }
}

void profileOperands(llvm::FoldingSetNodeID& id, SymKind k, std::int64_t c,
                     llvm::ArrayRef<const SymExpr*> ops) {
  profileKind(id, k);
  id.AddInteger(c);
  id.AddInteger(static_cast<unsigned>(ops.size()));
  for (const SymExpr* o : ops) id.AddPointer(o);
}

}  // namespace

void SymExpr::Profile(llvm::FoldingSetNodeID& id) const {
  switch (kind()) {
    case SymKind::Constant:
      profileConstant(id, llvm::cast<ConstantExpr>(this)->value());
      return;
    case SymKind::Symbol: {
      const auto* s = llvm::cast<SymbolExpr>(this);
      profileSymbol(id, s->name(), s->freshId(), s->lowerBound(), s->upperBound());
      return;
    }
    case SymKind::Add: {
      const auto* a = llvm::cast<AddExpr>(this);
      profileAdd(id, a->constant(), a->terms());
      return;
    }
    case SymKind::Mul: {
      const auto* m = llvm::cast<MulExpr>(this);
      profileOperands(id, SymKind::Mul, m->coefficient(), m->factors());
      return;
    }
    case SymKind::FloorDiv:
    case SymKind::CeilDiv:
    case SymKind::Mod: {
      const auto* d = llvm::cast<DivisionExpr>(this);
      profileOperands(id, kind(), 0, {d->numerator(), d->divisor()});
      return;
    }
    case SymKind::Min:
    case SymKind::Max:
      profileOperands(id, kind(), 0, llvm::cast<MinMaxExpr>(this)->operands());
      return;
    case SymKind::Unknown:
      profileKind(id, SymKind::Unknown);
      return;
  }
}

// --- The canonical order -------------------------------------------------------

namespace {

template <typename T>
int threeWay(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compareLists(llvm::ArrayRef<const SymExpr*> a, llvm::ArrayRef<const SymExpr*> b) {
  for (std::size_t i = 0, n = std::min(a.size(), b.size()); i < n; ++i)
    if (int c = compare(a[i], b[i])) return c;
  return threeWay(a.size(), b.size());
}

}  // namespace

int compare(const SymExpr* a, const SymExpr* b) {
  if (a == b) return 0;
  if (a->kind() != b->kind()) return threeWay(a->kind(), b->kind());
  switch (a->kind()) {
    case SymKind::Constant:
      return threeWay(llvm::cast<ConstantExpr>(a)->value(), llvm::cast<ConstantExpr>(b)->value());
    case SymKind::Symbol: {
      const auto* x = llvm::cast<SymbolExpr>(a);
      const auto* y = llvm::cast<SymbolExpr>(b);
      if (int c = x->name().compare(y->name())) return c;
      if (int c = threeWay(x->freshId(), y->freshId())) return c;
      if (int c = threeWay(x->lowerBound(), y->lowerBound())) return c;
      if (!x->upperBound() || !y->upperBound())
        return threeWay(x->upperBound() != nullptr, y->upperBound() != nullptr);
      return compare(x->upperBound(), y->upperBound());
    }
    case SymKind::Add: {
      const auto* x = llvm::cast<AddExpr>(a);
      const auto* y = llvm::cast<AddExpr>(b);
      for (std::size_t i = 0, n = std::min(x->terms().size(), y->terms().size()); i < n; ++i) {
        if (int c = compare(x->terms()[i].monomial, y->terms()[i].monomial)) return c;
        if (int c = threeWay(x->terms()[i].coefficient, y->terms()[i].coefficient)) return c;
      }
      if (int c = threeWay(x->terms().size(), y->terms().size())) return c;
      return threeWay(x->constant(), y->constant());
    }
    case SymKind::Mul: {
      const auto* x = llvm::cast<MulExpr>(a);
      const auto* y = llvm::cast<MulExpr>(b);
      if (int c = compareLists(x->factors(), y->factors())) return c;
      return threeWay(x->coefficient(), y->coefficient());
    }
    case SymKind::FloorDiv:
    case SymKind::CeilDiv:
    case SymKind::Mod: {
      const auto* x = llvm::cast<DivisionExpr>(a);
      const auto* y = llvm::cast<DivisionExpr>(b);
      if (int c = compare(x->numerator(), y->numerator())) return c;
      return compare(x->divisor(), y->divisor());
    }
    case SymKind::Min:
    case SymKind::Max:
      return compareLists(llvm::cast<MinMaxExpr>(a)->operands(),
                          llvm::cast<MinMaxExpr>(b)->operands());
    case SymKind::Unknown:
      return 0;
  }
  return 0;
}

bool isConstant(const SymExpr* e) { return llvm::isa<ConstantExpr>(e); }

std::optional<std::int64_t> constantValue(const SymExpr* e) {
  if (const auto* c = llvm::dyn_cast<ConstantExpr>(e)) return c->value();
  return std::nullopt;
}

bool isDivisionByZero(const SymExpr* e) { return e->hasDivisionByZero(); }

// --- Node creation ---------------------------------------------------------------

SymContext::SymContext() : nodes_(/*Log2InitSize=*/10) {
  auto* u = new (arena_.Allocate<UnknownExpr>()) UnknownExpr();
  unknown_ = u;
}

SymContext::~SymContext() = default;

const SymExpr* SymContext::finish(SymExpr* node, const llvm::FoldingSetNodeID& id,
                                  llvm::ArrayRef<const SymExpr*> children, void* insertPos) {
  unsigned depth = 0;
  std::uint64_t size = 1;
  bool divByZero = false;
  for (const SymExpr* c : children) {
    depth = std::max(depth, c->depth());
    size += c->treeSize();
    divByZero |= c->hasDivisionByZero();
  }
  if (depth + 1 > kMaxDepth || size > kMaxTreeSize) return unknown_;
  if (const auto* d = llvm::dyn_cast<DivisionExpr>(node)) {
    if (const auto* c = llvm::dyn_cast<ConstantExpr>(d->divisor()); c && c->value() == 0) {
      divByZero = true;
      sawDivisionByZero_ = true;
    }
  }
  node->depth_ = static_cast<std::uint16_t>(depth + 1);
  node->treeSize_ = static_cast<std::uint32_t>(size);
  node->divisionByZero_ = divByZero;
  node->profileHash_ = id.ComputeHash();
  nodes_.InsertNode(node, insertPos);
  ++numNodes_;
  return node;
}

const SymExpr* SymContext::makeConstant(std::int64_t v) {
  llvm::FoldingSetNodeID id;
  profileConstant(id, v);
  void* pos = nullptr;
  if (SymExpr* n = nodes_.FindNodeOrInsertPos(id, pos)) return n;
  auto* node = new (arena_.Allocate<ConstantExpr>()) ConstantExpr(v);
  node->bounds_ = exactInterval(v);
  return finish(node, id, {}, pos);
}

const SymbolExpr* SymContext::makeSymbol(llvm::StringRef name, unsigned freshId,
                                         std::optional<std::int64_t> lo, const SymExpr* hi) {
  if (hi && (isUnknown(hi) || hi->depth() + 1 > kMaxDepth || hi->treeSize() >= kMaxTreeSize))
    hi = nullptr;
  llvm::FoldingSetNodeID id;
  profileSymbol(id, name, freshId, lo, hi);
  void* pos = nullptr;
  if (SymExpr* n = nodes_.FindNodeOrInsertPos(id, pos)) return llvm::cast<SymbolExpr>(n);
  char* text = arena_.Allocate<char>(name.size() + 1);
  std::memcpy(text, name.data(), name.size());
  text[name.size()] = '\0';
  auto* node = new (arena_.Allocate<SymbolExpr>())
      SymbolExpr(llvm::StringRef(text, name.size()), freshId, lo, hi);
  Interval b{lo, std::nullopt};
  if (hi) {
    std::optional<std::int64_t> h = hi->naiveBounds().hi;
    // An empty range is a caller error; keep only the lower bound then.
    if (h && *h != kInt64Min && (!lo || *h - 1 >= *lo)) b.hi = *h - 1;
  }
  node->bounds_ = b;
  llvm::SmallVector<const SymExpr*, 1> children;
  if (hi) children.push_back(hi);
  return llvm::cast<SymbolExpr>(finish(node, id, children, pos));
}

const SymExpr* SymContext::makeAdd(std::int64_t constant, llvm::ArrayRef<SymTerm> terms) {
  llvm::FoldingSetNodeID id;
  profileAdd(id, constant, terms);
  void* pos = nullptr;
  if (SymExpr* n = nodes_.FindNodeOrInsertPos(id, pos)) return n;
  SymTerm* mem = arena_.Allocate<SymTerm>(terms.size());
  std::uninitialized_copy(terms.begin(), terms.end(), mem);
  auto* node = new (arena_.Allocate<AddExpr>())
      AddExpr(constant, llvm::ArrayRef<SymTerm>(mem, terms.size()));
  Interval b = exactInterval(constant);
  llvm::SmallVector<const SymExpr*, 8> children;
  for (const SymTerm& t : terms) {
    b = addInterval(b, scaleInterval(t.monomial->naiveBounds(), t.coefficient));
    children.push_back(t.monomial);
  }
  node->bounds_ = b;
  return finish(node, id, children, pos);
}

const SymExpr* SymContext::makeMul(std::int64_t coefficient,
                                   llvm::ArrayRef<const SymExpr*> factors) {
  llvm::FoldingSetNodeID id;
  profileOperands(id, SymKind::Mul, coefficient, factors);
  void* pos = nullptr;
  if (SymExpr* n = nodes_.FindNodeOrInsertPos(id, pos)) return n;
  const SymExpr** mem = arena_.Allocate<const SymExpr*>(factors.size());
  std::uninitialized_copy(factors.begin(), factors.end(), mem);
  auto* node = new (arena_.Allocate<MulExpr>())
      MulExpr(coefficient, llvm::ArrayRef<const SymExpr*>(mem, factors.size()));
  Interval b = exactInterval(coefficient);
  for (const SymExpr* f : factors) b = mulInterval(b, f->naiveBounds());
  node->bounds_ = b;
  return finish(node, id, factors, pos);
}

const SymExpr* SymContext::makeDivision(SymKind kind, const SymExpr* n, const SymExpr* d) {
  llvm::FoldingSetNodeID id;
  profileOperands(id, kind, 0, {n, d});
  void* pos = nullptr;
  if (SymExpr* e = nodes_.FindNodeOrInsertPos(id, pos)) return e;
  SymExpr* node = nullptr;
  Interval b;
  switch (kind) {
    case SymKind::FloorDiv:
      node = new (arena_.Allocate<FloorDivExpr>()) FloorDivExpr(n, d);
      b = floorDivInterval(n->naiveBounds(), d->naiveBounds());
      break;
    case SymKind::CeilDiv:
      node = new (arena_.Allocate<CeilDivExpr>()) CeilDivExpr(n, d);
      b = ceilDivInterval(n->naiveBounds(), d->naiveBounds());
      break;
    default:
      node = new (arena_.Allocate<ModExpr>()) ModExpr(n, d);
      b = modInterval(n->naiveBounds(), d->naiveBounds());
      break;
  }
  node->bounds_ = b;
  return finish(node, id, {n, d}, pos);
}

const SymExpr* SymContext::makeMinMax(SymKind kind, llvm::ArrayRef<const SymExpr*> operands) {
  llvm::FoldingSetNodeID id;
  profileOperands(id, kind, 0, operands);
  void* pos = nullptr;
  if (SymExpr* e = nodes_.FindNodeOrInsertPos(id, pos)) return e;
  const SymExpr** mem = arena_.Allocate<const SymExpr*>(operands.size());
  std::uninitialized_copy(operands.begin(), operands.end(), mem);
  llvm::ArrayRef<const SymExpr*> ops(mem, operands.size());
  SymExpr* node = nullptr;
  if (kind == SymKind::Min)
    node = new (arena_.Allocate<MinExpr>()) MinExpr(ops);
  else
    node = new (arena_.Allocate<MaxExpr>()) MaxExpr(ops);
  llvm::SmallVector<Interval, 4> bs;
  for (const SymExpr* o : ops) bs.push_back(o->naiveBounds());
  node->bounds_ = kind == SymKind::Min ? minInterval(bs) : maxInterval(bs);
  return finish(node, id, ops, pos);
}

// --- Leaves ------------------------------------------------------------------------

const SymExpr* SymContext::constant(std::int64_t value) { return makeConstant(value); }

const SymbolExpr* SymContext::symbol(llvm::StringRef name, std::optional<std::int64_t> lowerBound) {
  return makeSymbol(name, 0, lowerBound, nullptr);
}

const SymbolExpr* SymContext::indexSymbol(llvm::StringRef name) { return symbol(name, 0); }

const SymbolExpr* SymContext::boundedSymbol(llvm::StringRef name, std::int64_t lo,
                                            std::int64_t hiExclusive) {
  return makeSymbol(name, 0, lo, constant(hiExclusive));
}

const SymbolExpr* SymContext::boundedSymbol(llvm::StringRef name, std::int64_t lo,
                                            const SymExpr* hiExclusive) {
  return makeSymbol(name, 0, lo, hiExclusive);
}

const SymbolExpr* SymContext::freshSymbol(llvm::StringRef name,
                                          std::optional<std::int64_t> lowerBound,
                                          const SymExpr* hiExclusive) {
  return makeSymbol(name, nextFreshId_++, lowerBound, hiExclusive);
}

const SymbolExpr* SymContext::remainderOf(const DivisionExpr* f) {
  const SymbolExpr*& r = remainders_[f];
  if (!r) r = freshSymbol("%r", 0, f->divisor());
  return r;
}

// --- Sums ----------------------------------------------------------------------------

const SymExpr* SymContext::monomial(llvm::ArrayRef<const SymExpr*> sortedFactors) {
  if (sortedFactors.empty()) return constant(1);
  if (sortedFactors.size() == 1) return sortedFactors.front();
  return makeMul(1, sortedFactors);
}

/// Adds `coefficient * value` to a 128-bit constant; false on overflow.
static bool accumulate(Int128& acc, std::int64_t coefficient, std::int64_t value) {
  return !__builtin_add_overflow(acc, static_cast<Int128>(coefficient) * value, &acc);
}

/// `constant + sum(terms)` in canonical form. Terms may arrive unsorted, with
/// like terms repeated, zero coefficients and constant monomials.
const SymExpr* SymContext::sumOfTerms(Int128 acc, llvm::SmallVectorImpl<SymTerm>& terms) {
  llvm::SmallVector<SymTerm, 8> merged;
  llvm::SmallVector<SymTerm, 8> pending;
  for (const SymTerm& t : terms) {
    if (const auto* c = llvm::dyn_cast<ConstantExpr>(t.monomial)) {
      if (!accumulate(acc, t.coefficient, c->value())) return unknown_;
    } else if (t.coefficient != 0) {
      pending.push_back(t);
    }
  }
  std::sort(pending.begin(), pending.end(), [](const SymTerm& a, const SymTerm& b) {
    int c = compare(a.monomial, b.monomial);
    return c != 0 ? c < 0 : a.coefficient < b.coefficient;
  });
  for (const SymTerm& t : pending) {
    std::int64_t sum = 0;
    if (!merged.empty() && merged.back().monomial == t.monomial &&
        !__builtin_add_overflow(merged.back().coefficient, t.coefficient, &sum)) {
      merged.back().coefficient = sum;
    } else {
      // An overflowing combination keeps both terms (never a wrapped value).
      merged.push_back(t);
    }
  }
  llvm::erase_if(merged, [](const SymTerm& t) { return t.coefficient == 0; });

  std::int64_t folded = 0;
  if (fitsInt64(acc)) {
    folded = static_cast<std::int64_t>(acc);
  } else {
    // Not folded: keep `q * INT64_MAX + r`, which evaluates to Overflow.
    Int128 q = acc / kInt64Max;
    if (!fitsInt64(q)) return unknown_;
    folded = static_cast<std::int64_t>(acc % kInt64Max);
    merged.insert(merged.begin(), SymTerm{static_cast<std::int64_t>(q), constant(kInt64Max)});
  }

  if (merged.empty()) return constant(folded);
  if (merged.size() == 1 && folded == 0) {
    const SymTerm& t = merged.front();
    if (t.coefficient == 1) return t.monomial;
    return makeMul(t.coefficient, monomialFactors(t.monomial));
  }
  return makeAdd(folded, merged);
}

const SymExpr* SymContext::add(const SymExpr* a, const SymExpr* b) { return add({a, b}); }

const SymExpr* SymContext::add(llvm::ArrayRef<const SymExpr*> operands) {
  Int128 acc = 0;
  llvm::SmallVector<SymTerm, 8> terms;
  for (const SymExpr* op : operands) {
    switch (op->kind()) {
      case SymKind::Unknown:
        return unknown_;
      case SymKind::Constant:
        if (!accumulate(acc, 1, llvm::cast<ConstantExpr>(op)->value())) return unknown_;
        break;
      case SymKind::Add: {
        const auto* s = llvm::cast<AddExpr>(op);
        if (!accumulate(acc, 1, s->constant())) return unknown_;
        terms.append(s->terms().begin(), s->terms().end());
        break;
      }
      case SymKind::Mul: {
        const auto* m = llvm::cast<MulExpr>(op);
        terms.push_back(SymTerm{m->coefficient(), monomial(m->factors())});
        break;
      }
      default:
        terms.push_back(SymTerm{1, op});
        break;
    }
  }
  return sumOfTerms(acc, terms);
}

const SymExpr* SymContext::neg(const SymExpr* a) { return mul(constant(-1), a); }

const SymExpr* SymContext::sub(const SymExpr* a, const SymExpr* b) { return add(a, neg(b)); }

// --- Products ------------------------------------------------------------------------

const SymExpr* SymContext::mul(const SymExpr* a, const SymExpr* b) { return mul({a, b}); }

const SymExpr* SymContext::mul(llvm::ArrayRef<const SymExpr*> operands) {
  llvm::SmallVector<std::int64_t, 4> constants;
  llvm::SmallVector<const SymExpr*, 8> factors;
  llvm::SmallVector<const AddExpr*, 2> sums;
  for (const SymExpr* op : operands) {
    switch (op->kind()) {
      case SymKind::Unknown:
        return unknown_;
      case SymKind::Constant:
        constants.push_back(llvm::cast<ConstantExpr>(op)->value());
        break;
      case SymKind::Add:
        sums.push_back(llvm::cast<AddExpr>(op));
        break;
      case SymKind::Mul: {
        const auto* m = llvm::cast<MulExpr>(op);
        constants.push_back(m->coefficient());
        for (const SymExpr* f : m->factors()) {
          if (const auto* c = llvm::dyn_cast<ConstantExpr>(f))
            constants.push_back(c->value());
          else
            factors.push_back(f);  // an undistributed sum stays a factor
        }
        break;
      }
      default:
        factors.push_back(op);
        break;
    }
  }

  // Fold the constants; a factor whose fold overflows stays a factor.
  std::sort(constants.begin(), constants.end());
  if (llvm::is_contained(constants, 0)) return constant(0);
  std::int64_t coefficient = 1;
  for (std::int64_t v : constants) {
    std::int64_t p = 0;
    if (__builtin_mul_overflow(coefficient, v, &p))
      factors.push_back(constant(v));
    else
      coefficient = p;
  }

  if (!sums.empty()) {
    // Distribute: (c * F) * (s0 + s1...) * ... as a list of (coefficient, factors).
    struct Partial {
      std::int64_t coefficient;
      llvm::SmallVector<const SymExpr*, 4> factors;
    };
    llvm::SmallVector<Partial, 8> partials;
    partials.push_back(Partial{coefficient, {factors.begin(), factors.end()}});
    bool ok = true;
    for (const AddExpr* s : sums) {
      llvm::SmallVector<Partial, 8> next;
      std::size_t count = partials.size() * (s->terms().size() + 1);
      if (count > kMaxDistributedTerms) {
        ok = false;
        break;
      }
      for (const Partial& p : partials) {
        auto product = [&](std::int64_t c, llvm::ArrayRef<const SymExpr*> fs) {
          Partial r;
          if (__builtin_mul_overflow(p.coefficient, c, &r.coefficient)) return false;
          r.factors = p.factors;
          r.factors.append(fs.begin(), fs.end());
          next.push_back(std::move(r));
          return true;
        };
        if (s->constant() != 0) ok &= product(s->constant(), {});
        for (const SymTerm& t : s->terms()) ok &= product(t.coefficient, monomialFactors(t.monomial));
      }
      if (!ok) break;
      partials = std::move(next);
    }
    if (ok) {
      Int128 acc = 0;
      llvm::SmallVector<SymTerm, 8> terms;
      for (Partial& p : partials) {
        if (p.factors.empty()) {
          if (!accumulate(acc, p.coefficient, 1)) return unknown_;
          continue;
        }
        std::sort(p.factors.begin(), p.factors.end(),
                  [](const SymExpr* a, const SymExpr* b) { return compare(a, b) < 0; });
        terms.push_back(SymTerm{p.coefficient, monomial(p.factors)});
      }
      return sumOfTerms(acc, terms);
    }
    factors.append(sums.begin(), sums.end());
  }

  std::sort(factors.begin(), factors.end(),
            [](const SymExpr* a, const SymExpr* b) { return compare(a, b) < 0; });
  if (factors.empty()) return constant(coefficient);
  if (factors.size() == 1 && coefficient == 1) return factors.front();
  return makeMul(coefficient, factors);
}

// --- Divisions -----------------------------------------------------------------------

const SymExpr* SymContext::floorDiv(const SymExpr* a, const SymExpr* b) {
  return divide(SymKind::FloorDiv, a, b);
}
const SymExpr* SymContext::cdiv(const SymExpr* a, const SymExpr* b) {
  return divide(SymKind::CeilDiv, a, b);
}
const SymExpr* SymContext::mod(const SymExpr* a, const SymExpr* b) {
  return divide(SymKind::Mod, a, b);
}

namespace {

/// The divisor as `coefficient * factors` when it is a constant, a product or
/// an atom; nothing for sums (which are not split by).
struct DivisorShape {
  std::int64_t coefficient = 1;
  llvm::SmallVector<const SymExpr*, 4> factors;
};

std::optional<DivisorShape> divisorShape(const SymExpr* d) {
  DivisorShape s;
  if (const auto* c = llvm::dyn_cast<ConstantExpr>(d)) {
    s.coefficient = c->value();
  } else if (const auto* m = llvm::dyn_cast<MulExpr>(d)) {
    s.coefficient = m->coefficient();
    s.factors.assign(m->factors().begin(), m->factors().end());
  } else if (llvm::isa<AddExpr>(d)) {
    return std::nullopt;
  } else {
    s.factors.push_back(d);
  }
  if (s.coefficient <= 0) return std::nullopt;
  return s;
}

/// Folds `a op b` for constants; nothing when it overflows or b is 0.
std::optional<std::int64_t> foldDivision(SymKind kind, std::int64_t a, std::int64_t b) {
  if (b == 0) return std::nullopt;
  Int128 r = kind == SymKind::FloorDiv  ? floorDiv128(a, b)
             : kind == SymKind::CeilDiv ? ceilDiv128(a, b)
                                        : floorMod128(a, b);
  if (!fitsInt64(r)) return std::nullopt;
  return static_cast<std::int64_t>(r);
}

}  // namespace

const SymExpr* SymContext::divide(SymKind kind, const SymExpr* a, const SymExpr* b) {
  if (isUnknown(a) || isUnknown(b)) return unknown_;
  const bool isMod = kind == SymKind::Mod;

  if (const auto* kc = llvm::dyn_cast<ConstantExpr>(b)) {
    std::int64_t k = kc->value();
    if (k == 0) return makeDivision(kind, a, b);
    if (const auto* ac = llvm::dyn_cast<ConstantExpr>(a)) {
      if (auto v = foldDivision(kind, ac->value(), k)) return constant(*v);
      return makeDivision(kind, a, b);
    }
    if (k == 1 || k == -1) return isMod ? constant(0) : (k == 1 ? a : neg(a));
    if (k < 0 && k != kInt64Min) {
      // floor(a / -k) == floor(-a / k); mod(a, -k) == -mod(-a, k).
      const SymExpr* flipped = divide(kind, neg(a), constant(-k));
      return isMod ? neg(flipped) : flipped;
    }
  } else if (const auto* bm = llvm::dyn_cast<MulExpr>(b);
             bm && bm->coefficient() < 0 && bm->coefficient() != kInt64Min) {
    const SymExpr* flipped = divide(kind, neg(a), neg(b));
    return isMod ? neg(flipped) : flipped;
  }

  // mod(mod(y, b), b) == mod(y, b).
  if (const auto* inner = llvm::dyn_cast<ModExpr>(a); inner && isMod && inner->divisor() == b)
    return a;
  // 0 / b == 0 wherever b != 0.
  if (const auto* ac = llvm::dyn_cast<ConstantExpr>(a); ac && ac->value() == 0) return a;

  std::optional<DivisorShape> shape = divisorShape(b);
  if (!shape) return makeDivision(kind, a, b);

  // Pull out every term the divisor divides exactly:
  // floor((q * b + r) / b) == q + floor(r / b), likewise cdiv; mod keeps r.
  LinearView x = viewLinear(a);
  llvm::SmallVector<const SymExpr*, 8> quotient;
  llvm::SmallVector<const SymExpr*, 8> rest;
  for (const TermView& t : x.terms) {
    llvm::SmallVector<const SymExpr*, 4> remaining;
    llvm::SmallVector<const SymExpr*, 8> ops;
    if (t.coefficient % shape->coefficient == 0 &&
        removeFactors(t.factors, shape->factors, remaining)) {
      ops.push_back(constant(t.coefficient / shape->coefficient));
      ops.append(remaining.begin(), remaining.end());
      quotient.push_back(mul(ops));
    } else {
      ops.push_back(constant(t.coefficient));
      ops.append(t.factors.begin(), t.factors.end());
      rest.push_back(mul(ops));
    }
  }
  std::int64_t q0 = 0;
  std::int64_t r0 = x.constant;
  if (shape->factors.empty()) {
    // Reduce the constant only when it reaches the divisor; the remainder
    // keeps the constant's sign so `(M - 1) / 64` stays as written.
    q0 = x.constant / shape->coefficient;
    r0 = x.constant - q0 * shape->coefficient;
  }
  if (!quotient.empty() || q0 != 0) {
    quotient.push_back(constant(q0));
    rest.push_back(constant(r0));
    const SymExpr* r = divide(kind, add(rest), b);
    return isMod ? r : add(add(quotient), r);
  }

  Interval rb = a->naiveBounds();
  if (shape->factors.empty()) {
    std::int64_t k = shape->coefficient;
    // gcd reduction: floor(g*y / (g*k)) == floor(y / k); mod scales by g.
    std::int64_t g = k;
    for (const TermView& t : x.terms) g = gcd64(g, t.coefficient);
    g = gcd64(g, x.constant);
    if (g > 1) {
      llvm::SmallVector<const SymExpr*, 8> reduced;
      reduced.push_back(constant(x.constant / g));
      for (const TermView& t : x.terms) {
        llvm::SmallVector<const SymExpr*, 8> ops;
        ops.push_back(constant(t.coefficient / g));
        ops.append(t.factors.begin(), t.factors.end());
        reduced.push_back(mul(ops));
      }
      const SymExpr* r = divide(kind, add(reduced), constant(k / g));
      return isMod ? mul(constant(g), r) : r;
    }
    // Nested divisions by positive constants combine.
    if (const auto* inner = llvm::dyn_cast<DivisionExpr>(a)) {
      const auto* ik = llvm::dyn_cast<ConstantExpr>(inner->divisor());
      std::int64_t prod = 0;
      if (ik && ik->value() > 0 && inner->kind() == kind && !isMod &&
          !__builtin_mul_overflow(ik->value(), k, &prod))
        return divide(kind, inner->numerator(), constant(prod));
      if (ik && ik->value() > 0 && inner->kind() == SymKind::Mod && isMod && ik->value() % k == 0)
        return divide(SymKind::Mod, inner->numerator(), b);
    }
    // The interval pins the quotient.
    if (rb.lo && rb.hi) {
      Int128 ql = floorDiv128(*rb.lo, k), qh = floorDiv128(*rb.hi, k);
      if (kind == SymKind::CeilDiv) {
        Int128 cl = ceilDiv128(*rb.lo, k), ch = ceilDiv128(*rb.hi, k);
        if (cl == ch) return constant(static_cast<std::int64_t>(cl));
      } else if (ql == qh) {
        if (!isMod) return constant(static_cast<std::int64_t>(ql));
        Int128 offset = ql * k;
        if (fitsInt64(offset)) return sub(a, constant(static_cast<std::int64_t>(offset)));
      }
    }
  } else {
    Interval db = b->naiveBounds();
    if (db.lo && *db.lo >= 1 && rb.lo && rb.hi && *rb.lo >= 0) {
      if (*rb.hi < *db.lo && kind != SymKind::CeilDiv) return isMod ? a : constant(0);
      if (kind == SymKind::CeilDiv && *rb.lo >= 1 && *rb.hi <= *db.lo) return constant(1);
    }
  }
  return makeDivision(kind, a, b);
}

// --- min / max -------------------------------------------------------------------------

const SymExpr* SymContext::min(const SymExpr* a, const SymExpr* b) { return min({a, b}); }
const SymExpr* SymContext::min(llvm::ArrayRef<const SymExpr*> operands) {
  return minMax(SymKind::Min, operands);
}
const SymExpr* SymContext::max(const SymExpr* a, const SymExpr* b) { return max({a, b}); }
const SymExpr* SymContext::max(llvm::ArrayRef<const SymExpr*> operands) {
  return minMax(SymKind::Max, operands);
}

const SymExpr* SymContext::minMax(SymKind kind, llvm::ArrayRef<const SymExpr*> operands) {
  const bool isMin = kind == SymKind::Min;
  llvm::SmallVector<const SymExpr*, 8> ops;
  std::optional<std::int64_t> folded;
  auto take = [&](const SymExpr* o) {
    if (const auto* c = llvm::dyn_cast<ConstantExpr>(o)) {
      std::int64_t v = c->value();
      folded = !folded ? v : (isMin ? std::min(*folded, v) : std::max(*folded, v));
    } else {
      ops.push_back(o);
    }
  };
  for (const SymExpr* o : operands) {
    if (isUnknown(o)) return unknown_;
    if (o->kind() == kind) {
      for (const SymExpr* inner : llvm::cast<MinMaxExpr>(o)->operands()) take(inner);
    } else {
      take(o);
    }
  }
  if (folded) ops.push_back(constant(*folded));
  std::sort(ops.begin(), ops.end(), [](const SymExpr* a, const SymExpr* b) { return compare(a, b) < 0; });
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());

  // Drop an operand that another one always beats (by the interval of the
  // difference); the quadratic check is limited to small operand lists.
  constexpr std::size_t kMaxDominanceOperands = 8;
  if (ops.size() > 1 && ops.size() <= kMaxDominanceOperands) {
    llvm::SmallVector<bool, 8> dropped(ops.size(), false);
    for (std::size_t j = 0; j < ops.size(); ++j) {
      for (std::size_t i = 0; i < ops.size() && !dropped[j]; ++i) {
        if (i == j || dropped[i]) continue;
        Interval diff = sub(ops[i], ops[j])->naiveBounds();
        if (isMin ? (diff.hi && *diff.hi <= 0) : (diff.lo && *diff.lo >= 0)) dropped[j] = true;
      }
    }
    llvm::SmallVector<const SymExpr*, 8> kept;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (!dropped[i]) kept.push_back(ops[i]);
    ops = std::move(kept);
  }
  if (ops.size() == 1) return ops.front();
  return makeMinMax(kind, ops);
}

}  // namespace croqc::sym
