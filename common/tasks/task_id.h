// Task ids: (round, agent, question) packed into the 64-bit id the wire
// contract gives every task.
//
// Why derived ids instead of a tasks table: with a million agents a stored
// task per agent and question would double the writes of ingestion, while
// the assignment itself is a pure function of the round's stored plan
// (planner.h). A report's task id thus names everything the server needs to
// check it (the agent that must have sent it, the round, the question), and
// the report row is the task's participation record.
//
// Layout, high to low: 20 bits round id, 32 bits agent id, 12 bits question
// index. Ids are not secret: reports carry the agent id anyway.
#ifndef LDP_COMMON_TASKS_TASK_ID_H_
#define LDP_COMMON_TASKS_TASK_ID_H_

#include <cstdint>

namespace ldp {

inline constexpr uint64_t kMaxRoundId = (uint64_t{1} << 20) - 1;
inline constexpr uint64_t kMaxAgentId = (uint64_t{1} << 32) - 1;
inline constexpr uint32_t kMaxQuestionIndex = (uint32_t{1} << 12) - 1;

struct TaskKey {
  uint64_t round_id = 0;  // 1 to kMaxRoundId
  uint64_t agent_id = 0;  // 1 to kMaxAgentId
  uint32_t question = 0;  // 0 to kMaxQuestionIndex
  friend bool operator==(const TaskKey&, const TaskKey&) = default;
};

// The key's fields must be within their ranges.
constexpr uint64_t PackTaskId(const TaskKey& key) {
  return (key.round_id << 44) | (key.agent_id << 12) | key.question;
}

// Any 64-bit value unpacks; ids the server never issued fail later lookups
// (no round 0, no agent 0).
constexpr TaskKey UnpackTaskId(uint64_t task_id) {
  return {.round_id = task_id >> 44,
          .agent_id = (task_id >> 12) & kMaxAgentId,
          .question = static_cast<uint32_t>(task_id & kMaxQuestionIndex)};
}

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_TASK_ID_H_
