// Ed25519 on OpenSSL 3.0's EVP_PKEY: raw seed import, public key export,
// and the one-shot EVP_DigestSign/EVP_DigestVerify that Ed25519 requires
// (it hashes the message itself, so the digest argument is NULL); see the
// header.
#include "common/crypto/ed25519.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"

namespace ldp {
namespace {

using Ed25519EvpKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Ed25519DigestContext =
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

const uint8_t* Ed25519Bytes(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

absl::Status CheckEd25519Size(std::string_view bytes, size_t expected,
                              std::string_view what) {
  if (bytes.size() == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(what), " has ", bytes.size(),
                   " bytes; an Ed25519 ", std::string(what), " has ", expected,
                   " (was it truncated, or is it another kind of key?)"));
}

Ed25519EvpKey Ed25519PrivateKey(const Ed25519KeyPair& key) {
  return Ed25519EvpKey(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, key.seed.data(),
                                   key.seed.size()),
      &EVP_PKEY_free);
}

// Fills key.public_key from key.seed.
absl::Status DerivePublicKey(Ed25519KeyPair& key) {
  Ed25519EvpKey evp_key = Ed25519PrivateKey(key);
  size_t public_size = key.public_key.size();
  if (evp_key == nullptr ||
      EVP_PKEY_get_raw_public_key(evp_key.get(), key.public_key.data(),
                                  &public_size) != 1 ||
      public_size != kEd25519KeyBytes) {
    return absl::InternalError(
        "OpenSSL could not derive an Ed25519 public key from its seed");
  }
  return absl::OkStatus();
}

}  // namespace

Ed25519KeyPair::~Ed25519KeyPair() { OPENSSL_cleanse(seed.data(), seed.size()); }

absl::StatusOr<Ed25519KeyPair> GenerateEd25519KeyPair() {
  Ed25519KeyPair key;
  RETURN_IF_ERROR(FillRandomBytes(key.seed.data(), key.seed.size()));
  RETURN_IF_ERROR(DerivePublicKey(key));
  return key;
}

absl::StatusOr<Ed25519KeyPair> Ed25519KeyPairFromSeed(std::string_view seed) {
  RETURN_IF_ERROR(CheckEd25519Size(seed, kEd25519KeyBytes, "seed"));
  Ed25519KeyPair key;
  std::copy(seed.begin(), seed.end(), key.seed.begin());
  RETURN_IF_ERROR(DerivePublicKey(key));
  return key;
}

absl::StatusOr<std::string> Ed25519Sign(const Ed25519KeyPair& key,
                                        std::string_view message) {
  Ed25519EvpKey evp_key = Ed25519PrivateKey(key);
  Ed25519DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (evp_key == nullptr || context == nullptr ||
      EVP_DigestSignInit(context.get(), nullptr, nullptr, nullptr,
                         evp_key.get()) != 1) {
    return absl::InternalError("OpenSSL could not set up an Ed25519 signer");
  }
  std::string signature(kEd25519SignatureBytes, '\0');
  size_t signature_size = signature.size();
  if (EVP_DigestSign(context.get(), reinterpret_cast<uint8_t*>(&signature[0]),
                     &signature_size, Ed25519Bytes(message),
                     message.size()) != 1 ||
      signature_size != kEd25519SignatureBytes) {
    return absl::InternalError("OpenSSL could not make an Ed25519 signature");
  }
  return signature;
}

absl::Status Ed25519Verify(std::string_view public_key,
                           std::string_view message,
                           std::string_view signature) {
  RETURN_IF_ERROR(CheckEd25519Size(public_key, kEd25519KeyBytes, "public key"));
  RETURN_IF_ERROR(
      CheckEd25519Size(signature, kEd25519SignatureBytes, "signature"));
  Ed25519EvpKey evp_key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                  Ed25519Bytes(public_key), public_key.size()),
      &EVP_PKEY_free);
  Ed25519DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (evp_key == nullptr || context == nullptr ||
      EVP_DigestVerifyInit(context.get(), nullptr, nullptr, nullptr,
                           evp_key.get()) != 1) {
    return absl::InternalError("OpenSSL could not set up an Ed25519 verifier");
  }
  // 1 is a valid signature; anything else (0, or a negative value for an
  // encoding OpenSSL refuses, such as a non-canonical S) is not one.
  if (EVP_DigestVerify(context.get(), Ed25519Bytes(signature), signature.size(),
                       Ed25519Bytes(message), message.size()) != 1) {
    // A refusal leaves an entry on the thread's OpenSSL error queue, which
    // a later TLS call on this thread would otherwise report as its own.
    ERR_clear_error();
    return absl::UnauthenticatedError(
        "the Ed25519 signature does not verify: the message was altered, or "
        "it was signed with another key");
  }
  return absl::OkStatus();
}

}  // namespace ldp
