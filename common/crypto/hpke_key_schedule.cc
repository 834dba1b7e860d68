// HPKE's base-mode key schedule over the labeled HKDF (hpke_kdf.h), and
// ChaCha20-Poly1305 through OpenSSL's EVP_CIPHER; see the header.
//
// Opening decrypts before the tag is checked (OpenSSL's AEAD interface
// works that way), so a plaintext that fails authentication is zeroed
// before it is dropped and never returned.
#include "common/crypto/hpke_key_schedule.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <climits>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::hpke_internal {
namespace {

constexpr char kModeBase = 0x00;

using HpkeCipherContext =
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

const unsigned char* HpkeUnsigned(std::string_view bytes) {
  return reinterpret_cast<const unsigned char*>(bytes.data());
}

absl::Status CheckAeadInputSize(std::string_view bytes, std::string_view what) {
  if (bytes.size() <= static_cast<size_t>(INT_MAX)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(what), " has ", bytes.size(),
                   " bytes; at most 2^31 - 1 can be sealed or opened at once"));
}

// A ChaCha20-Poly1305 context keyed, with its nonce set and aad absorbed.
absl::StatusOr<HpkeCipherContext> StartChaChaPoly(const AeadKey& key,
                                                  const AeadNonce& nonce,
                                                  bool encrypt,
                                                  std::string_view aad) {
  HpkeCipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int absorbed = 0;
  if (context == nullptr ||
      EVP_CipherInit_ex(context.get(), EVP_chacha20_poly1305(), nullptr,
                        key.bytes.data(), nonce.bytes.data(),
                        encrypt ? 1 : 0) != 1 ||
      (!aad.empty() &&
       EVP_CipherUpdate(context.get(), nullptr, &absorbed, HpkeUnsigned(aad),
                        static_cast<int>(aad.size())) != 1)) {
    return absl::InternalError("OpenSSL could not set up ChaCha20-Poly1305");
  }
  return context;
}

// Runs `in` through the cipher into out[0, in.size()).
bool HpkeCipherBody(EVP_CIPHER_CTX* context, std::string_view in,
                    std::string& out) {
  int written = 0;
  if (in.empty()) return true;
  return EVP_CipherUpdate(context, reinterpret_cast<unsigned char*>(out.data()),
                          &written, HpkeUnsigned(in),
                          static_cast<int>(in.size())) == 1 &&
         static_cast<size_t>(written) == in.size();
}

absl::StatusOr<std::string> ChaChaPolySeal(const AeadKey& key,
                                           const AeadNonce& nonce,
                                           std::string_view aad,
                                           std::string_view plaintext) {
  ASSIGN_OR_RETURN(HpkeCipherContext context,
                   StartChaChaPoly(key, nonce, /*encrypt=*/true, aad));
  std::string sealed(plaintext.size() + kAeadTagBytes, '\0');
  unsigned char* tag =
      reinterpret_cast<unsigned char*>(sealed.data()) + plaintext.size();
  unsigned char final_block[kAeadTagBytes];  // A stream cipher writes none.
  int final_size = 0;
  if (!HpkeCipherBody(context.get(), plaintext, sealed) ||
      EVP_EncryptFinal_ex(context.get(), final_block, &final_size) != 1 ||
      final_size != 0 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_AEAD_GET_TAG, kAeadTagBytes,
                          tag) != 1) {
    return absl::InternalError("OpenSSL ChaCha20-Poly1305 sealing failed");
  }
  return sealed;
}

absl::StatusOr<std::string> ChaChaPolyOpen(const AeadKey& key,
                                           const AeadNonce& nonce,
                                           std::string_view aad,
                                           std::string_view ciphertext) {
  if (ciphertext.size() < kAeadTagBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the sealed payload has ", ciphertext.size(), " bytes, fewer than the ",
        kAeadTagBytes, "-byte tag it must end with: it was truncated"));
  }
  const std::string_view body =
      ciphertext.substr(0, ciphertext.size() - kAeadTagBytes);
  std::array<unsigned char, kAeadTagBytes> tag;
  std::copy_n(HpkeUnsigned(ciphertext) + body.size(), tag.size(), tag.begin());
  ASSIGN_OR_RETURN(HpkeCipherContext context,
                   StartChaChaPoly(key, nonce, /*encrypt=*/false, aad));
  std::string plaintext(body.size(), '\0');
  unsigned char final_block[kAeadTagBytes];  // A stream cipher writes none.
  int final_size = 0;
  if (!HpkeCipherBody(context.get(), body, plaintext) ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_AEAD_SET_TAG, kAeadTagBytes,
                          tag.data()) != 1 ||
      EVP_DecryptFinal_ex(context.get(), final_block, &final_size) != 1) {
    CleanseBytes(plaintext.data(), plaintext.size());
    return absl::InvalidArgumentError(
        "the sealed payload does not open with this key, info and aad: it "
        "was altered, or sealed for another task or key");
  }
  return plaintext;
}

}  // namespace

absl::StatusOr<HpkeContext> HpkeContext::FromSharedSecret(
    const SharedSecret& shared_secret, std::string_view info) {
  const std::string suite_id = HpkeSuiteId();
  ASSIGN_OR_RETURN(const Prk psk_id_hash,
                   LabeledExtract(suite_id, "", "psk_id_hash", ""));
  ASSIGN_OR_RETURN(const Prk info_hash,
                   LabeledExtract(suite_id, "", "info_hash", info));
  std::string key_schedule_context(1, kModeBase);
  key_schedule_context.append(psk_id_hash.view()).append(info_hash.view());
  ASSIGN_OR_RETURN(
      const Prk secret,
      LabeledExtract(suite_id, shared_secret.view(), "secret", /*psk=*/""));
  HpkeContext context;
  RETURN_IF_ERROR(LabeledExpand(suite_id, secret, "key", key_schedule_context,
                                absl::MakeSpan(context.key_.bytes)));
  RETURN_IF_ERROR(LabeledExpand(suite_id, secret, "base_nonce",
                                key_schedule_context,
                                absl::MakeSpan(context.base_nonce_.bytes)));
  RETURN_IF_ERROR(
      LabeledExpand(suite_id, secret, "exp", key_schedule_context,
                    absl::MakeSpan(context.exporter_secret_.bytes)));
  return context;
}

absl::StatusOr<std::string> HpkeContext::Seal(std::string_view aad,
                                              std::string_view plaintext) {
  RETURN_IF_ERROR(CheckSequenceNumber());
  RETURN_IF_ERROR(CheckAeadInputSize(aad, "the aad"));
  RETURN_IF_ERROR(CheckAeadInputSize(plaintext, "the plaintext"));
  ASSIGN_OR_RETURN(
      std::string sealed,
      ChaChaPolySeal(key_, NonceFor(sequence_number_), aad, plaintext));
  ++sequence_number_;
  return sealed;
}

absl::StatusOr<std::string> HpkeContext::Open(std::string_view aad,
                                              std::string_view ciphertext) {
  RETURN_IF_ERROR(CheckSequenceNumber());
  RETURN_IF_ERROR(CheckAeadInputSize(aad, "the aad"));
  RETURN_IF_ERROR(CheckAeadInputSize(ciphertext, "the sealed payload"));
  ASSIGN_OR_RETURN(
      std::string plaintext,
      ChaChaPolyOpen(key_, NonceFor(sequence_number_), aad, ciphertext));
  ++sequence_number_;
  return plaintext;
}

AeadNonce HpkeContext::NonceFor(uint64_t sequence_number) const {
  AeadNonce nonce = base_nonce_;
  // I2OSP(seq, Nn) is zero but for its last eight bytes, big-endian.
  for (size_t i = 0; i < sizeof(sequence_number); ++i) {
    nonce.bytes[kAeadNonceBytes - 1 - i] ^=
        static_cast<uint8_t>(sequence_number >> (8 * i));
  }
  return nonce;
}

absl::Status HpkeContext::CheckSequenceNumber() const {
  if (sequence_number_ < std::numeric_limits<uint64_t>::max()) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(
      "this HPKE context has used every sequence number (2^64 - 1 messages); "
      "set up a new one");
}

}  // namespace ldp::hpke_internal
