// Names of AST enumerations, for dumps and diagnostics.
#include "ast/AST.h"

namespace croqc::ast {

llvm::StringRef nodeKindName(NodeKind kind) {
  switch (kind) {
#define EXPR(Name) \
  case NodeKind::Name##Expr: return #Name "Expr";
#define STMT(Name) \
  case NodeKind::Name##Stmt: return #Name "Stmt";
#define TOP(Name) \
  case NodeKind::Name: return #Name;
#include "ast/ASTNodes.def"
  }
  return "?";
}

llvm::StringRef storageName(Storage s) {
  switch (s) {
    case Storage::None: return "";
    case Storage::Global: return "global";
    case Storage::Shared: return "shared";
    case Storage::Local: return "local";
  }
  return "";
}

llvm::StringRef parallelLevelName(ParallelLevel level) {
  switch (level) {
    case ParallelLevel::None: return "";
    case ParallelLevel::Term: return "term";
    case ParallelLevel::Device: return "device";
    case ParallelLevel::Cluster: return "cluster";
    case ParallelLevel::Block: return "block";
    case ParallelLevel::Group4: return "group-4";
    case ParallelLevel::Group: return "group";
    case ParallelLevel::Thread: return "thread";
  }
  return "";
}

}  // namespace croqc::ast
