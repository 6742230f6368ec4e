// The driver: parses the command line, sets up diagnostics, reads the input,
// runs the pipeline (Pipeline.cpp) as far as the requested output needs, and
// writes that output. Every failure is a diagnostic and an exit status.
#include "driver/Driver.h"

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <optional>

#include "basic/Diagnostic.h"
#include "basic/VerifyConsumer.h"
#include "driver/Options.h"
#include "driver/OutputFile.h"
#include "driver/Pipeline.h"
#include "driver/GeneratedSource.h"
#include "driver/HostCompiler.h"
#include "driver/Library.h"
#include "driver/Nvcc.h"
#include "driver/WorkScript.h"
#include <llvm/Support/Path.h>

namespace croqc::driver {
namespace {

void printVersion(llvm::raw_ostream& os) {
  os << "croqc " << CROQC_VERSION << "\n"
     << "LLVM " << LLVM_VERSION_STRING << "\n";
}

/// The pass whose printed result is the output of `action`, or null for the
/// actions that need code generation.
const Pass* passProducing(Action action) {
  switch (action) {
    case Action::Preprocess: return findPass("preprocess");
    case Action::EmitTokens: return findPass("lex");
    case Action::EmitAST: return findPass("parse");
    case Action::EmitSema: return findPass("sema");
    case Action::EmitKir: return findPass("shared-layout");
    case Action::Executable:
    case Action::Object:
    case Action::Assembly:
    case Action::WorkScript:
    case Action::EmitCuda: return findPass("codegen");
  }
  return nullptr;
}

/// The default output of `-S`, `-c` and executables: next to nothing, in
/// the current directory, named after the input.
std::string defaultOutput(const Options& opts) {
  llvm::StringRef stem = opts.input == "-" ? "a" : llvm::sys::path::stem(opts.input);
  switch (opts.action) {
    case Action::Assembly: return (stem + (opts.target == Target::Cpu ? ".cpp" : ".cu")).str();
    case Action::Object: return (stem + ".o").str();
    case Action::Executable: return "a.out";
    default: return "";
  }
}

size_t passIndex(const Pass* pass) { return static_cast<size_t>(pass - passPipeline().data()); }

/// Checks `--stop-after` and `--print-after` against the passes the action
/// needs. Returns the last pass to run (null: all of them), or nullopt after
/// an error.
std::optional<const Pass*> choosePasses(const Options& opts, const Pass* outputPass, DiagnosticEngine& diags) {
  const Pass* stop = opts.stopAfter.empty() ? nullptr : findPass(opts.stopAfter);
  // The default action with `--stop-after` only checks the file.
  if (stop && outputPass && passIndex(stop) < passIndex(outputPass) && opts.action != Action::Executable) {
    diags.report({}, DiagKind::err_stop_before_output, stop->name, outputPass->name, opts.actionSpelling);
    return std::nullopt;
  }
  const Pass* last = stop ? stop : outputPass;
  const Pass* lastRun = last ? last : &passPipeline().back();
  for (const std::string& name : opts.printAfter) {
    if (passIndex(findPass(name)) > passIndex(lastRun))
      diags.report({}, DiagKind::warn_print_after_not_reached, name, lastRun->name);
  }
  return last;
}

/// Reads the input file into `sm`. Returns its buffer id, or nullopt after
/// reporting why it cannot be compiled.
std::optional<unsigned> loadInput(const std::string& path, llvm::SourceMgr& sm, DiagnosticEngine& diags) {
  if (path != "-" && llvm::sys::fs::is_directory(path)) {
    diags.report({}, DiagKind::err_input_is_directory, path);
    return std::nullopt;
  }
  auto buffer = path == "-" ? llvm::MemoryBuffer::getSTDIN() : llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    diags.report({}, DiagKind::err_cannot_open_file, path, buffer.getError().message());
    return std::nullopt;
  }
  if (size_t nul = (*buffer)->getBuffer().find('\0'); nul != llvm::StringRef::npos) {
    diags.report({}, DiagKind::err_input_not_text, path, nul);
    return std::nullopt;
  }
  return sm.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
}

bool writesToStdout(const Options& opts) { return opts.output.empty() || opts.output == "-"; }

/// Where the output goes: the `-o` path ("-": stdout), else the default of
/// the action (stdout for the printed stages).
std::string outputPath(const Options& opts) {
  if (!opts.output.empty()) return opts.output;
  std::string byDefault = defaultOutput(opts);
  return byDefault.empty() ? "-" : byDefault;
}

/// Writes the output: to stdout, or to the file `-o` names (OutputFile.h).
bool writeOutput(const std::string& path, llvm::StringRef contents, OutputMode mode, DiagnosticEngine& diags) {
  if (std::optional<std::string> failure = writeOutputFile(path, contents, mode)) {
    diags.report({}, DiagKind::err_cannot_write_file, path == "-" ? "<stdout>" : path, *failure);
    return false;
  }
  return true;
}

/// Runs nvcc or the host compiler into a temporary file, then writes what it
/// made to `path` as any other output, so that a failed compiler never
/// touches `path` and `-o /dev/null` or `-o -` work.
bool buildBinary(const Options& opts, llvm::StringRef source, const std::string& path, DiagnosticEngine& diags) {
  llvm::SmallString<256> temp;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("croqc", opts.action == Action::Object ? "o" : "out", temp)) {
    diags.report({}, DiagKind::err_cannot_write_file, "<temporary output file>", ec.message());
    return false;
  }
  TemporaryFile removeTemp(temp);
  // Only what the compiler itself writes there becomes the output.
  llvm::sys::fs::remove(temp);
  bool built = opts.target == Target::Cpu ? compileWithHostCompiler(opts, source, temp, diags)
                                          : compileWithNvcc(opts, source, temp, diags);
  if (!built) return false;
  // A stand-in compiler that succeeds without writing (`--nvcc=/bin/true`)
  // leaves nothing to write.
  if (!llvm::sys::fs::exists(temp)) return true;
  auto binary = llvm::MemoryBuffer::getFile(temp, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!binary) {
    diags.report({}, DiagKind::err_cannot_open_file, std::string(temp), binary.getError().message());
    return false;
  }
  OutputMode mode = opts.action == Action::Executable ? OutputMode::Executable : OutputMode::Text;
  return writeOutput(path, (*binary)->getBuffer(), mode, diags);
}

/// Where `--lib` without `-c`, `-S` or `--emit` puts its result, and how it
/// is made: an archive by default (`libNAME.a`), a shared library for `.so`,
/// an object otherwise.
void chooseLibraryOutput(Options& opts, std::string& archive) {
  if (!opts.library || opts.action != Action::Executable) return;
  if (opts.output.empty() || writesToStdout(opts))
    opts.output = "lib" + (opts.input == "-" ? std::string("stdin") : llvm::sys::path::stem(opts.input).str()) + ".a";
  llvm::StringRef out = opts.output;
  if (out.endswith(".so")) {
    opts.sharedLibrary = true;
    return;
  }
  opts.action = Action::Object;
  if (out.endswith(".a")) archive = opts.output;
}

/// What `-verify` needs of the run: the consumer it replaces, and whether
/// the expectations were met (after which the output is written and its
/// problems reported as in any other run).
struct VerifyState {
  std::unique_ptr<VerifyConsumer>* verifier = nullptr;
  DiagnosticConsumer* consumer = nullptr;
  bool* verified = nullptr;
};

ExitCode compileFile(const Options& givenOptions, llvm::SourceMgr& sm, DiagnosticEngine& diags,
                     VerifyState verify) {
  Options opts = givenOptions;
  std::string archive;
  chooseLibraryOutput(opts, archive);
  if (opts.suppressMain) addMainSuppression(opts);
  const Pass* outputPass = passProducing(opts.action);
  std::optional<const Pass*> last = choosePasses(opts, outputPass, diags);
  if (!last || diags.hasErrors()) return ExitUserError;

  const std::string out = outputPath(opts);
  if (out != "-" && opts.input != "-" && llvm::sys::fs::equivalent(opts.input, out)) {
    diags.report({}, DiagKind::err_output_is_input, out);
    return ExitUserError;
  }
  std::optional<unsigned> mainBuffer = loadInput(opts.input, sm, diags);
  if (!mainBuffer) return ExitUserError;
  if (opts.verify && verify.verifier) {
    *verify.verifier = std::make_unique<VerifyConsumer>(sm, *mainBuffer, llvm::errs());
    diags.setConsumer(**verify.verifier);
    diags.setErrorLimit(0);
  }
  // The file's outputs: the object, executable or generated code, the
  // library header, the kept generated source.
  std::string object = archive.empty() ? out : out + ".o";
  opts.buildOutput = object;
  if (opts.saveTemps) opts.keptSourcePath = keptSourcePath(opts, object);

  Compilation compilation(opts, diags, *mainBuffer);
  switch (runPipeline(compilation, *last, llvm::outs())) {
    case PipelineResult::Crashed: return ExitInternalError;
    case PipelineResult::Errors: return ExitUserError;
    case PipelineResult::Success: break;
  }

  // `--stop-after` before the pass that makes the output: only checked.
  if (*last && outputPass && passIndex(*last) < passIndex(outputPass)) return ExitSuccess;
  // `-verify` that fails writes nothing, as any other failed run.
  if (opts.verify && verify.verifier && *verify.verifier) {
    diags.finish();
    if (!(*verify.verifier)->passed()) return ExitUserError;
    *verify.verified = true;
    diags.setConsumer(*verify.consumer);
  }
  bool builds = opts.action == Action::Executable || opts.action == Action::Object;
  // Library mode: asked for, or an object of a file without `main` (also
  // when it is linked with others that have one: `croqc main.co lib.co`).
  bool askedLibrary = opts.library || !opts.headerPath.empty();
  bool library = outputPass == findPass("codegen") && (askedLibrary || (builds && !definesMain(compilation)));
  if (library && !appendLibraryEntries(compilation, askedLibrary)) {
    if (askedLibrary) return ExitUserError;
    library = false;
  }
  // The header is written once the file it declares exists.
  std::string header;
  if (library && (builds || opts.action == Action::Assembly || !opts.headerPath.empty()))
    header = !opts.headerPath.empty() ? opts.headerPath : defaultHeaderPath(opts, archive.empty() ? out : archive);
  auto finishHeader = [&] {
    return header.empty() || writeLibraryHeader(compilation, header, !opts.headerPath.empty()) ? ExitSuccess
                                                                                                : ExitUserError;
  };
  if (builds) {
    // An archive is made from a temporary object.
    std::unique_ptr<llvm::FileRemover> removeObject;
    if (!archive.empty()) removeObject = std::make_unique<llvm::FileRemover>(object);
    if (!buildBinary(opts, compilation.cudaSource, object, diags)) return ExitUserError;
    if (!archive.empty() && !writeArchive({object}, archive, opts.verbose, diags)) return ExitUserError;
    return finishHeader();
  }
  if (opts.action == Action::WorkScript) {
    std::optional<std::string> script = makeWorkScript(opts, compilation.cudaSource, diags);
    if (!script) return ExitUserError;
    if (!writeOutput(out, *script, out == "-" ? OutputMode::Text : OutputMode::Executable, diags))
      return ExitUserError;
    if (out != "-" && !writeSourceOnlyDepfile(opts, out, diags)) return ExitUserError;
    return ExitSuccess;
  }
  if (opts.action == Action::Assembly && opts.output.empty()) {
    if (!writeOutput(out, compilation.cudaSource, OutputMode::Text, diags)) return ExitUserError;
    if (!writeSourceOnlyDepfile(opts, out, diags)) return ExitUserError;
    return finishHeader();
  }
  std::string output;
  llvm::raw_string_ostream outputStream(output);
  outputPass->print(compilation, outputStream);
  outputStream.flush();
  if (!writeOutput(out, output, OutputMode::Text, diags)) return ExitUserError;
  if (out != "-" && !writeSourceOnlyDepfile(opts, out, diags)) return ExitUserError;
  return finishHeader();
}

ExitCode compileWithoutVerify(const Options& opts, llvm::SourceMgr& sm, DiagnosticEngine& diags) {
  return compileFile(opts, sm, diags, {});
}

}  // namespace

ExitCode runDriver(llvm::ArrayRef<std::string> args) {
  CommandLine commandLine = parseCommandLine(args);
  const Options& opts = commandLine.options;
  if (opts.showHelp) {
    llvm::outs() << commandLine.helpText;
    return ExitSuccess;
  }

  llvm::SourceMgr sm;
  std::unique_ptr<DiagnosticConsumer> consumer =
      opts.diagnosticsFormat == DiagnosticsFormat::Json
          ? makeJsonConsumer(sm, llvm::errs())
          : makeTextConsumer(sm, llvm::errs(), shouldColorStderr(opts.color));
  DiagnosticEngine diags(sm, *consumer);
  std::unique_ptr<VerifyConsumer> verifier;
  diags.setWarningsAsErrors(opts.warningsAsErrors);
  diags.setIgnoreWarnings(opts.ignoreWarnings);
  diags.setErrorLimit(opts.errorLimit);
  // Set once `-verify` has passed: what follows (writing the output) is
  // reported as in any other run.
  bool verified = false;
  auto finish = [&](ExitCode code) {
    if (!verified) {
      diags.finish();
      // With `-verify` the expectations decide: the errors were the point.
      if (verifier && code != ExitInternalError) return verifier->passed() ? ExitSuccess : ExitUserError;
    }
    return diags.hasErrors() && code == ExitSuccess ? ExitUserError : code;
  };

  for (const DeferredDiagnostic& problem : commandLine.problems) problem(diags);
  if (diags.hasErrors()) return finish(ExitUserError);

  if (opts.showVersion) {
    printVersion(llvm::outs());
    return ExitSuccess;
  }
  if (opts.listPasses) {
    listPasses(llvm::outs());
    return ExitSuccess;
  }
  if (opts.verbose) {
    llvm::errs() << "croqc " << CROQC_VERSION << " (LLVM " << LLVM_VERSION_STRING << "), target "
                 << targetName(opts.target) << ", arch " << archName(opts.arch) << ", runtime checks "
                 << runtimeCheckName(opts.runtimeCheck) << "\n";
  }
  if (opts.input.empty()) {
    // `croqc -v` alone only prints the version, like clang.
    if (opts.verbose) return finish(ExitSuccess);
    diags.report({}, DiagKind::err_no_input_file);
    return finish(ExitUserError);
  }

  if (!opts.moreInputs.empty()) return finish(compileSeveral(opts, sm, diags, compileWithoutVerify));
  return finish(compileFile(opts, sm, diags, {&verifier, consumer.get(), &verified}));
}

}  // namespace croqc::driver
