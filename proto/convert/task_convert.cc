// Tasks between ldp.v1 and task.h; see the header.
#include "proto/convert/task_convert.h"

#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/deterministic_bytes.h"
#include "proto/convert/encoding_convert.h"
#include "proto/convert/query_convert.h"
#include "proto/convert/randomizer_convert.h"
#include "proto/convert/schema_convert.h"
#include "proto/convert/time_convert.h"

namespace ldp {
namespace {

absl::StatusOr<StatisticalQueryTask> QueryTaskFromProto(
    const v1::Task& proto, const RecordSchema& schema,
    const RandomizerConfig& randomizer) {
  const auto* mechanism = std::get_if<RealMechanismSpec>(&randomizer.mechanism);
  if (mechanism == nullptr) {
    return absl::InvalidArgumentError(
        "a task with a query needs a real-valued randomizer (discrete_laplace, "
        "duchi, piecewise or hybrid), got a frequency oracle or a workload "
        "strategy");
  }
  ASSIGN_OR_RETURN(Query query, QueryFromProto(proto.query(), schema));
  RealMechanismSpec spec = *mechanism;
  spec.bound = (query.output_range().upper - query.output_range().lower) / 2;
  return StatisticalQueryTask{.query = std::move(query), .mechanism = spec};
}

using TaskQuestion =
    std::variant<StatisticalQueryTask, HistogramTask, WorkloadTask>;

// A domain encoding with a frequency oracle (a histogram task) or with a
// workload strategy (a workload task).
absl::StatusOr<TaskQuestion> EncodingTaskFromProto(
    const v1::Task& proto, const RecordSchema& schema,
    const RandomizerConfig& randomizer) {
  if (std::holds_alternative<RealMechanismSpec>(randomizer.mechanism)) {
    return absl::InvalidArgumentError(
        "a task with a domain encoding needs a frequency-oracle randomizer "
        "(e.g. oue, olh, grr) or a workload strategy, got a real-valued "
        "mechanism");
  }
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   EncodingFromProto(proto.encoding(), schema));
  const uint32_t stated = proto.randomizer().domain_size();
  if (stated != encoding.domain_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "randomizer.domain_size is ", stated, " but the encoding's domain has ",
        encoding.domain_size(), " items; they must be equal"));
  }
  if (const auto* strategy = std::get_if<StrategySpec>(&randomizer.mechanism)) {
    return TaskQuestion(
        WorkloadTask{.encoding = std::move(encoding), .strategy = *strategy});
  }
  return TaskQuestion(HistogramTask{
      .encoding = std::move(encoding),
      .oracle = std::get<FrequencyOracleSpec>(randomizer.mechanism)});
}

absl::StatusOr<TaskQuestion> QuestionFromProto(
    const v1::Task& proto, const RecordSchema& schema,
    const RandomizerConfig& randomizer) {
  if (proto.has_query()) {
    ASSIGN_OR_RETURN(StatisticalQueryTask sq,
                     QueryTaskFromProto(proto, schema, randomizer));
    return TaskQuestion(std::move(sq));
  }
  return EncodingTaskFromProto(proto, schema, randomizer);
}

absl::Status CheckCharge(const v1::Task& proto) {
  if (proto.epsilon_nanos() == 0 ||
      proto.epsilon_nanos() >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("task.epsilon_nanos must be in [1, 2^63 - 1], got ",
                     proto.epsilon_nanos()));
  }
  if (proto.epsilon_nanos() != proto.randomizer().epsilon_nanos()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "task charges ", proto.epsilon_nanos(),
        " nano-epsilon but its randomizer states ",
        proto.randomizer().epsilon_nanos(), "; they must be equal"));
  }
  return absl::OkStatus();
}

absl::Status CheckPresence(const v1::Task& proto) {
  if (!proto.has_schema()) {
    return absl::InvalidArgumentError("task.schema is missing");
  }
  if (!proto.has_randomizer()) {
    return absl::InvalidArgumentError("task.randomizer is missing");
  }
  if (proto.question_case() == v1::Task::QUESTION_NOT_SET) {
    return absl::InvalidArgumentError(
        "task has no question (set query or encoding)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TaskEnvelope> TaskFromProto(const v1::Task& proto) {
  RETURN_IF_ERROR(CheckPresence(proto));
  RETURN_IF_ERROR(CheckCharge(proto));
  ASSIGN_OR_RETURN(RecordSchema schema, RecordSchemaFromProto(proto.schema()));
  ASSIGN_OR_RETURN(RandomizerConfig randomizer,
                   RandomizerFromProto(proto.randomizer()));
  std::optional<absl::Time> deadline;
  if (proto.has_deadline()) {
    ASSIGN_OR_RETURN(deadline, TimeFromProto(proto.deadline()));
  }
  ASSIGN_OR_RETURN(auto question, QuestionFromProto(proto, schema, randomizer));
  Task task{.study_id = proto.study_id(),
            .round_id = proto.round_id(),
            .task_id = proto.task_id(),
            .epsilon_nanos = static_cast<int64_t>(proto.epsilon_nanos()),
            .question = std::move(question)};
  return TaskEnvelope{.task = std::move(task),
                      .schema = std::move(schema),
                      .deadline = deadline};
}

void TaskToProto(const Task& task, const RecordSchema& schema,
                 v1::Task* proto) {
  proto->Clear();
  proto->set_study_id(task.study_id);
  proto->set_round_id(task.round_id);
  proto->set_task_id(task.task_id);
  proto->set_epsilon_nanos(static_cast<uint64_t>(task.epsilon_nanos));
  ToProto(schema, proto->mutable_schema());
  // The randomizer is written as the mechanism will really be built
  // (TaskMechanism takes ε from the spec and N from the encoding).
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    ToProto(sq->query, proto->mutable_query());
    ToProto(
        RandomizerConfig{.epsilon_nanos = EpsilonToNanos(sq->mechanism.epsilon),
                         .mechanism = sq->mechanism},
        proto->mutable_randomizer());
    return;
  }
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    ToProto(workload->encoding, proto->mutable_encoding());
    StrategySpec strategy = workload->strategy;
    strategy.domain_size = workload->encoding.domain_size();
    ToProto(RandomizerConfig{.epsilon_nanos = EpsilonToNanos(strategy.epsilon),
                             .mechanism = std::move(strategy)},
            proto->mutable_randomizer());
    return;
  }
  const auto& histogram = std::get<HistogramTask>(task.question);
  ToProto(histogram.encoding, proto->mutable_encoding());
  FrequencyOracleSpec oracle = histogram.oracle;
  oracle.domain_size = histogram.encoding.domain_size();
  ToProto(RandomizerConfig{.epsilon_nanos = EpsilonToNanos(oracle.epsilon),
                           .mechanism = oracle},
          proto->mutable_randomizer());
}

void TaskToProto(const TaskEnvelope& envelope, v1::Task* proto) {
  TaskToProto(envelope.task, envelope.schema, proto);
  if (envelope.deadline.has_value()) {
    TimeToProto(*envelope.deadline, proto->mutable_deadline());
  }
}

std::string TaskToBytes(const Task& task, const RecordSchema& schema) {
  v1::Task proto;
  TaskToProto(task, schema, &proto);
  return DeterministicBytes(proto);
}

absl::StatusOr<TaskEnvelope> TaskFromBytes(std::string_view bytes) {
  v1::Task proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("bytes are not a serialized ldp.v1.Task");
  }
  return TaskFromProto(proto);
}

}  // namespace ldp
