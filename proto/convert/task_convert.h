// ldp.v1.Task <-> Task (task.h), with the record schema and deadline that
// make a wire task self-contained.
//
// An agent must be able to check a task entirely on its own (DESIGN
// invariant 4): the wire task carries the study's schema, and conversion
// type-checks the question against it, rebuilds the randomizer spec, and
// refuses a task whose charged εₜ differs from its randomizer's ε. Whether
// the randomizer's IMPLEMENTED ε fits the charge is TaskMechanism::Create's
// check.
#ifndef LDP_PROTO_CONVERT_TASK_CONVERT_H_
#define LDP_PROTO_CONVERT_TASK_CONVERT_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/queries/record_schema.h"
#include "common/tasks/task.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// Everything one wire task says.
struct TaskEnvelope {
  Task task;
  RecordSchema schema;
  // The round's deadline; nullopt when the wire leaves it unset.
  std::optional<absl::Time> deadline{};
};

// InvalidArgument unless: schema, question and randomizer are set and
// valid; a query comes with a real-valued mechanism and an encoding with a
// frequency oracle (a HistogramTask) or a workload strategy (a
// WorkloadTask) whose domain_size equals the encoding's N; epsilon_nanos
// equals randomizer.epsilon_nanos, is > 0 and fits int64; the deadline (if
// set) is a valid Timestamp. The real mechanism's bound is set to half the
// query's output range (as TaskMechanism uses it).
absl::StatusOr<TaskEnvelope> TaskFromProto(const v1::Task& proto);

// Overwrites `proto`. The randomizer's epsilon_nanos is written from the
// spec's own epsilon (EpsilonToNanos), not copied from task.epsilon_nanos,
// so a server-side mismatch is visible to the agent, which then refuses.
void TaskToProto(const Task& task, const RecordSchema& schema, v1::Task* proto);
// As above, plus the deadline when set.
void TaskToProto(const TaskEnvelope& envelope, v1::Task* proto);

// Deterministic bytes of TaskToProto (for stores), and their inverse.
std::string TaskToBytes(const Task& task, const RecordSchema& schema);
absl::StatusOr<TaskEnvelope> TaskFromBytes(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_TASK_CONVERT_H_
