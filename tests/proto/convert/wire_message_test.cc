#include "proto/convert/wire_message.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/deep_expression.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::DeepExpression;
using ::ldp::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

using ::ldp::testing::kInvalid;

// A Query nests 2 messages per expression level: Expression, then Unary.
std::string QueryBytes(int expression_depth) {
  v1::Query query;
  *query.mutable_root() = DeepExpression(expression_depth, "x");
  return query.SerializeAsString();
}

TEST(WireMessageTest, ParsesAValidMessage) {
  v1::Query query;
  ASSERT_OK(ParseWireMessage(QueryBytes(40), query));
  EXPECT_TRUE(query.root().has_unary());
}

// The nesting depth of a Query with an expression `expression_depth` deep;
// -1 if the walk fails.
int QueryDepth(int expression_depth, int stop_after) {
  absl::StatusOr<int> depth = WireNestingDepth(
      QueryBytes(expression_depth), *v1::Query::descriptor(), stop_after);
  return depth.ok() ? *depth : -1;
}

TEST(WireMessageTest, CountsNestingDepthWithoutRecursion) {
  EXPECT_EQ(QueryDepth(1, 1000), 2);
  EXPECT_EQ(QueryDepth(60, 1000), 120);
  // Far past any stack: counting stops at stop_after + 1.
  EXPECT_EQ(QueryDepth(2000, 150), 151);
}

TEST(WireMessageTest, TooDeepNamesBothLimits) {
  v1::Query query;
  EXPECT_THAT(ParseWireMessage(QueryBytes(60), query),
              StatusIs(kInvalid, AllOf(HasSubstr("ldp.v1.Query"),
                                       HasSubstr("more than 100 deep"),
                                       HasSubstr("at most 32 levels"))));
}

TEST(WireMessageTest, GarbageIsNotWireFormat) {
  v1::UploadReportsRequest request;
  for (const std::string& garbage : {std::string("not protobuf at all"),
                                     std::string("\xff\xff\xff\xff\xff", 5),
                                     std::string("\x0a\x10short", 7)}) {
    EXPECT_THAT(ParseWireMessage(garbage, request),
                StatusIs(kInvalid, HasSubstr("ldp.v1.UploadReportsRequest")))
        << garbage;
  }
}

TEST(WireMessageTest, WellFormedButInvalidIsSaidSo) {
  v1::Expression expression;
  expression.set_field("x");
  std::string bytes = expression.SerializeAsString();
  bytes.back() = '\xff';  // the field name is no longer UTF-8
  EXPECT_THAT(ParseWireMessage(bytes, expression),
              StatusIs(kInvalid, HasSubstr("not a valid ldp.v1.Expression")));
}

TEST(WireMessageTest, SplitsOneRepeatedFieldFromTheRest) {
  v1::GetTasksResponse response;
  for (uint64_t id : {11, 12, 13}) response.add_tasks()->set_task_id(id);
  response.set_poll_after_seconds(5);
  const std::string bytes = response.SerializeAsString();
  absl::StatusOr<SplitFields> split =
      SplitRepeatedField(bytes, v1::GetTasksResponse::kTasksFieldNumber);
  ASSERT_OK(split);
  ASSERT_EQ(split->elements.size(), 3u);
  v1::Task task;
  ASSERT_OK(ParseWireMessage(split->elements[2], task));
  EXPECT_EQ(task.task_id(), 13u);
  v1::GetTasksResponse rest;
  ASSERT_OK(ParseWireMessage(split->rest, rest));
  EXPECT_EQ(rest.tasks_size(), 0);
  EXPECT_EQ(rest.poll_after_seconds(), 5u);
  EXPECT_THAT(SplitRepeatedField("not protobuf", 1), StatusIs(kInvalid));
}

TEST(WireMessageTest, ReadsATopLevelVarint) {
  v1::Task task;
  task.set_study_id(4);
  task.set_task_id(77);
  *task.mutable_query()->mutable_root() = DeepExpression(3, "x");
  const std::string bytes = task.SerializeAsString();
  EXPECT_EQ(TopLevelVarint(bytes, v1::Task::kTaskIdFieldNumber), 77u);
  EXPECT_EQ(TopLevelVarint(bytes, v1::Task::kStudyIdFieldNumber), 4u);
  EXPECT_EQ(TopLevelVarint(bytes, v1::Task::kEpsilonNanosFieldNumber),
            std::nullopt);
  EXPECT_EQ(TopLevelVarint("not protobuf", 1), std::nullopt);
}

}  // namespace
}  // namespace ldp
