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
#include "common/central/central_baseline.h"
#include "common/central/exponential_mechanism.h"
#include "common/central/private_pac_learner.h"
#include "common/confidence_interval.h"
#include "common/secure_random.h"
#include "common/frequency_oracle_factory.h"
#include "common/real_mechanism_factory.h"
#include "common/sample_size.h"
#include "common/status_macros.h"
#include "common/synthetic_records.h"
#include "common/task_mechanism.h"
#include "common/workload/workload.h"
#include "common/workload/workload_estimator.h"
#include "planning/planner.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/sq_program.h"
#include "planning/programs/threshold_learner.h"

namespace ldp {
namespace {

// Query nodes whose value is 0 or 1 (comparisons, logic, indicators).
bool IsIndicator(const Query& query) {
  switch (query.root().op) {
    case QueryOp::kCategoryIs:
    case QueryOp::kBitAt:
    case QueryOp::kMaskedParity:
    case QueryOp::kEqual:
    case QueryOp::kNotEqual:
    case QueryOp::kLess:
    case QueryOp::kLessEqual:
    case QueryOp::kGreater:
    case QueryOp::kGreaterEqual:
    case QueryOp::kAnd:
    case QueryOp::kOr:
    case QueryOp::kNot:
      return true;
    case QueryOp::kField: {
      const FieldSpec* field = query.schema().Find(query.root().field);
      return field != nullptr && field->kind == FieldKind::kBool;
    }
    default:
      return false;
  }
}

// What a statistical query's answers can be, as far as variance goes.
struct QueryValues {
  double lower = 0, upper = 0;  // the range the mechanism is built for
  double center = 0;
  bool indicator = false;  // φ ∈ {0, 1} (clamped into the range)
};

QueryValues ValuesOf(const Query& query) {
  const QueryRange r = query.output_range();
  return {.lower = r.lower,
          .upper = r.upper,
          .center = (r.lower + r.upper) / 2,
          .indicator = IsIndicator(query)};
}

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
    return absl::InvalidArgumentError(
        absl::StrCat("the number of agents must be >= 0, got ", options.num_agents));
  }
  if (!(options.target_error >= 0) || !std::isfinite(options.target_error)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the target error must be a finite number >= 0, got ", options.target_error));
  }
  return absl::OkStatus();
}

// The local side at n agents and for τ, from the per-report variance.
ErrorForecast LocalSide(std::string mechanism, double epsilon, double unit,
                        double share, double z, const ForecastOptions& options,
                        double confidence) {
  ErrorForecast local{.mechanism = std::move(mechanism), .epsilon = epsilon};
  if (options.num_agents > 0) {
    local.rmse = std::sqrt(unit / (share * static_cast<double>(options.num_agents)));
    local.half_width = z * local.rmse;
  }
  if (options.target_error > 0) {
    absl::StatusOr<int64_t> reports = ReportsNeeded(
        unit, {.tolerance = options.target_error, .confidence = confidence});
    local.agents_needed = reports.ok()
                              ? CeilAgents(static_cast<double>(*reports) / share)
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
      single_cell ? sigma_times_n * std::log(1 / (1 - confidence)) / std::sqrt(2.0)
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
    ASSIGN_OR_RETURN(forecast.central_learner_agents,
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
  out.local = LocalSide(std::string(RealMechanismKindName(sq.mechanism.kind)),
                        epsilon, out.unit_variance, out.share, c.z, c.options,
                        c.confidence);
  ASSIGN_OR_RETURN(
      const double central,
      values.indicator ? CentralCountingVariance(1, c.central_epsilon)
                       : CentralMeanVariance(1, c.central_epsilon, values.lower,
                                             values.upper));
  out.central = CentralSide("Laplace", c.central_epsilon, central, true, c.z,
                            c.options, c.confidence);
  return absl::OkStatus();
}

absl::Status ForecastHistogram(const HistogramTask& h, double epsilon,
                               const ForecastContext& c, QuestionForecast& out) {
  ASSIGN_OR_RETURN(auto oracle, CreateFrequencyOracle(h.oracle));
  out.kind = "histogram";
  out.num_estimates = h.encoding.domain_size();
  out.unit_variance = WorstHistogramUnitVariance(*oracle, out.share);
  out.local = LocalSide(std::string(FrequencyOracleKindName(h.oracle.kind)),
                        epsilon, out.unit_variance, out.share, c.z, c.options,
                        c.confidence);
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
    ASSIGN_OR_RETURN(out.top_item_central_loss,
                     UtilityLossBound(static_cast<size_t>(out.num_estimates),
                                      1 / n, c.central_epsilon, 1 - c.confidence));
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
  ASSIGN_OR_RETURN(const double central,
                   CentralWorkloadWorstVariance(estimator.workload(), 1,
                                                c.central_epsilon));
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
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&planned.task->question)) {
    RETURN_IF_ERROR(ForecastQuery(*sq, epsilon, c, out));
  } else if (const auto* h = std::get_if<HistogramTask>(&planned.task->question)) {
    RETURN_IF_ERROR(ForecastHistogram(*h, epsilon, c, out));
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
  if (spec.program.has_value()) return ForecastProgram(spec, std::move(forecast));

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

namespace {

// One question's running sums over the runs.
struct Tally {
  double squared_error = 0;
  double predicted_variance = 0;
  int64_t estimates = 0;
  int64_t covered = 0;
  double reports = 0;
  std::vector<double> scaled_errors;
};

// Per run: the truth over all agents and what the prediction needs.
struct Truth {
  double sum = 0, sum_squares = 0;          // queries: φ over all agents
  double randomizer_variance = 0;           // queries: Σ Var_R over reporters
  Eigen::VectorXd counts;                   // histograms and workloads
};

// What the prediction needs of each question's randomizer (queries and
// histograms; workloads carry their own estimator).
struct Randomizers {
  std::vector<std::unique_ptr<RealMechanism>> mechanisms;
  std::vector<std::unique_ptr<FrequencyOracle>> oracles;
  std::vector<QueryValues> values;
};

absl::Status CheckSimulation(const StudySpec& spec,
                             const SimulationOptions& options) {
  if (spec.program.has_value()) {
    return absl::InvalidArgumentError(
        "--simulate runs noninteractive studies; an analyst program's rounds "
        "depend on its answers (simulate those with the program's own "
        "experiment in bench/)");
  }
  if (options.num_agents < 1 || options.runs < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a simulation needs at least 1 agent and 1 run, got ", options.num_agents,
        " agents and ", options.runs, " runs"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Randomizers> RandomizersOf(const RoundPlan& plan) {
  const size_t m = plan.questions().size();
  Randomizers r{.mechanisms = std::vector<std::unique_ptr<RealMechanism>>(m),
                .oracles = std::vector<std::unique_ptr<FrequencyOracle>>(m),
                .values = std::vector<QueryValues>(m)};
  for (size_t q = 0; q < m; ++q) {
    const Task& task = *plan.questions()[q].task;
    if (const auto* sq = std::get_if<StatisticalQueryTask>(&task.question)) {
      ASSIGN_OR_RETURN(r.mechanisms[q], CreateRealMechanism(sq->mechanism));
      r.values[q] = ValuesOf(sq->query);
    } else if (const auto* h = std::get_if<HistogramTask>(&task.question)) {
      ASSIGN_OR_RETURN(r.oracles[q], CreateFrequencyOracle(h->oracle));
    }
  }
  return r;
}

// One run's accumulators and truths, empty.
void StartRun(const RoundPlan& plan, std::vector<TaskAccumulator>& accumulators,
              std::vector<Truth>& truths) {
  for (size_t q = 0; q < plan.questions().size(); ++q) {
    const PlannedQuestion& planned = plan.questions()[q];
    accumulators.emplace_back(planned.mechanism, planned.workload);
    if (const auto* h = std::get_if<HistogramTask>(&planned.task->question)) {
      truths[q].counts = Eigen::VectorXd::Zero(h->encoding.domain_size());
    } else if (const auto* w = std::get_if<WorkloadTask>(&planned.task->question)) {
      truths[q].counts = Eigen::VectorXd::Zero(w->encoding.domain_size());
    }
  }
}

// One agent's record into the truth of question q, and its report if asked.
absl::Status ObserveAgent(const PlannedQuestion& planned, const Record& record,
                          bool asked, const RealMechanism* mechanism,
                          const QueryValues& values, SecureRandom& gen,
                          Truth& truth, TaskAccumulator& accumulator) {
  if (const auto* sq = std::get_if<StatisticalQueryTask>(&planned.task->question)) {
    const double phi = sq->query.Evaluate(record);
    truth.sum += phi;
    truth.sum_squares += phi * phi;
    if (asked) truth.randomizer_variance += mechanism->Variance(phi - values.center);
  } else if (const auto* h = std::get_if<HistogramTask>(&planned.task->question)) {
    truth.counts[h->encoding.Encode(record)] += 1;
  } else {
    const auto& w = std::get<WorkloadTask>(planned.task->question);
    truth.counts[w.encoding.Encode(record)] += 1;
  }
  if (!asked) return absl::OkStatus();
  return accumulator.Add(planned.mechanism->Randomize(record, gen));
}

void TallyScalar(const ScalarEstimate& scalar, const Truth& truth, double n,
                 double reports, double splitting, Tally& tally) {
  const double mean = truth.sum / n;
  const double spread = std::max(0.0, truth.sum_squares / n - mean * mean);
  const double error = scalar.value - mean;
  tally.squared_error += error * error;
  tally.predicted_variance +=
      truth.randomizer_variance / (reports * reports) + spread * splitting;
  tally.covered += scalar.interval.lower <= mean && mean <= scalar.interval.upper;
  tally.estimates += 1;
  tally.scaled_errors.push_back(std::sqrt(reports) * std::abs(error));
}

void TallyHistogram(const HistogramEstimate& histogram, const Truth& truth,
                    const FrequencyOracle& oracle, double n, double z,
                    double reports, double splitting, Tally& tally) {
  for (Eigen::Index v = 0; v < truth.counts.size(); ++v) {
    const double f = truth.counts[v] / n;
    const double error = histogram.frequencies[v] - f;
    tally.squared_error += error * error;
    tally.predicted_variance +=
        oracle.Variance(f, static_cast<int64_t>(reports)) + f * (1 - f) * splitting;
    tally.covered += std::abs(error) <= z * std::sqrt(histogram.variances[v]);
    tally.estimates += 1;
  }
}

absl::Status TallyWorkload(const WorkloadAnswer& answer,
                           const WorkloadEstimator& estimator, const Truth& truth,
                           double n, double reports, double splitting,
                           Tally& tally) {
  const Eigen::VectorXd h = truth.counts / n;
  const Eigen::VectorXd exact = estimator.workload().Answer(h);
  const Eigen::VectorXd variances =
      estimator.Variances(h, static_cast<int64_t>(reports)) / reports;
  Eigen::VectorXd second_moment = exact;  // Σ_x h_x w_jx², = a_j for 0/1 rows
  if (estimator.workload().kind() == WorkloadKind::kCustom) {
    ASSIGN_OR_RETURN(const Eigen::MatrixXd w, estimator.workload().Dense());
    second_moment = w.cwiseAbs2() * h;
  }
  for (Eigen::Index j = 0; j < exact.size(); ++j) {
    const double error = answer.answers[j] - exact[j];
    tally.squared_error += error * error;
    tally.predicted_variance +=
        variances[j] +
        std::max(0.0, second_moment[j] - exact[j] * exact[j]) * splitting;
    tally.covered += std::abs(error) <= answer.band_z * answer.standard_errors[j];
    tally.estimates += 1;
  }
  return absl::OkStatus();
}

// Question q's estimate of one run against that run's truth.
absl::Status TallyRun(const StudySpec& spec, const SimulationOptions& options,
                      const RoundPlan& plan, size_t q,
                      const TaskAccumulator& accumulator, const Truth& truth,
                      const Randomizers& randomizers, Tally& tally) {
  const PlannedQuestion& planned = plan.questions()[q];
  TaskEstimate estimate = accumulator.Estimate(spec.confidence);
  AddSamplingVariance(plan, static_cast<int>(q), estimate);
  const double reports = static_cast<double>(accumulator.num_reports());
  if (reports == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "question ", planned.question_id, " got no report from ",
        options.num_agents, " agents: simulate more agents"));
  }
  const double n = static_cast<double>(options.num_agents);
  const double z = NormalQuantile(1 - (1 - spec.confidence) / 2);
  // Sample splitting's extra spread: the reporters' mean against all n.
  const double splitting = 1 / reports - 1 / n;
  tally.reports += reports;
  if (const auto* scalar = std::get_if<ScalarEstimate>(&estimate)) {
    TallyScalar(*scalar, truth, n, reports, splitting, tally);
  } else if (const auto* histogram = std::get_if<HistogramEstimate>(&estimate)) {
    TallyHistogram(*histogram, truth, *randomizers.oracles[q], n, z, reports,
                   splitting, tally);
  } else {
    RETURN_IF_ERROR(TallyWorkload(std::get<WorkloadAnswer>(estimate),
                                  *planned.workload.estimator, truth, n, reports,
                                  splitting, tally));
  }
  return absl::OkStatus();
}

// One run: every agent's record drawn, each asked agent's report added,
// then each question's estimate tallied against the run's truth.
absl::Status SimulateRun(const StudySpec& spec, const SimulationOptions& options,
                         const PopulationFactory& population,
                         const RoundPlan& plan, const Randomizers& randomizers,
                         int run, SecureRandom& gen, std::vector<Tally>& tallies) {
  const size_t m = plan.questions().size();
  std::vector<TaskAccumulator> accumulators;
  std::vector<Truth> truths(m);
  StartRun(plan, accumulators, truths);
  for (uint64_t agent = 1; agent <= static_cast<uint64_t>(options.num_agents);
       ++agent) {
    const Record record = population(run, agent);
    for (size_t q = 0; q < m; ++q) {
      RETURN_IF_ERROR(ObserveAgent(
          plan.questions()[q], record, plan.Assigns(agent, static_cast<int>(q)),
          randomizers.mechanisms[q].get(), randomizers.values[q], gen, truths[q],
          accumulators[q]));
    }
  }
  for (size_t q = 0; q < m; ++q) {
    RETURN_IF_ERROR(TallyRun(spec, options, plan, q, accumulators[q], truths[q],
                             randomizers, tallies[q]));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<QuestionSimulation>> SimulateForecast(
    const StudySpec& spec, const SimulationOptions& options,
    const PopulationFactory& population) {
  RETURN_IF_ERROR(CheckSimulation(spec, options));
  std::optional<RoundPlan> own_plan;
  if (options.plan == nullptr) {
    ASSIGN_OR_RETURN(own_plan, RoundPlan::Create(spec, options.strategies));
  }
  const RoundPlan& plan = options.plan != nullptr ? *options.plan : *own_plan;
  const size_t m = plan.questions().size();
  // Synthetic agents, not people: a seeded stream of the same cipher makes
  // runs reproducible.
  ASSIGN_OR_RETURN(std::unique_ptr<SecureRandom> coins,
                   SecureRandom::CreateForSimulation(options.seed));
  ASSIGN_OR_RETURN(const Randomizers randomizers, RandomizersOf(plan));
  std::vector<Tally> tallies(m);
  for (int run = 0; run < options.runs; ++run) {
    RETURN_IF_ERROR(SimulateRun(spec, options, population, plan, randomizers,
                                run, *coins, tallies));
  }
  std::vector<QuestionSimulation> out;
  for (size_t q = 0; q < m; ++q) {
    const Tally& t = tallies[q];
    const double count = static_cast<double>(t.estimates);
    out.push_back({.question_id = plan.questions()[q].question_id,
                   .mean_reports = t.reports / options.runs,
                   .predicted_rmse = std::sqrt(t.predicted_variance / count),
                   .observed_rmse = std::sqrt(t.squared_error / count),
                   .coverage = static_cast<double>(t.covered) / count,
                   .scaled_errors = t.scaled_errors});
  }
  return out;
}

}  // namespace ldp
