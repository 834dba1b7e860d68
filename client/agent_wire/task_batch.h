// One task poll's answer, decoded task by task from the raw GetTasksResponse
// bytes, so that one task the agent cannot read (garbage, or a question
// nested deeper than protobuf reads) is refused on its own with a reason,
// and the poll's other tasks are still answered.
#ifndef LDP_CLIENT_AGENT_WIRE_TASK_BATCH_H_
#define LDP_CLIENT_AGENT_WIRE_TASK_BATCH_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/agent_wire/shuffled_reports.h"
#include "client/core/agent.h"

namespace ldp {

// One poll's tasks. Tasks the wire could not even express as a Task (bad
// bytes, too deep, bad schema, unknown mechanism, ε mismatch, ...) are
// refused here, with why.
struct TaskBatch {
  std::vector<AgentTask> tasks;
  std::vector<absl::Status> malformed;
  absl::Duration poll_after = absl::ZeroDuration();
};

// InvalidArgument only if the response as a whole is not protobuf (then no
// task can be read); a bad task lands in `malformed`. So does a shuffled
// study's task that `shuffle` does not allow (no shuffler, or a ticket
// that does not fit: ShuffledTaskSealer); one it allows carries its
// sealer, so its report only ever leaves for the shuffler.
absl::StatusOr<TaskBatch> DecodeTaskBatch(
    std::string_view response_bytes, const ShuffledTaskOptions& shuffle = {});

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_WIRE_TASK_BATCH_H_
