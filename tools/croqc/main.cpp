// croqc: compiles Croqtile (.co) GPU kernels. This file only sets up crash
// handling; the driver (compiler/driver/) does the rest.
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/InitLLVM.h>
#include <llvm/Support/PrettyStackTrace.h>

#include <string>
#include <vector>

#include "driver/Driver.h"

int main(int argc, const char** argv) {
  // Stack dump on a crash, naming the pass that was running (Pipeline.cpp
  // pushes a PrettyStackTraceEntry per pass); a broken stdout pipe exits
  // quietly.
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::setBugReportMsg(
      "PLEASE report this croqc crash with the input file, the command line and this stack dump.\n");
  // Lets the pipeline catch a crash in a pass, report it as an internal
  // compiler error and exit with status 70.
  llvm::CrashRecoveryContext::Enable();

  std::vector<std::string> args(argv + 1, argv + argc);
  return croqc::driver::runDriver(args);
}
