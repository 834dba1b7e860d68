// Private PAC learning of thresholds through SQs: the sample-size planner's
// predicted n next to the n the learners actually need.
//
// For each (mode, N, α, ε) the experiment prints the planner's prediction
// (PredictedAgents: Σ over the plan's queries of z²·V/τ²) and then walks a
// doubling grid of population sizes, running --seeds seeded simulations at
// each (a random realizable threshold t* per seed, x uniform on [0, N − 1],
// through SimulateStudy: same planner, randomizers and estimators as
// ldp-server). It reports the smallest grid n at which at least ⌈(1 − β)·
// seeds⌉ runs reach error ≤ α, where error is exact: |t̂ − t*|/N.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/experiment_simulation.h"
#include "bench/studies/flag_lists.h"
#include "planning/program_simulator.h"
#include "planning/programs/sq_program.h"
#include "planning/programs/threshold_learner.h"

ABSL_FLAG(std::string, domains, "16,64,256", "Comma-separated domain sizes N.");
ABSL_FLAG(std::string, accuracies, "0.1,0.05", "Comma-separated accuracies α.");
ABSL_FLAG(std::string, epsilons, "1", "Comma-separated per-agent caps ε.");
ABSL_FLAG(std::string, modes, "adaptive,nonadaptive",
          "Comma-separated learner modes (adaptive, nonadaptive).");
ABSL_FLAG(double, beta, 0.05,
          "Failure probability β: the learner's parameter, and success means "
          "at least ⌈(1 − β)·seeds⌉ runs reach error ≤ α.");
ABSL_FLAG(int, seeds, 40, "Runs per grid point; seeds 1..N.");
ABSL_FLAG(int64_t, min_agents, 256,
          "First population size of the doubling grid.");
ABSL_FLAG(double, max_over_predicted, 2.0,
          "Stop the grid past this multiple of the predicted n.");
ABSL_FLAG(std::string, runs_csv, "",
          "If set, one CSV line per grid point is written here.");

namespace ldp {
namespace {

// x uniform on [0, n − 1], y = [x ≥ t*]; a pure function of (seed, agent).
RecordSource Population(int64_t n, int64_t t_star, uint64_t seed) {
  return [=](uint64_t agent) {
    const int64_t x = static_cast<int64_t>(
        SplitMix64(seed * 0xD1B54A32D192ED03ULL + agent) % n);
    Record r;
    r.values["x"] = x;
    r.values["y"] = x >= t_star;
    return r;
  };
}

struct GridPoint {
  int64_t agents = 0;
  int successes = 0;
  int runs = 0;  // fewer than --seeds when the point was already lost
  double error_sum = 0;
  double seconds = 0;
};

// One row of the table: a learner mode, domain size N, accuracy α and cap ε.
struct Case {
  std::string mode;
  int64_t n_domain = 0;
  double alpha = 0;
  double eps = 0;
};

// The study a case runs, with the planner's view of it: the predicted n,
// the plan's rounds and its number of queries.
struct PlannedCase {
  StudySpec study;
  int64_t predicted = 0;
  size_t rounds = 0;
  size_t queries = 0;
};

absl::StatusOr<PlannedCase> PlanCase(const Case& c, double beta) {
  absl::StatusOr<RecordSchema> schema = ThresholdSchema(c.n_domain);
  if (!schema.ok()) return schema.status();
  const int64_t cap = std::llround(c.eps * 1e9);
  PlannedCase planned{
      .study = StudySpec{
          .schema = *schema,
          .epsilon_cap_nanos = cap,
          .mode = StudyMode::kInteractive,
          .program = ProgramSpec{
              .name = "threshold_learner",
              .parameters = {
                  {"mode", c.mode},
                  {"accuracy", absl::StrFormat("%g", c.alpha)},
                  {"failure_probability", absl::StrFormat("%g", beta)}}}}};
  auto algorithm = CreateThresholdSqAlgorithm(
      *planned.study.program, {.schema = *schema, .epsilon_cap_nanos = cap});
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<int64_t> predicted = PredictedAgents(**algorithm, c.eps);
  if (!predicted.ok()) return predicted.status();
  planned.predicted = *predicted;
  const auto plan = (*algorithm)->Plan();
  planned.rounds = plan.size();
  for (const auto& batch : plan) planned.queries += batch.size();
  return planned;
}

// Up to `seeds` seeded runs of `agents` agents; stops once the point is lost
// (even all remaining runs could not reach `needed` successes).
absl::StatusOr<GridPoint> RunGridPoint(const Case& c, const StudySpec& study,
                                       int64_t agents, int seeds, int needed) {
  GridPoint point{.agents = agents};
  for (int seed = 1; seed <= seeds; ++seed) {
    const int64_t t_star =
        static_cast<int64_t>(SplitMix64(seed) % (c.n_domain + 1));
    std::mt19937_64 coins(seed * 1000003ULL + c.n_domain);
    const TimedSimulation timed = SimulateTimed(
        study, agents, Population(c.n_domain, t_star, seed), coins);
    point.seconds += timed.seconds;
    if (!timed.run.ok()) return timed.run.status();
    absl::StatusOr<int64_t> t = ThresholdFromResult(timed.run->result);
    if (!t.ok()) return t.status();
    const double error =
        std::abs(*t - t_star) / static_cast<double>(c.n_domain);
    point.successes += error <= c.alpha;
    point.error_sum += error;
    ++point.runs;
    if (point.runs - point.successes > seeds - needed) break;
  }
  return point;
}

// The doubling grid from --min_agents up to --max_over_predicted times the
// prediction: the first point with `needed` successes, and the one before.
struct GridOutcome {
  GridPoint previous, found;
};

absl::StatusOr<GridOutcome> WalkGrid(const Case& c, const PlannedCase& planned,
                                     int seeds, int needed, CsvOutput& csv) {
  const double limit =
      absl::GetFlag(FLAGS_max_over_predicted) * planned.predicted;
  GridOutcome out;
  for (int64_t agents = absl::GetFlag(FLAGS_min_agents); agents <= limit;
       agents *= 2) {
    absl::StatusOr<GridPoint> point =
        RunGridPoint(c, planned.study, agents, seeds, needed);
    if (!point.ok()) return point.status();
    csv.Write("%s,%lld,%g,%g,%lld,%lld,%d,%d,%.5f,%.3f\n", c.mode.c_str(),
              static_cast<long long>(c.n_domain), c.alpha, c.eps,
              static_cast<long long>(planned.predicted),
              static_cast<long long>(agents), point->successes, point->runs,
              point->error_sum / point->runs, point->seconds / point->runs);
    if (point->successes >= needed) {
      out.found = *point;
      break;
    }
    out.previous = *point;
  }
  return out;
}

void PrintCaseRow(const Case& c, const PlannedCase& planned,
                  const GridOutcome& grid, int seeds) {
  const GridPoint& found = grid.found;
  const GridPoint& previous = grid.previous;
  const double limit =
      absl::GetFlag(FLAGS_max_over_predicted) * planned.predicted;
  const std::string smallest = found.agents > 0
                                   ? absl::StrFormat("%d", found.agents)
                                   : absl::StrFormat("> %.0f", limit);
  const std::string ratio =
      found.agents > 0
          ? absl::StrFormat(
                "%.1f", static_cast<double>(planned.predicted) / found.agents)
          : "—";
  const std::string below =
      previous.agents > 0
          ? absl::StrFormat("%d/%d%s", previous.successes, previous.runs,
                            previous.runs < seeds ? " (stopped)" : "")
          : "—";
  absl::PrintF(
      "| %s | %d | %g | %g | %d | %d | %d | %s | %d/%d | %s | "
      "%s | %.3f |\n",
      c.mode, c.n_domain, c.alpha, c.eps, planned.rounds, planned.queries,
      planned.predicted, smallest, found.successes, found.runs, ratio, below,
      found.runs > 0 ? found.seconds / found.runs : 0.0);
  std::fflush(stdout);
}

// The mechanism the planner picks for every query at each ε.
bool PrintMechanismChoices(const std::vector<double>& epsilons) {
  for (double eps : epsilons) {
    auto choice = ChooseSqMechanism(eps, 0.5);
    if (!choice.ok()) {
      std::fprintf(stderr, "%s\n", choice.status().ToString().c_str());
      return false;
    }
    absl::PrintF(
        "ε = %g: every query (range [0, 1], b = 1/2) uses %s, "
        "per-report variance bound %.4f\n",
        eps, RealMechanismKindName(choice->kind), choice->report_variance);
  }
  std::printf("\n");
  return true;
}

int Run() {
  std::vector<int64_t> domains;
  std::vector<double> accuracies, epsilons;
  if (!ParseList(absl::GetFlag(FLAGS_domains), "domains", domains) ||
      !ParseList(absl::GetFlag(FLAGS_accuracies), "accuracies", accuracies) ||
      !ParseList(absl::GetFlag(FLAGS_epsilons), "epsilons", epsilons)) {
    return 2;
  }
  const std::vector<std::string> modes =
      absl::StrSplit(absl::GetFlag(FLAGS_modes), ',');
  const double beta = absl::GetFlag(FLAGS_beta);
  const int seeds = absl::GetFlag(FLAGS_seeds);
  const int needed = static_cast<int>(std::ceil((1 - beta) * seeds - 1e-9));
  CsvOutput csv;
  if (!csv.Open(absl::GetFlag(FLAGS_runs_csv),
                "mode,N,alpha,epsilon,predicted,agents,successes,runs,"
                "mean_error,seconds_per_run\n")) {
    std::perror("--runs_csv");
    return 2;
  }
  std::printf(
      "β = %g, success = at least %d of %d seeded runs with error ≤ α\n\n",
      beta, needed, seeds);
  if (!PrintMechanismChoices(epsilons)) return 2;
  PrintMarkdownHeader({"mode", "N", "α", "ε", "rounds", "queries",
                       "predicted n", "smallest grid n", "successes there",
                       "predicted / needed", "successes at n/2", "s/run at n"});
  for (const std::string& mode : modes) {
    for (int64_t n_domain : domains) {
      for (double alpha : accuracies) {
        for (double eps : epsilons) {
          const Case c{
              .mode = mode, .n_domain = n_domain, .alpha = alpha, .eps = eps};
          absl::StatusOr<PlannedCase> planned = PlanCase(c, beta);
          if (!planned.ok()) {
            std::fprintf(stderr, "%s\n", planned.status().ToString().c_str());
            return 2;
          }
          absl::StatusOr<GridOutcome> grid =
              WalkGrid(c, *planned, seeds, needed, csv);
          if (!grid.ok()) {
            std::fprintf(stderr, "%s\n", grid.status().ToString().c_str());
            return 1;
          }
          PrintCaseRow(c, *planned, *grid, seeds);
        }
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Learns a threshold [x ≥ t*] over x ∈ "
      "[0, N − 1] with the threshold_learner program (adaptive and "
      "nonadaptive) on simulated populations, and prints the planner's "
      "predicted n next to the smallest n on a doubling grid at which ⌈(1 − "
      "β)·seeds⌉ runs reach error ≤ α.\nUsage: pac_threshold_experiment "
      "[--domains=16,64,256] [--accuracies=0.1,0.05] [--epsilons=1,2] "
      "[--modes=adaptive,nonadaptive] [--beta=0.05] [--seeds=40] "
      "[--min_agents=256] [--max_over_predicted=2] [--runs_csv=FILE]",
      ldp::Run);
}
