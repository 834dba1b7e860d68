// Task poll decoding; see the header.
#include "client/agent_wire/task_batch.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/task_convert.h"
#include "proto/convert/wire_message.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {
namespace {

std::string IdText(std::optional<uint64_t> id) {
  return id.has_value() ? absl::StrCat(*id) : std::string("(unreadable)");
}

// "refusing task T of study S: why", with the ids read from the bytes when
// the task as a whole does not parse.
absl::Status Refusal(std::optional<uint64_t> task_id,
                     std::optional<uint64_t> study_id,
                     const absl::Status& why) {
  return absl::Status(
      why.code(), absl::StrCat("refusing task ", IdText(task_id), " of study ",
                               IdText(study_id), ": ", why.message()));
}

void DecodeTask(std::string_view bytes, const ShuffledTaskOptions& shuffle,
                TaskBatch& batch) {
  v1::Task proto;
  if (absl::Status parsed = ParseWireMessage(bytes, proto); !parsed.ok()) {
    batch.malformed.push_back(
        Refusal(TopLevelVarint(bytes, v1::Task::kTaskIdFieldNumber),
                TopLevelVarint(bytes, v1::Task::kStudyIdFieldNumber), parsed));
    return;
  }
  auto envelope = TaskFromProto(proto);
  if (!envelope.ok()) {
    batch.malformed.push_back(
        Refusal(proto.task_id(), proto.study_id(), envelope.status()));
    return;
  }
  AgentTask task{
      .task = std::move(envelope->task),
      .schema = std::move(envelope->schema),
      .deadline = envelope->deadline.value_or(absl::InfiniteFuture())};
  if (proto.has_shuffle()) {
    auto seal = ShuffledTaskSealer(proto, proto.shuffle(), shuffle);
    if (!seal.ok()) {
      batch.malformed.push_back(
          Refusal(proto.task_id(), proto.study_id(), seal.status()));
      return;
    }
    task.seal = *std::move(seal);
  }
  batch.tasks.push_back(std::move(task));
}

}  // namespace

absl::StatusOr<TaskBatch> DecodeTaskBatch(std::string_view response_bytes,
                                          const ShuffledTaskOptions& shuffle) {
  ASSIGN_OR_RETURN(SplitFields split,
                   SplitRepeatedField(response_bytes,
                                      v1::GetTasksResponse::kTasksFieldNumber));
  v1::GetTasksResponse rest;
  RETURN_IF_ERROR(ParseWireMessage(split.rest, rest));
  TaskBatch batch;
  batch.poll_after = absl::Seconds(rest.poll_after_seconds());
  for (std::string_view task : split.elements) {
    DecodeTask(task, shuffle, batch);
  }
  return batch;
}

}  // namespace ldp
