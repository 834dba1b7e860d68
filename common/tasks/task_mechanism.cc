// Task → randomizer; see the header.
#include "common/tasks/task_mechanism.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"
#include "common/tasks/canonical_task.h"

namespace ldp {
namespace {

absl::Status CheckCharge(double implemented, int64_t epsilon_nanos) {
  if (epsilon_nanos <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "task epsilon must be > 0 nano-epsilon, got ", epsilon_nanos));
  }
  const double charged = static_cast<double>(epsilon_nanos) / kNanosPerEpsilon;
  // The implemented ε may sit a hair under the requested one; it may never
  // sit above what the agent is charged.
  if (!(implemented <= charged)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "randomizer implements epsilon ", implemented,
        " but the task charges only ", charged,
        "; the randomizer parameters do not match the stated epsilon"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const TaskMechanism>> TaskMechanism::Create(
    const Task& task) {
  std::shared_ptr<TaskMechanism> result(new TaskMechanism(task));
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
    const QueryRange range = sq->query.output_range();
    RealMechanismSpec spec = sq->mechanism;
    spec.bound = (range.upper - range.lower) / 2;
    result->center_ = (range.upper + range.lower) / 2;
    ASSIGN_OR_RETURN(result->mechanism_, CreateRealMechanism(spec));
  } else if (const auto* histogram =
                 std::get_if<HistogramTask>(&task.question)) {
    FrequencyOracleSpec spec = histogram->oracle;
    spec.domain_size = histogram->encoding.domain_size();
    ASSIGN_OR_RETURN(result->oracle_, CreateFrequencyOracle(spec));
  } else {
    const auto& workload = std::get<WorkloadTask>(task.question);
    StrategySpec spec = workload.strategy;
    spec.domain_size = workload.encoding.domain_size();
    ASSIGN_OR_RETURN(result->strategy_, CreateStrategyRandomizer(spec));
  }
  RETURN_IF_ERROR(
      CheckCharge(result->implemented_epsilon(), task.epsilon_nanos));
  result->canonical_ =
      CanonicalTask(task, result->oracle_.get(), result->mechanism_.get(),
                    result->strategy_.get());
  return std::shared_ptr<const TaskMechanism>(std::move(result));
}

double TaskMechanism::implemented_epsilon() const {
  if (oracle_ != nullptr) return oracle_->epsilon();
  if (strategy_ != nullptr) return strategy_->epsilon();
  return mechanism_->epsilon();
}

const LongitudinalOracle* TaskMechanism::longitudinal_oracle() const {
  return dynamic_cast<const LongitudinalOracle*>(oracle_.get());
}

bool TaskMechanism::longitudinal() const {
  return longitudinal_oracle() != nullptr;
}

int64_t TaskMechanism::epsilon_infinity_nanos() const {
  const LongitudinalOracle* oracle = longitudinal_oracle();
  if (oracle == nullptr) return 0;
  return static_cast<int64_t>(
      std::ceil(oracle->epsilon_infinity() * kNanosPerEpsilon));
}

uint32_t TaskMechanism::Item(const Record& record) const {
  return std::get<HistogramTask>(task_.question).encoding.Encode(record);
}

ReportPayload TaskMechanism::Memoize(uint32_t item, absl::BitGenRef gen) const {
  return longitudinal_oracle()->Memoize(item, gen);
}

absl::Status TaskMechanism::ValidateMemo(const ReportPayload& permanent) const {
  const auto* memo = std::get_if<FrequencyReport>(&permanent);
  if (memo == nullptr) {
    return absl::InvalidArgumentError(
        "a longitudinal task's memo is a frequency report");
  }
  return longitudinal_oracle()->ValidateMemo(*memo);
}

ReportPayload TaskMechanism::RandomizeFromMemo(const ReportPayload& permanent,
                                               absl::BitGenRef gen) const {
  const auto* memo = std::get_if<FrequencyReport>(&permanent);
  return longitudinal_oracle()->RandomizeFromMemo(
      memo != nullptr ? *memo : FrequencyReport{}, gen);
}

ReportPayload TaskMechanism::Randomize(const Record& record,
                                       absl::BitGenRef gen) const {
  if (mechanism_ != nullptr) {
    const auto& sq = std::get<StatisticalQueryTask>(task_.question);
    const double value = sq.query.Evaluate(record) - center_;
    return mechanism_->Randomize(value, gen);
  }
  // Query::Evaluate and DomainEncoding::Encode read every field through
  // SanitizeValue, so a raw record behaves exactly as its sanitized form.
  if (strategy_ != nullptr) {
    const auto& workload = std::get<WorkloadTask>(task_.question);
    return strategy_->Randomize(workload.encoding.Encode(record), gen);
  }
  const auto& histogram = std::get<HistogramTask>(task_.question);
  return oracle_->Randomize(histogram.encoding.Encode(record), gen);
}

absl::Status TaskMechanism::Validate(const ReportPayload& payload) const {
  if (mechanism_ != nullptr) {
    const auto* scalar = std::get_if<ScalarReport>(&payload);
    if (scalar == nullptr) {
      return absl::InvalidArgumentError(
          "this task expects a scalar report (a statistical query)");
    }
    return mechanism_->Validate(*scalar);
  }
  if (strategy_ != nullptr) {
    const auto* report = std::get_if<WorkloadReport>(&payload);
    if (report == nullptr) {
      return absl::InvalidArgumentError(
          "this task expects a workload report (a workload question)");
    }
    return strategy_->Validate(*report);
  }
  const auto* frequency = std::get_if<FrequencyReport>(&payload);
  if (frequency == nullptr) {
    return absl::InvalidArgumentError(
        "this task expects a frequency report (a histogram question)");
  }
  return oracle_->Validate(*frequency);
}

}  // namespace ldp
