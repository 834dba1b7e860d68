// HPKE's labeled HKDF through OpenSSL's EVP_KDF "HKDF" in its extract-only
// and expand-only modes; see the header.
//
// The HKDF algorithm is fetched once per process (EVP_KDF objects are
// immutable and shared between threads); each derivation gets its own
// context. The labeled inputs that carry secrets are cleansed after use.
#include "common/crypto/hpke_kdf.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <memory>

namespace ldp::hpke_internal {
namespace {

constexpr std::string_view kHpkeVersionLabel = "HPKE-v1";

// Appends I2OSP(value, 2).
void AppendTwoBytes(uint16_t value, std::string& out) {
  out.push_back(static_cast<char>(value >> 8));
  out.push_back(static_cast<char>(value & 0xff));
}

EVP_KDF* FetchedHpkeHkdf() {
  static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  return kdf;
}

// One HKDF-SHA256 call writing out.size() bytes: extract-only
// (EVP_KDF_HKDF_MODE_EXTRACT_ONLY) from a key and salt, or expand-only from
// a key and info.
absl::Status RunHpkeHkdf(int mode, std::string_view key,
                         std::string_view salt_or_info,
                         absl::Span<uint8_t> out) {
  EVP_KDF* kdf = FetchedHpkeHkdf();
  if (kdf == nullptr) {
    return absl::InternalError("OpenSSL provides no HKDF (EVP_KDF_fetch)");
  }
  std::unique_ptr<EVP_KDF_CTX, decltype(&EVP_KDF_CTX_free)> context(
      EVP_KDF_CTX_new(kdf), &EVP_KDF_CTX_free);
  if (context == nullptr) {
    return absl::InternalError("OpenSSL could not allocate an HKDF context");
  }
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_octet_string(
          OSSL_KDF_PARAM_KEY, const_cast<char*>(key.data()), key.size()),
      OSSL_PARAM_construct_octet_string(
          mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? OSSL_KDF_PARAM_SALT
                                                 : OSSL_KDF_PARAM_INFO,
          const_cast<char*>(salt_or_info.data()), salt_or_info.size()),
      OSSL_PARAM_construct_end(),
  };
  if (EVP_KDF_derive(context.get(), out.data(), out.size(), params) != 1) {
    return absl::InternalError("OpenSSL HKDF-SHA256 failed");
  }
  return absl::OkStatus();
}

}  // namespace

void CleanseBytes(void* data, size_t size) { OPENSSL_cleanse(data, size); }

std::string KemSuiteId() {
  std::string id = "KEM";
  AppendTwoBytes(kKemId, id);
  return id;
}

std::string HpkeSuiteId() {
  std::string id = "HPKE";
  AppendTwoBytes(kKemId, id);
  AppendTwoBytes(kKdfId, id);
  AppendTwoBytes(kAeadId, id);
  return id;
}

absl::StatusOr<Prk> LabeledExtract(std::string_view suite_id,
                                   std::string_view salt,
                                   std::string_view label,
                                   std::string_view ikm) {
  static constexpr std::array<uint8_t, kHashBytes> kZeroSalt{};
  if (salt.empty()) {
    salt = std::string_view(reinterpret_cast<const char*>(kZeroSalt.data()),
                            kZeroSalt.size());
  }
  std::string labeled_ikm;
  labeled_ikm.reserve(kHpkeVersionLabel.size() + suite_id.size() +
                      label.size() + ikm.size());
  labeled_ikm.append(kHpkeVersionLabel).append(suite_id).append(label);
  labeled_ikm.append(ikm);
  Prk prk;
  absl::Status derived =
      RunHpkeHkdf(EVP_KDF_HKDF_MODE_EXTRACT_ONLY, labeled_ikm, salt,
                  absl::MakeSpan(prk.bytes));
  CleanseBytes(labeled_ikm.data(), labeled_ikm.size());
  if (!derived.ok()) return derived;
  return prk;
}

absl::Status LabeledExpand(std::string_view suite_id, const Prk& prk,
                           std::string_view label, std::string_view info,
                           absl::Span<uint8_t> out) {
  if (out.size() > 255 * kHashBytes) {
    return absl::InternalError("HKDF-Expand asked for over 255 * Nh bytes");
  }
  std::string labeled_info;
  AppendTwoBytes(static_cast<uint16_t>(out.size()), labeled_info);
  labeled_info.append(kHpkeVersionLabel).append(suite_id).append(label);
  labeled_info.append(info);
  return RunHpkeHkdf(EVP_KDF_HKDF_MODE_EXPAND_ONLY, prk.view(), labeled_info,
                     out);
}

}  // namespace ldp::hpke_internal
