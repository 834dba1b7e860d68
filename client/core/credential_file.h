// The agent's enrollment credential on disk (<state_dir>/credential).
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

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_CREDENTIAL_FILE_H_
