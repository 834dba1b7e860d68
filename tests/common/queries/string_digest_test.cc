// Strings in bit-vector fields and their digests (string_digest.h): the
// documented rule pinned by vectors from an independent implementation of
// types.proto's DigestEncoding comment, the candidates' checks, the seed
// search, and the digest encoding an agent applies to its record.
#include "common/queries/string_digest.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/queries/domain_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

uint32_t DigestOf(const std::string& text, uint32_t bits, uint64_t seed) {
  return StringDigest(PackedBytes(*StringBits(text, bits)), seed);
}

TEST(StringDigest, MatchesTheDocumentedRule) {
  // Computed from the proto comment's rule in Python, not from this code.
  EXPECT_EQ(DigestOf("abc", 128, 1), 1052772185u);
  EXPECT_EQ(DigestOf("abc", 128, 2), 1406134405u);
  EXPECT_EQ(DigestOf("", 128, 1), 790680964u);
  EXPECT_EQ(DigestOf("abc", 64, 1), 952917600u);
  EXPECT_EQ(DigestOf("string-00042", 128, 7), 1274627441u);
}

TEST(StringDigest, BitsHoldTheBytesLittleEndianThenZeros) {
  const std::vector<bool> bits = *StringBits("A", 16);  // 0x41
  const std::vector<bool> expected = {true,  false, false, false, false, false,
                                      true,  false, false, false, false, false,
                                      false, false, false, false};
  EXPECT_EQ(bits, expected);
  EXPECT_EQ(PackedBytes(bits), std::string("A\0", 2));
  EXPECT_THAT(StringBits("abc", 16),
              StatusIs(kInvalid, HasSubstr("at most 2")));
}

TEST(StringDigest, CandidatesAreCheckedAndDigested) {
  const auto digests = CandidateDigests({"abc", "", "string-00042"}, 128, 1);
  ASSERT_OK(digests);
  EXPECT_EQ(*digests,
            (std::vector<uint32_t>{1052772185u, 790680964u,
                                   DigestOf("string-00042", 128, 1)}));
  EXPECT_THAT(CandidateDigests({"a", "b", "a"}, 128, 1),
              StatusIs(kInvalid, HasSubstr("are both \"a\"")));
  EXPECT_THAT(CandidateDigests({"seventeen bytes!!"}, 128, 1),
              StatusIs(kInvalid, HasSubstr("17 bytes")));
}

// Two distinct strings with one digest under seed 1, found by birthday
// search (about 2^16 strings for 31-bit digests).
std::vector<std::string> CollidingPair() {
  absl::flat_hash_map<uint32_t, std::string> seen;
  for (int i = 0;; ++i) {
    std::string s = absl::StrCat("c", i);
    const auto [it, added] = seen.emplace(DigestOf(s, 64, 1), s);
    if (!added) return {it->second, s};
  }
}

TEST(StringDigest, ACollisionIsRefusedAndAnotherSeedFound) {
  const std::vector<std::string> pair = CollidingPair();
  EXPECT_THAT(
      CandidateDigests(pair, 64, 1),
      StatusIs(kInvalid, HasSubstr("share a digest under hash_seed 1")));
  const absl::StatusOr<uint64_t> seed = FirstDistinctSeed(pair, 64);
  ASSERT_OK(seed);
  EXPECT_GT(*seed, 1u);
  EXPECT_OK(CandidateDigests(pair, 64, *seed));
  EXPECT_THAT(FirstDistinctSeed({"x", "x"}, 64),
              StatusIs(kInvalid, HasSubstr("are both")));
}

TEST(StringDigest, TheEncodingDigestsTheRecordsField) {
  const RecordSchema schema = *RecordSchema::Create(
      {FieldSpec::BitVector("text", 128), FieldSpec::Int("age", 0, 9)});
  const auto encoding = DomainEncoding::Create(
      DigestEncoding{.field = "text", .seed = 2}, schema);
  ASSERT_OK(encoding);
  EXPECT_EQ(encoding->domain_size(), kDigestDomainSize);
  Record record;
  record.values["text"] = *StringBits("abc", 128);
  EXPECT_EQ(encoding->Encode(record), 1406134405u);
  // A missing field is its default, all zeros: the empty string.
  EXPECT_EQ(encoding->Encode(Record{}), DigestOf("", 128, 2));
  EXPECT_THAT(encoding->Describe(7), HasSubstr("text digest=7"));
  EXPECT_THAT(DomainEncoding::Create(DigestEncoding{.field = "age"}, schema),
              StatusIs(kInvalid, HasSubstr("is not a bit vector")));
  EXPECT_THAT(DomainEncoding::Create(DigestEncoding{.field = "nope"}, schema),
              StatusIs(kInvalid, HasSubstr("is not in the schema")));
}

}  // namespace
}  // namespace ldp
