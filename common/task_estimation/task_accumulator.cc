// Task → accumulator and estimate; see the header.
#include "common/task_estimation/task_accumulator.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/workload/strategies/strategy.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload_estimator.h"

namespace ldp {

absl::StatusOr<std::shared_ptr<const StrategyMechanism>> TaskStrategy(
    const TaskMechanism& mechanism) {
  if (mechanism.strategy_randomizer() == nullptr) {
    return absl::InvalidArgumentError("the task asks no workload question");
  }
  return StrategyForRandomizer(mechanism.strategy_randomizer());
}

TaskAccumulator::TaskAccumulator(std::shared_ptr<const TaskMechanism> mechanism,
                                 WorkloadEstimation workload)
    : mechanism_(std::move(mechanism)), workload_(std::move(workload)) {
  if (mechanism_->oracle() != nullptr) {
    histogram_ = mechanism_->oracle()->NewAccumulator();
  } else if (mechanism_->strategy_randomizer() != nullptr) {
    if (workload_.strategy == nullptr) {
      // Cannot fail: TaskMechanism builds its randomizer with
      // CreateStrategyRandomizer. If it did, Add says so.
      absl::StatusOr<std::shared_ptr<const StrategyMechanism>> strategy =
          TaskStrategy(*mechanism_);
      if (strategy.ok()) workload_.strategy = *std::move(strategy);
    }
    if (workload_.strategy != nullptr) {
      strategy_ = workload_.strategy->NewAccumulator();
    }
  } else {
    mean_ = std::make_unique<MeanAccumulator>(*mechanism_->real_mechanism());
  }
}

absl::Status TaskAccumulator::Add(const ReportPayload& payload) {
  if (histogram_ != nullptr) {
    const auto* report = std::get_if<FrequencyReport>(&payload);
    if (report == nullptr) {
      return absl::InvalidArgumentError(
          "this task expects a frequency report (a histogram question)");
    }
    return histogram_->Add(*report);
  }
  if (mechanism_->strategy_randomizer() != nullptr) {
    const auto* report = std::get_if<WorkloadReport>(&payload);
    if (report == nullptr) {
      return absl::InvalidArgumentError(
          "this task expects a workload report (a workload question)");
    }
    if (strategy_ == nullptr) {
      return absl::InternalError(
          "the workload task's strategy could not be built");
    }
    return strategy_->Add(*report);
  }
  const auto* report = std::get_if<ScalarReport>(&payload);
  if (report == nullptr) {
    return absl::InvalidArgumentError(
        "this task expects a scalar report (a statistical query)");
  }
  return mean_->Add(*report);
}

TaskAccumulator::~TaskAccumulator() = default;
TaskAccumulator::TaskAccumulator(TaskAccumulator&&) noexcept = default;
TaskAccumulator& TaskAccumulator::operator=(TaskAccumulator&&) noexcept =
    default;

int64_t TaskAccumulator::num_reports() const {
  if (histogram_ != nullptr) return histogram_->num_reports();
  if (strategy_ != nullptr) return strategy_->num_reports();
  if (mean_ != nullptr) return mean_->num_reports();
  return 0;
}

AccumulatorState TaskAccumulator::State() const {
  if (histogram_ != nullptr) return histogram_->State();
  if (strategy_ != nullptr) return strategy_->State();
  if (mean_ != nullptr) return mean_->State();
  return {};
}

absl::Status TaskAccumulator::MergeState(const AccumulatorState& state) {
  if (histogram_ != nullptr) return histogram_->MergeState(state);
  if (strategy_ != nullptr) return strategy_->MergeState(state);
  if (mean_ != nullptr) return mean_->MergeState(state);
  return absl::InternalError("the workload task's strategy could not be built");
}

std::vector<double> TaskAccumulator::StrategyEstimate() const {
  if (strategy_ == nullptr) return {};
  const Eigen::VectorXd y = strategy_->Estimate();
  return std::vector<double>(y.begin(), y.end());
}

TaskEstimate TaskAccumulator::Estimate(double confidence) const {
  if (histogram_ != nullptr) {
    if (workload_.candidates != nullptr) {
      return EstimateCandidates(*histogram_, *workload_.candidates);
    }
    return histogram_->Estimate();
  }
  if (mechanism_->strategy_randomizer() != nullptr) {
    const int64_t n = num_reports();
    if (workload_.estimator == nullptr || strategy_ == nullptr) {
      WorkloadAnswer answer;
      answer.num_reports = n;
      answer.epsilon = mechanism_->implemented_epsilon();
      answer.confidence = confidence;
      return answer;
    }
    return workload_.estimator->Estimate(strategy_->Estimate(), n, confidence,
                                         workload_.consistency);
  }
  ScalarEstimate estimate = mean_->Estimate(confidence);
  const double center = mechanism_->query_center();
  estimate.value += center;
  estimate.interval.lower += center;
  estimate.interval.upper += center;
  return estimate;
}

}  // namespace ldp
