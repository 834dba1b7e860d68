#include "client/agent_wire/task_batch.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "tests/testing/deep_expression.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::DeepExpression;
using ::ldp::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

using ::ldp::testing::kInvalid;

// The mean of x in [0, 1] (Duchi, ε 0.5), with the query `depth` levels deep.
v1::Task MeanTask(uint64_t id, int depth) {
  v1::Task task;
  const std::string text =
      absl::StrCat("study_id: ", id, " round_id: 1 task_id: ", id,
                   R"pb( epsilon_nanos: 500000000
        schema { fields { name: "x" real_field { lower: 0 upper: 1 } } }
        query { output_range { lower: 0 upper: 1 } }
        randomizer { duchi {} epsilon_nanos: 500000000 })pb");
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &task));
  *task.mutable_query()->mutable_root() = DeepExpression(depth, "x");
  return task;
}

TEST(TaskBatchTest, ATaskTooDeepToParseIsRefusedAlone) {
  v1::GetTasksResponse response;
  *response.add_tasks() = MeanTask(1, 3);
  *response.add_tasks() = MeanTask(2, 60);  // past protobuf's 100 messages
  *response.add_tasks() = MeanTask(3, 40);  // parses; past the 32-level limit
  *response.add_tasks() = MeanTask(4, 32);
  response.set_poll_after_seconds(7);
  absl::StatusOr<TaskBatch> batch =
      DecodeTaskBatch(response.SerializeAsString());
  ASSERT_OK(batch);
  ASSERT_EQ(batch->tasks.size(), 2u);
  EXPECT_EQ(batch->tasks[0].task.task_id, 1u);
  EXPECT_EQ(batch->tasks[1].task.task_id, 4u);
  EXPECT_EQ(batch->poll_after, absl::Seconds(7));
  ASSERT_EQ(batch->malformed.size(), 2u);
  EXPECT_THAT(batch->malformed[0],
              StatusIs(kInvalid, AllOf(HasSubstr("refusing task 2 of study 2"),
                                       HasSubstr("100"), HasSubstr("32"))));
  EXPECT_THAT(batch->malformed[1],
              StatusIs(kInvalid, AllOf(HasSubstr("refusing task 3 of study 3"),
                                       HasSubstr("32"))));
}

TEST(TaskBatchTest, AGarbageTaskIsRefusedAlone) {
  v1::GetTasksResponse response;
  *response.add_tasks() = MeanTask(1, 2);
  std::string bytes = response.SerializeAsString();
  const std::string garbage = "not protobuf";
  bytes += std::string(1, '\x0a') + static_cast<char>(garbage.size()) + garbage;
  absl::StatusOr<TaskBatch> batch = DecodeTaskBatch(bytes);
  ASSERT_OK(batch);
  EXPECT_EQ(batch->tasks.size(), 1u);
  ASSERT_EQ(batch->malformed.size(), 1u);
  EXPECT_THAT(batch->malformed[0],
              StatusIs(kInvalid, HasSubstr("refusing task (unreadable)")));
}

TEST(TaskBatchTest, AGarbageResponseIsInvalidArgument) {
  EXPECT_THAT(DecodeTaskBatch("not protobuf at all"), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
