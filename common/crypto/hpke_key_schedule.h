// HPKE's key schedule and AEAD, internal to ldp_crypto (RFC 9180, sections
// 5.1 and 5.2, base mode): from the KEM's shared secret and the caller's
// info to the ChaCha20-Poly1305 key, base nonce and exporter secret, and
// the context that seals and opens under them with per-message nonces.
// SealBase and OpenBase (hpke.h) use one message per context (sequence
// number 0); the context counts further so the RFC's test vectors can
// check the nonce arithmetic beyond the first message.
#ifndef LDP_COMMON_CRYPTO_HPKE_KEY_SCHEDULE_H_
#define LDP_COMMON_CRYPTO_HPKE_KEY_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/crypto/hpke_kdf.h"
#include "common/crypto/hpke_kem.h"

namespace ldp::hpke_internal {

inline constexpr size_t kAeadKeyBytes = 32;    // Nk of ChaCha20-Poly1305.
inline constexpr size_t kAeadNonceBytes = 12;  // Nn.
inline constexpr size_t kAeadTagBytes = 16;    // Nt.

using AeadKey = SecretBytes<kAeadKeyBytes>;
using AeadNonce = SecretBytes<kAeadNonceBytes>;

// A sender's or recipient's encryption context. Not thread-safe: each
// Seal or Open advances the sequence number.
class HpkeContext {
 public:
  // KeyScheduleBase(shared_secret, info): mode_base, no PSK. INTERNAL only
  // if OpenSSL fails.
  static absl::StatusOr<HpkeContext> FromSharedSecret(
      const SharedSecret& shared_secret, std::string_view info);

  // ContextS.Seal: ciphertext || tag under the current sequence number's
  // nonce, then the next number. INVALID_ARGUMENT if aad or plaintext
  // exceeds 2^31 - 1 bytes (OpenSSL's limit per call).
  absl::StatusOr<std::string> Seal(std::string_view aad,
                                   std::string_view plaintext);

  // ContextR.Open: the plaintext, advancing the sequence number only on
  // success. INVALID_ARGUMENT if the ciphertext is shorter than the tag or
  // does not authenticate under this key, nonce and aad.
  absl::StatusOr<std::string> Open(std::string_view aad,
                                   std::string_view ciphertext);

  // ComputeNonce(seq): base_nonce XOR I2OSP(seq, Nn).
  AeadNonce NonceFor(uint64_t sequence_number) const;

  const AeadKey& key() const { return key_; }
  const AeadNonce& base_nonce() const { return base_nonce_; }
  const SecretBytes<kHashBytes>& exporter_secret() const {
    return exporter_secret_;
  }
  uint64_t sequence_number() const { return sequence_number_; }

 private:
  HpkeContext() = default;

  absl::Status CheckSequenceNumber() const;

  AeadKey key_;
  AeadNonce base_nonce_;
  SecretBytes<kHashBytes> exporter_secret_;
  uint64_t sequence_number_ = 0;
};

}  // namespace ldp::hpke_internal

#endif  // LDP_COMMON_CRYPTO_HPKE_KEY_SCHEDULE_H_
