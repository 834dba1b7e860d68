// Temporary file + fsync + rename + directory fsync; see the header.
#include "client/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"

namespace ldp {
namespace {

absl::Status ErrnoError(absl::string_view what, const std::string& path) {
  return absl::InternalError(
      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

absl::Status WriteAll(int fd, absl::string_view contents,
                      const std::string& path) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("cannot write", path);
    }
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open directory", directory);
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) return ErrnoError("cannot fsync directory", directory);
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents, int mode) {
  const std::string temporary = absl::StrCat(path, ".tmp");
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return ErrnoError("cannot create", temporary);
  absl::Status status = WriteAll(fd, contents, temporary);
  if (status.ok() && ::fsync(fd) != 0) {
    status = ErrnoError("cannot fsync", temporary);
  }
  if (::close(fd) != 0 && status.ok()) {
    status = ErrnoError("cannot close", temporary);
  }
  if (status.ok() && ::rename(temporary.c_str(), path.c_str()) != 0) {
    status = ErrnoError("cannot rename onto", path);
  }
  if (!status.ok()) {
    ::unlink(temporary.c_str());
    return status;
  }
  return SyncDirectory(DirectoryOf(path));
}

absl::StatusOr<std::optional<std::string>> ReadFileIfExists(
    const std::string& path) {
  absl::StatusOr<std::string> contents = ReadFileText(path, "");
  if (absl::IsNotFound(contents.status())) return std::nullopt;
  if (!contents.ok()) return contents.status();
  return *std::move(contents);
}

}  // namespace ldp
