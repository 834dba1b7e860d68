// HPKE's labeled HKDF-SHA256 (RFC 9180, section 4), internal to ldp_crypto:
// every secret HPKE derives (the KEM's shared secret, the AEAD key and
// nonce, a key pair from seed bytes) comes out of LabeledExtract and
// LabeledExpand, so the labels, suite ids and OpenSSL's EVP_KDF "HKDF"
// calls are written once, here. Also the fixed-size secret buffer the HPKE
// files pass around, which zeroes itself (OPENSSL_cleanse) when destroyed so
// that keys do not linger in freed memory.
#ifndef LDP_COMMON_CRYPTO_HPKE_KDF_H_
#define LDP_COMMON_CRYPTO_HPKE_KDF_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp::hpke_internal {

// The suite: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20-Poly1305.
inline constexpr uint16_t kKemId = 0x0020;
inline constexpr uint16_t kKdfId = 0x0001;
inline constexpr uint16_t kAeadId = 0x0003;
inline constexpr size_t kHashBytes = 32;  // Nh of HKDF-SHA256.

// Overwrites data[0, size) with zeros in a way the compiler cannot drop.
void CleanseBytes(void* data, size_t size);

// N bytes of secret, zeroed on destruction.
template <size_t N>
struct SecretBytes {
  SecretBytes() = default;
  SecretBytes(const SecretBytes&) = default;
  SecretBytes& operator=(const SecretBytes&) = default;
  ~SecretBytes() { CleanseBytes(bytes.data(), bytes.size()); }

  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(bytes.data()), N);
  }

  std::array<uint8_t, N> bytes{};
};

using Prk = SecretBytes<kHashBytes>;

// "KEM" || I2OSP(kem_id, 2): the suite id of the KEM's own derivations.
std::string KemSuiteId();
// "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2): the
// suite id of the key schedule.
std::string HpkeSuiteId();

// HKDF-Extract(salt, "HPKE-v1" || suite_id || label || ikm). An empty salt
// is HashLen zero bytes (RFC 5869, section 2.2). INTERNAL only if OpenSSL
// fails.
absl::StatusOr<Prk> LabeledExtract(std::string_view suite_id,
                                   std::string_view salt,
                                   std::string_view label,
                                   std::string_view ikm);

// HKDF-Expand(prk, I2OSP(L, 2) || "HPKE-v1" || suite_id || label || info, L)
// into out, L = out.size() (at most 255 * Nh). INTERNAL only if OpenSSL
// fails.
absl::Status LabeledExpand(std::string_view suite_id, const Prk& prk,
                           std::string_view label, std::string_view info,
                           absl::Span<uint8_t> out);

}  // namespace ldp::hpke_internal

#endif  // LDP_COMMON_CRYPTO_HPKE_KDF_H_
