// The randomizer one task names, built once per task and shared by the
// agent (Randomize) and the server (Validate; the server's accumulators,
// task_accumulator.h, build on it).
//
// A workload task holds only its strategy's randomizer
// (workload/strategy_randomizer.h), not the strategy's linear algebra, so
// this layer and the agent above it need no Eigen or BLAS.
//
// Create() enforces the rule both sides rely on: the mechanism's implemented
// ε never exceeds the εₜ the task charges. Randomize() never fails and does
// not branch on the record beyond evaluating it: a missing or odd value is
// sanitized to a default first, so every record yields exactly one
// well-formed report (DESIGN invariant 8).
#ifndef LDP_COMMON_TASKS_TASK_MECHANISM_H_
#define LDP_COMMON_TASKS_TASK_MECHANISM_H_

#include <memory>
#include <variant>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "common/queries/record_schema.h"
#include "common/tasks/task.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"

namespace ldp {

class LongitudinalOracle;  // longitudinal_oracle.h

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
  // longitudinal_oracle.h). The agent keeps the permanent response per
  // (question, value) and draws every report from it, so all reports of one
  // value together leak at most ε∞.
  bool longitudinal() const;
  // ε∞ in nano-ε, rounded up; 0 for other tasks.
  int64_t epsilon_infinity_nanos() const;
  // The record's item under the task's encoding (longitudinal tasks).
  uint32_t Item(const Record& record) const;
  // A permanent response for `item` (a FrequencyReport whose shape is the
  // oracle's: bit vector, item or seed and bucket).
  ReportPayload Memoize(uint32_t item, absl::BitGenRef gen) const;
  // InvalidArgument unless `permanent` is a shape Memoize can return (the
  // agent draws a new one in place of a stored one that fails).
  absl::Status ValidateMemo(const ReportPayload& permanent) const;
  // A fresh report drawn from a permanent response; total (a malformed one
  // is normalized, never trusted).
  ReportPayload RandomizeFromMemo(const ReportPayload& permanent,
                                  absl::BitGenRef gen) const;

  // InvalidArgument unless `payload` is a report this task's randomizer can
  // output.
  absl::Status Validate(const ReportPayload& payload) const;

  // Exactly one of the next three is set, matching task().question. The
  // server's accumulators (task_accumulator.h) count reports with them.
  // A histogram task's frequency oracle.
  const FrequencyOracle* oracle() const { return oracle_.get(); }
  // A statistical query's mechanism, which randomizes φ − query_center().
  const RealMechanism* real_mechanism() const { return mechanism_.get(); }
  double query_center() const { return center_; }
  // A workload task's randomizer; the server wraps it in the strategy's
  // linear structure (StrategyForRandomizer, workload/strategy_factory.h).
  const std::shared_ptr<const StrategyRandomizer>& strategy_randomizer() const {
    return strategy_;
  }

 private:
  explicit TaskMechanism(Task task)
      : task_(std::move(task)), canonical_(task_) {}

  const LongitudinalOracle* longitudinal_oracle() const;

  Task task_;
  Task canonical_;
  // Exactly one is set, matching task_.question.
  std::unique_ptr<FrequencyOracle> oracle_;
  std::unique_ptr<RealMechanism> mechanism_;
  std::shared_ptr<const StrategyRandomizer> strategy_;
  double center_ = 0;  // (lo + hi)/2 of a statistical query
};

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_TASK_MECHANISM_H_
