// Walks over symbolic expressions: printing for diagnostics, evaluation at a
// point, and substitution of symbols. Recursion depth is bounded by
// SymContext::kMaxDepth and total work by kMaxTreeSize.
#include <cctype>
#include <llvm/Support/raw_ostream.h>

#include "sema/Symbolic.h"
#include "sema/SymbolicDetail.h"

namespace croqc::sym {

using namespace detail;

// --- Printing ----------------------------------------------------------------------

namespace {

/// Binding strength of a printed node: a node printed where a stronger one
/// is required gets parentheses.
enum class Prec { Sum, Product, Atom };

class Printer {
 public:
  explicit Printer(llvm::raw_ostream& os) : os_(os) {}

  void print(const SymExpr* e, Prec context = Prec::Sum) {
    bool parens = precedence(e) < context;
    if (parens) os_ << '(';
    printBare(e);
    if (parens) os_ << ')';
  }

 private:
  static Prec precedence(const SymExpr* e) {
    switch (e->kind()) {
      case SymKind::Add:
        return Prec::Sum;
      case SymKind::Mul:
        return Prec::Product;
      case SymKind::Constant:
        return llvm::cast<ConstantExpr>(e)->value() < 0 ? Prec::Product : Prec::Atom;
      default:
        return Prec::Atom;
    }
  }

  /// |v| without overflow for INT64_MIN.
  static std::uint64_t magnitude(std::int64_t v) {
    return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  }

  /// `|coefficient| * monomial`, the sign printed by the caller.
  void printTerm(std::uint64_t absCoefficient, const SymExpr* monomial) {
    if (absCoefficient != 1) os_ << absCoefficient << " * ";
    print(monomial, Prec::Product);
  }

  void printSum(const AddExpr* a) {
    bool first = true;
    for (bool positive : {true, false}) {
      for (const SymTerm& t : a->terms()) {
        if ((t.coefficient > 0) != positive) continue;
        if (first)
          os_ << (positive ? "" : "-");
        else
          os_ << (positive ? " + " : " - ");
        printTerm(magnitude(t.coefficient), t.monomial);
        first = false;
      }
    }
    if (a->constant() != 0) os_ << (a->constant() > 0 ? " + " : " - ") << magnitude(a->constant());
  }

  void printProduct(const MulExpr* m) {
    std::int64_t c = m->coefficient();
    if (c == -1)
      os_ << '-';
    else if (c != 1)
      os_ << c << " * ";
    bool first = true;
    for (const SymExpr* f : m->factors()) {
      if (!first) os_ << " * ";
      print(f, Prec::Atom);
      first = false;
    }
  }

  void printCall(llvm::StringRef name, llvm::ArrayRef<const SymExpr*> args) {
    os_ << name << '(';
    bool first = true;
    for (const SymExpr* a : args) {
      if (!first) os_ << ", ";
      print(a);
      first = false;
    }
    os_ << ')';
  }

  void printBare(const SymExpr* e) {
    switch (e->kind()) {
      case SymKind::Constant:
        os_ << llvm::cast<ConstantExpr>(e)->value();
        return;
      case SymKind::Symbol: {
        const auto* s = llvm::cast<SymbolExpr>(e);
        os_ << s->name();
        if (s->freshId() != 0) os_ << s->freshId();
        return;
      }
      case SymKind::Add:
        printSum(llvm::cast<AddExpr>(e));
        return;
      case SymKind::Mul:
        printProduct(llvm::cast<MulExpr>(e));
        return;
      case SymKind::FloorDiv:
      case SymKind::Mod: {
        const auto* d = llvm::cast<DivisionExpr>(e);
        os_ << '(';
        print(d->numerator(), Prec::Product);
        os_ << (e->kind() == SymKind::FloorDiv ? " / " : " % ");
        print(d->divisor(), Prec::Atom);
        os_ << ')';
        return;
      }
      case SymKind::CeilDiv: {
        const auto* d = llvm::cast<DivisionExpr>(e);
        printCall("cdiv", {d->numerator(), d->divisor()});
        return;
      }
      case SymKind::Min:
        printCall("min", llvm::cast<MinMaxExpr>(e)->operands());
        return;
      case SymKind::Max:
        printCall("max", llvm::cast<MinMaxExpr>(e)->operands());
        return;
      case SymKind::Unknown:
        os_ << "<unknown>";
        return;
    }
  }

  llvm::raw_ostream& os_;
};

}  // namespace

std::string print(const SymExpr* e) {
  std::string out;
  llvm::raw_string_ostream os(out);
  Printer(os).print(e);
  os.flush();
  return out;
}

std::string printForUser(const SymExpr* e) {
  std::string full = print(e);
  // A run of name characters and colons (`::f::paraby_0::wg`) keeps the part
  // after its last `::` (`wg`).
  auto isNameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; };
  std::string out;
  for (size_t i = 0; i < full.size();) {
    if (!isNameChar(full[i])) {
      out += full[i++];
      continue;
    }
    size_t j = i;
    while (j < full.size() && isNameChar(full[j])) ++j;
    llvm::StringRef run(full.data() + i, j - i);
    size_t cut = run.rfind("::");
    out += (cut == llvm::StringRef::npos ? run : run.drop_front(cut + 2)).str();
    i = j;
  }
  return out;
}

// --- Evaluation --------------------------------------------------------------------

namespace {

class Evaluator {
 public:
  explicit Evaluator(const SymValues& values) : values_(values) {}

  std::optional<std::int64_t> eval(const SymExpr* e) {
    switch (e->kind()) {
      case SymKind::Constant:
        return llvm::cast<ConstantExpr>(e)->value();
      case SymKind::Symbol: {
        auto it = values_.find(llvm::cast<SymbolExpr>(e));
        if (it == values_.end()) return fail(EvalError::UnboundSymbol);
        return it->second;
      }
      case SymKind::Add: {
        const auto* a = llvm::cast<AddExpr>(e);
        std::int64_t sum = a->constant();
        for (const SymTerm& t : a->terms()) {
          std::optional<std::int64_t> v = eval(t.monomial);
          if (!v) return std::nullopt;
          std::int64_t p = 0;
          if (__builtin_mul_overflow(t.coefficient, *v, &p) || __builtin_add_overflow(sum, p, &sum))
            return fail(EvalError::Overflow);
        }
        return sum;
      }
      case SymKind::Mul: {
        const auto* m = llvm::cast<MulExpr>(e);
        std::int64_t product = m->coefficient();
        for (const SymExpr* f : m->factors()) {
          std::optional<std::int64_t> v = eval(f);
          if (!v) return std::nullopt;
          if (__builtin_mul_overflow(product, *v, &product)) return fail(EvalError::Overflow);
        }
        return product;
      }
      case SymKind::FloorDiv:
      case SymKind::CeilDiv:
      case SymKind::Mod: {
        const auto* d = llvm::cast<DivisionExpr>(e);
        std::optional<std::int64_t> n = eval(d->numerator());
        if (!n) return std::nullopt;
        std::optional<std::int64_t> k = eval(d->divisor());
        if (!k) return std::nullopt;
        if (*k == 0) return fail(EvalError::DivisionByZero);
        Int128 r = e->kind() == SymKind::FloorDiv  ? floorDiv128(*n, *k)
                   : e->kind() == SymKind::CeilDiv ? ceilDiv128(*n, *k)
                                                   : floorMod128(*n, *k);
        if (!fitsInt64(r)) return fail(EvalError::Overflow);
        return static_cast<std::int64_t>(r);
      }
      case SymKind::Min:
      case SymKind::Max: {
        std::optional<std::int64_t> best;
        for (const SymExpr* o : llvm::cast<MinMaxExpr>(e)->operands()) {
          std::optional<std::int64_t> v = eval(o);
          if (!v) return std::nullopt;
          if (!best || (e->kind() == SymKind::Min ? *v < *best : *v > *best)) best = v;
        }
        return best;
      }
      case SymKind::Unknown:
        return fail(EvalError::Unknown);
    }
    return fail(EvalError::Unknown);
  }

  EvalError error = EvalError::None;

 private:
  std::optional<std::int64_t> fail(EvalError why) {
    error = why;
    return std::nullopt;
  }

  const SymValues& values_;
};

}  // namespace

std::optional<std::int64_t> evaluate(const SymExpr* e, const SymValues& values, EvalError* error) {
  Evaluator ev(values);
  std::optional<std::int64_t> v = ev.eval(e);
  if (error) *error = v ? EvalError::None : ev.error;
  return v;
}

// --- Substitution --------------------------------------------------------------------

namespace {

class Substituter {
 public:
  Substituter(SymContext& ctx, const SymSubstitution& map) : ctx_(ctx), map_(map) {}

  const SymExpr* rewrite(const SymExpr* e) {
    auto cached = memo_.find(e);
    if (cached != memo_.end()) return cached->second;
    const SymExpr* r = rewriteUncached(e);
    memo_[e] = r;
    return r;
  }

 private:
  const SymExpr* rewriteUncached(const SymExpr* e) {
    switch (e->kind()) {
      case SymKind::Constant:
      case SymKind::Unknown:
        return e;
      case SymKind::Symbol: {
        auto it = map_.find(llvm::cast<SymbolExpr>(e));
        return it == map_.end() ? e : it->second;
      }
      case SymKind::Add: {
        const auto* a = llvm::cast<AddExpr>(e);
        llvm::SmallVector<const SymExpr*, 8> ops{ctx_.constant(a->constant())};
        for (const SymTerm& t : a->terms())
          ops.push_back(ctx_.mul(ctx_.constant(t.coefficient), rewrite(t.monomial)));
        return ctx_.add(ops);
      }
      case SymKind::Mul: {
        const auto* m = llvm::cast<MulExpr>(e);
        llvm::SmallVector<const SymExpr*, 8> ops{ctx_.constant(m->coefficient())};
        for (const SymExpr* f : m->factors()) ops.push_back(rewrite(f));
        return ctx_.mul(ops);
      }
      case SymKind::FloorDiv:
      case SymKind::CeilDiv:
      case SymKind::Mod: {
        const auto* d = llvm::cast<DivisionExpr>(e);
        const SymExpr* n = rewrite(d->numerator());
        const SymExpr* k = rewrite(d->divisor());
        if (e->kind() == SymKind::FloorDiv) return ctx_.floorDiv(n, k);
        if (e->kind() == SymKind::CeilDiv) return ctx_.cdiv(n, k);
        return ctx_.mod(n, k);
      }
      case SymKind::Min:
      case SymKind::Max: {
        llvm::SmallVector<const SymExpr*, 8> ops;
        for (const SymExpr* o : llvm::cast<MinMaxExpr>(e)->operands()) ops.push_back(rewrite(o));
        return e->kind() == SymKind::Min ? ctx_.min(ops) : ctx_.max(ops);
      }
    }
    return e;
  }

  SymContext& ctx_;
  const SymSubstitution& map_;
  llvm::DenseMap<const SymExpr*, const SymExpr*> memo_;
};

}  // namespace

const SymExpr* SymContext::substitute(const SymExpr* e, const SymSubstitution& map) {
  if (map.empty()) return e;
  return Substituter(*this, map).rewrite(e);
}

}  // namespace croqc::sym
