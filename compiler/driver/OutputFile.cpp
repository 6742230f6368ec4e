// Output files: what the `-o` path names decides how it is written
// (OutputFile.h lists the cases).
#include "driver/OutputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/vfs.h>
#endif

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Signals.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <climits>
#include <system_error>

namespace croqc::driver {
namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's ELOOP limit

std::string errnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

/// The kernel file system that `path` (followed) lives on, if it is one whose
/// files are kernel interfaces rather than storage: "proc" or "sys".
const char* kernelFileSystem(const std::string& path) {
#ifdef __linux__
  struct statfs fs;
  if (::statfs(path.c_str(), &fs) != 0) return nullptr;
  if (fs.f_type == PROC_SUPER_MAGIC) return "proc";
  if (fs.f_type == SYSFS_MAGIC) return "sys";
#else
  (void)path;
#endif
  return nullptr;
}

/// Writes all of `contents` to `fd`. Returns 0 or an errno value.
int writeAll(int fd, llvm::StringRef contents) {
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return 0;
}

std::optional<std::string> writeToStdout(llvm::StringRef contents) {
  llvm::outs() << contents;
  llvm::outs().flush();
  if (!llvm::outs().has_error()) return std::nullopt;
  std::string reason = llvm::outs().error().message();
  llvm::outs().clear_error();
  return reason;
}

/// What a write to the path reaches once symlinks are followed.
struct Destination {
  std::string path;       // the last path reached (a symlink's target, ...)
  bool exists = false;
  struct stat st = {};    // of `path` followed, when it exists
  bool magicLink = false; // a link of /proc (`/proc/self/fd/1`): opened, never resolved
};

/// Follows the symlinks at the end of `path`. A link inside /proc is not
/// resolved by hand: what it names may be no path at all (`pipe:[42]`), and
/// open() follows it as the kernel means.
std::optional<std::string> resolve(llvm::StringRef path, Destination& dest) {
  std::string p = path.str();
  for (int links = 0;; ++links) {
    struct stat lst;
    if (::lstat(p.c_str(), &lst) != 0) {
      if (errno != ENOENT) return errnoText(errno);
      dest.path = p;
      dest.exists = false;
      return std::nullopt;
    }
    dest.path = p;
    dest.exists = true;
    if (!S_ISLNK(lst.st_mode)) {
      dest.st = lst;
      return std::nullopt;
    }
    if (links == kMaxSymlinks) return errnoText(ELOOP);
    llvm::StringRef parent = llvm::sys::path::parent_path(p);
    if (const char* fs = kernelFileSystem(parent.empty() ? "." : parent.str()); fs && llvm::StringRef(fs) == "proc") {
      dest.magicLink = true;
      if (::stat(p.c_str(), &dest.st) != 0) return errnoText(errno);
      return std::nullopt;
    }
    char buffer[PATH_MAX];
    ssize_t n = ::readlink(p.c_str(), buffer, sizeof buffer);
    if (n < 0) return errnoText(errno);
    llvm::SmallString<256> target(llvm::StringRef(buffer, static_cast<size_t>(n)));
    if (llvm::sys::path::is_relative(target)) {
      llvm::SmallString<256> joined(parent);
      llvm::sys::path::append(joined, target);
      target = joined;
    }
    p = std::string(target);
  }
}

bool sameFile(const struct stat& a, int fd) {
  struct stat b;
  return ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/// Opens `path` for writing as it is (no creation) and writes `contents`.
std::optional<std::string> writeInPlace(const std::string& path, llvm::StringRef contents, bool truncate) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (truncate ? O_TRUNC : 0));
  if (fd < 0) return errnoText(errno);
  int err = writeAll(fd, contents);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return errnoText(err);
  return std::nullopt;
}

/// The permissions the output gets: an existing file's own, else the usual
/// ones for a new file (the umask applies).
unsigned outputPermissions(const Destination& dest, OutputMode mode) {
  if (!dest.exists) return mode == OutputMode::Executable ? 0777 : 0666;
  unsigned perms = dest.st.st_mode & 07777;
  // An executable may be read by whoever may read the file it replaces.
  if (mode == OutputMode::Executable) perms |= (perms & 0444) >> 2;
  return perms;
}

/// A temporary file next to `dest.path`, renamed over it when complete.
/// Returns nullopt on success; `noTemporary` is set when the temporary file
/// could not be created at all (the directory takes no new files).
std::optional<std::string> writeAtomically(const Destination& dest, llvm::StringRef contents, OutputMode mode,
                                           bool& noTemporary) {
  llvm::StringRef parent = llvm::sys::path::parent_path(dest.path);
  llvm::SmallString<256> model(parent);
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(dest.path) + "-%%%%%%.tmp");
  int fd = -1;
  llvm::SmallString<256> temp;
  unsigned perms = outputPermissions(dest, mode);
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp, llvm::sys::fs::OF_None, perms)) {
    noTemporary = true;
    if (ec == std::errc::no_such_file_or_directory && !parent.empty() && !llvm::sys::fs::is_directory(parent))
      return "directory `" + parent.str() + "` does not exist";
    return ec.message();
  }
  llvm::sys::RemoveFileOnSignal(temp);
  auto discard = [&](int err) -> std::optional<std::string> {
    ::close(fd);
    llvm::sys::fs::remove(temp);
    llvm::sys::DontRemoveFileOnSignal(temp);
    return errnoText(err);
  };
  if (dest.exists) {
    // Replacing a file keeps what it was: its permissions and, where croqc
    // may set it (as root), its owner.
    if (::fchmod(fd, perms) != 0) return discard(errno);
    if (dest.st.st_uid != ::geteuid() || dest.st.st_gid != ::getegid())
      (void)!::fchown(fd, dest.st.st_uid, dest.st.st_gid);
  }
  if (int err = writeAll(fd, contents)) return discard(err);
  if (::close(fd) != 0) {
    int err = errno;
    llvm::sys::fs::remove(temp);
    llvm::sys::DontRemoveFileOnSignal(temp);
    return errnoText(err);
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, dest.path)) {
    llvm::sys::fs::remove(temp);
    llvm::sys::DontRemoveFileOnSignal(temp);
    return ec.message();
  }
  llvm::sys::DontRemoveFileOnSignal(temp);
  return std::nullopt;
}

std::optional<std::string> writeRegularFile(const Destination& dest, llvm::StringRef contents, OutputMode mode) {
  if (dest.exists) {
    if (const char* fs = kernelFileSystem(dest.path))
      return std::string("it is a file of the kernel's `") + fs + "` file system, not an output file";
    if (::access(dest.path.c_str(), W_OK) != 0) return errnoText(errno);
    // Replacing one name of a file with several would split it from the others.
    if (dest.st.st_nlink > 1) return writeInPlace(dest.path, contents, /*truncate=*/true);
  }
  bool noTemporary = false;
  std::optional<std::string> failure = writeAtomically(dest, contents, mode, noTemporary);
  // A writable file in a directory that takes no new files (not ours, read
  // only) is still written, in place.
  if (failure && noTemporary && dest.exists) return writeInPlace(dest.path, contents, /*truncate=*/true);
  return failure;
}

}  // namespace

std::optional<std::string> writeOutputFile(llvm::StringRef path, llvm::StringRef contents, OutputMode mode) {
  if (path == "-") return writeToStdout(contents);
  Destination dest;
  if (std::optional<std::string> failure = resolve(path, dest)) return failure;
  if (!dest.exists) return writeRegularFile(dest, contents, mode);
  const struct stat& st = dest.st;
  if (S_ISDIR(st.st_mode)) return errnoText(EISDIR);
  if (S_ISBLK(st.st_mode)) return std::string("it is a block device, not an output file");
  if (S_ISSOCK(st.st_mode)) return std::string("it is a socket, not an output file");
  if (dest.magicLink) {
    // `/dev/stdout` and the like: croqc's own streams are written as streams
    // (a file opened for appending stays so), anything else in place.
    if (sameFile(st, STDOUT_FILENO)) return writeToStdout(contents);
    if (sameFile(st, STDERR_FILENO)) {
      if (int err = writeAll(STDERR_FILENO, contents)) return errnoText(err);
      return std::nullopt;
    }
    return writeInPlace(dest.path, contents, /*truncate=*/S_ISREG(st.st_mode));
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return writeInPlace(dest.path, contents, /*truncate=*/false);
  return writeRegularFile(dest, contents, mode);
}

}  // namespace croqc::driver
