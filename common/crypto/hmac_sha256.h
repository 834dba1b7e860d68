// HMAC-SHA256 (RFC 2104), a keyed digest: what derives a secret from
// another secret, so that a server can recompute a value it never stores
// (an agent's bearer secret from the client's enrollment request id).
//
// Why through OpenSSL's one-shot HMAC(): the construction is easy to get
// subtly wrong by hand (key padding, the two passes), and one call per
// derivation is cheap next to the round trip it serves.
#ifndef LDP_COMMON_CRYPTO_HMAC_SHA256_H_
#define LDP_COMMON_CRYPTO_HMAC_SHA256_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "common/crypto/sha256.h"

namespace ldp {

// HMAC-SHA256(key, message). INTERNAL only if OpenSSL fails (allocation).
absl::StatusOr<Sha256Digest> HmacSha256(std::string_view key,
                                        std::string_view message);

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_HMAC_SHA256_H_
