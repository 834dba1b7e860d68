// Forecasts and simulations of a study through the real planner and
// randomizers; see the header.
#include "planning/study_forecast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/central/central_baseline.h"
#include "common/central/exponential_mechanism.h"
#include "common/central/private_pac_learner.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/sample_size.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/queries/synthetic_records.h"
#include "common/tasks/task_mechanism.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "planning/planner.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/sq_program.h"
#include "planning/programs/threshold_learner.h"
#include "planning/query_values.h"

namespace ldp {
namespace {

// The randomizer's worst per-report variance over the values φ can take,
// and the worst spread of those values (variance of φ over agents).
std::pair<double, double> WorstQueryVariances(const RealMechanism& mechanism,
                                              const QueryValues& v) {
  if (v.indicator) {
    const double zero = std::clamp(0.0, v.lower, v.upper);
    const double one = std::clamp(1.0, v.lower, v.upper);
    return {std::max(mechanism.Variance(zero - v.center),
                     mechanism.Variance(one - v.center)),
            (one - zero) * (one - zero) / 4};
  }
  return {mechanism.WorstCaseVariance(),
          (v.upper - v.lower) * (v.upper - v.lower) / 4};
}

// max over f of the oracle's per-report variance plus the sample-splitting
// spread f(1 − f)(1 − share). Variances are quadratic in f for every
// oracle; a fine grid finds the maximum.
double WorstHistogramUnitVariance(const FrequencyOracle& oracle, double share) {
  double worst = 0;
  for (int i = 0; i <= 100; ++i) {
    const double f = i / 100.0;
    worst = std::max(worst, oracle.Variance(f, 1) + f * (1 - f) * (1 - share));
  }
  return worst;
}

// The largest variance a workload row can have over agents: 1/4 for the
// built-in 0/1 workloads, Popoviciu's bound for a custom one.
double WorkloadMaxSpread(const Workload& workload) {
  if (workload.kind() != WorkloadKind::kCustom) return 0.25;
  const std::vector<double> bounds = CustomRowVarianceBounds(workload.spec());
  return bounds.empty() ? 0 : *std::max_element(bounds.begin(), bounds.end());
}

int64_t CeilAgents(double agents) {
  if (!(agents < 4e18)) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::ceil(agents));
}

absl::Status ValidateForecastOptions(const ForecastOptions& options) {
  if (options.num_agents < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the number of agents must be >= 0, got ", options.num_agents));
  }
  if (!(options.target_error >= 0) || !std::isfinite(options.target_error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the target error must be a finite number >= 0, got ",
                     options.target_error));
  }
  return absl::OkStatus();
}

// The local side at n agents and for τ, from the per-report variance.
ErrorForecast LocalSide(std::string mechanism, double epsilon, double unit,
                        double share, double z, const ForecastOptions& options,
                        double confidence) {
  ErrorForecast local{.mechanism = std::move(mechanism), .epsilon = epsilon};
  if (options.num_agents > 0) {
    local.rmse =
        std::sqrt(unit / (share * static_cast<double>(options.num_agents)));
    local.half_width = z * local.rmse;
  }
  if (options.target_error > 0) {
    absl::StatusOr<int64_t> reports = ReportsNeeded(
        unit, {.tolerance = options.target_error, .confidence = confidence});
    local.agents_needed =
        reports.ok() ? CeilAgents(static_cast<double>(*reports) / share)
                     : std::numeric_limits<int64_t>::max();
  }
  return local;
}

// The central side from its variance at one agent (central variances fall
// like 1/n²): a single Laplace cell's half-width is its exact tail
// b·ln(1/β) = σ·ln(1/β)/√2; a sum of cells (a workload query) uses the
// normal approximation z·σ.
ErrorForecast CentralSide(std::string mechanism, double epsilon,
                          double variance_at_one_agent, bool single_cell,
                          double z, const ForecastOptions& options,
                          double confidence) {
  ErrorForecast central{.mechanism = std::move(mechanism), .epsilon = epsilon};
  const double sigma_times_n = std::sqrt(variance_at_one_agent);
  const double width_times_n =
      single_cell
          ? sigma_times_n * std::log(1 / (1 - confidence)) / std::sqrt(2.0)
          : z * sigma_times_n;
  if (options.num_agents > 0) {
    const double n = static_cast<double>(options.num_agents);
    central.rmse = sigma_times_n / n;
    central.half_width = width_times_n / n;
  }
  if (options.target_error > 0) {
    central.agents_needed = CeilAgents(width_times_n / options.target_error);
  }
  return central;
}

absl::StatusOr<StudyForecast> ForecastProgram(const StudySpec& spec,
                                              StudyForecast forecast) {
  const ProgramContext context{.schema = spec.schema,
                               .epsilon_cap_nanos = spec.epsilon_cap_nanos,
                               .confidence = spec.confidence};
  ASSIGN_OR_RETURN(auto program, CreateAnalystProgram(*spec.program, context));
  if (const auto* sq = dynamic_cast<const SqProgram*>(program.get())) {
    forecast.program_agents_needed = sq->predicted_agents();
  }
  if (spec.program->name == "threshold_learner") {
    ASSIGN_OR_RETURN(const ThresholdLearnerGoal goal,
                     ThresholdLearnerGoalOf(*spec.program, context));
    const double epsilon = static_cast<double>(spec.epsilon_cap_nanos) /
                           static_cast<double>(kNanosPerEpsilon);
    const PacGoal pac{.max_error = goal.accuracy,
                      .confidence = 1 - goal.failure_probability};
    const size_t concepts = static_cast<size_t>(goal.num_concepts);
    ASSIGN_OR_RETURN(
        forecast.central_learner_agents,
        goal.realizable
            ? PrivateLearnerSampleSize(concepts, epsilon, pac)
            : PrivateAgnosticLearnerSampleSize(concepts, epsilon, pac));
    forecast.central_learner = absl::StrCat(
        "private PAC learner (exponential mechanism over ", goal.num_concepts,
        " thresholds, ", goal.realizable ? "realizable" : "agnostic", ")");
  }
  forecast.schedule = program->Schedule();
  RETURN_IF_ERROR(CheckSchedule(forecast.schedule, spec.epsilon_cap_nanos));
  forecast.num_rounds = static_cast<int>(forecast.schedule.size());
  forecast.epsilon_spent_nanos = MaxScheduledSpend(forecast.schedule);
  forecast.split = "program";
  forecast.explanation = absl::StrCat(
      "analyst program \"", spec.program->name,
      "\": later rounds depend on earlier answers; the schedule fixes every "
      "agent's spend");
  return forecast;
}

}  // namespace

namespace {

// What every question's forecast shares: the options, the central model's
// per-question ε, and the interval's z at the study's confidence.
struct ForecastContext {
  const ForecastOptions& options;
  double central_epsilon;
  double confidence;
  double z;
};

absl::Status ForecastQuery(const StatisticalQueryTask& sq, double epsilon,
                           const ForecastContext& c, QuestionForecast& out) {
  ASSIGN_OR_RETURN(auto mechanism, CreateRealMechanism(sq.mechanism));
  const QueryValues values = ValuesOf(sq.query);
  const auto [randomizer, spread] = WorstQueryVariances(*mechanism, values);
  out.kind = "query";
  out.unit_variance = randomizer + spread * (1 - out.share);
  out.local =
      LocalSide(std::string(RealMechanismKindName(sq.mechanism.kind)), epsilon,
                out.unit_variance, out.share, c.z, c.options, c.confidence);
  ASSIGN_OR_RETURN(const double central,
                   values.indicator
                       ? CentralCountingVariance(1, c.central_epsilon)
                       : CentralMeanVariance(1, c.central_epsilon, values.lower,
                                             values.upper));
  out.central = CentralSide("Laplace", c.central_epsilon, central, true, c.z,
                            c.options, c.confidence);
  return absl::OkStatus();
}

// `items`: the domain's, or a RAPPOR question's candidates.
absl::Status ForecastHistogram(const HistogramTask& h, uint64_t items,
                               double epsilon, const ForecastContext& c,
                               QuestionForecast& out) {
  ASSIGN_OR_RETURN(auto oracle, CreateFrequencyOracle(h.oracle));
  out.kind = "histogram";
  out.num_estimates = items;
  out.unit_variance = WorstHistogramUnitVariance(*oracle, out.share);
  out.local =
      LocalSide(std::string(FrequencyOracleKindName(h.oracle.kind)), epsilon,
                out.unit_variance, out.share, c.z, c.options, c.confidence);
  ASSIGN_OR_RETURN(const double central,
                   CentralHistogramVariance(1, c.central_epsilon));
  out.central = CentralSide("Laplace per cell", c.central_epsilon, central,
                            true, c.z, c.options, c.confidence);
  if (c.options.num_agents > 0) {
    const double n = static_cast<double>(c.options.num_agents);
    const double items = static_cast<double>(out.num_estimates);
    const double z_all = NormalQuantile(1 - (1 - c.confidence) / (2 * items));
    out.top_item_local_loss = 2 * z_all * out.local.rmse;
    // The exponential mechanism with utility f_v, sensitivity 1/n.
    ASSIGN_OR_RETURN(
        out.top_item_central_loss,
        UtilityLossBound(static_cast<size_t>(out.num_estimates), 1 / n,
                         c.central_epsilon, 1 - c.confidence));
  }
  return absl::OkStatus();
}

// The plan already holds the strategy's worst-case variance
// (StrategyDecision::v_max = VarianceSummary::worst()): recomputing it would
// score every query again (minutes for all ranges at N = 1024).
absl::Status ForecastWorkload(const PlannedQuestion& planned,
                              const StrategyDecision& decision, double epsilon,
                              const ForecastContext& c, QuestionForecast& out) {
  const WorkloadEstimator& estimator = *planned.workload.estimator;
  const double max_spread = WorkloadMaxSpread(estimator.workload());
  ASSIGN_OR_RETURN(
      const double central,
      CentralWorkloadWorstVariance(estimator.workload(), 1, c.central_epsilon));
  out.kind = "workload";
  out.num_estimates = static_cast<int64_t>(estimator.workload().num_queries());
  out.unit_variance = decision.v_max + max_spread * (1 - out.share);
  out.local = LocalSide(decision.description, epsilon, out.unit_variance,
                        out.share, c.z, c.options, c.confidence);
  out.central = CentralSide("Laplace histogram, then W", c.central_epsilon,
                            central, false, c.z, c.options, c.confidence);
  return absl::OkStatus();
}

// The per-agent spend: the sum of the questions' ε when each agent answers
// them all (ε splitting), the largest when each answers one.
int64_t EpsilonSpent(const RoundPlan& plan) {
  int64_t spent = 0;
  for (const PlannedQuestion& q : plan.questions()) {
    spent = plan.strategy() == SplitStrategy::kEpsilonSplitting
                ? spent + q.task->epsilon_nanos
                : std::max(spent, q.task->epsilon_nanos);
  }
  return spent;
}

absl::StatusOr<QuestionForecast> ForecastQuestion(const RoundPlan& plan,
                                                  size_t i,
                                                  const ForecastContext& c) {
  const PlannedQuestion& planned = plan.questions()[i];
  QuestionForecast out{.question_id = planned.question_id,
                       .share = plan.Share(static_cast<int>(i))};
  const double epsilon = static_cast<double>(planned.task->epsilon_nanos) /
                         static_cast<double>(kNanosPerEpsilon);
  if (const auto* sq =
          std::get_if<StatisticalQueryTask>(&planned.task->question)) {
    RETURN_IF_ERROR(ForecastQuery(*sq, epsilon, c, out));
  } else if (const auto* h =
                 std::get_if<HistogramTask>(&planned.task->question)) {
    const auto& candidates = planned.workload.candidates;
    RETURN_IF_ERROR(ForecastHistogram(*h,
                                      candidates != nullptr
                                          ? candidates->items.size()
                                          : h->encoding.domain_size(),
                                      epsilon, c, out));
  } else {
    RETURN_IF_ERROR(ForecastWorkload(
        planned,
        std::get<StrategyDecision>(plan.decisions().questions[i].randomizer),
        epsilon, c, out));
  }
  return out;
}

}  // namespace

absl::StatusOr<StudyForecast> ForecastStudy(const StudySpec& spec,
                                            const ForecastOptions& options) {
  RETURN_IF_ERROR(ValidateForecastOptions(options));
  StudyForecast forecast{.confidence = spec.confidence,
                         .epsilon_cap_nanos = spec.epsilon_cap_nanos};
  if (spec.program.has_value())
    return ForecastProgram(spec, std::move(forecast));

  std::optional<RoundPlan> own_plan;
  if (options.plan == nullptr) {
    ASSIGN_OR_RETURN(own_plan, RoundPlan::Create(spec, options.strategies));
  }
  const RoundPlan& plan = options.plan != nullptr ? *options.plan : *own_plan;
  forecast.split = std::string(SplitStrategyName(plan.strategy()));
  forecast.explanation = plan.decisions().explanation;
  forecast.epsilon_spent_nanos = EpsilonSpent(plan);
  const size_t m = plan.questions().size();
  // The curator holds the same per-agent ε and splits it between the m
  // questions (basic composition).
  const ForecastContext context{
      .options = options,
      .central_epsilon = static_cast<double>(forecast.epsilon_spent_nanos) /
                         static_cast<double>(kNanosPerEpsilon) /
                         static_cast<double>(m),
      .confidence = spec.confidence,
      .z = NormalQuantile(1 - (1 - spec.confidence) / 2)};
  for (size_t i = 0; i < m; ++i) {
    ASSIGN_OR_RETURN(QuestionForecast question,
                     ForecastQuestion(plan, i, context));
    forecast.questions.push_back(std::move(question));
  }
  return forecast;
}

}  // namespace ldp
