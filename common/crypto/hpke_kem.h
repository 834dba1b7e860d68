// HPKE's key encapsulation, DHKEM(X25519, HKDF-SHA256) (RFC 9180, section
// 4.1): the key pairs a report's recipient publishes and holds, and, for the
// HPKE files only, Encap and Decap, which turn an X25519 exchange into the
// shared secret the key schedule starts from. Kept apart from the key
// schedule and the AEAD (hpke_key_schedule.h) as RFC 9180 keeps them: each
// is checked on its own against the RFC's test vectors.
#ifndef LDP_COMMON_CRYPTO_HPKE_KEM_H_
#define LDP_COMMON_CRYPTO_HPKE_KEM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/crypto/hpke_kdf.h"

namespace ldp {

// Every X25519 key, private or public, and enc: 32 bytes.
inline constexpr size_t kHpkeKeyBytes = 32;
using HpkeKey = std::array<uint8_t, kHpkeKeyBytes>;

// An X25519 key pair in RFC 7748's byte encoding. The private key is secret
// and zeroed when the pair is destroyed; the public key is the private
// key's (as GenerateHpkeKeyPair and DeriveHpkeKeyPair make it).
struct HpkeKeyPair {
  ~HpkeKeyPair() {
    hpke_internal::CleanseBytes(private_key.data(), private_key.size());
  }

  HpkeKey private_key{};
  HpkeKey public_key{};
};

// The key's bytes, to pass where a key arrives as bytes (SealBase's
// recipient_public_key) or to store, without copying.
std::string_view HpkeKeyBytes(const HpkeKey& key);

// A fresh key pair from OpenSSL's CSPRNG. INTERNAL if OpenSSL fails.
absl::StatusOr<HpkeKeyPair> GenerateHpkeKeyPair();

// RFC 9180's DeriveKeyPair: the key pair that seed bytes `ikm` determine,
// for keys that must be re-created from a stored seed (and for the RFC's
// test vectors). INVALID_ARGUMENT if ikm is shorter than 32 bytes, the
// entropy an X25519 private key needs.
absl::StatusOr<HpkeKeyPair> DeriveHpkeKeyPair(std::string_view ikm);

namespace hpke_internal {

using SharedSecret = SecretBytes<kHashBytes>;  // Nsecret = 32.

struct Encapsulation {
  HpkeKey enc{};  // The ephemeral public key, sent with the ciphertext.
  SharedSecret shared_secret;
};

// Encap(pkR) with the ephemeral key pair given rather than drawn, so that
// the caller decides where its randomness comes from. INVALID_ARGUMENT if
// the recipient's public key is not 32 bytes or is a low-order point (the
// X25519 result would be all zero).
absl::StatusOr<Encapsulation> Encap(std::string_view recipient_public_key,
                                    const HpkeKeyPair& ephemeral);

// Decap(enc, skR). INVALID_ARGUMENT if enc is not 32 bytes or is a
// low-order point.
absl::StatusOr<SharedSecret> Decap(std::string_view enc,
                                   const HpkeKeyPair& recipient);

}  // namespace hpke_internal
}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_HPKE_KEM_H_
