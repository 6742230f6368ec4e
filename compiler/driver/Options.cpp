// Parsing the croqc command line. Three steps:
//   1. a pre-pass rewrites Croqtile's spellings into croqc's (`-e` is
//      `--emit=ast`, `-arch=sm_90a` is `--arch=sm_90a`, `-Werror` is
//      `--Werror`, ...);
//   2. CLI11 parses the result, leaving unknown arguments aside;
//   3. values are validated here, so that every problem becomes a croqc
//      diagnostic (with a "did you mean" hint) rather than a CLI11 message.
#include "driver/Options.h"

#include <CLI/CLI.hpp>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Regex.h>

#include <optional>
#include <type_traits>
#include <variant>

#include "basic/Diagnostic.h"
#include "driver/NativeArch.h"
#include "driver/Pipeline.h"

namespace croqc::driver {
namespace {

template <typename E>
struct Spelling {
  const char* text;
  E value;
};

// The listed values of each enumerated option. Croqtile's target names
// (`cute`, `cc`) are accepted as aliases but not listed.
constexpr Spelling<Action> kEmitKinds[] = {
    {"tokens", Action::EmitTokens}, {"ast", Action::EmitAST}, {"sema", Action::EmitSema},
    {"kir", Action::EmitKir}, {"cuda", Action::EmitCuda}};
constexpr Spelling<Target> kTargets[] = {{"cuda", Target::Cuda}, {"cpu", Target::Cpu}};
constexpr Spelling<Target> kTargetAliases[] = {{"cute", Target::Cuda}, {"gpu", Target::Cuda}, {"cc", Target::Cpu}};
constexpr Spelling<RuntimeCheck> kRuntimeChecks[] = {
    {"none", RuntimeCheck::None}, {"entry", RuntimeCheck::Entry}, {"low", RuntimeCheck::Low},
    {"medium", RuntimeCheck::Medium}, {"high", RuntimeCheck::High}, {"all", RuntimeCheck::All}};
constexpr Spelling<SparseMetadata> kSparseMetadata[] = {
    {"prepack", SparseMetadata::Prepack}, {"prepack-v2", SparseMetadata::PrepackV2}};
constexpr Spelling<ColorMode> kColorModes[] = {
    {"auto", ColorMode::Auto}, {"always", ColorMode::Always}, {"never", ColorMode::Never}};
constexpr Spelling<DiagnosticsFormat> kDiagnosticsFormats[] = {
    {"text", DiagnosticsFormat::Text}, {"json", DiagnosticsFormat::Json}};

/// Croqtile's option spellings (spec section 18) and croqc's. An alias
/// without `=` in its croqc form also matches `ALIAS=VALUE`.
struct Alias {
  const char* croqtile;
  const char* croqc;
};
constexpr Alias kAliases[] = {
    {"-e", "--emit=ast"},
    {"-es", "--emit=cuda"},
    {"-gs", "--generate-script"},
    {"-arch", "--arch"},
    {"-rtc", "--runtime-check"},
    {"-pa", "--print-after"},
    {"-sa", "--stop-after"},
    {"-fPIC", "--pic"},
    {"-fpic", "--pic"},
    {"--disable-runtime-check", "--runtime-check=none"},
    {"--zero-cost", "--runtime-check=none"},
    {"-zero-cost", "--runtime-check=none"},
    {"--use-prepack", "--sparse-metadata=prepack"},
    {"--use-prepack-v2", "--sparse-metadata=prepack-v2"},
};

/// A Croqtile option that croqc has no equivalent for, with what to do (or
/// what decides) instead.
struct CroqtileOnly {
  const char* croqtile;
  const char* instead;
};
/// Errors: croqc does this another way.
constexpr CroqtileOnly kUnsupported[] = {
    {"-fc", "croqc has no precompiled runtime; `-O0` shortens the nvcc step"},
    {"--fast-compile", "croqc has no precompiled runtime; `-O0` shortens the nvcc step"},
    {"-i", "croqc prints inferred types and shapes with `--emit=sema`"},
    {"-ii", "croqc prints inferred types and shapes with `--emit=sema`"},
    {"-vn", "croqc prints its stages with `--emit=sema`, `--emit=kir` and `--print-after=PASS` (`--list-passes`)"},
    {"-dv", "croqc prints its stages with `--emit=sema`, `--emit=kir` and `--print-after=PASS` (`--list-passes`)"},
    {"--help-hidden", "`croqc --help` lists every option"},
};

/// Warnings: Croqtile's code-generation choices, which croqc makes itself
/// from the program; the options are accepted so that build commands written
/// for Croqtile keep working.
constexpr CroqtileOnly kIgnored[] = {
    {"--use-warpspec", "warp roles come from the program's `inthreads.async` blocks"},
    {"--stmatrix", "`mma.store` chooses its own store instructions; this option does not change them"},
    {"--wgmma-wait-depth", "WGMMAs stay in flight as the program's `mma.commit` and `wait` place them"},
    {"--wgmma-split-batch", "WGMMAs stay in flight as the program's `mma.commit` and `wait` place them"},
    {"--tma-cluster-aware", "TMA copies are cluster-aware exactly in programs that launch clusters"},
    {"--assume-aligned-global", "copies are vectorized where the shapes prove the alignment"},
    {"-use-cuda-type", "device code always uses CUDA's `__half`, `__nv_bfloat16` and FP8 types"},
    {"--max-local-mem-capacity",
     "local buffers of run-time size are on each thread's stack, which the wrapper makes large enough"},
    {"-fmax-local", "local buffers of run-time size are on each thread's stack, which the wrapper makes large enough"},
    {"--api", "croqc's host wrappers make no CUDA environment check, so `cffi` and `sglang` generate the same code"},
    {"-api", "croqc's host wrappers make no CUDA environment check, so `cffi` and `sglang` generate the same code"},
    {"-dp", "croqc runs all of its passes (`--list-passes`); `--stop-after=PASS` ends the pipeline early"},
    {"--disable-visit", "croqc runs all of its passes (`--list-passes`); `--stop-after=PASS` ends the pipeline early"},
    {"-n", "it only changes the comments of the generated code"},
    {"--remove-comments", "it only changes the comments of the generated code"},
    {"-dd", "croqc's generated code has no run-time DMA diagnosis; `--runtime-check=LEVEL` chooses its checks"},
    {"--diag-dma", "croqc's generated code has no run-time DMA diagnosis; `--runtime-check=LEVEL` chooses its checks"},
    {"--stats", "croqc reports no statistics of the program's assertions"},
    {"--show-assess", "croqc reports no statistics of the program's assertions"},
    {"-sass", "croqc reports no statistics of the program's assertions"},
    {"--insert-dma-fences", "fences between copies and their consumers follow from the program's futures and events"},
    {"--native-f16", "device code always uses CUDA's `__half`, `__nv_bfloat16` and FP8 types"},
    {"-f16n", "device code always uses CUDA's `__half`, `__nv_bfloat16` and FP8 types"},
    {"--native-bf16", "device code always uses CUDA's `__half`, `__nv_bfloat16` and FP8 types"},
    {"-bf16n", "device code always uses CUDA's `__half`, `__nv_bfloat16` and FP8 types"},
    {"--mem-reuse", "the shared-layout pass always places buffers whose lifetimes are disjoint in the same bytes"},
    {"--no-sala", "the shared-layout pass always places buffers whose lifetimes are disjoint in the same bytes"},
    {"--use-fast-math", "croqc compiles without nvcc's fast math; `--Xnvcc=--use_fast_math` asks for it"},
    {"-fmath", "croqc compiles without nvcc's fast math; `--Xnvcc=--use_fast_math` asks for it"},
    {"--disable-cuda-runtime-env-check", "croqc's host wrappers make no CUDA environment check"},
    {"-ddir", "croqc writes no debug artifacts; `--save-temps` keeps the generated code"},
    {"--debug-line-path", "`#line` directives name the input as the command line gives it"},
    {"-fsmem-align",
     "each shared buffer is aligned as its copies and MMAs need: 1024 bytes for swizzled tiles, 128 for TMA "
     "destinations, 16 otherwise"},
    {"--shared-mem-alignment",
     "each shared buffer is aligned as its copies and MMAs need: 1024 bytes for swizzled tiles, 128 for TMA "
     "destinations, 16 otherwise"},
};

constexpr const char* kOptLevels[] = {"0", "1", "2", "3"};

template <typename E, size_t N>
std::string listValues(const Spelling<E> (&values)[N]) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i) out += i + 1 == N ? " and " : ", ";
    out += fmt::format("`{}`", values[i].text);
  }
  return out;
}

/// `a, b or c` (no backticks), for the help text.
template <typename E, size_t N>
std::string listPlain(const Spelling<E> (&values)[N], const char* comma, const char* lastComma) {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i) out += i + 1 == N ? lastComma : comma;
    out += values[i].text;
  }
  return out;
}

/// The GPU targets of target/Targets.def, `quote`d, as `a, b or c`.
std::string gpuArchList(const char* comma, const char* lastComma, const char* quote) {
  std::vector<llvm::StringRef> names;
  for (const target::TargetInfo& t : target::allTargets())
    if (t.isGpu) names.push_back(t.name);
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += fmt::format("{}{}{}{}", i == 0 ? "" : i + 1 == names.size() ? lastComma : comma, quote, names[i], quote);
  return out;
}

/// How far a misspelling may be from what was meant: about one edit in three
/// characters (`lexer` is close to `lex`), never for one-letter names (every short flag is one edit from
/// every other).
unsigned maxSuggestionDistance(llvm::StringRef typed) {
  size_t letters = typed.ltrim('-').size();
  return letters < 2 ? 0 : std::max<size_t>(1, (letters + 1) / 3);
}

/// Edit distance, counting a swap of two neighbours (`ats` for `ast`) as one
/// edit.
unsigned distance(llvm::StringRef typed, llvm::StringRef candidate, unsigned limit) {
  if (typed.size() == candidate.size()) {
    size_t first = 0;
    while (first < typed.size() && typed[first] == candidate[first]) ++first;
    if (first + 1 < typed.size() && typed[first] == candidate[first + 1] && typed[first + 1] == candidate[first] &&
        typed.drop_front(first + 2) == candidate.drop_front(first + 2))
      return 1;
  }
  return typed.edit_distance(candidate, /*AllowReplacements=*/true, limit);
}

/// The candidate closest to `typed`, if it is close enough.
std::optional<std::string> closest(llvm::StringRef typed, llvm::ArrayRef<std::string> candidates) {
  unsigned limit = maxSuggestionDistance(typed);
  if (limit == 0) return std::nullopt;
  std::optional<std::string> best;
  unsigned bestDistance = limit + 1;
  for (const std::string& candidate : candidates) {
    unsigned d = distance(typed, candidate, limit);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_')) return false;
  return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Long options spelled with one dash, as in C compilers.
bool singleDash(llvm::StringRef name) { return name == "Werror" || name == "MD" || name == "MF"; }

/// Help in the style of clang and nvcc: `-t, --target=TARGET`, `-Werror`,
/// `-o FILE`.
class HelpFormatter final : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    if (positional) return opt->get_name();
    std::vector<std::string> names;
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) names.push_back(singleDash(l) ? "-" + l : "--" + l);
    return llvm::join(names, ", ");
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_positional() || opt->get_type_name().empty()) return "";
    bool spaced = opt->get_lnames().empty() || singleDash(opt->get_lnames().front());
    return (spaced ? " " : "=") + opt->get_type_name();
  }

  std::string make_group(std::string group, bool positional, std::vector<const CLI::Option*> opts) const override {
    std::string out = group + ":\n";
    for (const CLI::Option* opt : opts) out += make_option(opt, positional);
    return out;
  }

  std::string make_description(const CLI::App* app) const override { return app->get_description() + "\n\n"; }

  std::string make_positionals(const CLI::App* app) const override {
    return CLI::Formatter::make_positionals(app) + "\n";
  }

  std::string make_usage(const CLI::App*, std::string) const override {
    return "Usage: croqc FILE.co [options]\n\n";
  }
};

class CommandLineParser {
 public:
  explicit CommandLineParser(CommandLine& result) : result_(result), opts_(result.options) {}

  void parse(llvm::ArrayRef<std::string> args);

 private:
  void declareOptions();
  std::vector<std::string> rewriteCroqtileSpellings(llvm::ArrayRef<std::string> args);
  void reportUnknownArgument(const std::string& arg);
  void collectMacros();
  void chooseAction();
  void validateValues();
  void validatePassName(llvm::StringRef flag, const std::string& name);

  template <typename E, size_t N>
  void parseEnum(llvm::StringRef flag, const std::string& text, const Spelling<E> (&values)[N], E& out,
                 std::type_identity_t<llvm::ArrayRef<Spelling<E>>> aliases = {});

  /// `--arch`: a GPU row of the target table.
  void parseArch();
  void parseNativeArch();

  template <typename F>
  void problem(F&& report) {
    result_.problems.push_back(std::forward<F>(report));
  }

  CommandLine& result_;
  Options& opts_;
  CLI::App app_{"croqc compiles Croqtile (.co) GPU kernels to CUDA C++.", "croqc"};
  CLI::Option* define_ = nullptr;
  CLI::Option* undefine_ = nullptr;

  // Raw values, validated after parsing.
  std::vector<std::string> emit_, defines_, undefines_;
  std::string target_, arch_, runtimeCheck_, color_, diagnosticsFormat_, errorLimit_, optLevel_, jobs_, blockGroup_,
      sparseMetadata_;
  bool preprocessOnly_ = false, assembly_ = false, object_ = false, workScript_ = false;
  /// Spellings to suggest for a mistyped argument.
  std::vector<std::string> suggestions_;
};

void CommandLineParser::declareOptions() {
  app_.formatter(std::make_shared<HelpFormatter>());
  app_.get_formatter()->column_width(32);
  app_.allow_extras();
  app_.footer(
      "Croqtile spellings, accepted as aliases:\n"
      "  -e            --emit=ast           -arch=ARCH    --arch=ARCH\n"
      "  -es           --emit=cuda          -rtc=LEVEL    --runtime-check=LEVEL\n"
      "  -t cute       --target=cuda        -pa=PASS      --print-after=PASS\n"
      "  -t cc         --target=cpu         -sa=PASS      --stop-after=PASS\n"
      "  -fPIC, -fpic  --pic                -save-temps   --save-temps\n"
      "  -gs           --generate-script    -zero-cost    --runtime-check=none\n"
      "  -t gpu        --target=cuda        --disable-runtime-check  --runtime-check=none\n"
      "  --lib, --suppress-main, -j N: as in Croqtile (docs/migration.md)\n"
      "Any long option may also be written with one dash (-emit=ast).\n"
      "\n"
      "Exit status: 0 success, 1 errors in the input or on the command line,\n"
      "70 internal compiler error. docs/cli.md has the details.\n");

  // The value-taking options keep the last value given, like C compilers.
  auto last = [](CLI::Option* o) { return o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast); };

  app_.add_option("FILE.co", opts_.input, "the file to compile (`-` reads stdin)");

  const char* output = "Output";
  last(app_.add_option("-o", opts_.output, "write the output to FILE (default: stdout)"))
      ->type_name("FILE")->group(output);
  app_.add_flag("-E", preprocessOnly_, "preprocess only, with #line markers")->group(output);
  app_.add_option("--emit", emit_, "print one stage: " + listPlain(kEmitKinds, ", ", " or "))
      ->type_name("KIND")->allow_extra_args(false)->group(output);
  app_.add_flag("-S", assembly_, "write the generated CUDA C++ (default FILE.cu)")->group(output);
  app_.add_flag("-c", object_, "compile to an object file with nvcc (default FILE.o)")->group(output);
  app_.add_flag("--generate-script", workScript_,
                "write a bash script that builds and runs the program (`bash SCRIPT --execute`; default: stdout)")
      ->group(output);
  app_.add_flag("--lib", opts_.library,
                "library mode: object, archive (-o X.a) or shared library (-o X.so), with a header")
      ->group(output);
  last(app_.add_option("--header", opts_.headerPath, "library mode: write the header to FILE (default: FILE.h beside the output)"))
      ->type_name("FILE")->group(output);
  app_.add_flag("--suppress-main", opts_.suppressMain, "rename `main` of the host code away (implied by --lib)")
      ->group(output);
  app_.add_flag("--save-temps", opts_.saveTemps, "keep the generated CUDA beside the output (FILE.croqc.cu)")
      ->group(output);
  // Croqtile's `--lib -j N`: accepted; the inputs of one run are compiled
  // one after another (make -j and ninja run croqc processes in parallel).
  last(app_.add_option("-j", jobs_, "accepted for Croqtile's --lib; inputs are compiled one after another"))
      ->type_name("N")->group(output);
  app_.add_flag("--MD", opts_.depfile, "write a depfile for make and ninja (default OUTPUT.d)")->group(output);
  last(app_.add_option("--MF", opts_.depfilePath, "the depfile of -MD"))->type_name("FILE")->group(output);

  const char* code = "Code generation";
  last(app_.add_option("-O", optLevel_, "optimisation level of nvcc or the host compiler: 0 to 3 (default 3, cpu 2)"))
      ->type_name("LEVEL")->group(code);
  app_.add_flag("-g", opts_.debugInfo, "debug information for host code (kernels always carry line info)")
      ->group(code);
  app_.add_flag("--pic", opts_.pic, "position-independent code (also -fPIC, -fpic; implied by --lib)")->group(code);

  const char* nvcc = "nvcc (executables and objects; other input files are passed to nvcc)";
  app_.add_option("-l", opts_.libraries, "link library LIB")->type_name("LIB")->allow_extra_args(false)->group(nvcc);
  app_.add_option("-L", opts_.libraryDirs, "add DIR to the library path")
      ->type_name("DIR")->allow_extra_args(false)->group(nvcc);
  app_.add_option("--Xnvcc", opts_.nvccArgs, "pass ARG to nvcc")->type_name("ARG")->allow_extra_args(false)->group(nvcc);
  last(app_.add_option("--nvcc", opts_.nvccPath, "the nvcc to run (default: $NVCC, PATH, /usr/local/cuda)"))
      ->type_name("PATH")->group(nvcc);

  const char* preprocessor = "Preprocessor";
  define_ = app_.add_option("-D", defines_, "define macro NAME (as V; default 1)")
                ->type_name("NAME[=V]")->allow_extra_args(false)->group(preprocessor);
  undefine_ = app_.add_option("-U", undefines_, "undefine macro NAME")
                  ->type_name("NAME")->allow_extra_args(false)->group(preprocessor);
  app_.add_option("-I", opts_.includeDirs, "add DIR to the include path")
      ->type_name("DIR")->allow_extra_args(false)->group(preprocessor);

  const char* target = "Target";
  last(app_.add_option("-t,--target", target_, listPlain(kTargets, ", ", " or ") + " (default cuda)"))
      ->type_name("TARGET")->group(target);
  last(app_.add_option("--arch", arch_, gpuArchList(", ", " or ", "") + " (default sm_86)"))
      ->type_name("ARCH")->group(target);
  last(app_.add_option("--block-group", blockGroup_,
                       "visit the blocks of a 2-D block-level `parallel` in groups of N along its first "
                       "dimension, for cache reuse (default 8; 1: the hardware order)"))
      ->type_name("N")->group(target);
  last(app_.add_option("--sparse-metadata", sparseMetadata_,
                       "the layout of u32 sparse MMA metadata: " + listPlain(kSparseMetadata, ", ", " or ") +
                           " (default prepack; Croqtile's --use-prepack-v2 is prepack-v2)"))
      ->type_name("LAYOUT")->group(target);
  last(app_.add_option("--runtime-check", runtimeCheck_, listPlain(kRuntimeChecks, ", ", ", ") + " (default entry)"))
      ->type_name("LEVEL")->group(target);

  const char* diagnostics = "Diagnostics";
  last(app_.add_option("--color", color_, listPlain(kColorModes, ", ", " or ") + " (default auto)"))
      ->type_name("WHEN")->group(diagnostics);
  last(app_.add_option("--diagnostics-format", diagnosticsFormat_,
                       listPlain(kDiagnosticsFormats, ", ", " or ") + " (default text)"))
      ->type_name("FORMAT")->group(diagnostics);
  app_.add_flag("--Werror", opts_.warningsAsErrors, "treat warnings as errors")->group(diagnostics);
  app_.add_flag("-w", opts_.ignoreWarnings, "report no warnings (also with -Werror)")->group(diagnostics);
  app_.add_flag("--verify", opts_.verify,
                "check diagnostics against `// expected-error {{...}}` comments (exit 0 when they match)")
      ->group(diagnostics);
  last(app_.add_option("--error-limit", errorLimit_, "stop after N errors (default 20; 0: no limit)"))
      ->type_name("N")->group(diagnostics);

  const char* pipeline = "Pipeline";
  app_.add_flag("--list-passes", opts_.listPasses, "list the passes in order and exit")->group(pipeline);
  app_.add_option("--print-after", opts_.printAfter, "print the result of PASS (repeatable)")
      ->type_name("PASS")->delimiter(',')->allow_extra_args(false)->group(pipeline);
  last(app_.add_option("--stop-after", opts_.stopAfter, "stop the pipeline after PASS"))
      ->type_name("PASS")->group(pipeline);
  app_.add_flag("-v,--verbose", opts_.verbose, "print each pass and its time as it runs")->group(pipeline);
  // Hidden (no group): crashes on purpose, so tests can check the crash handler.
  last(app_.add_option("--debug-crash-in", opts_.debugCrashIn, "crash inside PASS"))->group("");
  app_.add_flag("--debug-malform-kir", opts_.debugMalformKir, "break the lowered KIR before it is verified")->group("");

  const char* general = "General";
  app_.set_help_flag("-h,--help", "print this help and exit")->group(general);
  app_.add_flag("--version", opts_.showVersion, "print the versions of croqc and LLVM and exit")->group(general);

  for (const CLI::Option* opt : app_.get_options()) {
    if (opt->get_group().empty()) continue;
    for (const std::string& s : opt->get_snames()) suggestions_.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) suggestions_.push_back(singleDash(l) ? "-" + l : "--" + l);
  }
  for (const Spelling<Action>& kind : kEmitKinds) suggestions_.push_back(fmt::format("--emit={}", kind.text));
  for (const Alias& alias : kAliases) suggestions_.push_back(alias.croqtile);
}

std::vector<std::string> CommandLineParser::rewriteCroqtileSpellings(llvm::ArrayRef<std::string> args) {
  auto isLongName = [&](llvm::StringRef name) {
    return llvm::any_of(app_.get_options(), [&](const CLI::Option* opt) {
      return llvm::is_contained(opt->get_lnames(), name.str());
    });
  };
  // A short option without a value (`-E`, `-c`, `-v`); the value-taking
  // ones (`-o FILE`, `-DNAME`) may have their value attached.
  auto isFlag = [&](llvm::StringRef name) {
    const CLI::Option* opt = app_.get_option_no_throw(name.str());
    return opt && opt->get_type_name().empty();
  };
  std::vector<std::string> out;
  bool afterDashDash = false;
  for (const std::string& arg : args) {
    llvm::StringRef a(arg);
    auto croqtileOnly = [&](llvm::ArrayRef<CroqtileOnly> table, DiagKind kind) {
      const CroqtileOnly* o =
          llvm::find_if(table, [&](const CroqtileOnly& x) { return a.split('=').first == x.croqtile; });
      if (afterDashDash || o == table.end()) return false;
      problem([arg, kind, instead = std::string(o->instead)](DiagnosticEngine& diags) {
        diags.report({}, kind, arg, instead);
      });
      return true;
    };
    if (croqtileOnly(kUnsupported, DiagKind::err_croqtile_option_unsupported) ||
        croqtileOnly(kIgnored, DiagKind::warn_croqtile_option_ignored))
      continue;
    // Croqtile's long flags with a croqc spelling (`--use-prepack-v2`).
    if (const Alias* alias = llvm::find_if(kAliases, [&](const Alias& al) { return a == al.croqtile; });
        !afterDashDash && a.startswith("--") && alias != std::end(kAliases)) {
      out.push_back(alias->croqc);
      continue;
    }
    if (afterDashDash || !a.startswith("-") || a.startswith("--")) {
      afterDashDash = afterDashDash || a == "--";
      out.push_back(arg);
      continue;
    }
    llvm::StringRef name = a.split('=').first;
    if (a == "-O") {
      out.push_back("-O2");  // as in gcc and clang
      continue;
    }
    const Alias* alias = llvm::find_if(kAliases, [&](const Alias& al) {
      return a == al.croqtile || (name == al.croqtile && !llvm::StringRef(al.croqc).contains('='));
    });
    if (alias != std::end(kAliases)) {
      out.push_back(std::string(alias->croqc) + std::string(a.drop_front(name.size())));
    } else if (name.size() > 2 && isLongName(name.drop_front())) {
      // `-arch=`, `-Werror`, `-emit=ast`: clang-style single-dash long options.
      out.push_back("-" + arg);
    } else if (a.size() > 2 && isFlag(a.take_front(2))) {
      // Like clang, no bundling of flags: `-verfy` is a misspelling, not `-v -erfy`.
      reportUnknownArgument(arg);
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

void CommandLineParser::reportUnknownArgument(const std::string& arg) {
  llvm::StringRef typed(arg);
  std::optional<std::string> suggestion;
  auto [name, value] = typed.split('=');
  if (typed.contains('=')) {
    std::vector<std::string> names;
    for (const std::string& s : suggestions_)
      if (!llvm::StringRef(s).contains('=')) names.push_back(s);
    if (auto n = closest(name, names)) suggestion = *n + "=" + value.str();
  } else {
    suggestion = closest(typed, suggestions_);
  }
  problem([arg, suggestion](DiagnosticEngine& diags) {
    auto d = diags.report({}, DiagKind::err_unknown_argument, arg);
    if (suggestion) d.hint(fmt::format("did you mean `{}`?", *suggestion));
  });
}

template <typename E, size_t N>
void CommandLineParser::parseEnum(llvm::StringRef flag, const std::string& text, const Spelling<E> (&values)[N],
                                  E& out, std::type_identity_t<llvm::ArrayRef<Spelling<E>>> aliases) {
  if (text.empty() && !app_.count(("--" + flag.ltrim('-')).str())) return;
  for (const Spelling<E>& v : values)
    if (text == v.text) return void(out = v.value);
  for (const Spelling<E>& v : aliases)
    if (text == v.text) return void(out = v.value);
  std::vector<std::string> names;
  for (const Spelling<E>& v : values) names.push_back(v.text);
  std::optional<std::string> suggestion = closest(text, names);
  problem([flag = flag.str(), text, list = listValues(values), suggestion](DiagnosticEngine& diags) {
    auto d = diags.report({}, DiagKind::err_invalid_option_value, flag, text, list);
    if (suggestion) d.hint(fmt::format("did you mean `{}={}`?", flag, *suggestion));
  });
}

void CommandLineParser::parseArch() {
  if (arch_.empty() && !app_.count("--arch")) return;
  if (llvm::StringRef(arch_).equals_insensitive("native")) return parseNativeArch();
  // Croqtile accepts the names in capitals too (`-arch=SM_86`).
  const target::TargetInfo* info = target::lookupTarget(llvm::StringRef(arch_).lower());
  if (info && info->isGpu) return void(opts_.arch = info->id);
  std::optional<std::string> suggestion;
  if (llvm::StringRef suggested = target::suggestTarget(arch_); !suggested.empty() && suggested != "cpu")
    suggestion = suggested.str();
  problem([text = arch_, list = gpuArchList(", ", " and ", "`"), suggestion](DiagnosticEngine& diags) {
    auto d = diags.report({}, DiagKind::err_invalid_option_value, "--arch", text, list);
    if (text == "cpu")
      d.hint("the CPU is a target of its own: `--target=cpu`");
    else if (suggestion)
      d.hint(fmt::format("did you mean `--arch={}`?", *suggestion));
  });
}

void CommandLineParser::parseNativeArch() {
  // The CPU target runs on this machine whatever GPU it has.
  if (opts_.target == Target::Cpu) return;
  std::variant<NativeGpu, NoNativeGpu> found = probeNativeGpu();
  if (const NativeGpu* gpu = std::get_if<NativeGpu>(&found)) return void(opts_.arch = gpu->arch);
  const NoNativeGpu& none = std::get<NoNativeGpu>(found);
  problem([none, list = gpuArchList(", ", " or ", "`")](DiagnosticEngine& diags) {
    if (none.reason.empty())
      diags.report({}, DiagKind::err_native_arch_not_target, none.name, none.computeCap, list);
    else
      diags.report({}, DiagKind::err_native_arch_no_gpu, none.reason, list);
  });
}

void CommandLineParser::collectMacros() {
  // CLI11 keeps each option's values apart; its parse order tells how `-D`
  // and `-U` interleave, which decides the result of `-DX -UX`.
  size_t nextDefine = 0, nextUndefine = 0;
  for (const CLI::Option* opt : app_.parse_order()) {
    MacroCommand command;
    std::string spelling;
    if (opt == define_) {
      llvm::StringRef text(defines_[nextDefine++]);
      auto [name, value] = text.split('=');
      command.name = name.str();
      if (text.contains('=')) command.value = value.str();
      spelling = "-D" + text.str();
    } else if (opt == undefine_) {
      command.undefine = true;
      command.name = undefines_[nextUndefine++];
      spelling = "-U" + command.name;
    } else {
      continue;
    }
    // A function-like macro (`-D'F(x)=x'`) is checked by the preprocessor.
    llvm::StringRef identifier = llvm::StringRef(command.name).split('(').first;
    if (!isIdentifier(identifier)) {
      problem([spelling, name = command.name](DiagnosticEngine& diags) {
        diags.report({}, DiagKind::err_invalid_macro_name, spelling, name);
      });
      continue;
    }
    opts_.macros.push_back(std::move(command));
  }
}

void CommandLineParser::chooseAction() {
  std::vector<std::pair<Action, std::string>> asked;
  if (preprocessOnly_) asked.emplace_back(Action::Preprocess, "-E");
  for (const std::string& kind : emit_) {
    Action action = Action::Executable;
    parseEnum("--emit", kind, kEmitKinds, action);
    if (action != Action::Executable) asked.emplace_back(action, "--emit=" + kind);
  }
  if (assembly_) asked.emplace_back(Action::Assembly, "-S");
  if (object_) asked.emplace_back(Action::Object, "-c");
  if (workScript_) asked.emplace_back(Action::WorkScript, "-gs");
  if (workScript_ && opts_.library) {
    problem([](DiagnosticEngine& diags) { diags.report({}, DiagKind::err_work_script_library); });
    return;
  }
  for (const auto& [action, spelling] : asked) {
    if (action == asked.front().first) continue;
    problem([first = asked.front().second, second = spelling](DiagnosticEngine& diags) {
      diags.report({}, DiagKind::err_conflicting_actions, first, second);
    });
    return;
  }
  if (!asked.empty()) std::tie(opts_.action, opts_.actionSpelling) = asked.front();
}

void CommandLineParser::validatePassName(llvm::StringRef flag, const std::string& name) {
  if (findPass(name)) return;
  std::vector<std::string> names;
  for (const Pass& pass : passPipeline()) names.push_back(pass.name.str());
  std::optional<std::string> suggestion = closest(name, names);
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += fmt::format("{}`{}`", i == 0 ? "" : i + 1 == names.size() ? " and " : ", ", names[i]);
  problem([flag = flag.str(), name, list, suggestion](DiagnosticEngine& diags) {
    auto d = diags.report({}, DiagKind::err_unknown_pass, flag, name, list);
    if (suggestion) d.hint(fmt::format("did you mean `{}={}`?", flag, *suggestion));
  });
}

void CommandLineParser::validateValues() {
  parseEnum("--target", target_, kTargets, opts_.target, kTargetAliases);
  parseArch();
  parseEnum("--runtime-check", runtimeCheck_, kRuntimeChecks, opts_.runtimeCheck);
  parseEnum("--color", color_, kColorModes, opts_.color);
  parseEnum("--sparse-metadata", sparseMetadata_, kSparseMetadata, opts_.sparseMetadata);
  parseEnum("--diagnostics-format", diagnosticsFormat_, kDiagnosticsFormats, opts_.diagnosticsFormat);
  if (app_.count("-O") && !llvm::is_contained(kOptLevels, llvm::StringRef(optLevel_))) {
    problem([text = optLevel_](DiagnosticEngine& diags) {
      diags.report({}, DiagKind::err_invalid_option_value, "-O", text, "`0`, `1`, `2` and `3`");
    });
  }
  opts_.optLevel = optLevel_;
  if (opts_.library) opts_.suppressMain = opts_.pic = true;
  if (!opts_.depfilePath.empty()) opts_.depfile = true;
  if (app_.count("--error-limit") && llvm::StringRef(errorLimit_).getAsInteger(10, opts_.errorLimit)) {
    problem([text = errorLimit_](DiagnosticEngine& diags) {
      diags.report({}, DiagKind::err_invalid_error_limit, text);
    });
  }
  if (app_.count("--block-group") &&
      (llvm::StringRef(blockGroup_).getAsInteger(10, opts_.blockGroup) || opts_.blockGroup < 1 ||
       opts_.blockGroup > 1024)) {
    problem([text = blockGroup_](DiagnosticEngine& diags) {
      diags.report({}, DiagKind::err_invalid_option_value, "--block-group", text, "an integer from 1 to 1024");
    });
  }
  for (const std::string& pass : opts_.printAfter) validatePassName("--print-after", pass);
  if (!opts_.stopAfter.empty()) validatePassName("--stop-after", opts_.stopAfter);
  if (!opts_.debugCrashIn.empty()) validatePassName("--debug-crash-in", opts_.debugCrashIn);
}

void CommandLineParser::parse(llvm::ArrayRef<std::string> args) {
  declareOptions();
  result_.helpText = app_.help();

  std::vector<std::string> rewritten = rewriteCroqtileSpellings(args);
  std::vector<const char*> argv{"croqc"};
  for (const std::string& arg : rewritten) argv.push_back(arg.c_str());
  try {
    app_.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    opts_.showHelp = true;
    return;
  } catch (const CLI::ParseError& e) {
    // CLI11 says "-o: 1 required FILE missing" for an option without its value.
    llvm::SmallVector<llvm::StringRef, 3> missing;
    static const llvm::Regex kMissingValue("^([^ ]+): 1 required ([^ ]+) missing$");
    if (kMissingValue.match(e.what(), &missing)) {
      problem([flag = missing[1].str(), what = missing[2].str()](DiagnosticEngine& diags) {
        diags.report({}, DiagKind::err_missing_option_value, flag, what);
      });
    } else {
      problem([message = std::string(e.what())](DiagnosticEngine& diags) {
        diags.report({}, DiagKind::err_command_line, message);
      });
    }
    return;
  }

  for (const std::string& extra : app_.remaining()) {
    if (extra == "--") continue;  // ends the options: `croqc -- -file.co`
    llvm::StringRef ext = llvm::StringRef(extra).rsplit('.').second;
    if (llvm::StringRef(extra).startswith("-") && extra != "-") {
      reportUnknownArgument(extra);
    } else if (ext == "co" && extra.find('.') != std::string::npos) {
      opts_.moreInputs.push_back(extra);
    } else if (extra.find('.') != std::string::npos &&
               (ext == "cu" || ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "o" || ext == "a" || ext == "so")) {
      opts_.extraInputs.push_back(extra);
    } else {
      problem([first = opts_.input, extra](DiagnosticEngine& diags) {
        diags.report({}, DiagKind::err_multiple_input_files, first, extra);
      });
    }
  }
  collectMacros();
  chooseAction();
  validateValues();
}

}  // namespace

CommandLine parseCommandLine(llvm::ArrayRef<std::string> args) {
  CommandLine result;
  CommandLineParser(result).parse(args);
  return result;
}

llvm::StringRef targetName(Target target) {
  for (const auto& t : kTargets)
    if (t.value == target) return t.text;
  return "?";
}

llvm::StringRef archName(target::TargetId arch) { return target::targetInfo(arch).name; }

llvm::StringRef runtimeCheckName(RuntimeCheck level) {
  for (const auto& r : kRuntimeChecks)
    if (r.value == level) return r.text;
  return "?";
}

}  // namespace croqc::driver
