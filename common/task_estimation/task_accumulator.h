// The server's side of a task: sufficient statistics of its reports and
// the estimate they give. Separate from TaskMechanism (task_mechanism.h),
// which the agent shares, because a workload task's estimate needs the
// strategy's linear algebra (Eigen on OpenBLAS and LAPACKE): this layer
// sits above ldp_workload_strategies, and the agent never links it.
#ifndef LDP_COMMON_TASK_ESTIMATION_TASK_ACCUMULATOR_H_
#define LDP_COMMON_TASK_ESTIMATION_TASK_ACCUMULATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/real/mean_accumulator.h"
#include "common/task_estimation/candidate_estimate.h"
#include "common/task_estimation/task_estimate.h"
#include "common/tasks/task.h"
#include "common/tasks/task_mechanism.h"

namespace ldp {

class StrategyAccumulator;  // workload/strategy.h
class StrategyMechanism;    // workload/strategy.h
class WorkloadEstimator;    // workload/workload_estimator.h

// What the server adds to a task's reports to answer it: a workload
// task's estimator, or a RAPPOR task's candidates. The task carries only the
// strategy A; the workload W lives in the study, so the server supplies the
// estimator it built for the question (once: building it is O(N³)).
struct WorkloadEstimation {
  std::shared_ptr<const WorkloadEstimator> estimator{};
  // Also compute consistent answers (WorkloadAnswer::consistent_answers).
  bool consistency = false;
  // The task's strategy with its linear structure, built once for the
  // question and shared by its accumulators; null: each accumulator builds
  // its own around the task's randomizer.
  std::shared_ptr<const StrategyMechanism> strategy{};
  // A RAPPOR question's candidates: the estimate covers these (and only
  // these) items of the open domain.
  std::shared_ptr<const CandidateDecoding> candidates{};
};

// The strategy around a workload task's randomizer (sharing it), for
// WorkloadEstimation::strategy and the estimator; InvalidArgument for a
// task without a workload.
absl::StatusOr<std::shared_ptr<const StrategyMechanism>> TaskStrategy(
    const TaskMechanism& mechanism);

// Server-side sufficient statistics of one task's reports (several tasks
// asking the same question may share one). Keeps its mechanism alive.
// Thread-compatible.
class TaskAccumulator {
 public:
  // `workload`: required for a workload task's Estimate, ignored otherwise.
  explicit TaskAccumulator(std::shared_ptr<const TaskMechanism> mechanism,
                           WorkloadEstimation workload = {});
  // Out of line: StrategyAccumulator is incomplete here.
  ~TaskAccumulator();
  TaskAccumulator(TaskAccumulator&&) noexcept;
  TaskAccumulator& operator=(TaskAccumulator&&) noexcept;

  // Validates and counts; an invalid payload changes nothing.
  absl::Status Add(const ReportPayload& payload);
  int64_t num_reports() const;
  // A histogram (unbiased, with variances), a scalar with its interval at
  // `confidence`, shifted back to the query's own range, or a workload's
  // answers with standard errors and a simultaneous band at `confidence`
  // (without an estimator: num_reports and ε only, no answers).
  TaskEstimate Estimate(double confidence) const;
  // A workload task's ŷ ≈ A·h (empty for other tasks).
  std::vector<double> StrategyEstimate() const;

  // The sufficient statistics as plain numbers (accumulator_state.h): the
  // state of the histogram, mean or strategy accumulator the task uses, in
  // that accumulator's layout, for storing per-shard statistics and merging
  // them later. A workload task whose strategy could not be built has
  // none: an empty state.
  AccumulatorState State() const;
  // Adds a State() of a TaskAccumulator of the same task (the state does
  // not say which task wrote it). InvalidArgument, and no change, when the
  // state does not fit the task's accumulator (see its MergeState);
  // Internal for a workload task whose strategy could not be built.
  absl::Status MergeState(const AccumulatorState& state);

 private:
  std::shared_ptr<const TaskMechanism> mechanism_;
  WorkloadEstimation workload_;
  std::unique_ptr<FrequencyAccumulator> histogram_;
  std::unique_ptr<MeanAccumulator> mean_;
  std::unique_ptr<StrategyAccumulator> strategy_;
};

}  // namespace ldp

#endif  // LDP_COMMON_TASK_ESTIMATION_TASK_ACCUMULATOR_H_
