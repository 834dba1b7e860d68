// HPKE (RFC 9180) base mode, single-shot, for the suite DHKEM(X25519,
// HKDF-SHA256) / HKDF-SHA256 / ChaCha20-Poly1305 (kem_id 0x0020, kdf_id
// 0x0001, aead_id 0x0003): how a report is sealed to the key of the party
// that may read it (docs/ARCHITECTURE.md; shuffle-model "Sealing reports").
//
// Why built here: Debian bookworm's OpenSSL 3.0 has X25519, HKDF and
// ChaCha20-Poly1305 but not the OSSL_HPKE API (OpenSSL 3.2), so the scheme
// is assembled from those primitives in three parts that mirror the RFC:
// the KEM (hpke_kem.h, which also holds the key pairs), the labeled HKDF
// (hpke_kdf.h) and the key schedule with the AEAD (hpke_key_schedule.h).
// RFC 9180 Appendix A.2's test vectors hold all three
// (tests/common/crypto/hpke_test.cc).
//
// `info` and `aad` bind a sealed payload to its use: a payload opens only
// with the info and aad it was sealed with, so putting the study, round and
// task in them stops a payload being replayed into another task.
//
// Every error is INVALID_ARGUMENT (a key, enc or payload the caller was
// given is wrong) except INTERNAL, when OpenSSL itself fails.
#ifndef LDP_COMMON_CRYPTO_HPKE_H_
#define LDP_COMMON_CRYPTO_HPKE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/crypto/hpke_kem.h"

namespace ldp {

// What a sender transmits: both parts are needed to open.
struct HpkeSealed {
  std::string enc;         // The ephemeral public key, kHpkeKeyBytes.
  std::string ciphertext;  // The plaintext's size plus a 16-byte tag.
};

// Seals plaintext to recipient_public_key (32 bytes) under a fresh
// ephemeral key from OpenSSL's CSPRNG. INVALID_ARGUMENT if the public key
// is not 32 bytes or is a low-order point.
absl::StatusOr<HpkeSealed> SealBase(std::string_view recipient_public_key,
                                    std::string_view info, std::string_view aad,
                                    std::string_view plaintext);

// SealBase with the ephemeral key pair given: DETERMINISTIC, for tests that
// reproduce known answers only. Sealing twice with one ephemeral key pair
// reuses the AEAD key and nonce, which breaks confidentiality.
absl::StatusOr<HpkeSealed> SealBaseWithEphemeralForTesting(
    std::string_view recipient_public_key, const HpkeKeyPair& ephemeral,
    std::string_view info, std::string_view aad, std::string_view plaintext);

// The plaintext that SealBase sealed to recipient's public key with this
// info and aad. INVALID_ARGUMENT if enc is not 32 bytes or is a low-order
// point, if the ciphertext is shorter than its tag, or if it does not
// authenticate: altered, or sealed with another key, info or aad.
absl::StatusOr<std::string> OpenBase(const HpkeKeyPair& recipient,
                                     std::string_view enc,
                                     std::string_view info,
                                     std::string_view aad,
                                     std::string_view ciphertext);

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_HPKE_H_
