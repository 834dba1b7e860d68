// HMAC-SHA256 against RFC 4231's test vectors.
#include "common/crypto/hmac_sha256.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

std::string Hex(const absl::StatusOr<Sha256Digest>& digest) {
  EXPECT_TRUE(digest.ok()) << digest.status();
  return digest.ok() ? DigestHex(*digest) : "";
}

std::string Bytes(const char* hex) { return absl::HexStringToBytes(hex); }

// RFC 4231, test cases 1, 2 and 6 (a key longer than SHA-256's block).
TEST(HmacSha256, MatchesRfc4231) {
  EXPECT_EQ(Hex(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(
      Hex(HmacSha256(std::string(131, '\xaa'),
                     "Test Using Larger Than Block-Size Key - Hash Key First")),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

// RFC 4231, test case 3: 50 bytes 0xdd under 20 bytes 0xaa.
TEST(HmacSha256, MatchesRfc4231OnBinaryData) {
  EXPECT_EQ(Hex(HmacSha256(std::string(20, '\xaa'), std::string(50, '\xdd'))),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  // RFC 2104 pads a short key with zeros: keys that differ only by
  // trailing zero bytes are the same key (callers that care, such as the
  // enrollment derivation, put the key's length into the message).
  EXPECT_EQ(Hex(HmacSha256(Bytes("0000"), "m")), Hex(HmacSha256("", "m")));
}

}  // namespace
}  // namespace ldp
