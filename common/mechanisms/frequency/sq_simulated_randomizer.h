// Simulating a transparent ε-local randomizer with statistical queries: the
// "local ⇒ SQ" half of the equivalence of Kasiviswanathan, Lee, Nissim,
// Raskhodnikova, Smith, "What Can We Learn Privately?" (SIAM J. Comput.
// 2011), §5.1.2 "Simulation of Local Algorithms by SQ Algorithms". DESIGN.md
// relies on the other half (§5.1.1, every SQ algorithm runs locally); this
// half says nothing more is possible: whatever a protocol learns from one
// report R(x) of a random agent, an SQ algorithm learns from about e^ε
// queries, so SQ lower bounds (parity) bind every local protocol.
//
// Construction (rejection sampling; the analysis and constants below are
// derived here, not copied from the paper). Fix a reference input x*, let
// π(w) = Pr[R(x*) = w], and repeat:
//   1. propose w ← R(x*);
//   2. ask the SQ oracle for a_w = E_{x~D}[g_w(x)] with
//        g_w(x) = Pr[R(x) = w] / (e^ε π(w)) ∈ [e^{−2ε}, 1]   (by ε-LDP);
//   3. accept w with probability equal to the answer clamped to [0, 1].
// No record is ever read: D enters only through the oracle's answers.
//
// Exact oracle: one try outputs w with probability
//   π(w)·a_w = π(w)·E_D Pr[R(x)=w] / (e^ε π(w)) = e^{−ε}·Pr[R(D) = w],
// so a try accepts with probability exactly e^{−ε}, the tries are
// independent, and the accepted w is distributed exactly as R(D); the number
// of queries per sample is geometric with mean e^ε. (π(w) > 0 for every w
// any input can produce, again by ε-LDP, so nothing is missed.) Reports with
// public components (hash seeds, sketch rows) work unchanged: Probability
// conditions on them and they cancel in g_w.
//
// Oracle with tolerance τ: every answer, hence every acceptance probability
// b_w (clamping moves toward a_w ∈ [0, 1]), is within τ of a_w. Both bounds
// below hold per try, even for an adaptive adversary, and the output is a
// mixture over tries, so by convexity they bound TV(output, R(D)):
//  - absolute: ‖π·b − π·a‖₁ ≤ τ while Σ π·a = e^{−ε}; for measures μ, ν with
//    masses m, n, ‖ν/n − μ/m‖₁ ≤ |n − m|/m + ‖ν − μ‖₁/m ≤ 2‖ν − μ‖₁/m, so
//    TV ≤ τ e^ε;
//  - relative: a_w ≥ e^{−2ε} makes b_w/a_w ∈ [1 − η, 1 + η], η = τ e^{2ε}.
//    Reweighting a distribution p by such ratios r gives
//    TV = E_p|r − E_p r| / (2 E_p r), largest for r two-valued at 1 ± η with
//    mass s/(s + t) on 1 + η (s = √(1 − η), t = √(1 + η)), where it equals
//    (t − s)/(t + s) = η / (1 + √(1 − η²)) ≈ η/2.
// SimulationDistanceBound returns the smaller, min{τe^ε, η/(1+√(1−η²))}
// (capped at 1); the relative form wins for ε ≲ ln 2. Neither is tight when
// both constraints bind at once: maximizing TV numerically over both gives
// 1.2-1.8x less for ε in [0.25, 2], a gap left for simplicity.
//
// The acceptance coin is a 2^-32 coin (coin.h), rounded down, so the
// realized acceptance probability is within τ + 2^-32 of a_w: evaluate the
// bound at that tolerance (an exact oracle is off by ≤ 2^-32·e^ε in TV).
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_SQ_SIMULATED_RANDOMIZER_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_SQ_SIMULATED_RANDOMIZER_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/frequency/frequency_report.h"

namespace ldp {

// Kearns' statistical-query oracle over a population distribution D on the
// items [N]: the only access to data the simulation has. A query is g given
// by its values, `query[x]` = g(x) ∈ [0, 1] for each item x. Answer is not
// const so that adversaries may adapt to the queries they have seen.
class StatisticalQueryOracle {
 public:
  virtual ~StatisticalQueryOracle() = default;

  virtual uint32_t domain_size() const = 0;
  // The promise: every answer is within tolerance() of E_{x~D}[g(x)]. It may
  // lie outside [0, 1].
  virtual double tolerance() const = 0;
  // InvalidArgument unless `query` has domain_size() values, each in [0, 1].
  virtual absl::StatusOr<double> Answer(const std::vector<double>& query,
                                        absl::BitGenRef gen) = 0;
};

// Answers E_D[g] exactly (up to floating point).
class ExactStatisticalQueryOracle final : public StatisticalQueryOracle {
 public:
  // `distribution[x]` = Pr_D[x]: at least one item, finite, non-negative,
  // summing to 1 within 1e-9 (it is then renormalized exactly).
  static absl::StatusOr<std::unique_ptr<ExactStatisticalQueryOracle>> Create(
      std::vector<double> distribution);

  uint32_t domain_size() const override;
  double tolerance() const override { return 0; }
  absl::StatusOr<double> Answer(const std::vector<double>& query,
                                absl::BitGenRef gen) override;

  const std::vector<double>& distribution() const { return distribution_; }

 private:
  explicit ExactStatisticalQueryOracle(std::vector<double> distribution)
      : distribution_(std::move(distribution)) {}

  std::vector<double> distribution_;
};

struct TolerantOracleOptions {
  std::vector<double> distribution{};  // D, as for ExactStatisticalQueryOracle
  double tolerance = 0;                // τ in [0, 1)
  // Empty: each answer gets an independent error uniform on [−τ, τ].
  // Otherwise an adversary: each answer is moved the full τ toward
  // E_decoy[g] (not at all when they agree), deterministically, dragging the
  // simulation toward R(decoy) as far as the tolerance allows. Same shape
  // rules as `distribution`.
  std::vector<double> decoy{};
};

// E_D[g] plus an error of magnitude ≤ τ, never clamped to [0, 1] (Kearns'
// oracle need not), so consumers must clamp.
class TolerantStatisticalQueryOracle final : public StatisticalQueryOracle {
 public:
  static absl::StatusOr<std::unique_ptr<TolerantStatisticalQueryOracle>> Create(
      TolerantOracleOptions options);

  uint32_t domain_size() const override;
  double tolerance() const override { return tolerance_; }
  absl::StatusOr<double> Answer(const std::vector<double>& query,
                                absl::BitGenRef gen) override;

 private:
  TolerantStatisticalQueryOracle(std::vector<double> distribution,
                                 double tolerance, std::vector<double> decoy);

  std::vector<double> distribution_;
  double tolerance_;
  std::vector<double> decoy_;
};

struct SqSimulationOptions {
  // x*, the input whose outputs are proposed; any item works.
  uint32_t reference_item = 0;
  // ResourceExhausted after this many queries for one sample (an exact
  // oracle needs e^ε on average, geometrically distributed).
  int64_t max_queries = int64_t{1} << 20;
};

struct SqSimulatedReport {
  FrequencyReport report{};
  int64_t queries = 0;  // statistical queries asked = proposals drawn
};

// One report distributed as R(D) (within SimulationDistanceBound of it for a
// tolerant oracle), where R = `randomizer` and D is the population behind
// `oracle`. InvalidArgument if the domains differ, reference_item is out of
// range, max_queries < 1, or the oracle fails or answers NaN;
// ResourceExhausted when no proposal is accepted within max_queries.
absl::StatusOr<SqSimulatedReport> SampleViaStatisticalQueries(
    const FrequencyOracle& randomizer, StatisticalQueryOracle& oracle,
    absl::BitGenRef gen, const SqSimulationOptions& options = {});

// g_w for proposal w: g_w(x) = Pr[R(x)=w] / (e^ε Pr[R(x*)=w]), with ε =
// randomizer.epsilon(), clamped to [0, 1] against floating-point excess.
// InvalidArgument for an out-of-range reference item or a report R cannot
// output from x*.
absl::StatusOr<std::vector<double>> AcceptanceQuery(
    const FrequencyOracle& randomizer, uint32_t reference_item,
    const FrequencyReport& proposal);

// The probability with which the sampler accepts after `answer`: the answer
// clamped to [0, 1], rounded down to the 2^-32 coin grid (NaN gives 0).
double AcceptanceProbability(double answer);

// min{τ e^ε, η / (1 + √(1 − η²))} with η = τ e^{2ε} (the relative term is 1
// once η ≥ 1), capped at 1: a bound on TV(simulated output, R(D)) for any
// oracle of tolerance τ. InvalidArgument unless ε is finite and > 0 and
// τ ∈ [0, 1).
absl::StatusOr<double> SimulationDistanceBound(double epsilon,
                                               double tolerance);

// The largest τ whose SimulationDistanceBound is ≤ `distance` ∈ (0, 1): the
// tolerance to ask the SQ oracle for, inverting each term in closed form,
// max{β e^{−ε}, 2β e^{−2ε} / (1 + β²)} for β = distance.
absl::StatusOr<double> ToleranceForDistance(double epsilon, double distance);

// Expected queries per sample: exactly e^ε for an exact oracle; for
// tolerance τ a try accepts with probability ≥ e^{−ε} − τ, so at most
// e^ε / (1 − τ e^ε), and +∞ once τ ≥ e^{−ε}. Same argument checks as
// SimulationDistanceBound.
absl::StatusOr<double> ExpectedQueriesPerSample(double epsilon,
                                                double tolerance = 0);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_SQ_SIMULATED_RANDOMIZER_H_
