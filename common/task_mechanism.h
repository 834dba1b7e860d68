// The randomizer and estimator one task names, built once per task and
// shared by the agent (Randomize) and the server (Validate, accumulate).
//
// Create() enforces the rule both sides rely on: the mechanism's implemented
// ε never exceeds the εₜ the task charges. Randomize() never fails and does
// not branch on the record beyond evaluating it: a missing or odd value is
// sanitized to a default first, so every record yields exactly one
// well-formed report (DESIGN invariant 8).
#ifndef LDP_COMMON_TASK_MECHANISM_H_
#define LDP_COMMON_TASK_MECHANISM_H_

#include <memory>
#include <variant>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/estimate.h"
#include "common/frequency_oracle.h"
#include "common/histogram_estimate.h"
#include "common/mean_accumulator.h"
#include "common/real_mechanism.h"
#include "common/record_schema.h"
#include "common/task.h"
#include "common/workload/workload_answer.h"

namespace ldp {

class StrategyAccumulator;  // workload/strategy.h
class StrategyMechanism;    // workload/strategy.h
class WorkloadEstimator;    // workload/workload_estimator.h

// A scalar, a histogram, or a workload's answers (workload_estimator.h).
using TaskEstimate =
    std::variant<ScalarEstimate, HistogramEstimate, WorkloadAnswer>;

class TaskAccumulator;
class LongitudinalUnaryEncoding;  // longitudinal.h

class TaskMechanism {
 public:
  // InvalidArgument if the randomizer (frequency oracle, real mechanism or
  // workload strategy) cannot be built, or if its implemented ε exceeds
  // task.epsilon_nanos (rounded up to whole nano-ε), or εₜ ≤ 0.
  static absl::StatusOr<std::shared_ptr<const TaskMechanism>> Create(
      const Task& task);

  const Task& task() const { return task_; }
  // The question with ids and charge cleared, ignored parameters zeroed and
  // every default made explicit (canonical_task.h): the agent's memo key.
  const Task& canonical_task() const { return canonical_; }
  double implemented_epsilon() const;

  // Sanitizes, evaluates and randomizes; the only thing that leaves an agent.
  ReportPayload Randomize(const Record& record, absl::BitGenRef gen) const;

  // Longitudinal tasks (a memoized permanent response per value, see
  // longitudinal.h). The agent keeps the permanent response per (question,
  // value) and draws every report from it, so all reports of one value
  // together leak at most ε∞.
  bool longitudinal() const;
  // ε∞ in nano-ε, rounded up; 0 for other tasks.
  int64_t epsilon_infinity_nanos() const;
  // The record's item under the task's encoding (longitudinal tasks).
  uint32_t Item(const Record& record) const;
  // A permanent response for `item` (FrequencyReport{BitVectorReport}).
  ReportPayload Memoize(uint32_t item, absl::BitGenRef gen) const;
  // A fresh report drawn from a permanent response Memoize returned.
  ReportPayload RandomizeFromMemo(const ReportPayload& permanent,
                                  absl::BitGenRef gen) const;

  // InvalidArgument unless `payload` is a report this task's randomizer can
  // output.
  absl::Status Validate(const ReportPayload& payload) const;

  // A workload task's strategy (null for other tasks); the server builds its
  // WorkloadEstimator from it.
  const std::shared_ptr<const StrategyMechanism>& strategy() const {
    return strategy_;
  }

 private:
  friend class TaskAccumulator;
  explicit TaskMechanism(Task task)
      : task_(std::move(task)), canonical_(task_) {}

  const LongitudinalUnaryEncoding* longitudinal_oracle() const;

  Task task_;
  Task canonical_;
  // Exactly one is set, matching task_.question.
  std::unique_ptr<FrequencyOracle> oracle_;
  std::unique_ptr<RealMechanism> mechanism_;
  std::shared_ptr<const StrategyMechanism> strategy_;
  double center_ = 0;  // (lo + hi)/2 of a statistical query
};

// How a workload task's estimate is answered. The task carries only the
// strategy A; the workload W lives in the study, so the server supplies the
// estimator it built for the question (once: building it is O(N³)).
struct WorkloadEstimation {
  std::shared_ptr<const WorkloadEstimator> estimator{};
  // Also compute consistent answers (WorkloadAnswer::consistent_answers).
  bool consistency = false;
};

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

 private:
  std::shared_ptr<const TaskMechanism> mechanism_;
  WorkloadEstimation workload_;
  std::unique_ptr<FrequencyAccumulator> histogram_;
  std::unique_ptr<MeanAccumulator> mean_;
  std::unique_ptr<StrategyAccumulator> strategy_;
};

}  // namespace ldp

#endif  // LDP_COMMON_TASK_MECHANISM_H_
