// The CUDA emitter's printer class, shared by CudaEmitter.cpp (the module,
// kernels and host wrappers) and CudaStmt.cpp (the statements of kernels and
// of host code). Private to compiler/codegen.
#pragma once

#include <llvm/ADT/StringMap.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/SourceMgr.h>

#include <string>
#include <vector>

#include "codegen/CudaEmitter.h"
#include "kir/KIR.h"

namespace croqc::codegen {

class Emitter {
 public:
  Emitter(const llvm::SourceMgr& sm, const CudaEmitOptions& options) : sm_(sm), options_(options) {}

  std::string run(const kir::Module& m);

 private:
  // ---- output with line counting ----
  void line(llvm::StringRef text) {
    out_.append(indent_ * 2, ' ');
    out_ += text.str();
    out_ += '\n';
    lines_ += 1 + static_cast<unsigned>(text.count('\n'));
  }
  void raw(llvm::StringRef text) {
    out_ += text.str();
    lines_ += static_cast<unsigned>(text.count('\n'));
  }
  // A `let` that its kernel (or host wrapper) may never read: where its
  // declaration starts (the line about to be printed) is noted, and
  // resolveLets puts `[[maybe_unused]] ` there when the text from `from` on
  // (whose identifiers `uses` counts) names the variable nowhere else (a
  // binding whose value the lowering folded into the expressions that use
  // it), so that nvcc does not warn about generated code.
  void noteLet(const std::string& var) { pendingLets_.push_back({out_.size() + indent_ * 2, var}); }
  void resolveLets(size_t from, const llvm::StringMap<unsigned>& uses);

  void backToOutput() { line(llvm::formatv("#line {0} \"{1}\"", lines_ + 2, options_.outputName).str()); }

  unsigned lineOf(llvm::SMLoc loc) const { return loc.isValid() ? sm_.getLineAndColumn(loc).first : 0; }

  // ---- the module, kernels and host wrappers (CudaEmitter.cpp) ----
  void hostText(const kir::TopItem& item);
  void kernel(const kir::Kernel& k);
  void function(const kir::Function& f);
  std::string runtimeSharedBytes(const kir::Kernel& k, llvm::StringRef function);
  void runtimeLocalBytes(const kir::Kernel& k, llvm::StringRef function);
  void launch(const kir::HostStmt& h, llvm::StringRef function);
  void cooperativeLaunch(const kir::Kernel& k, const std::string& grid, const std::string& shared,
                         const std::string& stream, const std::vector<std::string>& values);
  void tensorMap(const kir::HostStmt& h);

  // ---- statements (CudaStmt.cpp) ----
  void stmt(const kir::Stmt* s);
  void block(const std::vector<kir::Stmt*>& body);
  void controlFlow(const kir::Stmt* s);
  void scalar(const kir::Stmt* s);
  void scalarStmt(const kir::Stmt* s);
  void synchronisation(const kir::Stmt* s);
  void fragmentOp(const kir::Stmt* s);
  void ifStmt(const kir::Stmt* s);
  static const kir::Stmt* elseIfArm(const kir::Stmt* s);
  void copy(const kir::Stmt* s);
  void tmaLoad(const kir::Stmt* s);
  void tmaStore(const kir::Stmt* s);
  void wgmmaExec(const kir::Stmt* s);
  void atomLoad(const kir::Stmt* s);
  void atomStore(const kir::Stmt* s);
  std::string fragRef(const kir::Stmt* s);

  const llvm::SourceMgr& sm_;
  const CudaEmitOptions& options_;
  std::string out_;
  struct PendingLet {
    size_t offset;
    std::string var;
  };
  std::vector<PendingLet> pendingLets_;
  unsigned lines_ = 0;
  unsigned indent_ = 0;
  /// Printing statements a host wrapper runs (HostStmt::Code): the host
  /// compiler gets them, which knows no `#pragma unroll`.
  bool hostCode_ = false;
  /// `#pragma unroll` before a loop, where nvcc compiles it: not in host
  /// wrappers' code, nor anywhere on the CPU target (the host compiler warns
  /// about a pragma it does not know, and `-Werror` builds fail).
  void unrollPragma() {
    if (!hostCode_ && !options_.cpuTarget) line("#pragma unroll");
  }
};

}  // namespace croqc::codegen
