// SHA-256, the project's one hash: credentials, task fingerprints, the
// simulation coins' keys and the strategy cache all digest through here, so
// the OpenSSL interface is chosen once (sha256.cc says which and why) and
// failure is handled one way.
#ifndef LDP_COMMON_CRYPTO_SHA256_H_
#define LDP_COMMON_CRYPTO_SHA256_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ldp {

inline constexpr size_t kSha256Bytes = 32;
using Sha256Digest = std::array<uint8_t, kSha256Bytes>;

// INTERNAL only if OpenSSL's SHA256_* functions report a failure (they
// allocate nothing, so in practice never).
absl::StatusOr<Sha256Digest> Sha256Of(std::string_view data);

// The digest's bytes, to compare or append without copying.
std::string_view DigestBytes(const Sha256Digest& digest);

// Lowercase hex, 64 characters.
std::string DigestHex(const Sha256Digest& digest);

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_SHA256_H_
