// Ed25519 signatures (RFC 8032) over OpenSSL 3.0's EVP interface: how the
// server vouches for a shuffle ticket so that a shuffler can check it
// offline, without asking the server (which would tell the server who
// submitted, and when).
//
// Every error is INVALID_ARGUMENT (a key or signature the caller was given
// is malformed) except INTERNAL, when OpenSSL itself fails. A signature that
// does not verify is UNAUTHENTICATED.
#ifndef LDP_COMMON_CRYPTO_ED25519_H_
#define LDP_COMMON_CRYPTO_ED25519_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ldp {

inline constexpr size_t kEd25519KeyBytes = 32;
inline constexpr size_t kEd25519SignatureBytes = 64;

// RFC 8032's encoding: the 32-byte private seed and the 32-byte public key.
// The seed is secret and zeroed when the pair is destroyed.
struct Ed25519KeyPair {
  ~Ed25519KeyPair();

  std::array<uint8_t, kEd25519KeyBytes> seed{};
  std::array<uint8_t, kEd25519KeyBytes> public_key{};
};

// A fresh key pair from OpenSSL's CSPRNG.
absl::StatusOr<Ed25519KeyPair> GenerateEd25519KeyPair();

// The key pair of a stored 32-byte seed (RFC 8032's private key).
absl::StatusOr<Ed25519KeyPair> Ed25519KeyPairFromSeed(std::string_view seed);

// The 64-byte signature of `message`.
absl::StatusOr<std::string> Ed25519Sign(const Ed25519KeyPair& key,
                                        std::string_view message);

// OK iff `signature` is key's signature of `message`; UNAUTHENTICATED if it
// is not, INVALID_ARGUMENT if the key or signature has the wrong length.
absl::Status Ed25519Verify(std::string_view public_key,
                           std::string_view message,
                           std::string_view signature);

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_ED25519_H_
