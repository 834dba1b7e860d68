// The noninteractive planner: which question each agent answers, at which
// εₜ, fixed before any report arrives.
//
// With m questions and a per-agent cap ε, there are two natural plans
// (Kasiviswanathan, Lee, Nissim, Raskhodnikova & Smith, "What Can We Learn
// Privately?", §5.1.1 uses the first):
// - sample splitting: each agent answers ONE question at the full ε, the
//   population split between questions in proportion to target_reports;
// - ε splitting: every agent answers EVERY question at ε/m (composition).
// Which is better depends on how fast the mechanisms' variance falls with ε:
// at small ε variance grows like 1/ε², so splitting ε costs m² while
// splitting agents costs m; at large ε the variance flattens and splitting ε
// wins. The planner evaluates each question's closed-form variance under
// both plans (FrequencyOracle::Variance at f = 0, or
// RealMechanism::WorstCaseVariance scaled to [-1, 1]), keeps the plan with
// the smaller total, and says why in `explanation`.
//
// Workload questions (common/workload/) get their strategy here too: the
// strategy planner's choice for (W, εₜ) among those a task can carry
// (PlanStrategy with wire_sized_only), or the best strategy of the kind the
// study names. Optimized strategies can take minutes to plan the first
// time; they are cached on disk (StrategyPlannerOptions::cache_dir) and the
// chosen StrategySpec is stored with the plan, so a restart never plans
// again. For the split choice a workload question counts its predicted
// worst-case per-user variance v_max.
//
// Assignment reads only the agent id, never data (DESIGN invariant 8): agent
// a answers the question whose share of [0, 1) holds frac(a·φ), φ the golden
// ratio — a low-discrepancy sequence, so any run of consecutive ids splits in
// the planned proportions.
#ifndef LDP_PLANNING_PLANNER_H_
#define LDP_PLANNING_PLANNER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "common/estimation/consistency.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/task_estimation/task_accumulator.h"
#include "common/task_estimation/task_estimate.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task.h"
#include "common/tasks/task_mechanism.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/strategies/strategy_planner.h"
#include "planning/programs/analyst_program.h"
#include "planning/programs/program_schedule.h"

namespace ldp {

inline constexpr int64_t kMaxTargetReports = int64_t{1} << 40;

enum class SplitStrategy { kSampleSplitting, kEpsilonSplitting };

std::string_view SplitStrategyName(SplitStrategy strategy);

// A workload question's strategy as planned: the spec agents rebuild, and
// what the analyst is told about it.
struct StrategyDecision {
  StrategySpec spec{};        // ε and N filled in
  std::string description{};  // e.g. "hierarchical b=4, OUE"
  // Predicted per-user variances of the workload's answers: the worst query
  // at the worst of point-mass and uniform data (VarianceSummary::worst),
  // and the mean at uniform data.
  double v_max = 0;
  double v_avg = 0;
  // What the choice is measured against: the best fixed (structured)
  // strategy the planner built and its v_max ("" and 0 if none), and γ₂(W)
  // certified in [gamma2_lower, gamma2_upper] by the factorization's
  // primal–dual iteration (0 and 0 when it was not computed: a named
  // structured strategy, or a factorization too large for a task).
  std::string best_fixed{};
  double best_fixed_v_max = 0;
  double gamma2_lower = 0;
  double gamma2_upper = 0;
  friend bool operator==(const StrategyDecision&,
                         const StrategyDecision&) = default;
};

// What the planner decided for one question; with the study spec this is
// all a plan needs to be rebuilt (storage_codec.h stores it).
struct QuestionDecision {
  int64_t epsilon_nanos = 0;
  // Relative share of the agents under sample splitting; 1 otherwise.
  uint64_t weight = 1;
  // The randomizer, fully specified (ε, N or bound filled in).
  std::variant<RealMechanismSpec, FrequencyOracleSpec, StrategyDecision>
      randomizer{};
};

struct PlanDecisions {
  SplitStrategy strategy = SplitStrategy::kSampleSplitting;
  std::vector<QuestionDecision> questions{};  // in the spec's order
  std::string explanation{};
  // Rounds of an analyst program only: the round's name and slice in the
  // program's schedule, and its questions as StudySpecCodec::EncodeQuestions
  // bytes (a noninteractive round's questions are the study spec's).
  bool from_program = false;
  std::string round_name{};
  AgentSlice slice{};
  std::string questions_bytes{};
};

struct PlannedQuestion {
  std::string question_id{};
  // The question with its randomizer: epsilon_nanos set, ids 0.
  std::shared_ptr<const Task> task{};
  std::shared_ptr<const TaskMechanism> mechanism{};
  // Variance of the estimate from one report (per item at frequency 0,
  // worst case for a query scaled to [-1, 1], or a workload's v_max).
  double unit_variance = 0;
  std::optional<ConsistencyMethod> post_processing{};
  // Workload questions: the estimator built for the task's strategy, and
  // whether consistent answers are asked.
  WorkloadEstimation workload{};
};

class RoundPlan {
 public:
  // Validates the spec's first-round questions (InvalidArgument naming the
  // problem) and chooses the plan. `strategies` configures the planning of
  // workload questions (wire_sized_only is always on).
  static absl::StatusOr<RoundPlan> Create(
      const StudySpec& spec, const StrategyPlannerOptions& strategies = {});
  // A round of an analyst program: the agents of `scheduled.slice` split
  // between `round.questions` by target_reports, each at the εₜ the program
  // set, which must be > 0 and ≤ scheduled.epsilon_nanos (InvalidArgument
  // otherwise). `study` supplies the schema and limits. questions_bytes is
  // left for the caller to fill.
  static absl::StatusOr<RoundPlan> CreateForProgram(
      const StudySpec& study, const ProgramRound& round,
      const ScheduledRound& scheduled,
      const StrategyPlannerOptions& strategies = {});
  // Create for a shuffled study (spec.shuffle set): every free question at
  // the largest ε0 that meets the target (shuffle_plan.h), sample splitting.
  static absl::StatusOr<RoundPlan> CreateShuffled(
      const StudySpec& spec, const StrategyPlannerOptions& strategies = {});
  // Rebuilds a plan from stored decisions (after a restart). For a program
  // round, `spec.questions` must be the round's questions.
  static absl::StatusOr<RoundPlan> Restore(const StudySpec& spec,
                                           PlanDecisions decisions);

  const PlanDecisions& decisions() const { return decisions_; }
  // Program rounds: the questions' stored form (see PlanDecisions).
  void set_questions_bytes(std::string bytes) {
    decisions_.questions_bytes = std::move(bytes);
  }
  SplitStrategy strategy() const { return decisions_.strategy; }
  const std::vector<PlannedQuestion>& questions() const { return questions_; }
  // Fraction of agents that answer question q.
  double Share(int q) const;

  // The agents this round asks: [0, 1) but for program rounds.
  const AgentSlice& slice() const { return decisions_.slice; }
  // Whether agent `agent_id` answers question q. Pure function of the id.
  bool Assigns(uint64_t agent_id, int q) const;
  // The question an agent answers under sample splitting (the agent must be
  // in the slice).
  int SampleQuestion(uint64_t agent_id) const;
  // Whether the round asks the agent anything.
  bool AsksAgent(uint64_t agent_id) const {
    return decisions_.slice.Contains(AgentPosition(agent_id));
  }

 private:
  RoundPlan() = default;
  // `estimators`: workload estimators the planning already built, by
  // question id (the rest are built here).
  static absl::StatusOr<RoundPlan> Build(
      const StudySpec& spec, PlanDecisions decisions,
      const std::map<std::string, std::shared_ptr<const WorkloadEstimator>>&
          estimators = {});

  PlanDecisions decisions_;
  std::vector<PlannedQuestion> questions_;
  // Upper ends of each question's share of [0, 2^64), cumulative.
  std::vector<uint64_t> share_upper_;
};

// Question q's estimate of the population from its reports' estimate: under
// sample splitting only a random share of the population answered, so a
// histogram also carries that share's sampling variance f(1 − f)/n, and a
// workload answer a_j likewise a_j(1 − a_j)/n for its 0/1 queries, or the
// bound (max_x w_jx − min_x w_jx)²/(4n) for a custom one (statistical
// queries get it from their empirical spread already).
void AddSamplingVariance(const RoundPlan& plan, int q, TaskEstimate& estimate);

// (max_x w_jx − min_x w_jx)² / 4 for every row of a custom workload: the
// largest variance w_j(x) can have over any population (Popoviciu).
std::vector<double> CustomRowVarianceBounds(const WorkloadSpec& spec);

}  // namespace ldp

#endif  // LDP_PLANNING_PLANNER_H_
