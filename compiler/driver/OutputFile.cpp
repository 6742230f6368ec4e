// Atomic output files: temporary file + rename.
#include "driver/OutputFile.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/raw_ostream.h>

namespace croqc::driver {

std::error_code writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  // Same directory as `path`, so that the rename stays on one file system.
  llvm::SmallString<256> model(llvm::sys::path::parent_path(path));
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(path) + "-%%%%%%.tmp");
  int fd = -1;
  llvm::SmallString<256> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp)) return ec;
  llvm::sys::RemoveFileOnSignal(temp);

  auto discard = [&](std::error_code ec) {
    llvm::sys::fs::remove(temp);
    llvm::sys::DontRemoveFileOnSignal(temp);
    return ec;
  };
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return discard(ec);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) return discard(ec);
  llvm::sys::DontRemoveFileOnSignal(temp);
  return {};
}

}  // namespace croqc::driver
