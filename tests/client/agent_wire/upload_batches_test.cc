// upload_batches: cutting reports into UploadReportsRequest batches within
// both limits, and reading the acks back only when they answer exactly the
// reports sent.
#include "client/agent_wire/upload_batches.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;

std::vector<TaskReport> ScalarReports(int n) {
  std::vector<TaskReport> reports(n);
  for (int i = 0; i < n; ++i) {
    reports[i].task_id = 100 + i;
    reports[i].report_id[0] = static_cast<uint8_t>(i);
    reports[i].report_id[15] = 0xab;
    reports[i].payload = ScalarReport{.level = i % 2 ? 1 : -1};
  }
  return reports;
}

TEST(UploadBatchesTest, BatchesKeepOrderAndBothLimits) {
  const std::vector<TaskReport> reports = ScalarReports(7);
  const auto by_count =
      MakeUploadBatches(reports, 42, {.max_reports_per_batch = 3});
  ASSERT_EQ(by_count.size(), 3u);  // 3 + 3 + 1
  EXPECT_EQ(by_count[2].reports_size(), 1);
  int next = 100;
  for (const auto& batch : by_count) {
    for (const v1::Report& r : batch.reports()) {
      EXPECT_EQ(r.task_id(), static_cast<uint64_t>(next++));
      EXPECT_EQ(r.agent_id(), 42u);
    }
  }
  // A byte limit below one report: every report travels alone.
  const auto by_bytes = MakeUploadBatches(reports, 42, {.max_batch_bytes = 1});
  EXPECT_EQ(by_bytes.size(), 7u);
  EXPECT_TRUE(MakeUploadBatches({}, 42, {}).empty());
}

v1::UploadReportsResponse AcksFor(const std::vector<TaskReport>& reports) {
  v1::UploadReportsResponse response;
  for (const TaskReport& r : reports) {
    response.add_acks()->set_report_id(
        std::string(reinterpret_cast<const char*>(r.report_id.data()), 16));
  }
  return response;
}

TEST(UploadBatchesTest, AcksAreReadOnlyWhenTheyAnswerTheseReports) {
  const std::vector<TaskReport> reports = ScalarReports(3);
  v1::UploadReportsResponse response = AcksFor(reports);
  response.mutable_acks(1)->set_code(9);  // FAILED_PRECONDITION
  response.mutable_acks(1)->set_message("over budget");
  response.mutable_acks(2)->set_code(99);  // not a canonical code
  auto statuses = AcksToStatuses(response, reports);
  ASSERT_OK(statuses);
  ASSERT_EQ(statuses->size(), 3u);
  EXPECT_OK((*statuses)[0]);
  EXPECT_THAT((*statuses)[1], StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ((*statuses)[1].message(), "over budget");
  EXPECT_THAT((*statuses)[2], StatusIs(absl::StatusCode::kUnknown));

  // One ack short, or acks in another order: nothing is settled.
  v1::UploadReportsResponse short_response = AcksFor(reports);
  short_response.mutable_acks()->RemoveLast();
  EXPECT_THAT(AcksToStatuses(short_response, reports),
              StatusIs(absl::StatusCode::kInternal));
  v1::UploadReportsResponse swapped = AcksFor(reports);
  swapped.mutable_acks()->SwapElements(0, 2);
  EXPECT_THAT(AcksToStatuses(swapped, reports),
              StatusIs(absl::StatusCode::kInternal));
}

}  // namespace
}  // namespace ldp
