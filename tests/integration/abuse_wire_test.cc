// Abuse below the message level, against a real ldp-server: bytes on the upload
// stream that are not an UploadReportsRequest, and study specs whose query
// nests past the limits. Each must get INVALID_ARGUMENT with a reason, never OK
// with nothing said, and change nothing (the fixture's Snapshot of counters,
// estimates and ledgers).
//
// The upload stream is driven through gRPC's generic stub (raw_stream.h),
// which sends raw bytes as stream messages.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/abuse_fixture.h"
#include "tests/integration/raw_stream.h"
#include "tests/testing/deep_expression.h"

namespace ldp::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class AbuseWireTest : public AbuseTest {
 protected:
  // One UploadReports stream carrying `messages` verbatim, as Bob.
  grpc::Status RawUpload(const std::vector<std::string>& messages) {
    return RawStream(server_.NewChannel(), "/ldp.v1.AgentService/UploadReports",
                     Bearer(bob_.token), messages);
  }
};

TEST_F(AbuseWireTest, GarbageOnTheUploadStreamIsInvalidArgument) {
  const Snapshot before = Take();
  const std::vector<std::string> garbage = {
      "not protobuf at all", std::string("\xff\xff\xff\xff\xff\xff", 6),
      std::string("\x0a\x40 a field longer than the message", 34),
      "",  // parses, but carries no report
  };
  for (const std::string& bytes : garbage) {
    const grpc::Status status = RawUpload({bytes});
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << "garbage '" << bytes << "': " << status.error_message();
    EXPECT_FALSE(status.error_message().empty());
  }
  EXPECT_EQ(Take(), before);
  // Garbage after a valid batch also ends the stream with INVALID_ARGUMENT.
  const std::string valid =
      Batch({ItemReport(bob_, histogram_, 1)}).SerializeAsString();
  const grpc::Status after_valid = RawUpload({valid, "not protobuf at all"});
  EXPECT_EQ(after_valid.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << after_valid.error_message();
  EXPECT_THAT(after_valid.error_message(), HasSubstr("not protobuf"));
  // The valid batch before the garbage was committed (acks are final once
  // read): exactly Bob's one report is new, and nothing else changed.
  auto study = analyst_->GetStudy(histogram_);
  ASSERT_OK(study);
  EXPECT_EQ(study->status().num_reports(), 2u);  // Carol's and Bob's
  // The stream's end cost Bob nothing else: his mean report is accepted.
  ExpectAcks(
      Upload(Bearer(bob_.token), {Batch({ScalarReport(bob_, mean_, 4)})}),
      {StatusCode::kOk});
}

TEST_F(AbuseWireTest, QueriesNestedPastTheLimitsAreInvalidArgument) {
  const Snapshot before = Take();
  // 40 levels: protobuf reads it; the server's 32-level limit refuses it.
  // 60 and 500 levels: past protobuf's 100 messages, which used to answer
  // UNIMPLEMENTED with no message.
  for (int depth : {40, 60, 500}) {
    v1::StudySpec spec = MeanSpec();
    *spec.mutable_questions(0)->mutable_statistical_query()->mutable_root() =
        DeepExpression(depth, "x");
    const absl::StatusOr<v1::Study> created = analyst_->CreateStudy(spec);
    EXPECT_THAT(created, StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("32 levels")))
        << "depth " << depth;
    if (depth > 48) {
      EXPECT_THAT(created, StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("100")))
          << "depth " << depth;
    }
  }
  EXPECT_EQ(Take(), before);
  // 32 levels is allowed.
  v1::StudySpec spec = MeanSpec();
  *spec.mutable_questions(0)->mutable_statistical_query()->mutable_root() =
      DeepExpression(32, "x");
  EXPECT_OK(analyst_->CreateStudy(spec));
}

}  // namespace
}  // namespace ldp::testing
