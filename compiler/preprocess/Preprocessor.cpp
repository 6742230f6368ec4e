// The preprocessor's entry point and its walk over the text: everything is
// copied verbatim except where a macro expands, and every output offset is
// recorded with the place it came from. Output keeps the input's line
// structure: removed lines become empty lines and a macro call spanning
// lines is followed by the newlines it covered.
#include "preprocess/Preprocessor.h"

#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstring>

#include "basic/Diagnostic.h"
#include "preprocess/PreprocessorImpl.h"

namespace croqc {
namespace pp {
namespace {

/// Whether printing `b` right after `a` would glue two tokens into one (or
/// start a comment), so that a space must separate an expansion from its
/// neighbours.
bool wouldPaste(char a, char b) {
  using scan::isDigit;
  using scan::isIdentChar;
  if (isIdentChar(a)) return isIdentChar(b) || b == '"' || b == '\'' || (isDigit(a) && b == '.');
  switch (a) {
    case '.': return isDigit(b) || b == '.' || b == '*';
    case '+': return b == '+' || b == '=';
    case '-': return b == '-' || b == '=' || b == '>';
    case '*':
    case '%':
    case '^':
    case '!': return b == '=';
    case '/': return b == '=' || b == '/' || b == '*';
    case '&': return b == '&' || b == '=';
    case '|': return b == '|' || b == '=';
    case '<': return b == '<' || b == '=' || b == '-';
    case '>': return b == '>' || b == '=';
    case '=': return b == '=' || b == '>';
    case ':': return b == ':';
    case '#': return b == '#' || b == '+' || b == '-' || b == '*' || b == '/' || b == '%';
    case '[': return b == '[';
    case ']': return b == ']';
    default: return false;
  }
}

}  // namespace

void Preprocessor::run(llvm::ArrayRef<MacroCommand> commandLine) {
  applyCommandLine(commandLine);
  out_.text.reserve(static_cast<size_t>(end_ - cur_) + 64);
  if (end_ - cur_ >= 3 && std::memcmp(cur_, "\xEF\xBB\xBF", 3) == 0) cur_ += 3;  // UTF-8 BOM
  scanText();
  reportUnterminatedConditionals();
  // Sentinel: offsets at or past the end map to the end of the buffer.
  out_.segments.push_back({out_.text.size(), end_, false});
}

void Preprocessor::addSegment(size_t outOffset, const char* orig, bool expansion) {
  std::vector<PreprocessedSource::Segment>& segments = out_.segments;
  if (!segments.empty()) {
    PreprocessedSource::Segment& last = segments.back();
    if (last.outOffset == outOffset) {
      last = {outOffset, orig, expansion};
      return;
    }
    if (!expansion && !last.expansion && last.origLoc + (outOffset - last.outOffset) == orig)
      return;
    if (expansion && last.expansion && last.origLoc == orig) return;
  }
  segments.push_back({outOffset, orig, expansion});
}

void Preprocessor::appendVerbatim(const char* from, const char* to) {
  if (suppressOutput_ || from >= to) return;
  addSegment(out_.text.size(), from, false);
  out_.text.append(from, to);
}

void Preprocessor::appendNewlinesIn(const char* from, const char* to, size_t skip) {
  if (suppressOutput_) return;
  while (from < to) {
    const void* nl = std::memchr(from, '\n', static_cast<size_t>(to - from));
    if (!nl) return;
    const char* p = static_cast<const char*>(nl);
    if (skip)
      --skip;
    else
      appendVerbatim(p, p + 1);
    from = p + 1;
  }
}

void Preprocessor::appendExpansion(const std::vector<PPToken>& tokens, const char* invocation) {
  std::string& text = out_.text;
  const size_t start = text.size();
  char prev = text.empty() ? '\n' : text.back();
  bool first = true;
  size_t newlines = 0;
  for (const PPToken& tok : tokens) {
    if (tok.text.empty() || tok.kind == PPTokenKind::Placemarker) continue;
    if ((!first && tok.leadingSpace) || wouldPaste(prev, tok.text.front())) text += ' ';
    text.append(tok.text.begin(), tok.text.end());
    if (tok.kind == PPTokenKind::Literal) newlines += static_cast<size_t>(tok.text.count('\n'));
    prev = tok.text.back();
    first = false;
  }
  if (text.size() > start) addSegment(start, invocation, true);
  appendNewlinesIn(invocation, cur_, newlines);
  if (cur_ < end_ && !text.empty() && wouldPaste(text.back(), *cur_)) {
    addSegment(text.size(), invocation, true);
    text += ' ';
  }
}

void Preprocessor::scanText() {
  const char* run = cur_;
  while (cur_ < end_) {
    if (atLineStart_) {
      const char* p = scan::skipBlanks(cur_, end_);
      atLineStart_ = false;
      if (p < end_ && *p == '#') {
        appendVerbatim(run, cur_);
        handleDirective(cur_, p);
        run = cur_;
        continue;
      }
      cur_ = p;
      continue;
    }
    if (skipTrivia()) continue;
    const char* start = cur_;
    PPTokenKind kind;
    cur_ = scan::scanLexeme(cur_, end_, kind);
    if (kind != PPTokenKind::Identifier || macros_.empty()) continue;
    Macro* macro = macros_.lookup(llvm::StringRef(start, static_cast<size_t>(cur_ - start)));
    if (!macro || (macro->functionLike && !peekSourceLParen())) continue;
    appendVerbatim(run, start);
    expandFromSource(start);
    run = cur_;
  }
  appendVerbatim(run, cur_);
}

void Preprocessor::expandFromSource(const char* nameStart) {
  PPToken name;
  name.text = llvm::StringRef(nameStart, static_cast<size_t>(cur_ - nameStart));
  name.loc = nameStart;
  name.kind = PPTokenKind::Identifier;
  expansion_.clear();
  invocation_ = name.text;
  ++suppressOutput_;
  SourceTokens source(*this);
  expander_.expandInvocation(name, source, expansion_);
  --suppressOutput_;
  invocation_ = {};
  appendExpansion(expansion_, nameStart);
}

bool Preprocessor::nextSourceToken(PPToken& tok) {
  bool space = false;
  while (cur_ < end_) {
    if (atLineStart_) {
      const char* p = scan::skipBlanks(cur_, end_);
      atLineStart_ = false;
      space = true;
      if (p < end_ && *p == '#')
        handleDirective(cur_, p);
      else
        cur_ = p;
      continue;
    }
    if (skipTrivia()) {
      space = true;
      continue;
    }
    tok = PPToken();
    const char* q = scan::scanLexeme(cur_, end_, tok.kind);
    tok.text = llvm::StringRef(cur_, static_cast<size_t>(q - cur_));
    tok.loc = cur_;
    tok.leadingSpace = space;
    cur_ = q;
    return true;
  }
  return false;
}

/// Steps over one newline, blank or comment at `cur_` (a newline starts a
/// line); returns false when `cur_` starts a lexeme instead.
bool Preprocessor::skipTrivia() {
  const char c = *cur_;
  if (c == '\n') {
    ++cur_;
    atLineStart_ = true;
  } else if (scan::isHorizontalSpace(c)) {
    ++cur_;
  } else if (c == '/' && cur_ + 1 < end_ && cur_[1] == '*') {
    cur_ = scan::skipBlockComment(cur_, end_);
  } else if (c == '/' && cur_ + 1 < end_ && cur_[1] == '/') {
    cur_ = scan::skipLineComment(cur_, end_);
  } else {
    return false;
  }
  return true;
}

bool Preprocessor::peekSourceLParen() const {
  const char* p = cur_;
  bool lineStart = atLineStart_;
  while (p < end_) {
    if (lineStart) {
      p = scan::skipBlanks(p, end_);
      if (p < end_ && *p == '#') return false;
      lineStart = false;
      continue;
    }
    const char c = *p;
    if (c == '\n') {
      ++p;
      lineStart = true;
    } else if (scan::isHorizontalSpace(c)) {
      ++p;
    } else if (c == '/' && p + 1 < end_ && p[1] == '*') {
      p = scan::skipBlockComment(p, end_);
    } else if (c == '/' && p + 1 < end_ && p[1] == '/') {
      p = scan::skipLineComment(p, end_);
    } else {
      return c == '(';
    }
  }
  return false;
}

}  // namespace pp

llvm::SMLoc PreprocessedSource::originalLoc(size_t offset) const {
  if (segments.empty()) return {};
  offset = std::min(offset, text.size());
  auto it = std::upper_bound(segments.begin(), segments.end(), offset,
                             [](size_t off, const Segment& s) { return off < s.outOffset; });
  if (it == segments.begin()) return llvm::SMLoc::getFromPointer(segments.front().origLoc);
  --it;
  if (it->expansion) return llvm::SMLoc::getFromPointer(it->origLoc);
  return llvm::SMLoc::getFromPointer(it->origLoc + (offset - it->outOffset));
}

void PreprocessedSource::printWithLineMarkers(llvm::raw_ostream& os, llvm::StringRef fileName,
                                              const llvm::SourceMgr& sm) const {
  std::string quoted;
  for (char c : fileName) {
    if (c == '\\' || c == '"') quoted += '\\';
    quoted += c;
  }
  auto marker = [&](unsigned line) { os << "#line " << line << " \"" << quoted << "\"\n"; };
  unsigned expected = 0;  // the original line the next output line shows, if no marker
  size_t pos = 0;
  if (text.empty()) marker(1);
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t next = eol == std::string::npos ? text.size() : eol + 1;
    llvm::SMLoc loc = originalLoc(pos);
    unsigned line = 0;
    if (loc.isValid() && sm.FindBufferContainingLoc(loc) != 0) line = sm.FindLineNumber(loc);
    if (line != 0 && line != expected) {
      marker(line);
      expected = line;
    } else if (expected == 0) {
      marker(1);
      expected = 1;
    }
    os << llvm::StringRef(text).slice(pos, next);
    pos = next;
    ++expected;
  }
}

bool preprocess(unsigned bufferId, llvm::ArrayRef<MacroCommand> commandLine,
                DiagnosticEngine& diags, PreprocessedSource& out) {
  const unsigned errorsBefore = diags.errorCount();
  const llvm::MemoryBuffer* buffer = diags.sourceMgr().getMemoryBuffer(bufferId);
  out = PreprocessedSource();
  pp::Preprocessor(buffer->getBuffer(), diags, out).run(commandLine);
  return diags.errorCount() == errorsBefore && !diags.shouldStop();
}

}  // namespace croqc