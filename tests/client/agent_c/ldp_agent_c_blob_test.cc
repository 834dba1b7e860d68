// The C ABI's saved-state blob (client/agent_c/state_blob.h): any damage
// opens as LDP_DATA_LOSS. Every single bit of a real blob flipped in turn,
// every cut and a grown blob are refused, a valid digest over an unknown
// version too; a blob from before the digest (the bare state text) still
// opens and is sealed by the next save.
#include <string>

#include "client/agent_c/ldp_agent.h"
#include "common/crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/agent_c/agent_c_session.h"
#include "tests/client/core/color_tasks.h"

namespace ldp::agent_c_blob_test {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

constexpr size_t kDigestLine = 72;  // "sha256 " + 64 hex digits + "\n"

class AgentCBlobTest : public ::testing::Test {
 protected:
  // A small real blob: one task answered, its report pending.
  void SetUp() override {
    ASSERT_EQ(s_.Answer(testing::PollBytes({testing::ColorTask(1, 1, 3)})),
              LDP_OK);
    blob_ = s_.storage.blob;
  }

  // What ldp_agent_open says of `blob`.
  int OpenWith(const std::string& blob) {
    s_.storage.blob = blob;
    return s_.Reopen();
  }

  int64_t Spent() {
    int64_t total = -1;
    EXPECT_EQ(ldp_agent_spent(s_.agent, 0, &total, nullptr, nullptr), LDP_OK);
    return total;
  }

  testing::AgentCSession s_;
  std::string blob_;
};

TEST_F(AgentCBlobTest, TheBlobIsTheStateTextBetweenVersionAndDigest) {
  EXPECT_THAT(blob_, StartsWith("ldp-agent-blob 1\nldp-agent-state 2\n"));
  const std::string line = blob_.substr(blob_.size() - kDigestLine);
  EXPECT_THAT(line, MatchesRegex("sha256 [0-9a-f]{64}\n"));
  absl::StatusOr<Sha256Digest> digest =
      Sha256Of(blob_.substr(0, blob_.size() - kDigestLine));
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(line, "sha256 " + DigestHex(*digest) + "\n");
  EXPECT_EQ(OpenWith(blob_), LDP_OK);
  EXPECT_EQ(Spent(), testing::kHalfEpsilonNanos);
}

TEST_F(AgentCBlobTest, EveryFlippedBitIsDataLoss) {
  ASSERT_LT(blob_.size(), 1000u);  // small enough to flip every bit
  for (size_t bit = 0; bit < blob_.size() * 8; ++bit) {
    std::string flipped = blob_;
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    ASSERT_EQ(OpenWith(flipped), LDP_DATA_LOSS)
        << "bit " << bit << " of " << blob_.size() * 8;
    EXPECT_EQ(s_.agent, nullptr);
  }
  EXPECT_THAT(s_.status.message, HasSubstr("damaged"));
}

TEST_F(AgentCBlobTest, CutOrGrownBlobsAreDataLoss) {
  for (size_t n = 1; n < blob_.size(); ++n) {
    ASSERT_EQ(OpenWith(blob_.substr(0, n)), LDP_DATA_LOSS) << n;
  }
  EXPECT_EQ(OpenWith(blob_ + "\n"), LDP_DATA_LOSS);
  EXPECT_EQ(OpenWith("x" + blob_), LDP_DATA_LOSS);
  EXPECT_EQ(OpenWith(blob_ + blob_), LDP_DATA_LOSS);
}

// A version this library does not know, under a correct digest (a newer
// library's blob), is refused rather than read as this version.
TEST_F(AgentCBlobTest, AnUnknownVersionUnderAGoodDigestIsDataLoss) {
  std::string body = blob_.substr(0, blob_.size() - kDigestLine);
  body[std::string("ldp-agent-blob ").size()] = '2';
  absl::StatusOr<Sha256Digest> digest = Sha256Of(body);
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(OpenWith(body + "sha256 " + DigestHex(*digest) + "\n"),
            LDP_DATA_LOSS);
  EXPECT_THAT(s_.status.message, HasSubstr("format this library does not"));
}

// The library before the digest saved the bare state text: it opens, keeps its
// spend and pending report, and the next save seals it.
TEST_F(AgentCBlobTest, ABlobFromBeforeTheDigestOpensAndIsSealedOnSave) {
  const size_t text_at = blob_.find('\n') + 1;
  const std::string bare =
      blob_.substr(text_at, blob_.size() - text_at - kDigestLine);
  ASSERT_THAT(bare, StartsWith("ldp-agent-state 2\n"));
  ASSERT_EQ(OpenWith(bare), LDP_OK) << s_.status.message;
  EXPECT_EQ(Spent(), testing::kHalfEpsilonNanos);
  EXPECT_NE(s_.Next(false), "");
  ASSERT_EQ(s_.Answer(testing::PollBytes({testing::ColorTask(2, 2, 4)})),
            LDP_OK);
  EXPECT_THAT(s_.storage.blob, StartsWith("ldp-agent-blob 1\n"));
  ASSERT_EQ(s_.Reopen(), LDP_OK);
  EXPECT_EQ(Spent(), 2 * testing::kHalfEpsilonNanos);
  // A damaged bare text is still refused by the text parser where it can.
  EXPECT_EQ(OpenWith(bare.substr(0, bare.size() - 4)), LDP_DATA_LOSS);
}

}  // namespace
}  // namespace ldp::agent_c_blob_test
