// What every simulated agent of ldp-loadtest does between its calls,
// whichever driver makes the calls (blocking workers or gRPC callbacks,
// loadtest_sessions.h): build its Agent, answer a poll, count an ack
// against the truth, wait for its start under --rate.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_STEPS_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_STEPS_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/agent_wire/task_batch.h"
#include "client/core/agent.h"
#include "common/crypto/secure_random.h"
#include "tools/loadtest/loadtest_sessions.h"

namespace ldp {

// The simulated agent `index`: its record, an in-memory state store, caps
// equal to the study's charge (it refuses anything beyond, like a device).
absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(int64_t index,
                                                 const Shared& shared,
                                                 SecureRandom& random);

// Lets the agent answer this study's tasks (it saves before anything is
// sent); counts tasks and refusals.
void AnswerTasks(Agent& agent, const TaskBatch& batch, uint64_t study_id,
                 Totals& totals);

// Counts one report's ack; an accepted report adds agent `index` to the
// truth of its question. Returns 1 if accepted.
int64_t Tally(const absl::Status& ack, const ReportPayload& payload,
              int64_t index, const Shared& shared, Totals& totals);
// The same for a sealed report, whose payload the load test cannot read:
// its question is the task's. A null task (not in the agent's batch)
// counts as a rejection.
int64_t TallySealed(const absl::Status& ack, const Task* task, int64_t index,
                    const Shared& shared, Totals& totals);

// The task `task_id` of `batch`; null if it holds none.
const Task* FindTask(const TaskBatch& batch, uint64_t task_id);

// Blocks until agent `index` may start (--rate; no wait without one).
void Pace(int64_t index, const Shared& shared);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_STEPS_H_
