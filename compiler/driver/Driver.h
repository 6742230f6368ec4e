// The croqc driver: command line in, exit status out. tools/croqc/main.cpp
// sets up crash handling and calls `runDriver`.
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include <string>

namespace croqc::driver {

/// croqc's exit status (docs/cli.md).
enum ExitCode : int {
  ExitSuccess = 0,
  /// Errors in the input or on the command line.
  ExitUserError = 1,
  /// A crash or a broken invariant inside croqc (EX_SOFTWARE of sysexits.h).
  ExitInternalError = 70,
};

/// Runs croqc on `args` (without the program name): parses the command line,
/// reads the input, runs the pipeline and writes the output.
ExitCode runDriver(llvm::ArrayRef<std::string> args);

}  // namespace croqc::driver
