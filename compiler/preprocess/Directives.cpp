// Directives other than conditionals: `#define`, `#undef`, `#pragma croq`,
// `#error`, `#warning`, the lines that pass through to nvcc, and the `-D`/`-U`
// macros of the command line.
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSwitch.h>

#include <algorithm>

#include "basic/Diagnostic.h"
#include "preprocess/PreprocessorImpl.h"

namespace croqc::pp {
namespace {

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !scan::isIdentStart(s[0])) return false;
  return std::all_of(s.begin(), s.end(), scan::isIdentChar);
}

enum class Directive {
  Null,
  Define,
  Undef,
  Include,
  Pragma,
  Line,
  If,
  Ifdef,
  Ifndef,
  Elif,
  Else,
  Endif,
  Error,
  Warning,
  Unknown
};

Directive classify(const PPToken* name) {
  if (!name) return Directive::Null;
  if (name->kind == PPTokenKind::Number) return Directive::Line;  // GNU `# 12 "file"`
  if (name->kind != PPTokenKind::Identifier) return Directive::Unknown;
  return llvm::StringSwitch<Directive>(name->text)
      .Case("define", Directive::Define)
      .Case("undef", Directive::Undef)
      .Case("include", Directive::Include)
      .Case("pragma", Directive::Pragma)
      .Case("line", Directive::Line)
      .Case("if", Directive::If)
      .Case("ifdef", Directive::Ifdef)
      .Case("ifndef", Directive::Ifndef)
      .Case("elif", Directive::Elif)
      .Case("else", Directive::Else)
      .Case("endif", Directive::Endif)
      .Case("error", Directive::Error)
      .Case("warning", Directive::Warning)
      .Default(Directive::Unknown);
}

}  // namespace

void Preprocessor::handleDirective(const char* lineStart, const char* hash) {
  DirectiveLine line;
  line.lineStart = lineStart;
  line.hash = hash;
  line.end = scan::findDirectiveEnd(hash + 1, end_);
  line.next = line.end < end_ ? line.end + 1 : end_;
  tokenizeDirective(hash + 1, line.end, line.tokens);
  cur_ = line.next;
  atLineStart_ = true;

  switch (classify(line.name())) {
    case Directive::Null: removeLine(line); break;
    case Directive::Define:
      handleDefine(line);
      keepLine(line);
      break;
    case Directive::Undef:
      handleUndef(line);
      keepLine(line);
      break;
    case Directive::Pragma:
      handlePragma(line);
      keepLine(line);
      break;
    case Directive::Include:
    case Directive::Line: keepLine(line); break;
    case Directive::If:
    case Directive::Ifdef:
    case Directive::Ifndef:
      removeLine(line);
      handleIf(line);
      break;
    case Directive::Elif:
    case Directive::Else:
      removeLine(line);
      handleElseInTakenBranch(line);
      break;
    case Directive::Endif:
      removeLine(line);
      handleEndif(line);
      break;
    case Directive::Error:
    case Directive::Warning:
      removeLine(line);
      handleDiagnosticDirective(line);
      break;
    case Directive::Unknown: {
      removeLine(line);
      const PPToken& name = *line.name();
      diags_
          .report(view_.loc(line.hash), DiagKind::err_pp_unknown_directive,
                  name.text.take_front(40))
          .range({view_.loc(line.hash), view_.loc(line.afterName())});
      break;
    }
  }
}

void Preprocessor::keepLine(const DirectiveLine& line) {
  if (suppressOutput_) {
    diags_
        .report(view_.loc(line.hash), DiagKind::warn_pp_directive_in_macro_args, line.name()->text,
                invocation_)
        .range(directiveRange(line));
    return;
  }
  appendVerbatim(line.lineStart, line.next);
}

void Preprocessor::removeLine(const DirectiveLine& line) {
  appendNewlinesIn(line.lineStart, line.next);
}

llvm::SMRange Preprocessor::directiveRange(const DirectiveLine& line) const {
  return {view_.loc(line.hash), view_.loc(line.afterName())};
}

void Preprocessor::warnExtraTokens(const DirectiveLine& line, size_t expected) {
  if (line.tokens.size() <= expected) return;
  const PPToken& extra = line.tokens[expected];
  diags_.report(view_.loc(extra.loc), DiagKind::warn_pp_extra_tokens, line.name()->text)
      .range({view_.loc(extra.loc),
              view_.loc(line.tokens.back().loc + line.tokens.back().text.size())});
}

const PPToken* Preprocessor::macroName(const DirectiveLine& line) {
  if (line.tokens.size() < 2) {
    diags_
        .report(view_.loc(line.afterName()), DiagKind::err_pp_missing_macro_name, line.name()->text)
        .range(directiveRange(line));
    return nullptr;
  }
  const PPToken& name = line.tokens[1];
  return checkMacroName(name, line.name()->text) ? &name : nullptr;
}

bool Preprocessor::checkMacroName(const PPToken& name, llvm::StringRef directive) {
  if (name.kind != PPTokenKind::Identifier) {
    diags_
        .report(view_.loc(name.loc), DiagKind::err_pp_macro_name_not_identifier, directive,
                name.text.take_front(40))
        .range(view_.range(name));
    return false;
  }
  if (name.text == "defined") {
    diags_.report(view_.loc(name.loc), DiagKind::err_pp_defined_as_macro_name, directive)
        .range(view_.range(name));
    return false;
  }
  return true;
}

void Preprocessor::handleDefine(const DirectiveLine& line) {
  if (line.tokens.size() < 2) {
    macroName(line);  // reports the missing name
    return;
  }
  Macro macro;
  if (parseDefinition(line.tokens, 1, macro)) defineMacro(std::move(macro));
}

bool Preprocessor::parseDefinition(llvm::ArrayRef<PPToken> tokens, size_t first, Macro& macro) {
  const PPToken& name = tokens[first];
  if (!checkMacroName(name, "define")) return false;
  macro.name = name.text;
  macro.defLoc = name.loc;
  size_t k = first + 1;
  llvm::StringMap<int> paramIndex;
  if (k < tokens.size() && tokens[k].isPunct('(') && !tokens[k].leadingSpace) {
    macro.functionLike = true;
    if (!parseParams(tokens, ++k, macro, paramIndex)) return false;
  }
  macro.body.assign(tokens.begin() + static_cast<std::ptrdiff_t>(k), tokens.end());
  if (macro.body.empty()) return true;
  macro.body.front().leadingSpace = false;
  for (PPToken& tok : macro.body) {
    if (tok.kind == PPTokenKind::Identifier && !paramIndex.empty()) {
      auto it = paramIndex.find(tok.text);
      if (it != paramIndex.end()) tok.param = it->second;
    }
    if (tok.isPunct("##")) macro.hasPaste = true;
  }
  for (const PPToken* edge : {&macro.body.front(), &macro.body.back()}) {
    if (!edge->isPunct("##")) continue;
    diags_
        .report(view_.loc(edge->loc), DiagKind::err_pp_paste_at_edge, macro.name,
                edge == &macro.body.front() ? "start" : "end")
        .range(view_.range(*edge));
    return false;
  }
  return true;
}

bool Preprocessor::parseParams(llvm::ArrayRef<PPToken> tokens, size_t& k, Macro& macro,
                               llvm::StringMap<int>& paramIndex) {
  auto at = [&](size_t i) { return i < tokens.size() ? &tokens[i] : nullptr; };
  auto bad = [&](const PPToken* tok) {
    const char* where = tok ? tok->loc : tokens.back().loc + tokens.back().text.size();
    diags_
        .report(view_.loc(where), DiagKind::err_pp_bad_macro_param, macro.name, describeToken(tok))
        .range(tok ? view_.range(*tok) : llvm::SMRange());
    return false;
  };
  auto closeAfterEllipsis = [&]() {
    macro.variadic = true;
    if (!at(k) || !at(k)->isPunct(')')) return bad(at(k));
    ++k;
    return true;
  };
  if (at(k) && at(k)->isPunct(')')) {
    ++k;
    return true;
  }
  while (true) {
    const PPToken* tok = at(k);
    if (tok && tok->isPunct("...")) {
      ++k;
      macro.params.push_back("__VA_ARGS__");
      paramIndex[macro.params.back()] = static_cast<int>(macro.params.size()) - 1;
      return closeAfterEllipsis();
    }
    if (!tok || tok->kind != PPTokenKind::Identifier || tok->text == "__VA_ARGS__") return bad(tok);
    if (!paramIndex.try_emplace(tok->text, static_cast<int>(macro.params.size())).second) {
      diags_
          .report(view_.loc(tok->loc), DiagKind::err_pp_duplicate_macro_param, macro.name,
                  tok->text)
          .range(view_.range(*tok));
      return false;
    }
    macro.params.push_back(tok->text);
    const PPToken* sep = at(++k);
    if (sep && sep->isPunct("...")) {  // GNU named variadic parameter: `args...`
      ++k;
      return closeAfterEllipsis();
    }
    if (sep && sep->isPunct(')')) {
      ++k;
      return true;
    }
    if (!sep || !sep->isPunct(',')) return bad(sep);
    ++k;
  }
}

void Preprocessor::defineMacro(Macro macro) {
  if (Macro* previous = macros_.lookup(macro.name)) {
    if (previous->sameDefinition(macro)) return;
    auto diag =
        diags_.report(view_.loc(macro.defLoc), DiagKind::warn_pp_macro_redefined, macro.name);
    if (view_.contains(previous->defLoc))
      diag.note(view_.loc(previous->defLoc), DiagKind::note_pp_previous_definition, macro.name);
    else
      diag.note(llvm::SMLoc(), DiagKind::note_pp_previous_definition_cmdline, macro.name);
  }
  macros_.define(std::move(macro));
}

void Preprocessor::handleUndef(const DirectiveLine& line) {
  const PPToken* name = macroName(line);
  if (!name) return;
  macros_.undefine(name->text);
  warnExtraTokens(line, 2);
}

void Preprocessor::handlePragma(const DirectiveLine& line) {
  const std::vector<PPToken>& t = line.tokens;
  if (t.size() < 2 || !t[1].isIdentifier("croq")) return;
  auto at = [&](size_t i) { return i < t.size() ? &t[i] : nullptr; };
  auto bad = [&](size_t i, const char* expected) {
    diags_
        .report(at(i) ? view_.loc(t[i].loc) : view_.loc(line.end), DiagKind::err_pp_bad_croq_pragma,
                expected, describeToken(at(i)))
        .range(at(i) ? view_.range(t[i]) : llvm::SMRange());
  };
  if (!at(2) || !t[2].isIdentifier("intrinsic")) return bad(2, "`intrinsic`");
  if (!at(3) || !(t[3].isIdentifier("prefix") || t[3].isIdentifier("namespace")))
    return bad(3, "`prefix` or `namespace`");
  if (!at(4) || t[4].kind != PPTokenKind::Identifier) return bad(4, "a name");
  if (at(5)) return bad(5, "end of line");
  out_.intrinsicPragmas.push_back({view_.loc(line.hash), t[3].text.str(), t[4].text.str()});
}

void Preprocessor::handleDiagnosticDirective(const DirectiveLine& line) {
  std::string message;
  for (size_t i = 1; i < line.tokens.size(); ++i) {
    if (i > 1 && line.tokens[i].leadingSpace) message += ' ';
    message.append(line.tokens[i].text.begin(), line.tokens[i].text.end());
  }
  const bool isError = line.name()->text == "error";
  diags_
      .report(view_.loc(line.hash),
              isError ? DiagKind::err_pp_error_directive : DiagKind::warn_pp_warning_directive,
              message)
      .range(directiveRange(line));
}

void Preprocessor::applyCommandLine(llvm::ArrayRef<MacroCommand> commands) {
  for (const MacroCommand& command : commands) {
    const llvm::StringRef name = command.name;
    const llvm::StringRef bare = name.take_until([](char c) { return c == '('; });
    if (!isIdentifier(bare) || bare == "defined" ||
        (command.undefine && bare.size() != name.size())) {
      diags_.report(llvm::SMLoc(), DiagKind::err_pp_bad_cmdline_macro_name,
                    command.undefine ? "U" : "D", name);
      continue;
    }
    if (command.undefine) {
      macros_.undefine(name);
      continue;
    }
    std::string text = command.name + " " + command.value;
    std::replace(text.begin(), text.end(), '\n', ' ');
    const llvm::StringRef saved = saver_.save(text);
    std::vector<PPToken> tokens;
    tokenizeDirective(saved.begin(), saved.end(), tokens);
    Macro macro;
    if (parseDefinition(tokens, 0, macro)) defineMacro(std::move(macro));
  }
}

}  // namespace croqc::pp
