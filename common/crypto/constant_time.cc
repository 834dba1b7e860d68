// OpenSSL's CRYPTO_memcmp: a comparison the compiler cannot turn into an
// early exit.
#include "common/crypto/constant_time.h"

#include <openssl/crypto.h>

namespace ldp {

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace ldp
