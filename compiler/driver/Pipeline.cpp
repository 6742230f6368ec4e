// The pipeline: the passes croqc runs on a `.co` file, in order. Like Halide's
// Lower.cpp, this file is meant to be read top to bottom: each pass is a small
// function from what the passes above it produced to its own result, plus a
// printer for that result (`--print-after=PASS`; `-E` and `--emit=KIND` print
// the result of one pass as the output).
//
// Adding a pass: write its `run` and `print` functions below the last pass,
// add a row to `kPipeline`, add the pass's output to `Compilation`
// (Pipeline.h), and add a lit test under test/lit/ for `--print-after=NAME`.
#include "driver/Pipeline.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/Compiler.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/PrettyStackTrace.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

#include "ast/AST.h"
#include "ast/ASTDumper.h"
#include "basic/Diagnostic.h"
#include "driver/TokenDump.h"
#include "lex/Lexer.h"
#include "parse/Parser.h"
#include "sema/Sema.h"
#include "codegen/CudaEmitter.h"
#include "kir/KIR.h"
#include "kir/Verify.h"
#include "lower/Lower.h"

namespace croqc::driver {

Compilation::Compilation(const Options& options, DiagnosticEngine& diags, unsigned mainBuffer)
    : options(options), diags(diags), mainBuffer(mainBuffer) {}

Compilation::~Compilation() = default;

namespace {

llvm::StringRef inputName(const Compilation& c) {
  return c.diags.sourceMgr().getMemoryBuffer(c.mainBuffer)->getBufferIdentifier();
}

// --- preprocess: source buffer -> PreprocessedSource -------------------------
// Macros (`-D`/`-U`, `#define`), conditionals and `#error`; the result keeps
// the way back from every output offset to the original source.

bool runPreprocess(Compilation& c) {
  return preprocess(c.mainBuffer, c.options.macros, c.diags, c.preprocessed);
}

void printPreprocessed(const Compilation& c, llvm::raw_ostream& os) {
  c.preprocessed.printWithLineMarkers(os, inputName(c), c.diags.sourceMgr());
}

// --- lex: PreprocessedSource -> tokens -------------------------------------
// `__co__` code becomes tokens; host code stays opaque region tokens.

bool runLex(Compilation& c) {
  c.tokens = lex(c.preprocessed, c.diags);
  return !c.diags.hasErrors();
}

void printTokens(const Compilation& c, llvm::raw_ostream& os) {
  dumpTokens(c.tokens, c.diags.sourceMgr(), os);
}

// --- parse: tokens -> AST --------------------------------------------------
// Recursive descent with recovery at `;` and `}`, so one run reports every
// independent syntax error.

bool runParse(Compilation& c) {
  c.astContext = std::make_unique<ast::ASTContext>();
  c.program = parseProgram(c.tokens, *c.astContext, c.diags);
  return !c.diags.hasErrors();
}

void printAST(const Compilation& c, llvm::raw_ostream& os) {
  if (c.program) ast::dumpAST(*c.program, c.diags.sourceMgr(), os);
}

// --- sema: AST -> SemaResult -------------------------------------------------
// Scopes, types, symbolic shapes, parallel levels, and every check of the
// language that needs no GPU (spec sections 4-17) for the chosen `--arch`.

bool runSema(Compilation& c) {
  sema::SemaOptions options;
  options.arch = c.options.target == Target::Cpu ? "cpu" : archName(c.options.arch);
  c.sema = sema::analyze(*c.program, options, c.diags);
  return !c.diags.hasErrors();
}

void printSema(const Compilation& c, llvm::raw_ostream& os) {
  if (c.sema) sema::dumpSema(*c.sema, c.diags.sourceMgr(), os);
}

// --- lower: AST + SemaResult -> KIR ----------------------------------------
// Kernels with explicit thread mapping, buffers, barriers, copies and MMA
// atoms, and a host wrapper per `__co__` function. `--target=cpu` gets the
// sm_86 lowering, which the CPU runtime emulates.

/// A bug of lowering or of a KIR pass stops the compilation here, named,
/// instead of reaching the emitter (an internal error).
bool verifyKir(Compilation& c) {
  std::vector<std::string> problems = kir::verify(*c.kir);
  for (const std::string& p : problems) c.diags.report({}, DiagKind::err_kir_malformed, p);
  c.internalError = !problems.empty();
  return problems.empty();
}

bool runLower(Compilation& c) {
  lower::LowerOptions options;
  options.arch = c.options.target == Target::Cpu ? "cpu" : archName(c.options.arch);
  options.entryChecks = c.options.runtimeCheck != RuntimeCheck::None;
  options.blockGroup = c.options.blockGroup;
  options.sparseMetaPrepackV2 = c.options.sparseMetadata == SparseMetadata::PrepackV2;
  c.kir = lower::lowerProgram(*c.program, *c.sema, options, c.diags);
  if (!c.kir) return false;
  c.kir->sourceName = inputName(c).str();
  if (c.options.debugMalformKir)
    for (const std::unique_ptr<kir::Function>& f : c.kir->functions)
      for (const std::unique_ptr<kir::Kernel>& k : f->kernels) k->threads = 0;
  return verifyKir(c);
}

// --- KIR passes ---------------------------------------------------------------
// Each rewrites the module lowering made; the verifier runs after each.

/// A KIR pass that rewrites the module in place, then the verifier.
template <void (*Pass)(kir::Module&)>
bool runKirPass(Compilation& c) {
  Pass(*c.kir);
  return verifyKir(c);
}

/// The same for a pass that may also warn.
template <void (*Pass)(kir::Module&, DiagnosticEngine&)>
bool runKirPassWithDiags(Compilation& c) {
  Pass(*c.kir, c.diags);
  return verifyKir(c);
}

void printKir(const Compilation& c, llvm::raw_ostream& os) {
  if (c.kir) kir::print(*c.kir, c.diags.sourceMgr(), os);
}

// --- codegen: KIR -> CUDA C++ ------------------------------------------------
// One `.cu` file: host code with #line markers, kernels, host wrappers
// (for `--target=cpu`, the same file as C++ for the CPU runtime).

bool runCodegen(Compilation& c) {
  codegen::CudaEmitOptions options;
  options.sourceName = inputName(c);
  options.version = CROQC_VERSION;
  options.cpuTarget = c.options.target == Target::Cpu;
  llvm::StringRef out = c.options.output;
  if (out.endswith(".cu") || (options.cpuTarget && out.endswith(".cpp")))
    options.outputName = out;
  else
    options.outputName = options.cpuTarget ? "croqc-generated.cpp" : "croqc-generated.cu";
  // `--save-temps` keeps the file: its `#line` markers name it.
  if (!c.options.keptSourcePath.empty()) options.outputName = c.options.keptSourcePath;
  llvm::raw_string_ostream os(c.cudaSource);
  codegen::emitCuda(*c.kir, c.diags.sourceMgr(), options, os);
  os.flush();
  return true;
}

void printCuda(const Compilation& c, llvm::raw_ostream& os) { os << c.cudaSource; }

// --- the pipeline -----------------------------------------------------------

const Pass kPipeline[] = {
    {"preprocess", "expand macros and conditionals (-D, -U, #define, #if); keep the #line mapping", runPreprocess,
     printPreprocessed},
    {"lex", "split the preprocessed text into tokens; host code stays opaque text", runLex, printTokens},
    {"parse", "build the AST of the file, recovering from syntax errors", runParse, printAST},
    {"sema", "resolve names, infer types and symbolic shapes, check the language rules", runSema, printSema},
    {"lower", "lower to KIR: thread mapping, buffers, barriers, copies, MMA atoms, host wrappers", runLower, printKir},
    {"wgmma-zero-init", "start WGMMA accumulators filled with zero from the first WGMMA's scale-d, not a fill",
     runKirPass<lower::zeroAccumulatorsByScaleD>, printKir},
    {"wgmma-operand-fences", "fence the registers of asynchronous WGMMA accumulators before other code touches them",
     runKirPass<lower::fenceAsyncAccumulators>, printKir},
    {"wgmma-register-operands", "retire the WGMMAs that read a register operand before it is reloaded or out of scope",
     runKirPassWithDiags<lower::retireWgmmaRegisterOperands>, printKir},
    {"scale-loads", "load block-scaling row factors before the WGMMAs whose results they scale",
     runKirPass<lower::loadScaleFactorsEarly>, printKir},
    {"wgmma-arrive", "drop the wgmma.fence between WGMMAs that only operand fences separate",
     runKirPass<lower::dropRedundantWgmmaArrives>, printKir},
    {"barriers", "drop the CTA barriers another barrier makes redundant (loop ends, kernel ends)",
     runKirPass<lower::elideBarriers>, printKir},
    {"shared-layout", "give shared buffers their offsets, sharing bytes across barriers; size shared memory",
     runKirPass<lower::placeSharedMemory>, printKir},
    {"codegen", "print KIR as CUDA C++ for nvcc", runCodegen, printCuda},
};

/// Names the pass in the stack dump when croqc crashes.
class PassStackTraceEntry final : public llvm::PrettyStackTraceEntry {
 public:
  PassStackTraceEntry(const Pass& pass, llvm::StringRef file) : pass_(pass), file_(file) {}
  void print(llvm::raw_ostream& os) const override {
    os << "running pass `" << pass_.name << "` on `" << file_ << "`\n";
  }

 private:
  const Pass& pass_;
  llvm::StringRef file_;
};

}  // namespace

llvm::ArrayRef<Pass> passPipeline() { return kPipeline; }

const Pass* findPass(llvm::StringRef name) {
  const Pass* pass = llvm::find_if(kPipeline, [&](const Pass& p) { return p.name == name; });
  return pass == std::end(kPipeline) ? nullptr : pass;
}

void listPasses(llvm::raw_ostream& os) {
  size_t width = 0;
  for (const Pass& pass : kPipeline) width = std::max(width, pass.name.size());
  for (const Pass& pass : kPipeline) os << llvm::left_justify(pass.name, width + 2) << pass.description << '\n';
}

PipelineResult runPipeline(Compilation& c, const Pass* last, llvm::raw_ostream& dumpStream) {
  using Clock = std::chrono::steady_clock;
  for (const Pass& pass : kPipeline) {
    unsigned errorsBefore = c.diags.errorCount();
    bool ok = false;
    Clock::time_point start = Clock::now();
    {
      PassStackTraceEntry stackTraceEntry(pass, inputName(c));
      llvm::CrashRecoveryContext crashRecovery;
      crashRecovery.DumpStackAndCleanupOnFailure = true;  // print the stack dump, then come back here
      bool survived = crashRecovery.RunSafely([&] {
        if (c.options.debugCrashIn == pass.name) LLVM_BUILTIN_TRAP;
        ok = pass.run(c);
      });
      if (!survived) {
        c.diags.report({}, DiagKind::err_internal_compiler_error, pass.name);
        return PipelineResult::Crashed;
      }
    }
    if (c.internalError) return PipelineResult::Crashed;
    ok = ok && c.diags.errorCount() == errorsBefore;
    if (c.options.verbose) {
      std::chrono::duration<double, std::milli> elapsed = Clock::now() - start;
      llvm::errs() << llvm::format("croqc: pass %-13s %8.3f ms%s\n", pass.name.str().c_str(), elapsed.count(),
                                   ok ? "" : " (errors)");
    }
    if (llvm::is_contained(c.options.printAfter, pass.name)) {
      dumpStream << "// ----- after pass " << pass.name << " -----\n";
      pass.print(c, dumpStream);
      dumpStream.flush();
    }
    if (!ok) return PipelineResult::Errors;
    if (&pass == last) break;
  }
  return PipelineResult::Success;
}

}  // namespace croqc::driver
