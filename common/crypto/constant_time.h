// Comparison of secrets in time that depends only on their length, so that
// how long a check takes tells an attacker nothing of how much of a guess
// was right. Callers compare fixed-size digests, never raw secrets of
// secret length.
#ifndef LDP_COMMON_CRYPTO_CONSTANT_TIME_H_
#define LDP_COMMON_CRYPTO_CONSTANT_TIME_H_

#include <string_view>

namespace ldp {

// True when a and b hold the same bytes. Sizes that differ are unequal at
// once: the size is public (a digest's), the contents are not.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace ldp

#endif  // LDP_COMMON_CRYPTO_CONSTANT_TIME_H_
