// Oracles, privacy plans and seeded two-thread trials for ldp-bench-shuffle;
// see the header.
#include "bench/studies/shuffle/shuffle_study.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <utility>

#include "absl/random/bit_gen_ref.h"
#include "absl/strings/str_cat.h"
#include "common/amplification/closed_form.h"
#include "common/amplification/epsilon0_planner.h"
#include "common/amplification/shuffle_inputs.h"
#include "common/base/status_macros.h"
#include "common/estimation/population.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/local_hashing.h"

namespace ldp::shuffle_study {
namespace {

// Bisection steps of the closed form's inverse: [target, 50] to ~1e-13.
constexpr int kClosedFormSteps = 60;

// The largest ε0 whose closed-form central ε at (n, δ) is ≤ the target. The
// closed form is increasing in ε0 where it applies and says nothing (ε0)
// beyond ln(n/(16·ln(4/δ))), so the answer lies below that edge.
absl::StatusOr<double> ClosedFormEpsilon0(double target, int64_t n,
                                          double delta) {
  const double edge =
      std::log(static_cast<double>(n) / (16 * std::log(4 / delta)));
  double lo = target;
  double hi = std::min(kMaxShuffleEpsilon0, edge);
  if (hi <= lo) return target;
  for (int step = 0; step < kClosedFormSteps; ++step) {
    const double mid = (lo + hi) / 2;
    ASSIGN_OR_RETURN(double epsilon, ClosedFormShuffledEpsilon(mid, n, delta));
    (epsilon <= target ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

const char* OracleName(Oracle oracle) {
  switch (oracle) {
    case Oracle::kGrr:
      return "GRR";
    case Oracle::kOlh:
      return "OLH";
    case Oracle::kHadamard:
      return "HR";
    case Oracle::kHadamardOneBlock:
      return "HR t=1";
  }
  return "?";
}

absl::StatusOr<Oracle> ParseOracle(std::string_view name) {
  if (name == "grr") return Oracle::kGrr;
  if (name == "olh") return Oracle::kOlh;
  if (name == "hr") return Oracle::kHadamard;
  if (name == "hr1") return Oracle::kHadamardOneBlock;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown oracle \"", std::string(name), "\" (grr, olh, hr, hr1)"));
}

FrequencyOracleSpec SpecFor(Oracle oracle, double epsilon,
                            uint32_t domain_size) {
  using K = FrequencyOracleKind;
  FrequencyOracleSpec spec{.epsilon = epsilon, .domain_size = domain_size};
  switch (oracle) {
    case Oracle::kGrr:
      spec.kind = K::kGeneralizedRandomizedResponse;
      break;
    case Oracle::kOlh:
      spec.kind = K::kOptimizedLocalHashing;
      spec.num_buckets =
          static_cast<uint32_t>(std::lround(std::exp(epsilon))) + 1;
      break;
    case Oracle::kHadamard:
      spec.kind = K::kHadamardResponse;
      spec.rows_per_item =
          HadamardResponse::BestRowsPerItem(epsilon, domain_size);
      break;
    case Oracle::kHadamardOneBlock:
      spec.kind = K::kHadamardResponse;
      spec.rows_per_item = 1;
      break;
  }
  return spec;
}

std::string ParamsOf(const FrequencyOracle& oracle) {
  switch (oracle.kind()) {
    case FrequencyOracleKind::kOptimizedLocalHashing:
      return absl::StrCat(
          "g=",
          static_cast<const OptimizedLocalHashing&>(oracle).num_buckets());
    case FrequencyOracleKind::kHadamardResponse:
      return absl::StrCat(
          "t=", static_cast<const HadamardResponse&>(oracle).rows_per_item());
    default:
      return "-";
  }
}

absl::StatusOr<PrivacyPlan> PlanPrivacy(double target_epsilon, int64_t n,
                                        double delta) {
  ASSIGN_OR_RETURN(Epsilon0Plan plan,
                   LargestEpsilon0ForTarget(target_epsilon, n, delta));
  ASSIGN_OR_RETURN(double closed_form,
                   ClosedFormEpsilon0(target_epsilon, n, delta));
  return PrivacyPlan{.target_epsilon = target_epsilon,
                     .epsilon0 = plan.epsilon0,
                     .shuffled_epsilon = plan.shuffled_epsilon,
                     .epsilon0_closed_form = closed_form};
}

double ModelStats::MseStandardError() const {
  if (trials < 2) return 0;
  const double mean = Mse();
  const double variance =
      std::max(0.0, (mse_squares_sum - trials * mean * mean) / (trials - 1));
  return std::sqrt(variance / trials);
}

double ModelStats::PredictedStandardError() const {
  return std::sqrt(predicted_spread_sum) / trials;
}

void RecordTrial(const FrequencyOracle& oracle,
                 const HistogramEstimate& estimate,
                 absl::Span<const double> truth, ModelStats& stats) {
  double predicted = 0;
  double spread = 0;
  for (double f : truth) {
    const double variance = oracle.Variance(f, estimate.num_reports);
    predicted += variance;
    spread += 2 * variance * variance;
  }
  const double bins = static_cast<double>(truth.size());
  stats.params = ParamsOf(oracle);
  stats.implemented_epsilon = oracle.epsilon();
  const double mse = MeanSquaredError(estimate.frequencies, truth);
  stats.mse_sum += mse;
  stats.mse_squares_sum += mse * mse;
  stats.predicted_sum += predicted / bins;
  stats.predicted_spread_sum += spread / (bins * bins);
  ++stats.trials;
}

absl::StatusOr<TrialRunner> TrialRunner::Create(uint64_t seed, int threads) {
  if (threads < 1) return absl::InvalidArgumentError("threads must be >= 1");
  std::vector<std::unique_ptr<SecureRandom>> generators;
  for (int t = 0; t < threads; ++t) {
    // Distinct seeds for every (seed, thread) with threads ≤ 2^16.
    ASSIGN_OR_RETURN(auto generator, SecureRandom::CreateForSimulation(
                                         (seed << 16) + uint64_t(t)));
    generators.push_back(std::move(generator));
  }
  return TrialRunner(std::move(generators));
}

void TrialRunner::ForShares(
    int64_t n, absl::FunctionRef<void(int, int64_t, int64_t)> work) {
  const int threads = static_cast<int>(generators_.size());
  const auto share = [&](int t) {
    work(t, n * t / threads, n * (t + 1) / threads);
  };
  std::vector<std::thread> others;
  for (int t = 1; t < threads; ++t) others.emplace_back(share, t);
  share(0);
  for (std::thread& thread : others) thread.join();
}

std::vector<uint32_t> TrialRunner::SamplePopulation(
    absl::Span<const double> probabilities, int64_t n) {
  std::vector<uint32_t> items(static_cast<size_t>(n));
  ForShares(n, [&](int t, int64_t begin, int64_t end) {
    const std::vector<uint32_t> part =
        SampleItems(probabilities, end - begin, *generators_[t]);
    std::copy(part.begin(), part.end(), items.begin() + begin);
  });
  return items;
}

absl::StatusOr<HistogramEstimate> TrialRunner::Estimate(
    const FrequencyOracle& oracle, absl::Span<const uint32_t> items) {
  std::vector<std::unique_ptr<FrequencyAccumulator>> parts(generators_.size());
  std::vector<absl::Status> statuses(generators_.size());
  ForShares(static_cast<int64_t>(items.size()), [&](int t, int64_t begin,
                                                    int64_t end) {
    SecureRandom& generator = *generators_[t];
    parts[t] = oracle.NewAccumulator();
    for (int64_t i = begin; i < end && statuses[t].ok(); ++i) {
      statuses[t] = parts[t]->Add(oracle.Randomize(items[i], generator));
    }
  });
  for (size_t t = 0; t < parts.size(); ++t) {
    RETURN_IF_ERROR(statuses[t]);
    if (t > 0) RETURN_IF_ERROR(parts[0]->Merge(*parts[t]));
  }
  return parts[0]->Estimate();
}

}  // namespace ldp::shuffle_study
