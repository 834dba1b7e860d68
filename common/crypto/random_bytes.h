// Bytes from the operating system's CSPRNG (through OpenSSL), for one-off
// values such as ids and keys. Randomizers draw from SecureRandom
// (secure_random.h) instead, which is fork-safe and fast per draw.
#ifndef LDP_COMMON_CRYPTO_RANDOM_BYTES_H_
#define LDP_COMMON_CRYPTO_RANDOM_BYTES_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ldp {

// Fills out[0, size) with random bytes; an error when the generator is not
// seeded or fails.
absl::Status FillRandomBytes(void* out, size_t size);

// A uniformly random 64-bit word.
absl::StatusOr<uint64_t> RandomWord();

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_RANDOM_BYTES_H_
