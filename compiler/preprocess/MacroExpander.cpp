// Macro expansion (C11 6.10.3, C++20 [cpp.replace]) over a stack of token
// contexts. A context holds the replacement of one macro; the macro stays
// disabled until the context is popped, which happens lazily, when a read
// goes past its end. That gives the C results for the classic cases:
// `#define f(a) a*g` / `#define g(a) f(a)` / `f(2)(9)` gives `2*9*g`, and
// `#define A B` / `#define B A` / `A` gives `A`.
#include "preprocess/MacroExpander.h"

#include <algorithm>
#include <string>

#include "basic/Diagnostic.h"

namespace croqc::pp {

bool Macro::sameDefinition(const Macro& other) const {
  if (functionLike != other.functionLike || variadic != other.variadic || params != other.params ||
      body.size() != other.body.size())
    return false;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i].text != other.body[i].text) return false;
    if (i > 0 && body[i].leadingSpace != other.body[i].leadingSpace) return false;
  }
  return true;
}

Macro* MacroTable::define(Macro macro) {
  storage_.push_back(std::move(macro));
  Macro* stored = &storage_.back();
  byName_[stored->name] = stored;
  return stored;
}

struct MacroExpander::Budget {
  PPToken top;  // the outermost macro name, for messages
  size_t tokens = 0;
  /// Once set, nothing expands any more; the remaining tokens are copied.
  bool exhausted = false;
};

struct MacroExpander::Context {
  const std::vector<PPToken>* body = nullptr;  // a macro's own body, or null: `owned`
  std::vector<PPToken> owned;
  size_t next = 0;
  Macro* macro = nullptr;
  bool firstLeadingSpace = false;

  const std::vector<PPToken>& tokens() const { return body ? *body : owned; }
  bool atEnd() const { return next >= tokens().size(); }
};

struct MacroExpander::Frame {
  TokenStream& base;
  unsigned depth;
  Budget& budget;
  llvm::SmallVector<Context, 4> stack;
  const char* invocationLoc = nullptr;
};

/// The tokens of one call as read, `(`, commas and `)` included (they are
/// put back as written if the call is invalid), and where each argument is.
struct MacroExpander::Args {
  std::vector<PPToken> tokens;
  llvm::SmallVector<std::pair<size_t, size_t>, 4> spans;

  size_t size() const { return spans.size(); }
  llvm::ArrayRef<PPToken> operator[](size_t i) const {
    return llvm::ArrayRef<PPToken>(tokens).slice(spans[i].first, spans[i].second - spans[i].first);
  }
  void addEmpty() { spans.push_back({tokens.size(), tokens.size()}); }
};

namespace {

std::string pluralArguments(size_t n) {
  if (n == 0) return "no arguments";
  return std::to_string(n) + (n == 1 ? " argument" : " arguments");
}

std::string paramList(const Macro& macro) {
  std::string s;
  for (size_t i = 0; i < macro.params.size(); ++i) {
    if (i) s += ", ";
    bool variadic = macro.variadic && i + 1 == macro.params.size();
    if (variadic && macro.params[i] == "__VA_ARGS__") {
      s += "...";
    } else {
      s += macro.params[i].str();
      if (variadic) s += "...";
    }
  }
  return s;
}

/// The index of the `)` that closes the `(` at `open`, or `npos`.
size_t matchingParen(llvm::ArrayRef<PPToken> body, size_t open) {
  int depth = 0;
  for (size_t i = open; i < body.size(); ++i) {
    if (body[i].isPunct('(')) ++depth;
    if (body[i].isPunct(')') && --depth == 0) return i;
  }
  return std::string::npos;
}

/// Appends `arg` with its first token taking the spacing of the parameter it
/// replaces.
void appendArg(llvm::ArrayRef<PPToken> arg, bool leadingSpace, std::vector<PPToken>& result) {
  size_t first = result.size();
  result.insert(result.end(), arg.begin(), arg.end());
  if (first < result.size()) result[first].leadingSpace = leadingSpace;
}

}  // namespace

void MacroExpander::paint(PPToken& tok) const {
  if (tok.kind != PPTokenKind::Identifier || tok.noExpand) return;
  if (Macro* macro = macros_.lookup(tok.text); macro && macro->disabled) tok.noExpand = true;
}

bool MacroExpander::fetchFromContexts(Frame& frame, PPToken& tok) {
  while (!frame.stack.empty()) {
    Context& context = frame.stack.back();
    if (!context.atEnd()) {
      tok = context.tokens()[context.next];
      if (context.next == 0) tok.leadingSpace = context.firstLeadingSpace;
      ++context.next;
      tok.loc = frame.invocationLoc;
      tok.fromExpansion = true;
      return true;
    }
    --context.macro->disabled;
    --disabledContexts_;
    frame.stack.pop_back();
  }
  return false;
}

bool MacroExpander::fetch(Frame& frame, PPToken& tok) {
  return fetchFromContexts(frame, tok) || frame.base.next(tok);
}

bool MacroExpander::peekLParen(Frame& frame) {
  for (size_t i = frame.stack.size(); i-- > 0;) {
    const Context& context = frame.stack[i];
    if (!context.atEnd()) return context.tokens()[context.next].isPunct('(');
  }
  return frame.base.peekIsLParen();
}

bool MacroExpander::spend(size_t tokens, const PPToken& at, Budget& budget) {
  budget.tokens += tokens;
  fileTokens_ += tokens;
  if (budget.exhausted) return false;
  if (budget.tokens > kMaxInvocationTokens) {
    diags_
        .report(view_.loc(budget.top.loc), DiagKind::err_pp_expansion_too_large, budget.top.text,
                kMaxInvocationTokens)
        .range(view_.range(budget.top));
    budget.exhausted = true;
  } else if (fileTokens_ > kMaxFileTokens) {
    if (!fileLimitReported_)
      diags_.report(view_.loc(at.loc), DiagKind::err_pp_file_expansion_too_large, kMaxFileTokens);
    fileLimitReported_ = true;
    budget.exhausted = true;
  }
  return !budget.exhausted;
}

void MacroExpander::expandInvocation(const PPToken& name, TokenStream& source,
                                     std::vector<PPToken>& out) {
  Budget budget;
  budget.top = name;
  expand(source, /*drainBase=*/false, &name, out, 0, budget);
}

void MacroExpander::expandAll(TokenStream& in, std::vector<PPToken>& out) {
  Budget budget;
  expand(in, /*drainBase=*/true, nullptr, out, 0, budget);
}

void MacroExpander::expand(TokenStream& base, bool drainBase, const PPToken* first,
                           std::vector<PPToken>& out, unsigned depth, Budget& budget) {
  Frame frame{base, depth, budget, {}, nullptr};
  bool useFirst = first != nullptr;
  while (true) {
    PPToken tok;
    if (useFirst || !fetchFromContexts(frame, tok)) {
      if (useFirst)
        tok = *first;
      else if (!drainBase || !base.next(tok))
        break;
      useFirst = false;
      frame.invocationLoc = tok.loc;
    }
    if (budget.top.text.empty()) budget.top = tok;
    spend(1, tok, budget);

    Macro* macro = nullptr;
    if (tok.kind == PPTokenKind::Identifier && !tok.noExpand && !budget.exhausted)
      macro = macros_.lookup(tok.text);
    if (macro && macro->disabled) tok.noExpand = true;
    if (!macro || tok.noExpand) {
      out.push_back(tok);
      continue;
    }
    if (frame.depth + frame.stack.size() >= kMaxDepth) {
      diags_.report(view_.loc(tok.loc), DiagKind::err_pp_expansion_too_deep, kMaxDepth, tok.text)
          .range(view_.range(tok));
      budget.exhausted = true;
      out.push_back(tok);
      continue;
    }
    Context context;
    context.macro = macro;
    context.firstLeadingSpace = tok.leadingSpace;
    if (!macro->functionLike && !macro->hasPaste) {
      context.body = &macro->body;
    } else if (!macro->functionLike) {
      substitute(*macro, Args(), context.owned, frame.depth + frame.stack.size() + 1, budget);
    } else {
      if (!peekLParen(frame)) {
        out.push_back(tok);
        continue;
      }
      Args args;
      if (!collectArgs(*macro, tok, frame, args) || !checkArgCount(*macro, tok, args)) {
        // Leave the call as written; the error has been reported.
        tok.noExpand = true;
        out.push_back(tok);
        out.insert(out.end(), args.tokens.begin(), args.tokens.end());
        continue;
      }
      substitute(*macro, args, context.owned, frame.depth + frame.stack.size() + 1, budget);
    }
    ++macro->disabled;
    ++disabledContexts_;
    frame.stack.push_back(std::move(context));
  }
}

bool MacroExpander::collectArgs(const Macro& macro, const PPToken& name, Frame& frame, Args& args) {
  PPToken tok;
  if (!fetch(frame, tok)) return false;  // the caller saw `(`; cannot happen
  args.tokens.push_back(tok);
  size_t argStart = args.tokens.size();
  unsigned parens = 0;
  while (true) {
    if (!fetch(frame, tok)) {
      diags_.report(view_.loc(name.loc), DiagKind::err_pp_unterminated_macro_call, name.text)
          .range(view_.range(name));
      return false;
    }
    spend(1, tok, frame.budget);
    if (disabledContexts_) paint(tok);
    if (tok.isPunct('(')) {
      ++parens;
    } else if (tok.isPunct(')') && parens == 0) {
      args.spans.push_back({argStart, args.tokens.size()});
      args.tokens.push_back(tok);
      return true;
    } else if (tok.isPunct(')')) {
      --parens;
    } else if (tok.isPunct(',') && parens == 0 &&
               !(macro.variadic && args.size() + 1 == macro.params.size())) {
      args.spans.push_back({argStart, args.tokens.size()});
      args.tokens.push_back(tok);
      argStart = args.tokens.size();
      continue;
    }
    args.tokens.push_back(tok);
  }
}

bool MacroExpander::checkArgCount(const Macro& macro, const PPToken& name, Args& args) {
  const size_t params = macro.params.size();
  if (params == 0 && args.size() == 1 && args[0].empty()) args.spans.clear();
  if (macro.variadic && args.size() + 1 == params) args.addEmpty();
  if (args.size() == params) return true;
  std::string expected = pluralArguments(params);
  if (macro.variadic) expected = "at least " + pluralArguments(params - 1);
  auto diag = diags_.report(view_.loc(name.loc), DiagKind::err_pp_macro_arg_count, name.text,
                            expected, pluralArguments(args.size()), paramList(macro));
  diag.range(view_.range(name));
  if (view_.contains(macro.defLoc))
    diag.note(view_.loc(macro.defLoc), DiagKind::note_pp_macro_defined_here, macro.name);
  return false;
}

bool MacroExpander::mayExpand(llvm::ArrayRef<PPToken> arg) const {
  for (const PPToken& tok : arg)
    if (tok.kind == PPTokenKind::Identifier && !tok.noExpand && macros_.lookup(tok.text))
      return true;
  return false;
}

void MacroExpander::substitute(const Macro& macro, const Args& args, std::vector<PPToken>& result,
                               unsigned depth, Budget& budget) {
  const std::vector<PPToken>& body = macro.body;
  const size_t n = body.size();
  const int variadicIndex = macro.variadic ? static_cast<int>(macro.params.size()) - 1 : -1;
  result.reserve(n + args.tokens.size());

  // Pre-expanded arguments, computed when first needed; an argument with no
  // macro in it is its own expansion.
  llvm::SmallVector<std::vector<PPToken>, 4> expansions(args.size());
  llvm::SmallVector<llvm::ArrayRef<PPToken>, 4> expanded(args.size());
  llvm::SmallVector<bool, 4> isExpanded(args.size(), false);
  auto expandedArg = [&](size_t p) -> llvm::ArrayRef<PPToken> {
    if (!isExpanded[p]) {
      isExpanded[p] = true;
      expanded[p] = args[p];
      if (!budget.exhausted && mayExpand(args[p])) {
        if (depth >= kMaxDepth) {
          diags_.report(view_.loc(budget.top.loc), DiagKind::err_pp_expansion_too_deep, kMaxDepth,
                        macro.name);
          budget.exhausted = true;
        } else {
          TokenListStream stream(args[p]);
          expand(stream, /*drainBase=*/true, nullptr, expansions[p], depth, budget);
          expanded[p] = expansions[p];
        }
      }
    }
    return expanded[p];
  };
  auto isStringize = [&](size_t k) {
    return macro.functionLike && body[k].isPunct('#') && k + 1 < n && body[k + 1].param >= 0;
  };

  size_t vaOptClose = std::string::npos;
  for (size_t k = 0; k < n; ++k) {
    const PPToken& tok = body[k];
    if (k == vaOptClose) {
      vaOptClose = std::string::npos;
      continue;
    }
    if (variadicIndex >= 0 && vaOptClose == std::string::npos && tok.isIdentifier("__VA_OPT__") &&
        k + 1 < n && body[k + 1].isPunct('(')) {
      size_t close = matchingParen(body, k + 1);
      if (close != std::string::npos) {
        if (!expandedArg(static_cast<size_t>(variadicIndex)).empty()) {
          vaOptClose = close;
          ++k;
        } else {
          PPToken placemarker = tok;
          placemarker.kind = PPTokenKind::Placemarker;
          result.push_back(placemarker);
          k = close;
        }
        continue;
      }
    }
    if (isStringize(k)) {
      const llvm::ArrayRef<PPToken> arg = args[static_cast<size_t>(body[k + 1].param)];
      if (!spend(arg.size(), tok, budget)) break;
      result.push_back(stringize(arg, tok.leadingSpace));
      ++k;
      continue;
    }
    if (tok.isPunct("##") && k + 1 < n && !result.empty()) {
      ++k;
      std::vector<PPToken> rhs;
      const PPToken& right = body[k];
      if (isStringize(k)) {
        const llvm::ArrayRef<PPToken> arg = args[static_cast<size_t>(body[k + 1].param)];
        if (!spend(arg.size(), right, budget)) break;
        rhs.push_back(stringize(arg, right.leadingSpace));
        ++k;
      } else if (right.param >= 0) {
        const llvm::ArrayRef<PPToken> arg = args[static_cast<size_t>(right.param)];
        if (right.param == variadicIndex && result.back().isPunct(',')) {
          // GNU `, ## __VA_ARGS__`: the comma goes when there are no
          // variadic arguments, and nothing is pasted otherwise.
          if (!spend(arg.size(), right, budget)) break;
          if (arg.empty())
            result.pop_back();
          else
            appendArg(arg, right.leadingSpace, result);
          continue;
        }
        if (!spend(arg.size(), right, budget)) break;
        rhs.assign(arg.begin(), arg.end());
      } else {
        rhs.push_back(right);
      }
      if (rhs.empty()) {
        PPToken placemarker = right;
        placemarker.kind = PPTokenKind::Placemarker;
        rhs.push_back(placemarker);
      }
      PPToken lhs = result.back();
      result.pop_back();
      if (lhs.kind == PPTokenKind::Placemarker) {
        rhs.front().leadingSpace = lhs.leadingSpace;
        result.push_back(rhs.front());
      } else if (rhs.front().kind == PPTokenKind::Placemarker) {
        result.push_back(lhs);
      } else {
        // Charged by length: a chain of pastes copies its growing result.
        if (!spend(lhs.text.size() + rhs.front().text.size(), right, budget)) break;
        paste(lhs, rhs.front(), result);
      }
      result.insert(result.end(), rhs.begin() + 1, rhs.end());
      continue;
    }
    if (tok.param >= 0) {
      const size_t p = static_cast<size_t>(tok.param);
      if (k + 1 < n && body[k + 1].isPunct("##")) {
        if (args[p].empty()) {
          PPToken placemarker = tok;
          placemarker.kind = PPTokenKind::Placemarker;
          result.push_back(placemarker);
        } else {
          if (!spend(args[p].size(), tok, budget)) break;
          appendArg(args[p], tok.leadingSpace, result);
        }
      } else {
        const llvm::ArrayRef<PPToken> arg = expandedArg(p);
        if (!spend(arg.size(), tok, budget)) break;
        appendArg(arg, tok.leadingSpace, result);
      }
      continue;
    }
    result.push_back(tok);
  }
  std::erase_if(result, [](const PPToken& t) { return t.kind == PPTokenKind::Placemarker; });
}

PPToken MacroExpander::stringize(llvm::ArrayRef<PPToken> arg, bool leadingSpace) {
  std::string s = "\"";
  bool firstToken = true;
  for (const PPToken& tok : arg) {
    if (tok.kind == PPTokenKind::Placemarker) continue;
    if (!firstToken && tok.leadingSpace) s += ' ';
    firstToken = false;
    for (char c : tok.text) {
      if (c == '\n') {
        s += "\\n";
        continue;
      }
      if (tok.kind == PPTokenKind::Literal && (c == '"' || c == '\\')) s += '\\';
      s += c;
    }
  }
  s += '"';
  PPToken result;
  result.text = saver_.save(s);
  result.kind = PPTokenKind::Literal;
  result.leadingSpace = leadingSpace;
  result.loc = arg.empty() ? nullptr : arg.front().loc;
  result.fromExpansion = true;
  return result;
}

void MacroExpander::paste(const PPToken& lhs, const PPToken& rhs, std::vector<PPToken>& result) {
  llvm::StringRef joined = saver_.save(lhs.text.str() + rhs.text.str());
  // The result is lexed again; text that is not one token stays as the
  // tokens it lexes to (C leaves this undefined; Croqtile spellings such as
  // `.span` are not C tokens).
  const char* p = joined.begin();
  const char* end = joined.end();
  bool firstToken = true;
  bool space = false;
  while (p < end) {
    if (scan::isHorizontalSpace(*p) || *p == '\n') {
      ++p;
      space = true;
      continue;
    }
    PPToken tok = lhs;
    const char* q = scan::scanLexeme(p, end, tok.kind);
    tok.text = llvm::StringRef(p, static_cast<size_t>(q - p));
    tok.leadingSpace = firstToken ? lhs.leadingSpace : space;
    tok.noExpand = false;
    tok.param = -1;
    result.push_back(tok);
    firstToken = false;
    space = false;
    p = q;
  }
}

}  // namespace croqc::pp
