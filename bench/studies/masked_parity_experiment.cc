// MASKED-PARITY: the interactive 2-round learner against the best
// noninteractive learner we have, on the same simulated agents and budget,
// as d grows.
//
// Every run draws a concept (r, a) and a population from its seed, runs the
// program through the in-process simulator (same planner, randomizers and
// estimators as ldp-server, a ledger that refuses charges over the cap) and
// scores the learned hypothesis by its exact error under the uniform
// distribution. Coins come from a seeded generator so runs are reproducible.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/studies/experiment_common.h"
#include "bench/studies/experiment_simulation.h"
#include "bench/studies/flag_lists.h"
#include "planning/program_simulator.h"
#include "planning/programs/masked_parity.h"

ABSL_FLAG(int64_t, agents, 1'000'000, "Simulated agents per run.");
ABSL_FLAG(double, epsilon, 2.0, "Per-agent cap ε for the whole study.");
ABSL_FLAG(std::string, dims, "8,12,16,24,32,64", "Comma-separated d values.");
ABSL_FLAG(int, seeds, 20, "Runs per (learner, d); seeds 1..N.");
ABSL_FLAG(std::string, learners, "masked_parity,masked_parity_noninteractive",
          "Comma-separated analyst program names.");
ABSL_FLAG(std::string, runs_csv, "",
          "If set, one CSV line per run is written here.");

namespace ldp {
namespace {

MaskedParityConcept DrawConcept(int d, uint64_t seed) {
  std::mt19937_64 gen(seed * 7919 + d);
  MaskedParityConcept c{.r = std::vector<bool>(d), .a = (gen() & 1) == 1};
  for (int i = 0; i < d; ++i) c.r[i] = (gen() & 1) == 1;
  return c;
}

struct Summary {
  int exact = 0;
  double error_sum = 0;
  int64_t max_spent = 0;
  int64_t refused = 0;
  double seconds = 0;
};

int Run() {
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  const int64_t cap = std::llround(absl::GetFlag(FLAGS_epsilon) * 1e9);
  const int seeds = absl::GetFlag(FLAGS_seeds);
  std::vector<int> dims;
  if (!ParseList(absl::GetFlag(FLAGS_dims), "dims", dims)) return 2;
  const std::vector<std::string> learners =
      absl::StrSplit(absl::GetFlag(FLAGS_learners), ',');
  CsvOutput csv;
  if (!csv.Open(absl::GetFlag(FLAGS_runs_csv),
                "learner,d,seed,exact,error,max_spent_nanos,seconds\n")) {
    std::perror("--runs_csv");
    return 2;
  }
  std::printf("n = %lld agents, cap ε = %g, %d seeds\n\n",
              static_cast<long long>(agents), cap / 1e9, seeds);
  PrintMarkdownHeader({"learner", "d", "exact", "mean error", "max ε spent",
                       "refused", "s/run"});
  for (const std::string& learner : learners) {
    for (int d : dims) {
      auto schema = MaskedParitySchema(d);
      if (!schema.ok()) {
        std::fprintf(stderr, "%s\n", schema.status().ToString().c_str());
        return 2;
      }
      const StudySpec study{.schema = *schema,
                            .epsilon_cap_nanos = cap,
                            .mode = StudyMode::kInteractive,
                            .program = ProgramSpec{.name = learner}};
      Summary summary;
      for (int seed = 1; seed <= seeds; ++seed) {
        const MaskedParityConcept truth = DrawConcept(d, seed);
        const uint64_t population_seed = seed * 0x9E3779B97F4A7C15ULL + d;
        RecordSource records = [&truth, population_seed](uint64_t agent) {
          std::mt19937_64 gen(population_seed ^
                              (agent * 0xD1B54A32D192ED03ULL));
          return SampleMaskedParityRecord(truth, gen);
        };
        std::mt19937_64 coins(seed * 104729 + d);
        const TimedSimulation timed =
            SimulateTimed(study, agents, records, coins);
        const auto& run = timed.run;
        const double seconds = timed.seconds;
        if (!run.ok()) {
          std::fprintf(stderr, "%s d=%d seed=%d: %s\n", learner.c_str(), d,
                       seed, run.status().ToString().c_str());
          return 1;
        }
        auto learned = MaskedParityFromResult(run->result, d);
        if (!learned.ok()) {
          std::fprintf(stderr, "%s\n", learned.status().ToString().c_str());
          return 1;
        }
        const double error = MaskedParityError(truth, *learned);
        summary.exact += error == 0;
        summary.error_sum += error;
        summary.max_spent = std::max(summary.max_spent, run->max_spent_nanos);
        summary.refused += run->refused_over_cap;
        summary.seconds += seconds;
        csv.Write("%s,%d,%d,%d,%.6f,%lld,%.2f\n", learner.c_str(), d, seed,
                  error == 0, error,
                  static_cast<long long>(run->max_spent_nanos), seconds);
      }
      std::printf("| %s | %d | %d/%d | %.4f | %.9g | %lld | %.1f |\n",
                  learner.c_str(), d, summary.exact, seeds,
                  summary.error_sum / seeds, summary.max_spent / 1e9,
                  static_cast<long long>(summary.refused),
                  summary.seconds / seeds);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  return ldp::ExperimentMain(
      argc, argv,
      "Runs the MASKED-PARITY learners on "
      "simulated populations and prints success rate and mean error per "
      "d.\nUsage: masked_parity_experiment [--agents=N] [--epsilon=E] "
      "[--dims=8,12] [--seeds=S] [--learners=...] [--runs_csv=FILE]",
      ldp::Run);
}
