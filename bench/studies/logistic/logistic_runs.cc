// Private and non-private training runs of the logistic regression
// experiment; see the header.
#include "bench/studies/logistic/logistic_runs.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bench/studies/experiment_simulation.h"
#include "common/base/status_macros.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "planning/program_simulator.h"

namespace ldp {
namespace {

// The study that runs the program with `setting` on s's features, capped at
// ε = eps per agent.
absl::StatusOr<StudySpec> LogisticStudy(const Split& s,
                                        const LogisticSetting& setting,
                                        double eps, const RunOptions& options) {
  std::vector<FieldSpec> fields;
  for (size_t k = 0; k < s.features.size(); ++k) {
    fields.push_back(FieldSpec::Real(s.features[k], s.bounds.bounds[k].lo,
                                     s.bounds.bounds[k].hi));
  }
  fields.push_back(FieldSpec::Bool(s.label));
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(std::move(fields));
  if (!schema.ok()) return schema.status();
  return StudySpec{
      .display_name = "logistic regression",
      .schema = *schema,
      .epsilon_cap_nanos = std::llround(eps * 1e9),
      .mode = StudyMode::kInteractive,
      .program = ProgramSpec{
          .name = "logistic_regression",
          .parameters = {
              {"features", absl::StrJoin(s.features, ",")},
              {"label", s.label},
              {"rounds", absl::StrCat(setting.rounds)},
              {"learning_rate", absl::StrCat(setting.learning_rate)},
              {"schedule", setting.schedule},
              {"average_tail", absl::StrCat(options.average_tail)},
              {"clip", absl::StrCat(setting.clip)},
              {"radius", absl::StrCat(options.radius)},
              {"l2", absl::StrCat(options.l2)},
              {"coordinates_per_agent", options.coordinates_per_agent}}}};
}

// The program's "gradient_steps" value, or −1 if it states none.
double GradientSteps(const ProgramResult& result) {
  for (const ProgramValue& v : result.values) {
    if (v.name == "gradient_steps") return v.value;
  }
  return -1;
}

// Appends the iterate and released model before every gradient step, and
// after the last, to `run` (with k coordinates per agent a step is k rounds,
// and the result before each of them states the same models); an error if
// one is malformed or not finite.
absl::Status CollectModels(const SimulationResult& result, int d, double eps,
                           uint64_t seed, PrivateRun& run) {
  std::vector<const ProgramResult*> results;
  for (const SimulatedRound& r : result.rounds) {
    if (results.empty() ||
        GradientSteps(r.result_before) != GradientSteps(*results.back())) {
      results.push_back(&r.result_before);
    }
  }
  results.push_back(&result.result);
  for (const ProgramResult* r : results) {
    absl::StatusOr<LogisticModel> iterate = LogisticIterateFromResult(*r, d);
    if (!iterate.ok()) return iterate.status();
    run.iterates.push_back(*std::move(iterate));
    absl::StatusOr<LogisticModel> released = LogisticModelFromResult(*r, d);
    if (!released.ok()) return released.status();
    if (!IsFinite(run.iterates.back()) || !IsFinite(*released)) {
      return absl::InternalError(
          absl::StrCat("the private run (seed ", seed, ", ε = ", eps,
                       ") released a model with a non-finite weight"));
    }
    run.released.push_back(*std::move(released));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GradientPlan> GradientPlanOf(const Split& s,
                                            const LogisticSetting& setting,
                                            double eps,
                                            const RunOptions& options) {
  ASSIGN_OR_RETURN(const int k,
                   ParseCoordinatesPerAgent(options.coordinates_per_agent));
  return PlanGradientReports(std::llround(eps * 1e9), setting.clip,
                             static_cast<int>(s.features.size()) + 1, k);
}

std::string LogisticSetting::Name() const {
  return absl::StrFormat("η = %g, T = %d, c = %g, %s", learning_rate, rounds,
                         clip, schedule);
}

int AveragedRounds(int rounds, double average_tail) {
  return std::max(1, static_cast<int>(std::ceil(average_tail * rounds - 1e-9)));
}

LogisticModel TailAverage(const std::vector<LogisticModel>& path,
                          double average_tail) {
  const int rounds = static_cast<int>(path.size()) - 1;
  const int k = AveragedRounds(rounds, average_tail);
  LogisticModel mean{.theta = std::vector<double>(path[0].theta.size())};
  for (int t = rounds - k + 1; t <= rounds; ++t) {
    for (size_t j = 0; j < mean.theta.size(); ++j)
      mean.theta[j] += path[t].theta[j] / k;
    mean.bias += path[t].bias / k;
  }
  return mean;
}

std::vector<LogisticModel> GradientDescentPath(const Split& s,
                                               const LogisticSetting& setting,
                                               const RunOptions& options) {
  const double l2 = options.l2;
  const double radius = options.radius;
  const size_t d = s.train_x[0].size();
  LogisticModel m{.theta = std::vector<double>(d)};
  std::vector<LogisticModel> path = {m};
  for (int t = 0; t < setting.rounds; ++t) {
    const std::vector<double> g = Gradient(m, s);
    const double step = setting.schedule == "inverse_sqrt"
                            ? setting.learning_rate / std::sqrt(t + 1.0)
                            : setting.learning_rate;
    for (size_t j = 0; j < d; ++j)
      m.theta[j] -= step * (g[j] + l2 * m.theta[j]);
    m.bias -= step * g[d];
    const double norm = std::sqrt(std::inner_product(
        m.theta.begin(), m.theta.end(), m.theta.begin(), m.bias * m.bias));
    if (norm > radius) {
      for (double& v : m.theta) v *= radius / norm;
      m.bias *= radius / norm;
    }
    path.push_back(m);
  }
  return path;
}

absl::StatusOr<PrivateRun> RunPrivate(const Split& s,
                                      const LogisticSetting& setting,
                                      double eps, uint64_t seed,
                                      const RunOptions& options) {
  absl::StatusOr<StudySpec> study = LogisticStudy(s, setting, eps, options);
  if (!study.ok()) return study.status();
  const size_t n_train = s.train_records.size();
  // Agents are training rows resampled with replacement, computed on
  // demand, so that 10^6 agents need no table of 10^6 records.
  const RecordSource records = [&s, seed, n_train](uint64_t agent) {
    return s
        .train_records[SplitMix64(seed * 0xD1B54A32D192ED03 + agent) % n_train];
  };
  std::mt19937_64 coins(seed * 1000003 + std::llround(eps * 1000));
  const TimedSimulation timed =
      SimulateTimed(*study, options.agents, records, coins);
  const absl::StatusOr<SimulationResult>& result = timed.run;
  if (!result.ok()) return result.status();
  PrivateRun run{.seconds = timed.seconds,
                 .max_spent = result->max_spent_nanos,
                 .refused = result->refused_over_cap};
  const absl::Status collected = CollectModels(
      *result, static_cast<int>(s.features.size()), eps, seed, run);
  if (!collected.ok()) return collected;
  return run;
}

absl::Status NonFiniteNewton() {
  return absl::InternalError(
      "the non-private Newton baseline has a non-finite weight; try a larger "
      "--baseline_l2");
}

}  // namespace ldp
