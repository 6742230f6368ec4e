// Colour detection for diagnostics on stderr.
#include "basic/Color.h"

#include <llvm/Support/Process.h>

namespace croqc {

bool shouldColorStderr(ColorMode mode) {
  switch (mode) {
    case ColorMode::Always: return true;
    case ColorMode::Never: return false;
    case ColorMode::Auto: break;
  }
  if (auto noColor = llvm::sys::Process::GetEnv("NO_COLOR"); noColor && !noColor->empty()) return false;
  return llvm::sys::Process::StandardErrHasColors();
}

}  // namespace croqc
