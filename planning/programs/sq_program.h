// A statistical-query (SQ) oracle backed by the local protocol: any SQ
// algorithm becomes an analyst program (Kasiviswanathan, Lee, Nissim,
// Raskhodnikova & Smith, "What Can We Learn Privately?", §5.1.1).
//
// An SQ algorithm asks requests (φ, τ, β): "E[φ(x)] within τ, with
// probability ≥ 1 − β". It asks them in batches; a batch may depend on the
// answers to earlier batches (adaptive SQ = an interactive local protocol),
// and an algorithm with a single batch is nonadaptive (one round).
//
// SqProgram is the oracle. Each batch is one round on its own disjoint slice
// of the population (sample splitting: every agent answers one query, once,
// at the full cap ε, so the schedule fits the cap whatever the answers are).
// Every query gets the scalar mechanism whose per-report variance is lowest
// at that ε (ChooseSqMechanism, scalar_mechanism_choice.h), and as many
// agents as the variance-based planner (common/estimation/sample_size.h) says
// it needs for its (τ, β): slice widths and per-query target_reports are
// proportional to those needs, so a population of PredictedAgents() agents
// gives each query about what it needs.
//
// Because the schedule must be fixed before any report, an algorithm states
// up front every batch it may ask (Plan): how many queries, each with its
// (τ, β) and output range, which fix the agents it needs. The queries' φ
// may be placeholders there; NextBatch supplies the real ones, and the
// program refuses a batch whose shape differs from the plan.
#ifndef LDP_PLANNING_PROGRAMS_SQ_PROGRAM_H_
#define LDP_PLANNING_PROGRAMS_SQ_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/estimate.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "common/queries/query_expression.h"
#include "planning/programs/analyst_program.h"
#include "planning/programs/scalar_mechanism_choice.h"

namespace ldp {

// Reports one query may ask for (the planner's limit on target_reports).
inline constexpr int64_t kMaxSqReports = int64_t{1} << 40;

// E[φ(x)] within `tolerance` with probability ≥ 1 − failure_probability.
// φ's output range [lo, hi] sets the mechanism's bound b = (hi − lo)/2.
struct SqRequest {
  std::string id;
  Query query;
  double tolerance = 0;            // τ > 0
  double failure_probability = 0;  // β in (0, 1)
};

struct SqAnswer {
  std::string id{};
  double value = 0;  // clamped into φ's output range
  // Holds E[φ] with probability ≈ 1 − β (normal interval at 1 − β from the
  // estimate's standard error, intersected with φ's range).
  Interval interval{};
  // z_{1−β/2}·SE: |value − E[φ]| ≤ this whenever the interval holds.
  double achieved_tolerance = 0;
  int64_t num_reports = 0;
  bool meets_tolerance = false;  // achieved_tolerance ≤ τ
};

// A deterministic SQ algorithm (no randomness: the engine may replay it).
class SqAlgorithm {
 public:
  virtual ~SqAlgorithm() = default;

  // Every batch it may ask, in order: counts, (τ, β) and output ranges final.
  virtual std::vector<std::vector<SqRequest>> Plan() const = 0;

  // Batch k = answers.size() (same shape as Plan()[k]), or an empty vector
  // to stop early. answers[j] answers batch j, in request order.
  virtual absl::StatusOr<std::vector<SqRequest>> NextBatch(
      absl::Span<const std::vector<SqAnswer>> answers) const = 0;

  // What it learned from the answers so far.
  virtual absl::StatusOr<ProgramResult> Result(
      absl::Span<const std::vector<SqAnswer>> answers) const = 0;
};

// Reports `request` needs at ε: z²·report_variance/τ², z = Φ⁻¹(1 − β/2).
// InvalidArgument for a bad (τ, β); OutOfRange beyond kMaxSqReports.
absl::StatusOr<int64_t> SqReportsNeeded(const SqRequest& request,
                                        double epsilon);

// Agents the whole plan needs at ε (the sum over every planned query).
absl::StatusOr<int64_t> PredictedAgents(const SqAlgorithm& algorithm,
                                        double epsilon);

// The answer to `request` an estimate carries, at confidence 1 − β.
SqAnswer ToSqAnswer(const SqRequest& request, const ScalarEstimate& estimate);

class SqProgram final : public AnalystProgram {
 public:
  // What the program decided for one planned batch.
  struct Batch {
    AgentSlice slice{};
    std::vector<SqMechanismChoice> mechanisms{};  // per query
    std::vector<int64_t> reports_needed{};        // per query
    int64_t total_reports_needed = 0;
  };

  // InvalidArgument if the plan is empty, has an empty batch or more than
  // kMaxQuestionsPerRound queries in one, repeats an id within a batch, or
  // asks a (τ, β) no population size can meet; or if the cap is not > 0.
  static absl::StatusOr<std::unique_ptr<SqProgram>> Create(
      std::unique_ptr<const SqAlgorithm> algorithm,
      const ProgramContext& context);

  std::vector<ScheduledRound> Schedule() const override;
  absl::StatusOr<ProgramStep> Next(
      absl::Span<const RoundAnswers> history) const override;

  const std::vector<Batch>& batches() const { return batches_; }
  // Σ reports_needed: run with this many agents and every query gets
  // about the reports it needs.
  int64_t predicted_agents() const { return predicted_agents_; }

 private:
  SqProgram(std::unique_ptr<const SqAlgorithm> algorithm,
            ProgramContext context, std::vector<std::vector<SqRequest>> plan,
            std::vector<Batch> batches, int64_t predicted_agents)
      : algorithm_(std::move(algorithm)),
        context_(std::move(context)),
        plan_(std::move(plan)),
        batches_(std::move(batches)),
        predicted_agents_(predicted_agents) {}

  // The answers of the closed rounds, checked against the plan.
  absl::StatusOr<std::vector<std::vector<SqAnswer>>> AnswersOf(
      absl::Span<const RoundAnswers> history) const;
  // The round batch k asks, after checking it against Plan()[k].
  absl::StatusOr<ProgramRound> RoundOf(size_t k,
                                       absl::Span<const SqRequest> batch) const;
  absl::StatusOr<ProgramResult> FinalResult(
      absl::Span<const std::vector<SqAnswer>> answers) const;

  const std::unique_ptr<const SqAlgorithm> algorithm_;
  const ProgramContext context_;
  const std::vector<std::vector<SqRequest>> plan_;
  const std::vector<Batch> batches_;
  const int64_t predicted_agents_;
};

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAMS_SQ_PROGRAM_H_
