// The exponential mechanism of McSherry and Talwar (FOCS 2007) over a finite
// candidate set: Pr[i] ∝ exp(ε·u_i / (2Δ)) for utility scores u_i whose
// sensitivity is Δ (on neighbouring datasets every score moves by at most
// Δ). Each weight then moves by at most a factor e^(ε/2) and so does their
// sum, so every outcome's probability moves by at most e^ε: ε-DP. The
// central model uses it to select (a hypothesis, a candidate threshold)
// where adding noise to a number would not make sense.
//
// Numerics: weights are exp((u_i − u_max)·ε/(2Δ)) ∈ [0, 1], so the largest
// is exactly 1, the sum lies in [1, N], and nothing overflows or divides by
// zero however large the scores; a candidate whose weight underflows has
// probability below 1e-308 and gets 0. Scores must be finite (NaN has no
// order, and ±∞ would make the mechanism ignore its own ε).
//
// Sampling is by inverse CDF on integers: one uniform U in [0, 2^53) from
// `UniformBelow`, compared with the cumulative probabilities rounded down to
// multiples of 2^-53. It is deterministic given the generator, uses one draw,
// and transforms no uniform double. Gumbel-max (argmax of u_i·ε/(2Δ) + G_i)
// would need N draws and a floating-point log of each, the transformation
// the project avoids (DESIGN invariant 2). The price is resolution: each
// candidate is drawn with Probabilities()[i] to within a few multiples of
// 2^-53 absolute (the cumulative sums are compensated), so a candidate below
// ~2^-53 may never be drawn. The implemented distribution is within N·2^-50
// of the exact one in total variation, so the sampler is (ε, δ)-DP with
// δ ≤ (1 + e^ε)·N·2^-50. An exactly pure-ε sampler needs exact arithmetic on
// exp (Ilvento, "Implementing the Exponential Mechanism with Base-2
// Differential Privacy", CCS 2020), which a baseline for comparison does not
// need.
#ifndef LDP_COMMON_CENTRAL_EXPONENTIAL_MECHANISM_H_
#define LDP_COMMON_CENTRAL_EXPONENTIAL_MECHANISM_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp {

// Immutable and copyable; thread-safe (Sample only reads).
class ExponentialMechanism {
 public:
  // InvalidArgument for no candidates, a non-finite score (naming its
  // index), a sensitivity or ε that is not finite and > 0, or an ε/Δ that
  // overflows or underflows a double.
  static absl::StatusOr<ExponentialMechanism> Create(
      absl::Span<const double> scores, double sensitivity, double epsilon);

  size_t num_candidates() const { return probabilities_.size(); }
  double sensitivity() const { return sensitivity_; }
  double epsilon() const { return epsilon_; }

  // exp(ε(u_i − u_max)/(2Δ)) / Σ_j exp(ε(u_j − u_max)/(2Δ)), each within
  // about (3 + |ε(u_i − u_max)/(2Δ)|) ulps relatively (exp amplifies the
  // rounding of its argument); they sum to 1 up to rounding.
  const std::vector<double>& Probabilities() const { return probabilities_; }
  // Probabilities()[candidate]; candidate < num_candidates().
  double Probability(size_t candidate) const {
    return probabilities_[candidate];
  }

  // One candidate index, drawn as described above.
  size_t Sample(absl::BitGenRef gen) const;

 private:
  ExponentialMechanism(std::vector<double> probabilities,
                       std::vector<uint64_t> cumulative_thresholds,
                       double sensitivity, double epsilon)
      : probabilities_(std::move(probabilities)),
        cumulative_thresholds_(std::move(cumulative_thresholds)),
        sensitivity_(sensitivity),
        epsilon_(epsilon) {}

  std::vector<double> probabilities_;
  // ⌊2^53 · Σ_{j≤i} p_j⌋, nondecreasing; 2^53 from the last positive weight
  // on, so U < threshold always has an answer and zero weights never win.
  std::vector<uint64_t> cumulative_thresholds_;
  double sensitivity_;
  double epsilon_;
};

// The utility guarantee (McSherry–Talwar; Dwork & Roth, "The Algorithmic
// Foundations of Differential Privacy", Theorem 3.11): with OPT the largest
// score, Pr[u(output) ≤ OPT − (2Δ/ε)(ln N + t)] ≤ e^(−t). Setting
// t = ln(1/β) gives the loss (2Δ/ε)(ln N + ln(1/β)) that is exceeded with
// probability at most β. InvalidArgument for N = 0, Δ or ε not finite and
// > 0, or β outside (0, 1).
absl::StatusOr<double> UtilityLossBound(size_t num_candidates,
                                        double sensitivity, double epsilon,
                                        double beta);

}  // namespace ldp

#endif  // LDP_COMMON_CENTRAL_EXPONENTIAL_MECHANISM_H_
