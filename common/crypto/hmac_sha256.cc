// HMAC-SHA256 through OpenSSL's HMAC(); see the header.
#include "common/crypto/hmac_sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <climits>

namespace ldp {

absl::StatusOr<Sha256Digest> HmacSha256(std::string_view key,
                                        std::string_view message) {
  if (key.size() > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("an HMAC key of at most 2^31 - 1 bytes");
  }
  Sha256Digest digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()),
           message.size(), digest.data(), &length) == nullptr ||
      length != digest.size()) {
    return absl::InternalError("HMAC-SHA256 failed (OpenSSL HMAC)");
  }
  return digest;
}

}  // namespace ldp
