#include "common/tasks/task_id.h"

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(TaskId, PacksAndUnpacksEveryFieldAtItsLimits) {
  const TaskKey keys[] = {
      {.round_id = 1, .agent_id = 1, .question = 0},
      {.round_id = kMaxRoundId,
       .agent_id = kMaxAgentId,
       .question = kMaxQuestionIndex},
      {.round_id = 12345, .agent_id = 987654321, .question = 77},
  };
  for (const TaskKey& key : keys) {
    EXPECT_EQ(UnpackTaskId(PackTaskId(key)), key);
  }
}

TEST(TaskId, DistinctKeysGiveDistinctIds) {
  const uint64_t base =
      PackTaskId({.round_id = 2, .agent_id = 3, .question = 4});
  EXPECT_NE(base, PackTaskId({.round_id = 3, .agent_id = 3, .question = 4}));
  EXPECT_NE(base, PackTaskId({.round_id = 2, .agent_id = 4, .question = 4}));
  EXPECT_NE(base, PackTaskId({.round_id = 2, .agent_id = 3, .question = 5}));
}

TEST(TaskId, NoIssuedIdIsZero) {
  EXPECT_EQ(UnpackTaskId(0).round_id, 0u);
  EXPECT_EQ(UnpackTaskId(0).agent_id, 0u);
}

}  // namespace
}  // namespace ldp
