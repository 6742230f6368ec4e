// The parser's internal interface, shared by Parser.cpp (top level, types),
// ParseStmt.cpp (statements) and ParseExpr.cpp (expressions).
#pragma once

#include <llvm/ADT/SmallVector.h>

#include <optional>
#include <string>
#include <vector>

#include "ast/AST.h"
#include "basic/Diagnostic.h"
#include "lex/Token.h"

namespace croqc {

/// Operators that form a compound assignment when followed by `=` (there are
/// no `+=` tokens: spec 1.2).
inline bool isCompoundAssignOp(TokenKind k) {
  switch (k) {
    case TokenKind::plus:
    case TokenKind::minus:
    case TokenKind::star:
    case TokenKind::slash:
    case TokenKind::percent:
    case TokenKind::amp:
    case TokenKind::pipe:
    case TokenKind::caret:
    case TokenKind::lessless:
    case TokenKind::greatergreater: return true;
    default: return false;
  }
}

class Parser {
 public:
  Parser(llvm::ArrayRef<Token> tokens, ast::ASTContext& ctx, DiagnosticEngine& diags);
  ast::Program* parseProgram();

 private:
  /// Deeper nesting than this is reported instead of recursing further, so
  /// that no input can exhaust the stack.
  static constexpr unsigned kMaxNesting = 256;
  /// Arms of one `else if` chain: read in a loop, but sema and lowering walk
  /// the chain as the nested `if`s it means.
  static constexpr unsigned kMaxElseIfArms = 2048;

  // Token stream.
  const Token& tok() const { return toks_[pos_]; }
  const Token& peek(unsigned ahead) const;
  Token consume();
  bool consumeIf(TokenKind k);
  bool expect(TokenKind k, llvm::StringRef what = {});
  bool expectClose(TokenKind close, const Token& open);
  void splitFront(TokenKind first);
  void splitAttrOpen();
  llvm::SMRange rangeFrom(llvm::SMLoc start) const;
  static std::string describe(const Token& t);

  /// Reports `kind` at the current token, once per statement: after the
  /// first error of a statement the rest is skipped, so cascades are avoided.
  template <typename... Args>
  void error(DiagKind kind, const Args&... args) {
    if (!failed_) diags_.report(tok().loc, kind, args...).range(tok().range());
    failed_ = true;
  }
  template <typename... Args>
  void errorAt(llvm::SMRange r, DiagKind kind, const Args&... args) {
    if (!failed_) diags_.report(r.Start, kind, args...).range(r);
    failed_ = true;
  }

  void skipStatement();
  void skipToTopLevel();
  /// Enters one level of the AST being built: a nested expression, block or
  /// statement, or one more link of a left-deep chain (`a + b + c`,
  /// `x.span.span`), which later phases walk recursively too. Past
  /// kMaxNesting it reports once and returns false, and the caller gives up
  /// without calling leaveNesting().
  bool enterNesting();
  void leaveNesting() { --depth_; }

  // Top level and types (Parser.cpp).
  ast::CoFunction* parseCoFunction();
  std::optional<ast::TypeRef> parseReturnType();
  std::optional<ast::TypeRef> parseParamType();
  std::optional<llvm::ArrayRef<ast::Expr*>> parseShapeList();
  std::optional<ast::Param> parseParam();
  ast::Storage parseStorage();
  std::optional<unsigned> parseSmallInt();
  static bool startsType(const Token& t);
  static TokenKind canonicalElementType(TokenKind k);
  static llvm::StringRef deviceFunctionName(llvm::StringRef text);

  // Statements (ParseStmt.cpp).
  ast::CompoundStmt* parseCompound();
  ast::Stmt* parseBody();
  void parseStatementInto(llvm::SmallVectorImpl<ast::Stmt*>& out);
  ast::Stmt* parseStatementOrNull(llvm::SmallVectorImpl<ast::Stmt*>& out);
  bool expectSemi(llvm::StringRef after);
  ast::Stmt* parseWithAttributes(llvm::SmallVectorImpl<ast::Stmt*>& out);
  std::optional<ast::Attribute> parseAttribute();
  ast::Stmt* parseParallel(llvm::ArrayRef<ast::Attribute> attrs);
  std::optional<ast::ParallelBinding> parseParallelBinding();
  bool parseLevel(ast::ParallelLevel& level);
  ast::Stmt* parseWith();
  ast::Stmt* parseForeach();
  std::optional<ast::IterBinding> parseIterBinding(bool allowBare);
  bool parseRangeSuffix(ast::IterBinding& b);
  ast::Expr* parseIterSpace();
  ast::Stmt* parseWhile();
  ast::Stmt* parseIf();
  ast::Stmt* parseInthreads();
  ast::Stmt* parseApply();
  ast::Stmt* parseDma(llvm::StringRef future, llvm::SMLoc start);
  bool parseDmaModifiers(ast::DmaStmt* dma, llvm::SmallVectorImpl<ast::DmaModifier>& mods);
  ast::Stmt* parseMma(llvm::StringRef result, llvm::SMLoc start, llvm::ArrayRef<ast::Attribute> attrs);
  ast::Stmt* parseMmaExec(llvm::StringRef result, llvm::SMLoc start, llvm::ArrayRef<ast::Attribute> attrs);
  ast::Stmt* parseFragOp();
  ast::Stmt* parseWait();
  ast::Stmt* parseTrigger();
  ast::Stmt* parseSwap();
  ast::Stmt* parseReturn();
  ast::Stmt* parseSync();
  ast::Stmt* parseCpp();
  ast::Stmt* parseAsm();
  std::optional<llvm::SmallVector<ast::AsmOperand, 4>> parseAsmOperands();
  ast::Stmt* parsePrint();
  ast::Stmt* parseAssert();
  ast::Stmt* parseMdspanDecl();
  ast::Stmt* parseItupleDecl();
  ast::Stmt* parseStorageDecl();
  ast::Stmt* parseSpannedDecl(ast::Storage storage, llvm::SMLoc start);
  ast::Stmt* parseFragDecl();
  ast::Stmt* parseEventDecl(ast::Storage storage, llvm::SMLoc start);
  ast::Stmt* parseScalarDecl(ast::Storage storage, llvm::SMLoc start);
  std::optional<ast::Declarator> parseDeclarator(bool allowArray, bool allowBraceInit, bool eventInit);
  void parseSimpleStatement(llvm::SmallVectorImpl<ast::Stmt*>& out);
  ast::Stmt* parseAssignmentTail(ast::Expr* target, llvm::SMLoc start);
  std::optional<llvm::StringRef> parseStringLiterals(llvm::SMRange* range = nullptr);

  // Expressions (ParseExpr.cpp).
  ast::Expr* parseExpr();
  ast::Expr* parseConditional();
  ast::Expr* parseBinary(int minPrec);
  ast::Expr* parsePrefix();
  ast::Expr* parseBitwise();
  ast::Expr* parseCompose();
  ast::Expr* parseTilde();
  ast::Expr* parsePostfix();
  ast::Expr* parsePostfixTail(ast::Expr* base, llvm::SMLoc start);
  ast::Expr* parsePostfixOp(ast::Expr* base, llvm::SMLoc start);
  static bool startsPostfixOp(const Token& t);
  ast::Expr* parsePrimary();
  ast::Expr* parseCallKeyword();
  ast::Expr* parseCast();
  ast::Expr* parseSizeOf();
  ast::Expr* parseNumber(bool negative, llvm::SMLoc start);
  ast::Expr* parseAngleArg();
  std::optional<llvm::ArrayRef<ast::Expr*>> parseAngleArgs();
  std::optional<llvm::ArrayRef<ast::Expr*>> parseArgList(TokenKind close, const Token& open);
  std::optional<llvm::StringRef> parseQualifiedName();
  static int binaryPrecedence(TokenKind k);
  static bool isViewMethod(TokenKind k);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  llvm::SMLoc prevEnd_;
  ast::ASTContext& ctx_;
  DiagnosticEngine& diags_;
  unsigned depth_ = 0;
  bool failed_ = false;
  bool tooDeepReported_ = false;
  bool unterminated_ = false;
  /// Inside `|...|` a `|` ends the operand instead of being bitwise or.
  bool inSizeOf_ = false;
  /// Inside `<...>` argument lists `>` ends the list.
  bool inAngle_ = false;

  /// Inside brackets (`(...)`, `[...]`, `{...}`) neither `|` nor `>` ends
  /// an enclosing `|...|` or `<...>`: this guard clears both for its
  /// lifetime and restores them after.
  class BracketScope {
   public:
    explicit BracketScope(Parser& p) : p_(p), sizeOf_(p.inSizeOf_), angle_(p.inAngle_) {
      p.inSizeOf_ = p.inAngle_ = false;
    }
    ~BracketScope() {
      p_.inSizeOf_ = sizeOf_;
      p_.inAngle_ = angle_;
    }
    BracketScope(const BracketScope&) = delete;
    BracketScope& operator=(const BracketScope&) = delete;

   private:
    Parser& p_;
    bool sizeOf_;
    bool angle_;
  };

  /// `'{' IDENT {',' IDENT} '}'`: the names of a tuple binding.
  std::optional<llvm::ArrayRef<llvm::StringRef>> parseNameTuple(llvm::StringRef what);
};

}  // namespace croqc
