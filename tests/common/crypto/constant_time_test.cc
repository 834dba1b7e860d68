// ConstantTimeEquals: the answer of a plain comparison for every length and
// every position of a difference (its timing is OpenSSL's CRYPTO_memcmp).
#include "common/crypto/constant_time.h"

#include <string>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(ConstantTimeEquals, EqualBytesAreEqual) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  const std::string bytes("a\0b\xff", 4);
  EXPECT_TRUE(ConstantTimeEquals(bytes, std::string(bytes)));
}

TEST(ConstantTimeEquals, AnyOneBitDifferenceIsUnequal) {
  const std::string base(32, '\x5a');
  for (size_t i = 0; i < base.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string other = base;
      other[i] = static_cast<char>(other[i] ^ (1 << bit));
      EXPECT_FALSE(ConstantTimeEquals(base, other)) << i << ":" << bit;
    }
  }
}

TEST(ConstantTimeEquals, DifferentLengthsAreUnequal) {
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
}

}  // namespace
}  // namespace ldp
