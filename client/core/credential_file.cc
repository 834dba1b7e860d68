// Credential file read/write; see the header.
#include "client/core/credential_file.h"

#include <vector>

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

}  // namespace ldp
