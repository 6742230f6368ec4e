// Writing croqc's outputs (`-o`) without ever breaking what the path names:
// regular files are replaced atomically, devices and FIFOs are written to,
// symlinks are followed, and a path that cannot take output says why.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <optional>
#include <string>

namespace croqc::driver {

/// How the output is made executable or not.
enum class OutputMode { Text, Executable };

/// Writes `contents` to the output `path`:
///  * `-`: standard output;
///  * a symlink: followed to the path it names (the link stays);
///  * a new path, or a regular file with one link: a temporary file in the
///    same directory, renamed over `path` once complete (an existing file's
///    permissions are kept; a failed write leaves `path` as it was);
///  * a regular file with several hard links, or one in a directory where no
///    temporary can be made: written in place, so every link sees the output;
///  * a character device (`/dev/null`), a FIFO, or this process's own
///    standard output or error (`/dev/stdout`, `/proc/self/fd/1`): written
///    directly, never replaced;
///  * a directory, a block device, a socket, or a file of the kernel's
///    `proc`/`sys` file systems: refused.
/// Returns nullopt on success, otherwise why the output could not be written
/// (a sentence fragment for `cannot write `path`: ...`). Temporary files are
/// removed if croqc is killed by a signal meanwhile.
std::optional<std::string> writeOutputFile(llvm::StringRef path, llvm::StringRef contents,
                                           OutputMode mode = OutputMode::Text);

}  // namespace croqc::driver
