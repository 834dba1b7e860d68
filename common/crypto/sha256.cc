// SHA-256 through OpenSSL's EVP interface; see the header.
#include "common/crypto/sha256.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace ldp {

namespace {

struct ContextFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

absl::Status Failed() {
  char reason[256] = "no OpenSSL error queued";
  if (const unsigned long code = ERR_get_error(); code != 0) {
    ERR_error_string_n(code, reason, sizeof(reason));
  }
  return absl::InternalError(absl::StrCat("SHA-256 failed: ", reason));
}

}  // namespace

absl::StatusOr<Sha256Digest> Sha256Of(std::string_view data) {
  // Fetched once: OpenSSL 3 looks EVP_sha256() up in its provider tables on
  // every use (locks and allocations), which showed in the relay's profile
  // of one credential check per report.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  // One context per thread, reinitialized per digest: EVP_Digest allocates
  // and frees a context and its provider state on every call, and a server
  // hashes two or three credentials per agent.
  thread_local const std::unique_ptr<EVP_MD_CTX, ContextFree> context(
      EVP_MD_CTX_new());
  Sha256Digest digest{};
  unsigned int length = 0;
  if (kSha256 == nullptr || context == nullptr ||
      EVP_DigestInit_ex2(context.get(), kSha256, nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1 ||
      length != kSha256Bytes) {
    return Failed();
  }
  return digest;
}

std::string_view DigestBytes(const Sha256Digest& digest) {
  return std::string_view(reinterpret_cast<const char*>(digest.data()),
                          digest.size());
}

std::string DigestHex(const Sha256Digest& digest) {
  const std::string_view bytes = DigestBytes(digest);
  return absl::BytesToHexString(absl::string_view(bytes.data(), bytes.size()));
}

}  // namespace ldp
