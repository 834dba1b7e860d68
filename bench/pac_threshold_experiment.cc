// Private PAC learning of thresholds through SQs: the sample-size planner's
// predicted n next to the n the learners actually need (issue: interactive
// learning, part B).
//
// For each (mode, N, α, ε) the experiment prints the planner's prediction
// (PredictedAgents: Σ over the plan's queries of z²·V/τ²) and then walks a
// doubling grid of population sizes, running --seeds seeded simulations at
// each (a random realizable threshold t* per seed, x uniform on [0, N − 1],
// through SimulateStudy: same planner, randomizers and estimators as
// ldp-server). It reports the smallest grid n at which at least ⌈(1 − β)·
// seeds⌉ runs reach error ≤ α, where error is exact: |t̂ − t*|/N.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/flag_lists.h"
#include "server/program_simulator.h"
#include "server/programs/sq_program.h"
#include "server/programs/threshold_learner.h"

ABSL_FLAG(std::string, domains, "16,64,256", "Comma-separated domain sizes N.");
ABSL_FLAG(std::string, accuracies, "0.1,0.05", "Comma-separated accuracies α.");
ABSL_FLAG(std::string, epsilons, "1", "Comma-separated per-agent caps ε.");
ABSL_FLAG(std::string, modes, "adaptive,nonadaptive",
          "Comma-separated learner modes (adaptive, nonadaptive).");
ABSL_FLAG(double, beta, 0.05,
          "Failure probability β: the learner's parameter, and success means "
          "at least ⌈(1 − β)·seeds⌉ runs reach error ≤ α.");
ABSL_FLAG(int, seeds, 40, "Runs per grid point; seeds 1..N.");
ABSL_FLAG(int64_t, min_agents, 256, "First population size of the doubling grid.");
ABSL_FLAG(double, max_over_predicted, 2.0,
          "Stop the grid past this multiple of the predicted n.");
ABSL_FLAG(std::string, runs_csv, "",
          "If set, one CSV line per grid point is written here.");

namespace ldp {
namespace {

uint64_t SplitMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

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
  FILE* csv = nullptr;
  if (!absl::GetFlag(FLAGS_runs_csv).empty()) {
    csv = std::fopen(absl::GetFlag(FLAGS_runs_csv).c_str(), "w");
    if (csv == nullptr) {
      std::perror("--runs_csv");
      return 2;
    }
    std::fprintf(csv,
                 "mode,N,alpha,epsilon,predicted,agents,successes,runs,"
                 "mean_error,seconds_per_run\n");
  }
  std::printf("β = %g, success = at least %d of %d seeded runs with error ≤ α\n\n",
              beta, needed, seeds);
  for (double eps : epsilons) {
    auto choice = ChooseSqMechanism(eps, 0.5);
    if (!choice.ok()) {
      std::fprintf(stderr, "%s\n", choice.status().ToString().c_str());
      return 2;
    }
    absl::PrintF("ε = %g: every query (range [0, 1], b = 1/2) uses %s, "
                 "per-report variance bound %.4f\n",
                 eps, RealMechanismKindName(choice->kind),
                 choice->report_variance);
  }
  std::printf("\n");
  std::printf("| mode | N | α | ε | rounds | queries | predicted n | "
              "smallest grid n | successes there | predicted / needed | "
              "successes at n/2 | s/run at n |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::string& mode : modes) {
    for (int64_t n_domain : domains) {
      for (double alpha : accuracies) {
        for (double eps : epsilons) {
          auto schema = ThresholdSchema(n_domain);
          if (!schema.ok()) {
            std::fprintf(stderr, "%s\n", schema.status().ToString().c_str());
            return 2;
          }
          const int64_t cap = std::llround(eps * 1e9);
          const StudySpec study{
              .schema = *schema,
              .epsilon_cap_nanos = cap,
              .mode = StudyMode::kInteractive,
              .program = ProgramSpec{
                  .name = "threshold_learner",
                  .parameters = {{"mode", mode},
                                 {"accuracy", absl::StrFormat("%g", alpha)},
                                 {"failure_probability",
                                  absl::StrFormat("%g", beta)}}}};
          auto algorithm = CreateThresholdSqAlgorithm(
              *study.program,
              {.schema = *schema, .epsilon_cap_nanos = cap});
          if (!algorithm.ok()) {
            std::fprintf(stderr, "%s\n",
                         algorithm.status().ToString().c_str());
            return 2;
          }
          auto predicted = PredictedAgents(**algorithm, eps);
          if (!predicted.ok()) {
            std::fprintf(stderr, "%s\n", predicted.status().ToString().c_str());
            return 2;
          }
          const auto plan = (*algorithm)->Plan();
          size_t queries = 0;
          for (const auto& batch : plan) queries += batch.size();
          const double limit =
              absl::GetFlag(FLAGS_max_over_predicted) * *predicted;
          GridPoint previous, found;
          for (int64_t agents = absl::GetFlag(FLAGS_min_agents);
               agents <= limit; agents *= 2) {
            GridPoint point{.agents = agents};
            for (int seed = 1; seed <= seeds; ++seed) {
              const int64_t t_star =
                  static_cast<int64_t>(SplitMix64(seed) % (n_domain + 1));
              std::mt19937_64 coins(seed * 1000003ULL + n_domain);
              const auto start = std::chrono::steady_clock::now();
              auto run = SimulateStudy(
                  study, agents, Population(n_domain, t_star, seed), coins);
              point.seconds += std::chrono::duration<double>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
              if (!run.ok()) {
                std::fprintf(stderr, "%s\n", run.status().ToString().c_str());
                return 1;
              }
              auto t = ThresholdFromResult(run->result);
              if (!t.ok()) {
                std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
                return 1;
              }
              const double error =
                  std::abs(*t - t_star) / static_cast<double>(n_domain);
              point.successes += error <= alpha;
              point.error_sum += error;
              ++point.runs;
              // Lost: even all remaining runs cannot reach `needed`.
              if (point.runs - point.successes > seeds - needed) break;
            }
            if (csv != nullptr) {
              std::fprintf(csv, "%s,%lld,%g,%g,%lld,%lld,%d,%d,%.5f,%.3f\n",
                           mode.c_str(), static_cast<long long>(n_domain),
                           alpha, eps, static_cast<long long>(*predicted),
                           static_cast<long long>(agents), point.successes,
                           point.runs, point.error_sum / point.runs,
                           point.seconds / point.runs);
              std::fflush(csv);
            }
            if (point.successes >= needed) {
              found = point;
              break;
            }
            previous = point;
          }
          const std::string smallest =
              found.agents > 0 ? absl::StrFormat("%d", found.agents)
                               : absl::StrFormat("> %.0f", limit);
          const std::string ratio =
              found.agents > 0
                  ? absl::StrFormat("%.1f", static_cast<double>(*predicted) /
                                                found.agents)
                  : "—";
          const std::string below =
              previous.agents > 0
                  ? absl::StrFormat("%d/%d%s", previous.successes,
                                    previous.runs,
                                    previous.runs < seeds ? " (stopped)" : "")
                  : "—";
          absl::PrintF("| %s | %d | %g | %g | %d | %d | %d | %s | %d/%d | %s | "
                      "%s | %.3f |\n",
                      mode, n_domain, alpha, eps, plan.size(), queries,
                      *predicted, smallest, found.successes, found.runs, ratio,
                      below,
                      found.runs > 0 ? found.seconds / found.runs : 0.0);
          std::fflush(stdout);
        }
      }
    }
  }
  if (csv != nullptr) std::fclose(csv);
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Learns a threshold [x ≥ t*] over x ∈ [0, N − 1] with the "
      "threshold_learner program (adaptive and nonadaptive) on simulated "
      "populations, and prints the planner's predicted n next to the "
      "smallest n on a doubling grid at which ⌈(1 − β)·seeds⌉ runs reach "
      "error ≤ α.\nUsage: pac_threshold_experiment [--domains=16,64,256] "
      "[--accuracies=0.1,0.05] [--epsilons=1,2] [--modes=adaptive,nonadaptive] "
      "[--beta=0.05] [--seeds=40] [--min_agents=256] "
      "[--max_over_predicted=2] [--runs_csv=FILE]");
  absl::ParseCommandLine(argc, argv);
  return ldp::Run();
}
