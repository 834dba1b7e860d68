// Agent bearer credentials: issue, parse, and check without storing secrets.
//
// A token is "<agent_id>.<64 hex digits>": the id lets the server find the
// agent's record with one lookup, the 32 random bytes are the secret. The
// server keeps only SHA-256 of the secret, so a stolen database cannot
// impersonate agents, and compares hashes in constant time.
#ifndef LDP_SERVER_CORE_CREDENTIAL_H_
#define LDP_SERVER_CORE_CREDENTIAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "server/store/store.h"

namespace ldp {

struct IssuedCredential {
  std::string bearer_token;
  CredentialHash hash;  // what the store keeps
};

// Draws the 32-byte secret from `gen` (SecureRandom in production).
IssuedCredential IssueCredential(uint64_t agent_id, absl::BitGenRef gen);

struct ParsedToken {
  uint64_t agent_id = 0;
  CredentialHash hash;  // SHA-256 of the presented secret
};

// UNAUTHENTICATED unless `token` has the issued shape.
absl::StatusOr<ParsedToken> ParseBearerToken(std::string_view token);

CredentialHash Sha256(std::string_view data);

// Constant-time equality.
bool SameCredentialHash(const CredentialHash& a, const CredentialHash& b);

}  // namespace ldp

#endif  // LDP_SERVER_CORE_CREDENTIAL_H_
