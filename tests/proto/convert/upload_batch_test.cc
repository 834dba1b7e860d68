#include "proto/convert/upload_batch.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kInvalid;

v1::Report ItemReport(uint64_t agent_id, uint64_t task_id, char id_byte) {
  v1::Report report;
  report.set_protocol_version(1);
  report.set_agent_id(agent_id);
  report.set_task_id(task_id);
  report.set_report_id(std::string(16, id_byte));
  report.mutable_item()->set_item(2);
  return report;
}

TEST(UploadBatchTest, GarbageIsInvalidArgument) {
  EXPECT_THAT(DecodeUploadBatch("not protobuf at all", 7),
              StatusIs(kInvalid, HasSubstr("not protobuf wire format")));
}

TEST(UploadBatchTest, AMessageWithNoReportIsInvalidArgument) {
  EXPECT_THAT(DecodeUploadBatch("", 7),
              StatusIs(kInvalid, HasSubstr("at least one report")));
  // Unknown fields only: what stray bytes that happen to parse look like.
  EXPECT_THAT(DecodeUploadBatch(std::string("\x78\x01", 2), 7),
              StatusIs(kInvalid, HasSubstr("at least one report")));
}

TEST(UploadBatchTest, EachReportIsAcceptedOrRefusedOnItsOwn) {
  v1::UploadReportsRequest request;
  *request.add_reports() = ItemReport(7, 100, 'a');
  *request.add_reports() = ItemReport(8, 101, 'b');  // another agent
  v1::Report no_payload = ItemReport(7, 102, 'c');
  no_payload.clear_item();
  *request.add_reports() = no_payload;
  absl::StatusOr<UploadBatch> batch =
      DecodeUploadBatch(request.SerializeAsString(), 7);
  ASSERT_OK(batch);
  ASSERT_EQ(batch->entries.size(), 3u);
  ASSERT_OK(batch->entries[0].report);
  EXPECT_EQ(batch->entries[0].report->task_id, 100u);
  EXPECT_EQ(batch->entries[0].report_id, std::string(16, 'a'));
  EXPECT_THAT(
      batch->entries[1].report.status(),
      StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("agent 8")));
  EXPECT_EQ(batch->entries[1].report_id, std::string(16, 'b'));
  EXPECT_THAT(batch->entries[2].report.status(), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
