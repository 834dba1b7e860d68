// Apple's count-mean sketch (CMS) and Hadamard count-mean sketch (HCMS)
// (Apple Differential Privacy Team, "Learning with Privacy at Scale", 2017).
//
// Why: for domains too large to enumerate per report (up to 2^32 − 1 items)
// the server keeps only a k × m sketch, and estimates any candidate item from
// k cells. CMS sends m bits at SUE-like variance; HCMS sends one bit at
// Hadamard-response-like variance.
//
// Client: a uniform public row j ∈ [k]; the item's column is h_j(v) ∈ [m]
// (pairwise_hash.h, hash number j of the family `hash_seed`).
//   CMS:  the one-hot vector e_{h_j(v)} ∈ {0,1}^m with every bit flipped
//         independently w.p. φ ≈ 1/(1 + e^{ε/2}) (two inputs differ in two
//         bits, so the ratio is ((1−φ)/φ)² ≤ e^ε). SketchReport{j, 0, bits}.
//   HCMS: a uniform public column l ∈ [m] (m a power of two); the sign
//         H_m[h_j(v)][l], flipped w.p. φ ≈ 1/(1 + e^ε). SketchReport{j, l,
//         {bit}} with bit 1 meaning −1.
//
// Server: M̃[j][c] is the debiased sketch, an unbiased estimate of the number
// of row-j reports whose item hashes to c (CMS: (S[j][c] − n_j φ)/(1 − 2φ)
// from column bit sums S; HCMS: (H_m·T[j])[c]/(1 − 2φ) from signed sums T).
// The estimate for item d is
//   f̂(d) = m/(m − 1) · (Σ_j M̃[j][h_j(d)] / n − 1/m),
// which is unbiased over the mechanism's coins AND the hash family, treating
// the k row hashes as independent random functions (the −1/m removes the
// expected mass of items colliding with d). For one FIXED family the estimate
// is biased by the actual collisions: m/(m−1)·((1/k)Σ_j Σ_{d'≠d: h_j(d') =
// h_j(d)} f_{d'} − (1 − f_d)/m), whose root-mean-square over families is the
// hash term of PopulationVariance. Apple's published estimator divides by the
// per-row counts and has a different constant; this one is unbiased
// (cf. Pan 2024, arXiv 2406.03785).
//
// Variance over coins and hashes, with A = φ(1−φ)/(1−2φ)² (CMS),
// c = 1/(1 − 2φ) (HCMS), S = Σ_{d'≠d} f_{d'}² (the other items' frequencies):
//   CMS:  (m/(m−1))² · ([A + (1−f)(m−1)(1 − 1/k)/m²]/n + (m−1)S/(k m²))
//   HCMS: (m/(m−1))² · ([c² − f − (1−f)(k+m−1)/(k m²)]/n + (m−1)S/(k m²))
// S ≥ (1 − f)/n, with equality when every other report has a distinct item;
// the accumulator plugs in S = max(F̂2 − f̂², (1 − f̂)/n) with F̂2 estimated
// from the sketch itself. `Variance` uses the distinct-items value, which gives
// (m/(m−1))²[A + (1−f)(m−1)/m²]/n (CMS; the reference's SUE-plus-collision
// form) and (m/(m−1))²[c² − f − (1−f)/m²]/n (HCMS). Concentrated populations
// add the S term, which does not shrink with n: that is why k defaults to 64
// (it divides the collision error; with m = 1024 its RMS is ≤ √S/256), while
// the k·m sketch (512 KiB of counters at the defaults) stays small.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_COUNT_MEAN_SKETCH_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_COUNT_MEAN_SKETCH_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/base/coin.h"
#include "common/mechanisms/frequency/bit_sliced_counter.h"
#include "common/mechanisms/frequency/frequency_oracle.h"

namespace ldp {

enum class SketchVariant {
  kCountMean,  // CMS: m randomized bits per report
  kHadamard,   // HCMS: one randomized Hadamard sign per report
};

struct CountMeanSketchOptions {
  static constexpr uint64_t kDefaultHashSeed =
      0x6C64702D736B6574;  // "ldp-sket"

  double epsilon = 0;
  // N: items are 0 … N − 1; any N ≥ 2.
  uint32_t domain_size = 0;
  // k rows; 0 selects kDefaultNumHashes.
  uint32_t num_hashes = 0;
  // m columns; 0 selects kDefaultNumColumns. HCMS needs a power of two.
  uint32_t num_columns = 0;
  SketchVariant variant = SketchVariant::kCountMean;
  // Names the public hash family; client and server must agree on it.
  uint64_t hash_seed = kDefaultHashSeed;
};

class CountMeanSketchAccumulator;

class CountMeanSketch final : public FrequencyOracle {
 public:
  static constexpr uint32_t kDefaultNumHashes = 64;
  static constexpr uint32_t kDefaultNumColumns = 1024;
  static constexpr uint32_t kMaxNumHashes = uint32_t{1} << 16;
  static constexpr uint32_t kMaxNumColumns = uint32_t{1} << 16;
  static constexpr uint64_t kMaxSketchCells = uint64_t{1} << 24;  // k·m
  // Estimate() enumerates the domain only up to this size.
  static constexpr uint32_t kMaxEnumeratedDomain = uint32_t{1} << 20;

  static absl::StatusOr<std::unique_ptr<CountMeanSketch>> Create(
      const CountMeanSketchOptions& options);

  FrequencyOracleKind kind() const override;
  uint32_t domain_size() const override { return params_.domain_size; }
  double epsilon() const override { return params_.epsilon; }
  uint32_t num_hashes() const { return params_.num_hashes; }
  uint32_t num_columns() const { return params_.num_columns; }
  SketchVariant variant() const { return params_.variant; }
  uint64_t hash_seed() const { return params_.hash_seed; }
  // φ: the implemented (rounded) probability of flipping a bit.
  double flip_probability() const { return params_.flip.value(); }
  // h_row(item) ∈ [m].
  uint32_t Column(uint32_t row, uint32_t item) const;

  FrequencyReport Randomize(uint32_t item, absl::BitGenRef gen) const override;
  // Pr[bits | row] (CMS) or Pr[bit | row, column] (HCMS): the row and column
  // are public and drawn independently of the item. For CMS with large m the
  // product of m bit probabilities underflows double (m ≳ 700 gives 0).
  double Probability(uint32_t item,
                     const FrequencyReport& report) const override;
  absl::Status Validate(const FrequencyReport& report) const override;
  std::unique_ptr<FrequencyAccumulator> NewAccumulator() const override;
  // The same accumulator, typed, for EstimateItems.
  std::unique_ptr<CountMeanSketchAccumulator> NewSketchAccumulator() const;

  // Var[f̂] over coins and hashes when every other report's item is
  // distinct (see the file comment).
  double Variance(double frequency, int64_t num_reports) const override;
  // Var[f̂] over coins and hashes for a population whose other items have
  // Σ_{d'≠d} f_{d'}² = others_sum_of_squares.
  double PopulationVariance(double frequency, int64_t num_reports,
                            double others_sum_of_squares) const;

  // Everything that defines the oracle; accumulators keep a copy.
  struct Params {
    uint32_t domain_size = 0;
    uint32_t num_hashes = 0;
    uint32_t num_columns = 0;
    SketchVariant variant = SketchVariant::kCountMean;
    uint64_t hash_seed = 0;
    CoinProbability flip = CoinProbability::Half();  // φ
    double epsilon = 0;
    friend bool operator==(const Params&, const Params&) = default;
  };

 private:
  explicit CountMeanSketch(const Params& params) : params_(params) {}

  FrequencyReport RandomizeBits(uint32_t row, uint32_t column,
                                absl::BitGenRef gen) const;

  Params params_;
};

// Server side: per-row column sums (bit-sliced for CMS, signed for HCMS).
// Thread-compatible; shard one per ingest thread and Merge.
class CountMeanSketchAccumulator final : public FrequencyAccumulator {
 public:
  absl::Status Add(const FrequencyReport& report) override;
  absl::Status Merge(const FrequencyAccumulator& other) override;
  int64_t num_reports() const override { return num_reports_; }

  // Every item of [0, N) when N ≤ kMaxEnumeratedDomain. For larger N it
  // returns num_reports and epsilon with EMPTY frequencies and variances:
  // ask EstimateItems for the candidates of interest instead.
  HistogramEstimate Estimate() const override;
  // Estimates for the given items, in order (duplicates allowed). An item
  // ≥ N gets an estimate like any other (its true frequency is 0).
  HistogramEstimate EstimateItems(absl::Span<const uint32_t> candidates) const;

  // counts: the reports per row n_j (num_hashes values, summing to
  // num_reports), then per row j and column c at num_hashes + j·m + c the
  // CMS column sum (in [0, n_j]) or the HCMS signed sum T[j·m + c] (in
  // [−n_j, n_j]). In count_mean_sketch_state.cc.
  AccumulatorState State() const override;
  absl::Status MergeState(const AccumulatorState& state) override;

 private:
  friend class CountMeanSketch;
  // Only CountMeanSketch makes one, from validated parameters.
  explicit CountMeanSketchAccumulator(const CountMeanSketch::Params& params);

  // M̃[j·m + c] (see the file comment).
  std::vector<double> DebiasedSketch() const;
  // F2 = Σ_d f_d², estimated from the sketch rows with the coin noise and the
  // row sampling removed, so the reported variances include the collision
  // term of concentrated populations instead of assuming every other report
  // has a distinct item (which understates the error on skewed data).
  double EstimateSecondMoment(const std::vector<double>& sketch) const;

  CountMeanSketch::Params params_;
  std::vector<BitSlicedCounter> bit_sums_;  // CMS: one per row
  std::vector<int64_t> sign_sums_;          // HCMS: T[j·m + l]
  std::vector<int64_t> row_reports_;        // n_j
  int64_t num_reports_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_COUNT_MEAN_SKETCH_H_
