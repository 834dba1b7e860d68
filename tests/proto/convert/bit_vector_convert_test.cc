#include "proto/convert/bit_vector_convert.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

// A deterministic, irregular pattern: bit i set when i % 3 == 0 or i % 7 == 2.
std::vector<bool> Pattern(size_t n) {
  std::vector<bool> bits(n);
  for (size_t i = 0; i < n; ++i) bits[i] = i % 3 == 0 || i % 7 == 2;
  return bits;
}

v1::BitVector Wire(std::string packed, uint32_t bit_length) {
  v1::BitVector proto;
  proto.set_packed(std::move(packed));
  proto.set_bit_length(bit_length);
  return proto;
}

TEST(BitVectorConvert, BitsRoundTripAtEveryAwkwardLength) {
  for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 130}) {
    const std::vector<bool> bits = Pattern(n);
    v1::BitVector proto;
    BitsToProto(bits, &proto);
    EXPECT_EQ(proto.bit_length(), n);
    EXPECT_EQ(proto.packed().size(), (n + 7) / 8);
    absl::StatusOr<std::vector<bool>> back = BitsFromProto(proto, "bits");
    ASSERT_OK(back);
    EXPECT_EQ(*back, bits) << "n = " << n;
  }
}

TEST(BitVectorConvert, PacksLittleEndianWithinBytes) {
  v1::BitVector proto;
  BitsToProto({true, false, true, false, false, false, false, false, true},
              &proto);
  EXPECT_EQ(proto.packed(), std::string("\x05\x01", 2));
}

TEST(BitVectorConvert, WordsMatchTheBitLayout) {
  // Bit i of the bool layout is bit i % 64 of word i / 64.
  const std::vector<bool> bits = Pattern(130);
  v1::BitVector proto;
  BitsToProto(bits, &proto);
  absl::StatusOr<std::vector<uint64_t>> words = WordsFromProto(proto, "bits");
  ASSERT_OK(words);
  ASSERT_EQ(words->size(), 3u);
  for (size_t i = 0; i < bits.size(); ++i) {
    EXPECT_EQ(((*words)[i / 64] >> (i % 64)) & 1, bits[i] ? 1u : 0u) << i;
  }
}

// A length of 0 is a legacy report of unknown length: all its words go out.
TEST(BitVectorConvert, LegacyWordsRoundTripAsWholeWords) {
  const std::vector<uint64_t> words = {0x8000000000000001u,
                                       0x0123456789abcdefu};
  v1::BitVector proto;
  WordsToProto(words, 0, &proto);
  EXPECT_EQ(proto.bit_length(), 128u);
  EXPECT_EQ(proto.packed().size(), 16u);
  absl::StatusOr<std::vector<uint64_t>> back = WordsFromProto(proto, "bits");
  ASSERT_OK(back);
  EXPECT_EQ(*back, words);
}

TEST(BitVectorConvert, WordsGoOutWithExactlyTheirLength) {
  const std::vector<uint64_t> words = {0x8000000000000001u, 0x1a5u};
  v1::BitVector proto;
  WordsToProto(words, 73, &proto);
  EXPECT_EQ(proto.bit_length(), 73u);
  EXPECT_EQ(proto.packed(), std::string("\x01\0\0\0\0\0\0\x80\xa5\x01", 10));
  absl::StatusOr<std::vector<uint64_t>> back = WordsFromProto(proto, "bits");
  ASSERT_OK(back);
  EXPECT_EQ(*back, words);

  WordsToProto({0x5}, 8, &proto);
  EXPECT_EQ(proto.bit_length(), 8u);
  EXPECT_EQ(proto.packed(), "\x05");
}

TEST(BitVectorConvert, RejectsInconsistentPacking) {
  struct Case {
    const char* name;
    v1::BitVector proto;
    const char* message;
  };
  const Case cases[] = {
      {"too few bytes", Wire(std::string(1, '\0'), 9),
       "exactly 2 packed bytes"},
      {"too many bytes", Wire(std::string(3, '\0'), 9),
       "exactly 2 packed bytes"},
      {"bytes without length", Wire(std::string(1, '\0'), 0), "exactly 0"},
      {"padding bit set", Wire(std::string("\xff\x02", 2), 9), "must be zero"},
      {"top padding bit set", Wire(std::string("\x80", 1), 7), "must be zero"},
      {"oversized", Wire("", kMaxWireBitLength + 1), "exceeds the limit"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(BitsFromProto(c.proto, "mask"), StatusIs(kInvalid)) << c.name;
    absl::StatusOr<std::vector<uint64_t>> words =
        WordsFromProto(c.proto, "mask");
    EXPECT_THAT(words, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(words.status().message(), HasSubstr(c.message)) << c.name;
    EXPECT_THAT(words.status().message(), HasSubstr("mask")) << c.name;
  }
}

}  // namespace
}  // namespace ldp
