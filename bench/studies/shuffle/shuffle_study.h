// The local model against the shuffle model at equal central privacy: the
// pieces of ldp-bench-shuffle that are not flags or printing.
//
// Why: shuffling n ε0-LDP reports gives the analyst only (ε, δ)-DP with ε
// much below ε0 (common/amplification/), so at a central target ε each
// report may run at the planner's ε0 instead of ε itself and carry far less
// noise. This measures how much less, through the project's real
// randomizers and estimators: per oracle, n and target ε, the histogram MSE
// of reports at ε (local) and at ε0 (shuffled), each beside the closed-form
// variance the estimator states.
#ifndef LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_STUDY_H_
#define LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_STUDY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/crypto/secure_random.h"
#include "common/estimation/histogram_estimate.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency_oracle_factory.h"

namespace ldp::shuffle_study {

// GRR; OLH with g = round(e^ε) + 1 (the library's default, written into
// the spec); Hadamard response with the chooser's rows per item t
// (HadamardResponse::BestRowsPerItem); and its one-block form (t = 1).
enum class Oracle { kGrr, kOlh, kHadamard, kHadamardOneBlock };

const char* OracleName(Oracle oracle);
// "grr", "olh", "hr" or "hr1"; InvalidArgument otherwise.
absl::StatusOr<Oracle> ParseOracle(std::string_view name);

// The spec of `oracle` at ε over [domain_size].
FrequencyOracleSpec SpecFor(Oracle oracle, double epsilon,
                            uint32_t domain_size);
// The oracle's free parameter as built: "g = 3", "t = 6", or "-" for GRR.
std::string ParamsOf(const FrequencyOracle& oracle);

// The local ε0 each report may use for a shuffled batch of n to meet
// (target ε, δ): the planner's (numerical bound, the closed form as a
// ceiling), and for comparison the largest ε0 the closed form alone allows.
struct PrivacyPlan {
  double target_epsilon = 0;
  double epsilon0 = 0;              // LargestEpsilon0ForTarget
  double shuffled_epsilon = 0;      // its central ε, ≤ the target
  double epsilon0_closed_form = 0;  // the closed form's own inverse
};
absl::StatusOr<PrivacyPlan> PlanPrivacy(double target_epsilon, int64_t n,
                                        double delta);

// One model's figures in one cell, summed over trials.
struct ModelStats {
  std::string params;
  double implemented_epsilon = 0;
  double mse_sum = 0;          // Σ_trials mean_v (f̂_v − f_v)²
  double mse_squares_sum = 0;  // Σ_trials (mean_v (f̂_v − f_v)²)²
  double predicted_sum = 0;    // Σ_trials mean_v Var[f̂_v] at the true f_v
  // Σ_trials 2·Σ_v Var[f̂_v]²/d²: one trial's MSE variance if the bins'
  // errors were independent Gaussians with the closed-form variances.
  double predicted_spread_sum = 0;
  int trials = 0;
  double Mse() const { return mse_sum / trials; }
  double Predicted() const { return predicted_sum / trials; }
  // The standard error of Mse() from the trials' spread; 0 for one trial.
  double MseStandardError() const;
  // The standard error of Mse() the closed forms predict (as above).
  double PredictedStandardError() const;
};

// Adds one trial: the estimate's MSE against `truth` (the empirical
// frequencies) and the oracle's closed-form variance averaged over bins.
void RecordTrial(const FrequencyOracle& oracle,
                 const HistogramEstimate& estimate,
                 absl::Span<const double> truth, ModelStats& stats);

// Runs work on `threads` threads, each with its own generator seeded from
// (seed, thread): the same seed and thread count give the same figures.
class TrialRunner {
 public:
  static absl::StatusOr<TrialRunner> Create(uint64_t seed, int threads);

  // n items drawn from `probabilities`, each thread drawing one share.
  std::vector<uint32_t> SamplePopulation(absl::Span<const double> probabilities,
                                         int64_t n);
  // Randomizes every item with `oracle`, each thread a share into its own
  // accumulator, merges them and estimates.
  absl::StatusOr<HistogramEstimate> Estimate(const FrequencyOracle& oracle,
                                             absl::Span<const uint32_t> items);

 private:
  explicit TrialRunner(std::vector<std::unique_ptr<SecureRandom>> generators)
      : generators_(std::move(generators)) {}
  // Calls work(thread, begin, end) for the threads' shares of [0, n).
  void ForShares(int64_t n,
                 absl::FunctionRef<void(int, int64_t, int64_t)> work);

  std::vector<std::unique_ptr<SecureRandom>> generators_;
};

}  // namespace ldp::shuffle_study

#endif  // LDP_BENCH_STUDIES_SHUFFLE_SHUFFLE_STUDY_H_
