// Semantic analysis: gives the AST its meaning (scopes, types, symbolic
// shapes, normalised parallel levels) and checks every rule of the language
// that can be checked before the GPU runs (spec sections 4-17).
#pragma once

#include <llvm/ADT/StringRef.h>

#include <memory>

#include "sema/SemaTypes.h"

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc {

class DiagnosticEngine;

namespace sema {

struct SemaOptions {
  /// A target of target/Targets.def (`sm_86`, `sm_90a`, `cpu`, ...): per-target
  /// limits and legal MMA shapes.
  llvm::StringRef arch = "sm_86";
};

/// Analyses `program`. Errors go to `diags`; the result is complete as far as
/// analysis got (erroneous values have TypeKind::Error).
std::unique_ptr<SemaResult> analyze(const ast::Program& program, const SemaOptions& options,
                                    DiagnosticEngine& diags);

/// `--emit=sema`: every symbol with its scope-qualified name, kind, type,
/// storage and symbolic shape, then every kernel's normalised parallel
/// levels, in source order.
void dumpSema(const SemaResult& result, const llvm::SourceMgr& sm, llvm::raw_ostream& os);

/// `f16 [M, K]`, `int`, `future f32 [64, 64] (async)`, ... (dumps and
/// diagnostics).
std::string printType(const Type& t);
std::string printShape(llvm::ArrayRef<const SymExpr*> shape);

}  // namespace sema
}  // namespace croqc
