// A question's randomizer, checks and fingerprint, worked out once; see the
// header.
#include "client/core/prepared_question.h"

#include <cmath>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/queries/domain_encoding.h"
#include "common/tasks/task_fingerprint.h"

namespace ldp {
namespace {

double SpecifiedEpsilon(const Task& task) {
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    return sq->mechanism.epsilon;
  }
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    return workload->strategy.epsilon;
  }
  return std::get<HistogramTask>(task.question).oracle.epsilon;
}

// The domain encoding of a histogram or workload task.
const DomainEncoding& EncodingOf(const Task& task) {
  if (const auto* workload = std::get_if<WorkloadTask>(&task.question)) {
    return workload->encoding;
  }
  return std::get<HistogramTask>(task.question).encoding;
}

// TaskMechanism::Create already guarantees implemented ε ≤ εₜ; this also
// refuses a randomizer specified below εₜ, which would charge the agent for
// privacy loss it does not incur.
absl::Status CheckEpsilonMatches(const Task& task) {
  const double specified = SpecifiedEpsilon(task);
  const double specified_nanos = specified * kNanosPerEpsilon;
  if (!(std::abs(specified_nanos - static_cast<double>(task.epsilon_nanos)) <=
        1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "it charges ", EpsilonText(task.epsilon_nanos),
        " epsilon but its randomizer is specified at ",
        absl::StrFormat("%.10g", specified), " epsilon; the two must match"));
  }
  return absl::OkStatus();
}

absl::Status CheckSchema(const Task& task, const RecordSchema& schema) {
  bool fits = true;
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    fits = sq->query.schema() == schema;
  } else {
    const DomainEncoding& encoding = EncodingOf(task);
    auto rebuilt = DomainEncoding::Create(encoding.spec(), schema);
    fits = rebuilt.ok() && rebuilt->domain_size() == encoding.domain_size();
  }
  if (!fits) {
    return absl::InvalidArgumentError(
        "its question was not built for the study's record schema");
  }
  return absl::OkStatus();
}

// The first reason to refuse the question, in the order the agent has
// always checked them.
absl::Status Check(
    const Task& task, const RecordSchema& schema,
    const absl::StatusOr<std::shared_ptr<const TaskMechanism>>& mechanism) {
  if (!mechanism.ok()) return mechanism.status();
  if (absl::Status s = CheckEpsilonMatches(task); !s.ok()) return s;
  return CheckSchema(task, schema);
}

}  // namespace

std::shared_ptr<const PreparedQuestion> PreparedQuestion::Prepare(
    const Task& task, const RecordSchema& schema) {
  std::shared_ptr<PreparedQuestion> prepared(new PreparedQuestion());
  prepared->study_id_ = task.study_id;
  prepared->round_id_ = task.round_id;
  prepared->epsilon_nanos_ = task.epsilon_nanos;
  prepared->question_kind_ = task.question.index();
  auto mechanism = TaskMechanism::Create(task);
  prepared->status_ = Check(task, schema, mechanism);
  if (prepared->status_.ok()) {
    prepared->mechanism_ = *std::move(mechanism);
    prepared->fingerprint_ =
        TaskFingerprint(prepared->mechanism_->canonical_task(), schema);
  }
  return prepared;
}

bool PreparedQuestion::PreparedFor(const Task& task) const {
  return task.study_id == study_id_ && task.round_id == round_id_ &&
         task.epsilon_nanos == epsilon_nanos_ &&
         task.question.index() == question_kind_;
}

}  // namespace ldp
