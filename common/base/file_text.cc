// Whole-file reads with one error contract; see the header.
#include "common/base/file_text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

std::string Named(std::string_view what, const std::string& path) {
  return what.empty() ? path : absl::StrCat(std::string(what), " ", path);
}

absl::Status OpenError(std::string_view what, const std::string& path,
                       int error) {
  const std::string message =
      absl::StrCat(Named(what, path), ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) {
    return absl::PermissionDeniedError(message);
  }
  return absl::FailedPreconditionError(message);
}

}  // namespace

absl::StatusOr<std::string> ReadFileText(const std::string& path,
                                         std::string_view what) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"),
                                             &std::fclose);
  if (file == nullptr) return OpenError(what, path, errno);
  std::string text;
  char buffer[1 << 14];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0) {
    text.append(buffer, got);
  }
  if (std::ferror(file.get())) {
    // fopen succeeds on a directory; the first read then fails with EISDIR.
    const int error = errno;
    if (error == EISDIR) return OpenError(what, path, error);
    return absl::DataLossError(absl::StrCat(
        Named(what, path), ": read failed part way: ", std::strerror(error)));
  }
  return text;
}

absl::StatusOr<std::string> ReadPemFile(const std::string& path,
                                        std::string_view what) {
  absl::StatusOr<std::string> text = ReadFileText(path, what);
  if (text.ok() && !absl::StrContains(*text, "-----BEGIN ")) {
    return absl::InvalidArgumentError(absl::StrCat(
        Named(what, path), " is not a PEM file (no -----BEGIN line)"));
  }
  return text;
}

}  // namespace ldp
