// Lowering of `__co__` functions to host wrappers: the signature, the entry
// checks of shapes, device copies of host data, host code (integers,
// conditions, loops, print; spec 8.7), one launch per top-level parallel on
// its stream (spec 8.8), and the copies back to the host.
#include "lower/LowerImpl.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FormatVariadic.h>

#include <cstdio>

#include "sema/Sema.h"
#include "target/ElementTypes.h"

namespace croqc::lower {

using namespace ast;

// ---------------------------------------------------------------------------
// Functions and host wrappers

void Lowerer::lowerFunction(const CoFunction& fn, const sema::FunctionInfo& info) {
  m().functions.push_back(std::make_unique<kir::Function>());
  function_ = m().functions.back().get();
  functionInfo_ = &info;
  function_->name = fn.name.str();
  function_->loc = fn.loc();
  m().items.push_back({kir::TopItem::Kind::Function, "", fn.loc(), function_});
  // The wrapper's generated names (`n_3`, a shadowing `a_7`) are numbered
  // and kept apart within the function, each kernel's within the kernel
  // (lowerKernel): adding a function before it does not rename them.
  // Kernel names, the only generated names at file scope, stay unique
  // across the module (kernelNames_).
  freshCounter_ = 0;
  names_.clear();
  globalBuffers_.clear();
  lastStream_ = function_->stream;
  written_.clear();

  // Return type.
  const sema::Type& rt = info.returnType;
  if (rt.kind == sema::TypeKind::Data)
    function_->returnType = kir::Type::data(rt.elem, static_cast<unsigned>(rt.shape.size()));
  else if (rt.kind == sema::TypeKind::Void || rt.isError())
    function_->returnType = kir::Type::of({kir::ScalarType::Kind::Void, TokenKind::eof});
  else
    function_->returnType = kir::Type::of(scalarTypeOf(rt));

  // Parameters: the wrapper's signature, then the values of every shape
  // symbol, the entry checks and the device copies of host parameters.
  llvm::DenseMap<const sym::SymExpr*, std::string> dimSource;
  for (size_t i = 0; i < fn.params.size(); ++i) lowerWrapperParam(fn, i, info, dimSource);

  // The body: host statements and one kernel per top-level parallel.
  for (const ast::Stmt* s : fn.body->body) lowerHostStmt(s);

  finishWrapper(fn);
  function_ = nullptr;
}

kir::HostStmt& Lowerer::appendHostStmt(kir::HostStmt::Kind k) {
  kir::HostStmt h;
  h.kind = k;
  function_->wrapper.push_back(std::move(h));
  return function_->wrapper.back();
}

void Lowerer::lowerWrapperParam(const CoFunction& fn, size_t i, const sema::FunctionInfo& info,
                                llvm::DenseMap<const sym::SymExpr*, std::string>& dimSource) {
  const Param& p = fn.params[i];
  const sema::Symbol* s = nullptr;
  for (const sema::Symbol* q : info.params)
    if (q->paramIndex == static_cast<int>(i)) s = q;
  std::string name = p.name.empty() ? "unnamed_" + std::to_string(i) : p.name.str();
  if (!s) {
    function_->params.push_back({name, kir::Type::of(kir::ScalarType::integer())});
    return;
  }
  names_[s] = name;
  const sema::Type& t = s->type;
  switch (t.kind) {
    case sema::TypeKind::Data: lowerDataParam(p, s, name, dimSource); break;
    case sema::TypeKind::Int:
      function_->params.push_back({name, kir::Type::of(kir::ScalarType::integer())});
      bindValue(s, m().var(name));
      break;
    case sema::TypeKind::Element:
      function_->params.push_back({name, kir::Type::of(kir::ScalarType::element(t.elem))});
      bindValue(s, m().var(name, kir::ScalarType::element(t.elem)));
      break;
    case sema::TypeKind::Bool:
      function_->params.push_back({name, kir::Type::of(kir::ScalarType::boolean())});
      bindValue(s, m().var(name, kir::ScalarType::boolean()));
      break;
    case sema::TypeKind::Stream: function_->params.push_back({name, kir::Type::stream()}); break;
    default: unreachable("a parameter of a type croqc does not pass to kernels");
  }
}

void Lowerer::lowerDataParam(const Param& p, const sema::Symbol* s, const std::string& name,
                             llvm::DenseMap<const sym::SymExpr*, std::string>& dimSource) {
  const sema::Type& t = s->type;
  function_->params.push_back({name, kir::Type::view(t.elem, static_cast<unsigned>(t.shape.size()))});
  for (size_t d = 0; d < t.shape.size(); ++d) {
    const sym::SymExpr* dim = t.shape[d];
    const Expr* read = m().viewExtent(name, static_cast<std::int64_t>(d));
    auto check = [&](const Expr* cond, std::string message) {
      if (!options_.entryChecks) return;
      kir::HostStmt& h = appendHostStmt(kir::HostStmt::Kind::CheckShape);
      h.cond = cond;
      h.message = std::move(message);
    };
    if (const auto* se = llvm::dyn_cast<sym::SymbolExpr>(dim)) {
      auto it = dimSource.find(dim);
      if (it == dimSource.end()) {
        std::string var = se->freshId() ? llvm::formatv("{0}_dim{1}", name, d).str() : se->name().str();
        dimSource[dim] = var;
        symValues_[dim] = m().var(var);
        kir::HostStmt& let = appendHostStmt(kir::HostStmt::Kind::Let);
        let.var = var;
        let.type = kir::ScalarType::integer();
        let.value = read;
        check(m().binary(">", m().var(var), m().intc(0), kir::ScalarType::boolean()),
              llvm::formatv("dimension {0} of '{1}' must be positive", d, name).str());
      } else {
        check(m().binary("==", read, m().var(it->second), kir::ScalarType::boolean()),
              llvm::formatv("dimension '{0}' is not consistent: '{1}' has {0} in dimension {2}", it->second, name, d)
                  .str());
      }
      continue;
    }
    if (options_.entryChecks)
      check(m().binary("==", read, lowerSym(dim, p.range.Start), kir::ScalarType::boolean()),
            llvm::formatv("dimension {0} of '{1}' must be {2}", d, name, sym::print(dim)).str());
  }
  kir::Buffer* b = makeBuffer(s, kir::Space::Global, t.elem, t.shape, {}, p.range.Start);
  globalBuffers_.push_back(b);
  if (t.hostParam) {
    b->name = name + "_dev";
    b->wrapperOwned = true;
    kir::HostStmt& h = appendHostStmt(kir::HostStmt::Kind::AllocDevice);
    h.buffer = b;
    h.from = name;
    h.stream = function_->stream;
  } else {
    b->name = name + "_ptr";
    kir::HostStmt& h = appendHostStmt(kir::HostStmt::Kind::DataPointer);
    h.buffer = b;
    h.from = name;
  }
}

void Lowerer::finishWrapper(const CoFunction& fn) {
  // Device memory the wrapper allocated is freed on its stream, and host
  // parameters the kernels wrote are copied back on it: after the work on
  // every other stream.
  bool ownsDeviceMemory = llvm::any_of(function_->wrapper, [](const kir::HostStmt& h) {
    return h.kind == kir::HostStmt::Kind::AllocDevice;
  });
  bool returns = llvm::any_of(function_->wrapper, [](const kir::HostStmt& h) {
    return h.kind == kir::HostStmt::Kind::Return;
  });
  if (ownsDeviceMemory && !returns) orderAfterPreviousWork(function_->stream, fn.range().End);
  // Tensors that TMA only reads may be staged into an aligned pitch; user
  // C++ or asm could write any of them.
  bool userCode = false;
  forEachStmt(fn.body, [&](const ast::Stmt* s) {
    if (llvm::isa<CppStmt>(s) || llvm::isa<AsmStmt>(s)) userCode = true;
  });
  for (kir::HostStmt& h : function_->wrapper)
    if (h.kind == kir::HostStmt::Kind::TensorMap) h.staged = !userCode && !written_.count(h.buffer);
  for (kir::Buffer* b : globalBuffers_) {
    if (!written_.count(b)) continue;
    for (const kir::HostStmt& h : function_->wrapper) {
      if (h.kind == kir::HostStmt::Kind::AllocDevice && h.buffer == b && !h.from.empty()) {
        kir::HostStmt out;
        out.kind = kir::HostStmt::Kind::CopyOut;
        out.buffer = b;
        out.from = h.from;
        out.stream = function_->stream;
        // Before the return statement, if any.
        auto pos = llvm::find_if(function_->wrapper,
                                 [](const kir::HostStmt& x) { return x.kind == kir::HostStmt::Kind::Return; });
        function_->wrapper.insert(pos, out);
        break;
      }
    }
  }
}

void Lowerer::lowerHostStmt(const ast::Stmt* s) {
  auto host = [&](kir::HostStmt::Kind k) -> kir::HostStmt& {
    kir::HostStmt h;
    h.kind = k;
    h.loc = s->loc();
    function_->wrapper.push_back(std::move(h));
    return function_->wrapper.back();
  };
  switch (s->kind()) {
    case NodeKind::ParallelStmt: lowerLaunch(llvm::cast<ParallelStmt>(s)); return;
    case NodeKind::SpannedDeclStmt: {
      const auto* d = llvm::cast<SpannedDeclStmt>(s);
      if (d->storage == Storage::Shared || d->storage == Storage::Local) {
        unreachable("a shared or local buffer outside a `parallel`");
      }
      auto decls = sema_.declarations.find(d);
      if (decls == sema_.declarations.end()) return;
      for (size_t i = 0; i < decls->second.size(); ++i) {
        const sema::Symbol* sym = decls->second[i];
        kir::Buffer* b = makeBuffer(sym, kir::Space::Global, sym->type.elem, sym->type.shape, {}, d->loc());
        b->name = nameFor(sym) + "_dev";
        globalBuffers_.push_back(b);
        // Every element starts as the initialiser `{v}`, or as zero (as in
        // Croqtile, where `out.at(...) += ...` on a new buffer accumulates
        // from zero): never as what the memory pool held before.
        const ast::Expr* value = i < d->decls.size() ? d->decls[i].init : nullptr;
        if (const auto* tuple = llvm::dyn_cast_or_null<ItupleExpr>(value)) {
          if (tuple->elements.size() != 1) {
            unreachable("a buffer initialiser with more than one value");
          }
          value = tuple->elements[0];
        }
        kir::HostStmt& alloc = host(kir::HostStmt::Kind::AllocDevice);
        b->wrapperOwned = true;
        alloc.buffer = b;
        alloc.stream = function_->stream;
        alloc.value = value ? m().convert(lowerExpr(value), kir::ScalarType::element(b->elem)) : m().intc(0);
      }
      return;
    }
    case NodeKind::ScalarDeclStmt:
    case NodeKind::AssignStmt:
    case NodeKind::IfStmt:
    case NodeKind::ForeachStmt:
    case NodeKind::WhileStmt:
    case NodeKind::WithStmt:
    case NodeKind::PrintStmt:
    case NodeKind::AssertStmt: lowerHostCode(s); return;
    case NodeKind::ReturnStmt: {
      const auto* r = llvm::cast<ReturnStmt>(s);
      if (!r->value) return;
      const sema::Type& rt = functionInfo_->returnType;
      if (rt.kind != sema::TypeKind::Data) {
        // A scalar the host computed: returned once the work before it
        // (kernels, copies back to host parameters) is done.
        host_ = true;
        const Expr* value = lowerExpr(r->value);
        host_ = false;
        if (!value) return;
        bool deviceWork = llvm::any_of(function_->wrapper, [](const kir::HostStmt& h) {
          return h.kind == kir::HostStmt::Kind::Launch || h.kind == kir::HostStmt::Kind::AllocDevice;
        });
        if (deviceWork) orderAfterPreviousWork(function_->stream, r->loc());
        kir::HostStmt& ret = host(kir::HostStmt::Kind::Return);
        ret.value = m().convert(value, scalarTypeOf(rt));
        if (deviceWork) ret.stream = function_->stream;
        return;
      }
      const sema::Symbol* sym = rootSymbol(r->value, nullptr);
      const kir::Buffer* b = sym ? bufferFor(sym) : nullptr;
      if (!b || b->space != kir::Space::Global) {
        unsupported(DiagKind::err_unsupported_return, r->range());
        return;
      }
      orderAfterPreviousWork(function_->stream, r->loc());
      kir::HostStmt& ret = host(kir::HostStmt::Kind::Return);
      ret.buffer = b;
      ret.stream = function_->stream;
      return;
    }
    case NodeKind::CppStmt: host(kir::HostStmt::Kind::Raw).text = llvm::cast<CppStmt>(s)->code.str(); return;
    case NodeKind::MdspanDeclStmt:
    case NodeKind::ItupleDeclStmt:
    case NodeKind::DirectiveStmt:
    case NodeKind::NullStmt: return;
    case NodeKind::CompoundStmt:
      for (const ast::Stmt* inner : llvm::cast<CompoundStmt>(s)->body) lowerHostStmt(inner);
      return;
    default: unsupported(DiagKind::err_unsupported_host_stmt, s->range()); return;
  }
}

void Lowerer::lowerHostCode(const ast::Stmt* s) {
  const ParallelStmt* launch = nullptr;
  forEachStmt(s, [&](const ast::Stmt* inner) {
    if (!launch) launch = llvm::dyn_cast<ParallelStmt>(inner);
  });
  if (launch) {
    unsupported(DiagKind::err_unsupported_parallel_in_host_control, launch->range());
    return;
  }
  kir::HostStmt h;
  h.kind = kir::HostStmt::Kind::Code;
  h.loc = s->loc();
  host_ = true;
  nested(h.code, [&] { lowerStmt(s); });
  host_ = false;
  function_->wrapper.push_back(std::move(h));
}

void Lowerer::lowerLaunch(const ParallelStmt* p) {
  for (const sema::KernelInfo& k : functionInfo_->kernels) {
    if (k.root != p) continue;
    lowerKernel(p, k);
    // The indices the kernel takes into arrays of buffers or events that the
    // wrapper knows (spec 17.4, level `entry`), checked before the launch.
    for (auto& [cond, message] : launchChecks_) {
      kir::HostStmt& h = appendHostStmt(kir::HostStmt::Kind::CheckShape);
      h.cond = cond;
      h.message = message;
    }
    launchChecks_.clear();
    kir::HostStmt launch;
    launch.kind = kir::HostStmt::Kind::Launch;
    launch.loc = p->loc();
    launch.kernel = function_->kernels.back().get();
    launch.async = p->isAsync;
    launch.stream = function_->stream;
    if (!p->stream.empty()) {
      // `parallel<s>`: s is a `stream` parameter (sema checked).
      for (const sema::Symbol* q : functionInfo_->params)
        if (q->type.kind == sema::TypeKind::Stream && q->name == p->stream) launch.stream = nameFor(q);
    }
    // Parallels run in program order (spec 8.7): a launch on another stream
    // than the work before it waits for that work, without the host waiting.
    std::string stream = launch.stream;
    orderAfterPreviousWork(stream, p->loc());
    bool prints = launch.kernel->prints;
    function_->wrapper.push_back(std::move(launch));
    if (prints) {
      // Device `print` output appears when the host waits for the kernel:
      // the wrapper waits, so that it comes where the program called it.
      kir::HostStmt sync;
      sync.kind = kir::HostStmt::Kind::StreamSync;
      sync.text = stream;
      function_->wrapper.push_back(sync);
    }
    return;
  }
}

void Lowerer::orderAfterPreviousWork(const std::string& stream, llvm::SMLoc loc) {
  bool enqueued = llvm::any_of(function_->wrapper, [](const kir::HostStmt& h) {
    return h.kind == kir::HostStmt::Kind::AllocDevice || h.kind == kir::HostStmt::Kind::Launch;
  });
  if (enqueued && lastStream_ != stream) {
    kir::HostStmt wait;
    wait.kind = kir::HostStmt::Kind::StreamWait;
    wait.text = stream;
    wait.from = lastStream_;
    wait.loc = loc;
    function_->wrapper.push_back(wait);
  }
  lastStream_ = stream;
}

namespace {
/// `text` inside a C string literal that printf reads as its format.
void appendFormatText(std::string& format, llvm::StringRef text) {
  for (char c : text) {
    switch (c) {
      case '%': format += "%%"; break;
      case '"': format += "\\\""; break;
      case '\\': format += "\\\\"; break;
      case '\n': format += "\\n"; break;
      case '\t': format += "\\t"; break;
      default:
        if (llvm::isPrint(c)) {
          format += c;
        } else {
          char octal[8];
          std::snprintf(octal, sizeof octal, "\\%03o", static_cast<unsigned>(static_cast<unsigned char>(c)));
          format += octal;
        }
    }
  }
}
}  // namespace

void Lowerer::lowerPrint(const PrintStmt* p) {
  // Spec 15.4: the values one after another, as Croqtile prints them:
  // integers in decimal, floating-point elements with %f, ituples as
  // `{a, b}`, mdspans as `[a, b]`; `println` ends the line. Host code
  // prints with the host's printf, kernels with the device's (once per instance of the level the
  // statement is at, like an assignment). A `%f` value is an f32, which
  // the emitters pass as a double, a `%lld` value an integer, passed as a
  // long long.
  if (p->compileTime) {
    unsupported(DiagKind::err_unsupported_compile_time_print, p->range());
    return;
  }
  std::string format;
  std::vector<const Expr*> args;
  auto value = [&](const Expr* v) {
    bool floating = v->type.isElem() && target::isFloatType(v->type.elem);
    if (floating) {
      format += "%f";
      args.push_back(m().convert(v, kir::ScalarType::element(TokenKind::ty_f32)));
    } else {
      format += "%lld";
      args.push_back(v);
    }
  };
  for (const ast::Expr* a : p->args) {
    if (const auto* str = llvm::dyn_cast<StringLiteralExpr>(a)) {
      appendFormatText(format, str->value);
      continue;
    }
    const sema::Type* t = sema_.typeOf(a);
    // Integers between brackets, comma-separated.
    auto list = [&](const char* open, const sema::SymList& items, const char* close) {
      format += open;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) format += ", ";
        value(lowerSym(items[i], a->loc()));
      }
      format += close;
    };
    // An ituple, or a bounded one (`idx` of `with idx in [b]`): the current
    // values of its elements.
    if (t && (t->kind == sema::TypeKind::Ituple ||
              (t->kind == sema::TypeKind::BoundedTuple && t->values.size() == t->shape.size()))) {
      list("{", t->values, "}");
      continue;
    }
    // An mdspan (`a : [7, n]`, `x.span`): its extents, as `[7, 8]`.
    if (t && t->kind == sema::TypeKind::Mdspan) {
      list("[", t->shape, "]");
      continue;
    }
    if (t && (t->kind == sema::TypeKind::Int || t->kind == sema::TypeKind::Bool ||
              t->kind == sema::TypeKind::Bounded || t->kind == sema::TypeKind::Element)) {
      value(lowerExpr(a));
      continue;
    }
    unsupported(DiagKind::err_unsupported_print_value, a->range(), t ? sema::printType(*t) : std::string("this value"));
    return;
  }
  if (p->newline) format += "\\n";
  const Expr* leader = host_ ? nullptr : leaderCondition();
  std::vector<Stmt*>* into = out_;
  if (leader) {
    Stmt* guard = emit(StmtKind::If, p->loc());
    guard->cond = leader;
    into = &guard->body;
  }
  nested(*into, [&] {
    Stmt* s = emit(StmtKind::Print, p->loc());
    s->text = "\"" + format + "\"";
    s->args = std::move(args);
  });
  if (kernel_ && !host_) kernel_->prints = true;
}

void Lowerer::lowerAssert(const ast::AssertStmt* a) {
  // Spec 15.5: a condition sema decided is checked at compile time (a false
  // one is an error there); any other is checked where it stands, by the
  // host or by every thread of the kernel, which prints the location and the
  // message and stops.
  if (sema_.provenAsserts.contains(a)) return;
  const Expr* cond = lowerCondition(a->cond);
  std::string format;
  if (auto [line, col] = sm_.getLineAndColumn(a->loc()); line)
    appendFormatText(format, llvm::formatv("{0}:{1}:{2}: ", sourceFileName(a->loc()), line, col).str());
  format += "assertion failed: ";
  appendFormatText(format, a->message);
  format += "\\n";
  Stmt* check = emit(StmtKind::If, a->loc());
  check->cond = m().unary("!", cond, kir::ScalarType::boolean());
  nested(check->body, [&] {
    Stmt* print = emit(StmtKind::Print, a->loc());
    print->text = "\"" + format + "\"";
    emit(StmtKind::Eval, a->loc())->value = m().intrinsic("assertion_failed", {}, kir::ScalarType::integer());
  });
  if (kernel_ && !host_) kernel_->prints = true;
}

}  // namespace croqc::lower
