// DHKEM(X25519, HKDF-SHA256) on OpenSSL's EVP_PKEY X25519: raw key import
// and export, key generation and derive; see the header.
//
// OpenSSL's X25519 derive itself refuses an all-zero result (a low-order
// peer key, RFC 7748 section 6.1); the result is checked again here so the
// refusal does not rest on that, and both give the same message.
#include "common/crypto/hpke_kem.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

using HpkeEvpKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using HpkeEvpKeyContext =
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)>;
using hpke_internal::SharedSecret;

HpkeEvpKey HpkePrivateKey(const HpkeKey& private_key) {
  return HpkeEvpKey(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, private_key.data(),
                                   private_key.size()),
      &EVP_PKEY_free);
}

absl::Status ExportHpkeKeyPair(EVP_PKEY* key, HpkeKeyPair& pair) {
  size_t private_size = pair.private_key.size();
  size_t public_size = pair.public_key.size();
  if (EVP_PKEY_get_raw_private_key(key, pair.private_key.data(),
                                   &private_size) != 1 ||
      EVP_PKEY_get_raw_public_key(key, pair.public_key.data(), &public_size) !=
          1 ||
      private_size != kHpkeKeyBytes || public_size != kHpkeKeyBytes) {
    return absl::InternalError("OpenSSL could not export an X25519 key pair");
  }
  return absl::OkStatus();
}

absl::Status CheckHpkeKeySize(std::string_view key, std::string_view what) {
  if (key.size() == kHpkeKeyBytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(what), " has ", key.size(), " bytes; an X25519 key has ",
      kHpkeKeyBytes, " (was it truncated, or is it another kind of key?)"));
}

absl::Status LowOrderPeerError(std::string_view peer_view) {
  const std::string peer(peer_view);
  return absl::InvalidArgumentError(absl::StrCat(
      "the X25519 shared secret with ", peer, " is all zero: ", peer,
      " is a low-order point, not a real public key (RFC 9180, section "
      "7.1.4); it was forged or corrupted"));
}

// DH(sk, pk): the X25519 shared secret of our private key and a peer's
// public key (`peer` names it in errors).
absl::StatusOr<SharedSecret> X25519SharedSecret(const HpkeKey& private_key,
                                                std::string_view peer_public,
                                                std::string_view peer) {
  HpkeEvpKey own = HpkePrivateKey(private_key);
  HpkeEvpKey other(EVP_PKEY_new_raw_public_key(
                       EVP_PKEY_X25519, nullptr,
                       reinterpret_cast<const uint8_t*>(peer_public.data()),
                       peer_public.size()),
                   &EVP_PKEY_free);
  if (own == nullptr || other == nullptr) {
    return absl::InternalError("OpenSSL could not import an X25519 key");
  }
  HpkeEvpKeyContext context(EVP_PKEY_CTX_new(own.get(), nullptr),
                            &EVP_PKEY_CTX_free);
  if (context == nullptr || EVP_PKEY_derive_init(context.get()) != 1) {
    return absl::InternalError("OpenSSL could not set up an X25519 exchange");
  }
  if (EVP_PKEY_derive_set_peer(context.get(), other.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "OpenSSL refused ", std::string(peer), " as an X25519 public key"));
  }
  SharedSecret dh;
  size_t size = dh.bytes.size();
  if (EVP_PKEY_derive(context.get(), dh.bytes.data(), &size) != 1) {
    return LowOrderPeerError(peer);
  }
  if (size != dh.bytes.size()) {
    return absl::InternalError("OpenSSL's X25519 result is not 32 bytes");
  }
  static constexpr std::array<uint8_t, kHpkeKeyBytes> kZero{};
  if (CRYPTO_memcmp(dh.bytes.data(), kZero.data(), kZero.size()) == 0) {
    return LowOrderPeerError(peer);
  }
  return dh;
}

// ExtractAndExpand(dh, kem_context), kem_context = enc || pkRm.
absl::StatusOr<SharedSecret> HpkeExtractAndExpand(const SharedSecret& dh,
                                                  std::string_view enc,
                                                  std::string_view pk_rm) {
  const std::string suite_id = hpke_internal::KemSuiteId();
  ASSIGN_OR_RETURN(
      const hpke_internal::Prk eae_prk,
      hpke_internal::LabeledExtract(suite_id, "", "eae_prk", dh.view()));
  const std::string kem_context = std::string(enc).append(pk_rm);
  SharedSecret shared_secret;
  RETURN_IF_ERROR(hpke_internal::LabeledExpand(
      suite_id, eae_prk, "shared_secret", kem_context,
      absl::MakeSpan(shared_secret.bytes)));
  return shared_secret;
}

}  // namespace

std::string_view HpkeKeyBytes(const HpkeKey& key) {
  return std::string_view(reinterpret_cast<const char*>(key.data()),
                          key.size());
}

absl::StatusOr<HpkeKeyPair> GenerateHpkeKeyPair() {
  HpkeEvpKey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519"), &EVP_PKEY_free);
  if (key == nullptr) {
    return absl::InternalError("OpenSSL could not generate an X25519 key");
  }
  HpkeKeyPair pair;
  RETURN_IF_ERROR(ExportHpkeKeyPair(key.get(), pair));
  return pair;
}

absl::StatusOr<HpkeKeyPair> DeriveHpkeKeyPair(std::string_view ikm) {
  if (ikm.size() < kHpkeKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("deriving an HPKE key pair needs at least ", kHpkeKeyBytes,
                     " bytes of secret seed material; got ", ikm.size()));
  }
  const std::string suite_id = hpke_internal::KemSuiteId();
  ASSIGN_OR_RETURN(const hpke_internal::Prk dkp_prk,
                   hpke_internal::LabeledExtract(suite_id, "", "dkp_prk", ikm));
  HpkeKeyPair pair;
  RETURN_IF_ERROR(hpke_internal::LabeledExpand(
      suite_id, dkp_prk, "sk", "", absl::MakeSpan(pair.private_key)));
  HpkeEvpKey key = HpkePrivateKey(pair.private_key);
  if (key == nullptr) {
    return absl::InternalError("OpenSSL could not import an X25519 key");
  }
  RETURN_IF_ERROR(ExportHpkeKeyPair(key.get(), pair));
  return pair;
}

namespace hpke_internal {

absl::StatusOr<Encapsulation> Encap(std::string_view recipient_public_key,
                                    const HpkeKeyPair& ephemeral) {
  RETURN_IF_ERROR(
      CheckHpkeKeySize(recipient_public_key, "the recipient's public key"));
  ASSIGN_OR_RETURN(
      const SharedSecret dh,
      X25519SharedSecret(ephemeral.private_key, recipient_public_key,
                         "the recipient's public key"));
  Encapsulation encapsulation;
  encapsulation.enc = ephemeral.public_key;
  ASSIGN_OR_RETURN(encapsulation.shared_secret,
                   HpkeExtractAndExpand(dh, HpkeKeyBytes(encapsulation.enc),
                                        recipient_public_key));
  return encapsulation;
}

absl::StatusOr<SharedSecret> Decap(std::string_view enc,
                                   const HpkeKeyPair& recipient) {
  RETURN_IF_ERROR(CheckHpkeKeySize(enc, "enc (the sender's ephemeral key)"));
  ASSIGN_OR_RETURN(const SharedSecret dh,
                   X25519SharedSecret(recipient.private_key, enc, "enc"));
  return HpkeExtractAndExpand(dh, enc, HpkeKeyBytes(recipient.public_key));
}

}  // namespace hpke_internal
}  // namespace ldp
