// SHA-256 against FIPS 180-2's published examples.
#include "common/crypto/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(Sha256, MatchesThePublishedDigestOfAbc) {
  absl::StatusOr<Sha256Digest> digest = Sha256Of("abc");
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(DigestHex(*digest),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, MatchesThePublishedDigestOfTheEmptyString) {
  absl::StatusOr<Sha256Digest> digest = Sha256Of("");
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(DigestHex(*digest),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// Two blocks, and a million bytes (FIPS 180-2, appendix B.2 and B.3).
TEST(Sha256, MatchesThePublishedDigestsOfLongerMessages) {
  absl::StatusOr<Sha256Digest> two_blocks =
      Sha256Of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq");
  ASSERT_TRUE(two_blocks.ok()) << two_blocks.status();
  EXPECT_EQ(DigestHex(*two_blocks),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  absl::StatusOr<Sha256Digest> million = Sha256Of(std::string(1000000, 'a'));
  ASSERT_TRUE(million.ok()) << million.status();
  EXPECT_EQ(DigestHex(*million),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, DigestBytesAreTheDigestItself) {
  const Sha256Digest digest = *Sha256Of(std::string(1000, 'a'));
  const std::string_view bytes = DigestBytes(digest);
  ASSERT_EQ(bytes.size(), kSha256Bytes);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), digest[0]);
  EXPECT_EQ(static_cast<uint8_t>(bytes[31]), digest[31]);
  EXPECT_EQ(bytes.data(), reinterpret_cast<const char*>(digest.data()));
}

}  // namespace
}  // namespace ldp
