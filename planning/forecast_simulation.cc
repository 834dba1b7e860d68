// A study run in process on synthetic populations, to check its forecast;
// see the header.
#include "planning/forecast_simulation.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <variant>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/confidence_interval.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/queries/synthetic_records.h"
#include "common/task_estimation/task_accumulator.h"
#include "common/tasks/task_mechanism.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "planning/query_values.h"

namespace ldp {

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
  double sum = 0, sum_squares = 0;  // queries: φ over all agents
  double randomizer_variance = 0;   // queries: Σ Var_R over reporters
  Eigen::VectorXd counts;           // histograms and workloads
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
  for (const Question& q : spec.questions) {
    const auto* h = std::get_if<HistogramQuestion>(&q.kind);
    if (h != nullptr && h->candidates.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--simulate does not draw strings for rappor question ", q.id,
          " (bench/studies/rappor_decoding measures the candidate decode)"));
    }
  }
  if (options.num_agents < 1 || options.runs < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a simulation needs at least 1 agent and 1 run, got ",
        options.num_agents, " agents and ", options.runs, " runs"));
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
    } else if (const auto* w =
                   std::get_if<WorkloadTask>(&planned.task->question)) {
      truths[q].counts = Eigen::VectorXd::Zero(w->encoding.domain_size());
    }
  }
}

// One agent's record into the truth of question q, and its report if asked.
absl::Status ObserveAgent(const PlannedQuestion& planned, const Record& record,
                          bool asked, const RealMechanism* mechanism,
                          const QueryValues& values, SecureRandom& gen,
                          Truth& truth, TaskAccumulator& accumulator) {
  if (const auto* sq =
          std::get_if<StatisticalQueryTask>(&planned.task->question)) {
    const double phi = sq->query.Evaluate(record);
    truth.sum += phi;
    truth.sum_squares += phi * phi;
    if (asked)
      truth.randomizer_variance += mechanism->Variance(phi - values.center);
  } else if (const auto* h =
                 std::get_if<HistogramTask>(&planned.task->question)) {
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
  tally.covered +=
      scalar.interval.lower <= mean && mean <= scalar.interval.upper;
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
        oracle.Variance(f, static_cast<int64_t>(reports)) +
        f * (1 - f) * splitting;
    tally.covered += std::abs(error) <= z * std::sqrt(histogram.variances[v]);
    tally.estimates += 1;
  }
}

absl::Status TallyWorkload(const WorkloadAnswer& answer,
                           const WorkloadEstimator& estimator,
                           const Truth& truth, double n, double reports,
                           double splitting, Tally& tally) {
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
    tally.covered +=
        std::abs(error) <= answer.band_z * answer.standard_errors[j];
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
    return absl::InvalidArgumentError(
        absl::StrCat("question ", planned.question_id, " got no report from ",
                     options.num_agents, " agents: simulate more agents"));
  }
  const double n = static_cast<double>(options.num_agents);
  const double z = NormalQuantile(1 - (1 - spec.confidence) / 2);
  // Sample splitting's extra spread: the reporters' mean against all n.
  const double splitting = 1 / reports - 1 / n;
  tally.reports += reports;
  if (const auto* scalar = std::get_if<ScalarEstimate>(&estimate)) {
    TallyScalar(*scalar, truth, n, reports, splitting, tally);
  } else if (const auto* histogram =
                 std::get_if<HistogramEstimate>(&estimate)) {
    TallyHistogram(*histogram, truth, *randomizers.oracles[q], n, z, reports,
                   splitting, tally);
  } else {
    RETURN_IF_ERROR(TallyWorkload(std::get<WorkloadAnswer>(estimate),
                                  *planned.workload.estimator, truth, n,
                                  reports, splitting, tally));
  }
  return absl::OkStatus();
}

// One run: every agent's record drawn, each asked agent's report added,
// then each question's estimate tallied against the run's truth.
absl::Status SimulateRun(const StudySpec& spec,
                         const SimulationOptions& options,
                         const PopulationFactory& population,
                         const RoundPlan& plan, const Randomizers& randomizers,
                         int run, SecureRandom& gen,
                         std::vector<Tally>& tallies) {
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
          randomizers.mechanisms[q].get(), randomizers.values[q], gen,
          truths[q], accumulators[q]));
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

PopulationFactory SyntheticPopulation(const StudySpec& spec, uint64_t seed) {
  // One population object per run, built on first use.
  auto cache =
      std::make_shared<std::pair<int, std::unique_ptr<SyntheticRecords>>>(
          -1, nullptr);
  RecordSchema schema = spec.schema;
  return [cache, schema, seed](int run, uint64_t agent_id) {
    if (cache->first != run) {
      cache->first = run;
      cache->second = std::make_unique<SyntheticRecords>(
          schema, seed * 1'000'003ull + static_cast<uint64_t>(run));
    }
    return cache->second->Get(agent_id);
  };
}

}  // namespace ldp
