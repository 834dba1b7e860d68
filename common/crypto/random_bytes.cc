// RAND_bytes, OpenSSL's interface to the system generator.
#include "common/crypto/random_bytes.h"

#include <openssl/err.h>
#include <openssl/rand.h>

#include <climits>

#include "absl/strings/str_cat.h"

namespace ldp {

absl::Status FillRandomBytes(void* out, size_t size) {
  if (size > static_cast<size_t>(INT_MAX)) {
    return absl::InvalidArgumentError("at most 2^31 - 1 random bytes at once");
  }
  if (RAND_bytes(static_cast<unsigned char*>(out), static_cast<int>(size)) !=
      1) {
    const unsigned long code = ERR_get_error();
    char reason[256] = "no OpenSSL error recorded";
    if (code != 0) ERR_error_string_n(code, reason, sizeof(reason));
    return absl::UnavailableError(absl::StrCat(
        "the system random generator failed (OpenSSL RAND_bytes): ", reason));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> RandomWord() {
  uint64_t word = 0;
  absl::Status filled = FillRandomBytes(&word, sizeof(word));
  if (!filled.ok()) return filled;
  return word;
}

}  // namespace ldp
