// The agent's enrollment credential on disk (<state_dir>/credential), and
// the request id of an enrollment in progress.
//
// Enrolling once and keeping the credential is what makes an agent one
// agent: re-enrolling on every start would present the server with a fresh
// identity, whose ledger starts at zero. The file holds a bearer secret, so
// it is written atomically with mode 0600:
//   agent_id <id>
//   bearer_token <token>
#ifndef LDP_CLIENT_CORE_CREDENTIAL_FILE_H_
#define LDP_CLIENT_CORE_CREDENTIAL_FILE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ldp {

struct StoredCredential {
  uint64_t agent_id = 0;
  std::string bearer_token{};
  friend bool operator==(const StoredCredential&,
                         const StoredCredential&) = default;
};

// InvalidArgument for an empty or whitespace-containing token.
absl::Status SaveCredential(const std::string& path,
                            const StoredCredential& credential);
// nullopt if the file does not exist; DataLoss if it is damaged.
absl::StatusOr<std::optional<StoredCredential>> LoadCredential(
    const std::string& path);

// The request id of an enrollment not yet finished
// (<state_dir>/enrollment_request, one line of hex, mode 0600): saved
// before the first try and sent on every try until the credential is
// saved, so that a retry, even by an agent restarted after a crash, names
// the same enrollment and gets the agent a lost reply carried. It stands
// for the credential (the bearer token derives from it): the file goes once
// the credential is saved.
//
// The saved id, or `fresh` (16 to 64 bytes) saved first if there is none;
// InvalidArgument for a bad `fresh`, DataLoss for a damaged file.
absl::StatusOr<std::string> LoadOrSaveEnrollmentRequest(
    const std::string& path, const std::string& fresh);
// Removes the file; OK if there is none.
absl::Status RemoveEnrollmentRequest(const std::string& path);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_CREDENTIAL_FILE_H_
