// Agent bearer credentials: issue, derive, parse, and check without storing
// secrets.
//
// A token is "<agent_id>.<64 hex digits>": the id lets the server find the
// agent's record with one lookup, the 32 random bytes are the secret. The
// server keeps only SHA-256 of the secret, so a stolen database cannot
// impersonate agents, and compares hashes in constant time.
//
// Retry-safe enrollment (EnrollRequest.request_id in
// proto/ldp/v1/agent_service.proto) derives the secret instead of drawing
// it. The request id is a secret too (with the enrollment token it gets
// the agent's credential again), so the store keeps, per agent, a digest
// of it (the key a retry is found by, unique), and the bearer secret is an
// HMAC keyed by it: a retry recomputes the same credential, and a copy of
// the database yields neither the id nor the credential. The count and the
// CSR go into the secret, so a retry that changes either no longer matches
// the stored credential hash and is refused.
#ifndef LDP_SERVER_CORE_CREDENTIAL_H_
#define LDP_SERVER_CORE_CREDENTIAL_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/store/store.h"

namespace ldp {

struct IssuedCredential {
  std::string bearer_token;
  CredentialHash hash;  // what the store keeps
};

// The 32 secret bytes of a bearer token.
using CredentialSecret = std::array<uint8_t, 32>;

// Draws the 32-byte secret from `gen` (SecureRandom in production).
IssuedCredential IssueCredential(uint64_t agent_id, absl::BitGenRef gen);
// The token and hash of a secret drawn or derived (a retry-safe
// enrollment's, DeriveEnrollment below).
IssuedCredential CredentialFromSecret(uint64_t agent_id,
                                      const CredentialSecret& secret);

struct ParsedToken {
  uint64_t agent_id = 0;
  CredentialHash hash;  // SHA-256 of the presented secret
};

// UNAUTHENTICATED unless `token` has the issued shape.
absl::StatusOr<ParsedToken> ParseBearerToken(std::string_view token);

CredentialHash Sha256(std::string_view data);

// Constant-time equality.
bool SameCredentialHash(const CredentialHash& a, const CredentialHash& b);

// ---- Retry-safe enrollment --------------------------------------------

inline constexpr size_t kMinEnrollmentRequestIdBytes = 16;
inline constexpr size_t kMaxEnrollmentRequestIdBytes = 64;

// OK for an empty id (no retry safety) and for 16 to 64 bytes;
// INVALID_ARGUMENT, saying what to send, otherwise.
absl::Status CheckEnrollmentRequestId(std::string_view request_id);

// One call's derivations, agent by agent (index i = the i-th agent of the
// call, in the order the answer lists them).
struct DerivedEnrollment {
  // AgentRow::enrollment_request of agent i: 32 bytes.
  std::vector<std::string> digests;
  // Agent i's bearer secret (CredentialFromSecret).
  std::vector<CredentialSecret> secrets;
};

// `batch_key`: EnrollmentBatchKey of the call's token (agent_registry.h);
// `request_id`: 16 to 64 bytes (checked); `count` ≥ 1 agents; `csr_pem` as
// the client sent it ("" = none). INTERNAL only if OpenSSL fails.
//
//   digest_i = SHA-256("ldp.v1 enroll request" 0x00 || batch_key ||
//                      len(request_id) || request_id || be32(i))
//   secret_i = HMAC-SHA256(request_id, "ldp.v1 enroll bearer" 0x00 ||
//                          batch_key || len(request_id) || be32(count) ||
//                          be32(i) || SHA-256(csr_pem))
absl::StatusOr<DerivedEnrollment> DeriveEnrollment(std::string_view batch_key,
                                                   std::string_view request_id,
                                                   int count,
                                                   std::string_view csr_pem);

// The refusal of a request id first used with another count or CSR.
absl::Status EnrollmentRequestReused();

}  // namespace ldp

#endif  // LDP_SERVER_CORE_CREDENTIAL_H_
