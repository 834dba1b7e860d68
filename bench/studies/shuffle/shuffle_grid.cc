// The (n, ε, oracle) grid of ldp-bench-shuffle; see the header.
#include "bench/studies/shuffle/shuffle_grid.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/estimation/population.h"

namespace ldp::shuffle_study {
namespace {

// One cell while its trials run: the two oracles and their running sums.
struct Arm {
  Oracle oracle = Oracle::kGrr;
  PrivacyPlan plan;
  std::unique_ptr<FrequencyOracle> local;
  std::unique_ptr<FrequencyOracle> shuffled;
  ModelStats local_stats;
  ModelStats shuffled_stats;
};

absl::StatusOr<std::vector<Arm>> MakeArms(const GridOptions& options,
                                          int64_t n) {
  std::vector<Arm> arms;
  for (double epsilon : options.epsilons) {
    ASSIGN_OR_RETURN(PrivacyPlan plan, PlanPrivacy(epsilon, n, options.delta));
    for (Oracle oracle : options.oracles) {
      Arm arm{.oracle = oracle, .plan = plan};
      ASSIGN_OR_RETURN(arm.local, CreateFrequencyOracle(SpecFor(
                                      oracle, epsilon, options.domain_size)));
      ASSIGN_OR_RETURN(arm.shuffled,
                       CreateFrequencyOracle(SpecFor(oracle, plan.epsilon0,
                                                     options.domain_size)));
      arms.push_back(std::move(arm));
    }
  }
  return arms;
}

// One population of n, then every arm's local and shuffled reports of it.
absl::Status RunTrial(const GridOptions& options,
                      absl::Span<const double> distribution, int64_t n,
                      TrialRunner& runner, std::vector<Arm>& arms) {
  const std::vector<uint32_t> items = runner.SamplePopulation(distribution, n);
  const std::vector<double> truth =
      EmpiricalFrequencies(items, options.domain_size);
  for (Arm& arm : arms) {
    ASSIGN_OR_RETURN(HistogramEstimate local,
                     runner.Estimate(*arm.local, items));
    RecordTrial(*arm.local, local, truth, arm.local_stats);
    ASSIGN_OR_RETURN(HistogramEstimate shuffled,
                     runner.Estimate(*arm.shuffled, items));
    RecordTrial(*arm.shuffled, shuffled, truth, arm.shuffled_stats);
  }
  return absl::OkStatus();
}

}  // namespace

int TrialsAt(const GridOptions& options, size_t index) {
  return options.trials.size() == 1 ? options.trials[0] : options.trials[index];
}

absl::Status ValidateGrid(const GridOptions& options) {
  if (options.ns.empty() || options.epsilons.empty() ||
      options.oracles.empty() || options.trials.empty()) {
    return absl::InvalidArgumentError(
        "--n, --epsilon, --oracles and --trials need at least one entry");
  }
  if (options.trials.size() != 1 &&
      options.trials.size() != options.ns.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--trials has ", options.trials.size(), " entries for ",
        options.ns.size(), " values of --n: give one, or one per n"));
  }
  for (int64_t n : options.ns) {
    if (n < 2) return absl::InvalidArgumentError("every n must be >= 2");
  }
  for (int trials : options.trials) {
    if (trials < 1) return absl::InvalidArgumentError("trials must be >= 1");
  }
  if (options.threads < 1 || options.threads > 64) {
    return absl::InvalidArgumentError("--threads must be in [1, 64]");
  }
  return absl::OkStatus();
}

absl::Status RunGrid(const GridOptions& options,
                     absl::FunctionRef<void(const CellResult&)> on_cell,
                     absl::FunctionRef<void(int64_t, int, int)> on_progress) {
  RETURN_IF_ERROR(ValidateGrid(options));
  ASSIGN_OR_RETURN(
      std::vector<double> distribution,
      ZipfDistribution(options.domain_size, options.zipf_exponent));
  ASSIGN_OR_RETURN(TrialRunner runner,
                   TrialRunner::Create(options.seed, options.threads));
  for (size_t i = 0; i < options.ns.size(); ++i) {
    const int64_t n = options.ns[i];
    const int trials = TrialsAt(options, i);
    ASSIGN_OR_RETURN(std::vector<Arm> arms, MakeArms(options, n));
    for (int trial = 0; trial < trials; ++trial) {
      RETURN_IF_ERROR(RunTrial(options, distribution, n, runner, arms));
      on_progress(n, trial + 1, trials);
    }
    for (const Arm& arm : arms) {
      on_cell(CellResult{.oracle = arm.oracle,
                         .n = n,
                         .plan = arm.plan,
                         .local = arm.local_stats,
                         .shuffled = arm.shuffled_stats});
    }
  }
  return absl::OkStatus();
}

}  // namespace ldp::shuffle_study
