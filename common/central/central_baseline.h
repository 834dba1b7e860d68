// Central-model (trusted curator) baselines: the error the same questions
// would have if one curator saw every raw record and added Laplace noise
// once, so a planner can print "local vs central" side by side and show
// what trusting nobody costs.
//
// Neighbouring datasets are replace-one: the same n agents, one agent's
// record changed. That is the notion the local model's ε already implies
// (an ε-local randomizer bounds the output ratio for any two inputs of one
// agent, so the whole protocol is ε-DP under replace-one), so the two
// columns compare the same ε. n is public under replace-one, which is why
// dividing a noisy count by n costs no privacy.
//
// Every answer is a FRACTION of the n agents, as the local estimators
// report them. The closed forms use continuous Laplace, Var = 2b² with
// b = sensitivity/ε. The sampler below adds discrete Laplace to an integer
// count instead (no floating-point Laplace attack, Mironov 2012), whose
// variance is slightly smaller; it reports its own exact variance.
//
// The histogram baseline answers a whole linear workload from one noisy
// histogram at the full ε; it is the simplest central strategy, not the
// optimal one (a central matrix mechanism can do better on some workloads).
#ifndef LDP_COMMON_CENTRAL_CENTRAL_BASELINE_H_
#define LDP_COMMON_CENTRAL_CENTRAL_BASELINE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "common/workload/strategies/workload.h"

namespace ldp {

// Every function below returns InvalidArgument (naming the field) for n < 1,
// an ε that is not finite and > 0, or bounds that are not finite with
// lower < upper.

// One count as a fraction: replace-one moves a count by at most 1, so the
// fraction's sensitivity is 1/n and Var = 2/(nε)².
absl::StatusOr<double> CentralCountingVariance(int64_t n, double epsilon);

// The mean of values clamped to [lower, upper]: sensitivity (upper−lower)/n,
// Var = 2((upper−lower)/(nε))².
absl::StatusOr<double> CentralMeanVariance(int64_t n, double epsilon,
                                           double lower, double upper);

// Each bin of the histogram of fractions: replace-one moves one agent
// between two bins, L1 sensitivity 2/n, so every bin gets Laplace of scale
// 2/(nε) and Var = 8/(nε)².
absl::StatusOr<double> CentralHistogramVariance(int64_t n, double epsilon);

// One linear query Σ_x w_x h_x answered from that noisy histogram: the bins'
// noises are independent, so Var = Σ_x w_x² · 8/(nε)². InvalidArgument also
// for a non-finite weight.
absl::StatusOr<double> CentralWorkloadVariance(absl::Span<const double> row,
                                               int64_t n, double epsilon);

// The worst query of a workload answered that way: max_j ‖w_j‖² · 8/(nε)²
// (the local planner's headline number is also the worst query).
absl::StatusOr<double> CentralWorkloadWorstVariance(const Workload& workload,
                                                    int64_t n, double epsilon);

// The ε each of m separately answered questions gets when a curator must keep
// the per-agent total at ε: basic composition, ε/m. (A workload answered from
// one histogram needs no split.) Advanced composition would do better for
// large m at the price of a δ; the baseline stays pure ε like the local side.
absl::StatusOr<double> CentralPerQuestionEpsilon(double epsilon,
                                                 int64_t num_questions);

// Central discrete Laplace on integer counts, for simulating the baseline:
// a noisy count is count + Z with Pr[Z = z] ∝ exp(−|z|/s), sampled exactly
// from integer coins (DiscreteLaplaceMechanism's Canonne–Kamath–Steinke
// sampler at lattice step 1). With L1 sensitivity Δ (1 for one count, 2 for
// a histogram under replace-one), s = Δ/ε rounded up, so the implemented
// ε = Δ/s never exceeds the requested one.
//
// Var[Z] = 2a/(1−a)² with a = e^(−1/s) (not the continuous 2s²: it equals
// 2s² − 1/6 + O(1/s²), since a/(1−a)² = 1/(4 sinh²(1/(2s)))).
class CentralDiscreteLaplace {
 public:
  // Largest L1 sensitivity accepted; far beyond any count vector here.
  static constexpr int64_t kMaxSensitivity = int64_t{1} << 20;

  // InvalidArgument unless 1 ≤ l1_sensitivity ≤ kMaxSensitivity and
  // ε is finite with Δ·2^-50 ≤ ε ≤ 25·Δ (the range in which the sampler's
  // scale is exactly representable; beyond 25·Δ the noise is almost always
  // zero anyway).
  static absl::StatusOr<CentralDiscreteLaplace> Create(double epsilon,
                                                       int64_t l1_sensitivity);

  // count + Z. Counts are at most n, so the sum cannot overflow.
  int64_t NoisyCount(int64_t count, absl::BitGenRef gen) const;
  // NoisyCount for every bin (one independent Z each), divided by n ≥ 1.
  std::vector<double> NoisyFractions(absl::Span<const int64_t> counts,
                                     int64_t n, absl::BitGenRef gen) const;

  // Pr[Z = z], exactly as sampled (up to double rounding).
  double NoiseProbability(int64_t z) const;
  // 2a/(1−a)²; divide by n² for a fraction.
  double NoiseVariance() const;
  // The implemented scale s (≥ Δ/ε_requested).
  double scale() const { return scale_; }
  // The implemented ε = Δ/s (≤ the requested ε).
  double epsilon() const { return epsilon_; }
  int64_t l1_sensitivity() const { return l1_sensitivity_; }

 private:
  CentralDiscreteLaplace(std::unique_ptr<DiscreteLaplaceMechanism> noise,
                         int64_t l1_sensitivity);

  // A zero-input local mechanism with bound 1 and lattice step 1: its level
  // is exactly the discrete Laplace noise.
  std::unique_ptr<DiscreteLaplaceMechanism> noise_;
  int64_t l1_sensitivity_;
  double scale_;
  double epsilon_;
};

}  // namespace ldp

#endif  // LDP_COMMON_CENTRAL_CENTRAL_BASELINE_H_
