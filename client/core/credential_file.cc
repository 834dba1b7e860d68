// Credential file read/write; see the header.
#include "client/core/credential_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "client/core/atomic_file.h"
#include "common/base/status_macros.h"

namespace ldp {

absl::Status SaveCredential(const std::string& path,
                            const StoredCredential& credential) {
  if (credential.bearer_token.empty() ||
      credential.bearer_token.find_first_of(" \t\r\n") != std::string::npos) {
    return absl::InvalidArgumentError(
        "bearer token must be non-empty and contain no whitespace");
  }
  return WriteFileAtomically(
      path, absl::StrCat("agent_id ", credential.agent_id, "\nbearer_token ",
                         credential.bearer_token, "\n"));
}

absl::StatusOr<std::optional<StoredCredential>> LoadCredential(
    const std::string& path) {
  ASSIGN_OR_RETURN(const std::optional<std::string> text,
                   ReadFileIfExists(path));
  if (!text.has_value()) return std::nullopt;
  std::vector<absl::string_view> lines =
      absl::StrSplit(*text, '\n', absl::SkipEmpty());
  StoredCredential credential;
  if (lines.size() != 2 || !absl::ConsumePrefix(&lines[0], "agent_id ") ||
      !absl::SimpleAtoi(lines[0], &credential.agent_id) ||
      !absl::StartsWith(lines[1], "bearer_token ") || lines[1].size() <= 13) {
    return absl::DataLossError(absl::StrCat(
        path, " is not a credential file (agent_id / bearer_token lines)"));
  }
  credential.bearer_token = std::string(lines[1].substr(13));
  return credential;
}

absl::StatusOr<std::string> LoadOrSaveEnrollmentRequest(
    const std::string& path, const std::string& fresh) {
  constexpr size_t kMinBytes = 16, kMaxBytes = 64;
  ASSIGN_OR_RETURN(const std::optional<std::string> text,
                   ReadFileIfExists(path));
  if (text.has_value()) {
    const absl::string_view hex = absl::StripTrailingAsciiWhitespace(*text);
    const bool digits = std::all_of(hex.begin(), hex.end(), [](char c) {
      return absl::ascii_isxdigit(static_cast<unsigned char>(c));
    });
    if (!digits || hex.size() % 2 != 0 || hex.size() < 2 * kMinBytes ||
        hex.size() > 2 * kMaxBytes) {
      return absl::DataLossError(absl::StrCat(
          path,
          " is not an enrollment request id (32 to 128 hex digits); "
          "delete it to enroll afresh"));
    }
    return absl::HexStringToBytes(hex);
  }
  if (fresh.size() < kMinBytes || fresh.size() > kMaxBytes) {
    return absl::InvalidArgumentError(
        "an enrollment request id has 16 to 64 bytes");
  }
  RETURN_IF_ERROR(WriteFileAtomically(
      path, absl::StrCat(absl::BytesToHexString(fresh), "\n")));
  return fresh;
}

absl::Status RemoveEnrollmentRequest(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return absl::InternalError(
        absl::StrCat("cannot remove ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace ldp
