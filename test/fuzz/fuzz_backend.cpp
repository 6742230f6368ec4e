// libFuzzer target past sema: every input that the front end accepts is
// lowered to KIR, run through the KIR passes with the verifier after each,
// and printed by the CUDA emitter for each of the targets
// cpu, sm_86 and sm_90a (a fresh parse and sema per target, as `croqc
// --arch=...` would do), without crashing, hanging or tripping a sanitizer.
//
// The generated code is also compiled, so that "accepted, but the output
// does not compile" is a finding: the CPU target's C++ with the host
// compiler in syntax-only mode against the CPU runtime, the CUDA of sm_86
// and sm_90a with `nvcc -ptx` (its device part). The host code of the input
// (`main` and the like) is left out of the compiled file: it is the user's
// text, not croqc's. A compiler error is a finding only when its message
// names no line of the input (the `__device__` functions, `__cpp__` and asm
// the input writes are copied through under `#line`s naming the input, and
// are the user's too), so an error that the output
// itself causes aborts the run, with the compiler's messages and the file.
//
// A compiler call costs seconds, so the checks are sampled: per target,
// a generated file that differs from every file already checked in this
// process (`#line` markers and comments aside) is a candidate; every
// CROQC_FUZZ_CHECK_EVERY-th candidate (default 1) is compiled, while the
// compiler calls have taken at most CROQC_FUZZ_CHECK_SHARE (default 0.3) of
// the time since the process started (1: always, as the replay of
// test/fuzz/regressions does). Environment:
//   CROQC_FUZZ_CHECK_EVERY  N (0: no compile checks)
//   CROQC_FUZZ_CHECK_SHARE  a fraction of the run's time, 0 to 1
//   CROQC_FUZZ_CXX          the host compiler (default: g++ on PATH)
//   CROQC_FUZZ_NVCC         nvcc (default: on PATH or /usr/local/cuda/bin;
//                           "none" skips the CUDA checks)
//   CROQC_RUNTIME_INCLUDE   the runtime headers (default: this checkout's)
// At exit it prints how many files of each target were generated and
// compiled.
// `utils/run-fuzzer` builds and runs it.
#include <llvm/ADT/Hashing.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "FuzzFrontEnd.h"
#include "codegen/CudaEmitter.h"
#include "kir/KIR.h"
#include "kir/Verify.h"
#include "lower/Lower.h"

namespace {

using namespace croqc;

struct TargetCase {
  const char* arch;
  bool cpu;
};
constexpr TargetCase kTargets[] = {{"cpu", true}, {"sm_86", false}, {"sm_90a", false}};
constexpr std::size_t kTargetCount = sizeof(kTargets) / sizeof(kTargets[0]);

std::string envOr(const char* name, llvm::StringRef fallback) {
  llvm::Optional<std::string> value = llvm::sys::Process::GetEnv(name);
  return value && !value->empty() ? *value : fallback.str();
}

/// The compilers and headers of the checks, found once.
struct Checker {
  unsigned every = 1;
  double share = 0.3;
  std::string cxx;
  std::string nvcc;
  std::string runtime;

  Checker() {
    unsigned n = 0;
    if (!llvm::StringRef(envOr("CROQC_FUZZ_CHECK_EVERY", "1")).getAsInteger(10, n)) every = n;
    double f = 0;
    if (!llvm::StringRef(envOr("CROQC_FUZZ_CHECK_SHARE", "0.3")).getAsDouble(f) && f >= 0 && f <= 1) share = f;
    runtime = envOr("CROQC_RUNTIME_INCLUDE", CROQC_FUZZ_RUNTIME_INCLUDE);
    cxx = envOr("CROQC_FUZZ_CXX", "");
    if (cxx.empty())
      if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("g++")) cxx = *p;
    nvcc = envOr("CROQC_FUZZ_NVCC", "");
    if (nvcc == "none") {
      nvcc.clear();
    } else if (nvcc.empty()) {
      if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName("nvcc")) {
        nvcc = *p;
      } else if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc")) {
        nvcc = "/usr/local/cuda/bin/nvcc";
      }
    }
    if (every != 0)
      llvm::errs() << "fuzz_backend: compile checks of every " << every << ". new output, in at most " << share
                   << " of the time; host compiler "
                   << (cxx.empty() ? "none" : cxx) << ", nvcc " << (nvcc.empty() ? "none" : nvcc) << ", runtime "
                   << runtime << "\n";
  }

  std::vector<std::string> command(const TargetCase& t, const std::string& file) const {
    if (t.cpu) {
      if (cxx.empty()) return {};
      return {cxx, "-std=c++17", "-fsyntax-only", "-fopenmp", "-w", "-I" + runtime + "/croq/cpu/cuda",
              "-I" + runtime, "-x", "c++", file};
    }
    if (nvcc.empty()) return {};
    return {nvcc, "-std=c++17", "-ptx", "-w", std::string("-arch=") + t.arch, "-I" + runtime, "-x", "cu",
            file, "-o", "/dev/null"};
  }
};

const Checker& checker() {
  static const Checker c;
  return c;
}

/// The generated text without `#line` markers and comments, which change
/// with every edit of the input's host code.
std::uint64_t shapeHash(llvm::StringRef text) {
  std::string shape;
  llvm::SmallVector<llvm::StringRef, 256> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (line.ltrim().startswith("#line")) continue;
    shape += line.take_front(line.find("//")).str();
    shape += '\n';
  }
  return llvm::hash_value(shape);
}

/// Runs the check of `t` on `source`; aborts (a finding) if the compiler
/// rejects it for a reason that is not the input's own text.
void compileCheck(const TargetCase& t, const std::string& source) {
  const Checker& c = checker();
  llvm::SmallString<128> file, log;
  if (llvm::sys::fs::createTemporaryFile("fuzz-backend", t.cpu ? "cpp" : "cu", file) ||
      llvm::sys::fs::createTemporaryFile("fuzz-backend", "log", log))
    return;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    if (ec) return;
    os << source;
  }
  std::vector<std::string> args = c.command(t, std::string(file));
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  llvm::Optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(log), llvm::StringRef(log)};
  std::string error;
  int rc = args.empty() ? 0 : llvm::sys::ExecuteAndWait(args[0], argRefs, llvm::None, redirects, 50, 0, &error);
  std::string messages;
  if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> b = llvm::MemoryBuffer::getFile(log))
    messages = (*b)->getBuffer().str();
  llvm::sys::fs::remove(file);
  llvm::sys::fs::remove(log);
  if (rc == 0) return;
  // Not started, or killed after 50 s (under run-fuzzer's -timeout of 60): a
  // busy machine's problem, not croqc's.
  if (rc < 0) {
    llvm::errs() << "fuzz_backend: " << args[0] << " did not finish (" << error << ")\n";
    return;
  }
  // The input's own text, copied through: g++ names it `fuzz.co:LINE:`,
  // nvcc `fuzz.co(LINE)`.
  if (llvm::StringRef(messages).contains(std::string(fuzz::kInputName) + ":") ||
      llvm::StringRef(messages).contains(std::string(fuzz::kInputName) + "("))
    return;
  llvm::errs() << "fuzz_backend: FINDING: croqc accepted the input, but its output for --"
               << (t.cpu ? "target=cpu" : std::string("arch=") + t.arch) << " does not compile.\n"
               << "---- " << llvm::join(args, " ") << " (exit " << rc << ")\n"
               << messages << "---- the generated file, without the input's host code:\n"
               << source << "---- end\n";
  std::abort();
}

/// A finding: the KIR verifier rejects what lowering or a KIR pass made of
/// an input the front end accepted.
void verifyKir(const kir::Module& module, const char* pass, const TargetCase& t) {
  std::vector<std::string> problems = kir::verify(module);
  if (problems.empty()) return;
  llvm::errs() << "fuzz_backend: FINDING: malformed KIR after pass `" << pass << "` for --"
               << (t.cpu ? "target=cpu" : std::string("arch=") + t.arch) << ":\n";
  for (const std::string& p : problems) llvm::errs() << "  " << p << "\n";
  std::abort();
}

/// Lowers and emits `input` for `t`; returns the generated file (empty when
/// the input is rejected).
std::string generate(fuzz::FrontEnd& frontEnd, const TargetCase& t) {
  fuzz::FrontEnd::Checked checked = frontEnd.check(t.arch);
  std::string out;
  if (checked.ok) {
    lower::LowerOptions options;
    options.arch = t.arch;
    std::unique_ptr<kir::Module> module = lower::lowerProgram(*checked.program, *checked.sema, options, *checked.diags);
    if (module && !checked.diags->hasErrors()) {
      // The KIR passes of the pipeline, each followed by the verifier.
      verifyKir(*module, "lower", t);
      lower::zeroAccumulatorsByScaleD(*module);
      verifyKir(*module, "wgmma-zero-init", t);
      lower::fenceAsyncAccumulators(*module);
      verifyKir(*module, "wgmma-operand-fences", t);
      lower::elideBarriers(*module);
      verifyKir(*module, "barriers", t);
      lower::placeSharedMemory(*module);
      verifyKir(*module, "shared-layout", t);
      // Leave out the input's host code; keep its `__device__` functions,
      // which kernels call. Both are host text, in the order of the items.
      std::vector<bool> isHostCode;
      for (const ast::Node* item : checked.program->items)
        if (llvm::isa<ast::HostCode>(item) || llvm::isa<ast::DeviceCode>(item))
          isHostCode.push_back(llvm::isa<ast::HostCode>(item));
      std::size_t hostIndex = 0;
      std::vector<kir::TopItem> kept;
      for (kir::TopItem& item : module->items) {
        bool drop = item.kind == kir::TopItem::Kind::HostText && hostIndex < isHostCode.size() &&
                    isHostCode[hostIndex];
        if (item.kind == kir::TopItem::Kind::HostText) ++hostIndex;
        if (!drop) kept.push_back(std::move(item));
      }
      module->items = std::move(kept);
      codegen::CudaEmitOptions emit;
      emit.sourceName = fuzz::kInputName;
      emit.outputName = t.cpu ? "fuzz-generated.cpp" : "fuzz-generated.cu";
      emit.version = "fuzz";
      emit.cpuTarget = t.cpu;
      llvm::raw_string_ostream os(out);
      codegen::emitCuda(*module, frontEnd.sourceMgr(), emit, os);
      os.flush();
    }
  }
  checked.diags->finish();
  return out;
}

/// What the run did per target, printed at exit.
struct Stats {
  unsigned generated[kTargetCount] = {};
  unsigned candidates[kTargetCount] = {};
  unsigned compiled[kTargetCount] = {};
  double compileSeconds = 0;
  ~Stats() {
    if (checker().every == 0) return;
    llvm::errs() << "fuzz_backend:";
    for (std::size_t i = 0; i < kTargetCount; ++i)
      llvm::errs() << " " << kTargets[i].arch << ": " << generated[i] << " generated, " << compiled[i]
                   << " compiled;";
    llvm::errs() << " " << llvm::format("%.0f", compileSeconds) << " s in compilers\n";
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using Clock = std::chrono::steady_clock;
  static const Clock::time_point start = Clock::now();
  static std::unordered_set<std::uint64_t> checked[kTargetCount];
  const Checker& c = checker();  // before `stats`, which prints with it at exit
  static Stats stats;
  croqc::fuzz::FrontEnd frontEnd(data, size);
  if (!frontEnd.lexed()) return 0;
  for (std::size_t i = 0; i < kTargetCount; ++i) {
    std::string source = generate(frontEnd, kTargets[i]);
    if (source.empty()) continue;
    ++stats.generated[i];
    std::uint64_t hash = shapeHash(source);
    if (c.every == 0 || checked[i].count(hash) || ++stats.candidates[i] % c.every != 0) continue;
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (c.share < 1 && stats.compileSeconds > c.share * elapsed) continue;
    Clock::time_point before = Clock::now();
    compileCheck(kTargets[i], source);
    stats.compileSeconds += std::chrono::duration<double>(Clock::now() - before).count();
    checked[i].insert(hash);
    ++stats.compiled[i];
  }
  return 0;
}
