// Local Laplace mechanism on a lattice, without the floating-point flaw.
//
// The textbook local Laplace x + b·ln(U) leaks x through which doubles it
// can output (Mironov, CCS 2012; Haney et al., precision-based attacks,
// 2022). Here the input lives on the lattice γ·ℤ with γ = bound·2^-k: x is
// clamped, rounded to a neighbouring lattice point by unbiased randomized
// rounding (real_input.h), and shifted by discrete Laplace noise on ℤ,
// Pr[Z = z] ∝ exp(−|z| / s), sampled exactly from integer coins as the
// difference of two geometrics drawn as in Canonne, Kamath and Steinke,
// "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
// Algorithms 1 and 2. Every input can produce every level, so no output
// reveals the input by its mere possibility.
//
// Privacy: lattice inputs are at most Δ = 2^(k+1) steps apart, so the scale
// s = Δ/ε' in lattice steps gives ε'-LDP. s is the rational num/den with den
// a power of two and num rounded up, so the implemented ε' = Δ·den/num never
// exceeds the requested ε (and is within ~1e-12 relative of it).
//
// Timing (DESIGN invariant 8): the server sees rounded(x) + noise, so work
// that grew with |noise| would reveal x (the textbook CKS loops run longer
// for larger draws; Jin et al., S&P 2022). Here the noise is the difference
// of two geometrics built from CKS coin chains, and the sampler always
// draws exactly kPaddedSteps 128-bit uniforms (2·kPaddedSteps + 1 generator
// draws per report with the rounding coin), each step doing the same
// arithmetic and applying its outcome by selection, not by branching;
// uniforms drawn after the noise is complete are ignored. The budget is set
// so that the unpadded sampler would need more uniforms with probability
// < 2^-64; only then does the loop go on (and the work vary), which keeps
// the output exactly discrete Laplace. The only other variation is a
// uniform's internal redraw (probability < 2^-61 per report, independent
// of the value drawn).
#ifndef LDP_COMMON_MECHANISMS_REAL_DISCRETE_LAPLACE_H_
#define LDP_COMMON_MECHANISMS_REAL_DISCRETE_LAPLACE_H_

#include <cstdint>
#include <memory>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

struct DiscreteLaplaceOptions {
  double epsilon = 1.0;
  double bound = 1.0;
  // k: the lattice step is bound / 2^k. Finer lattices add less rounding
  // variance (γ²/4 at worst) but need proportionally larger noise in lattice
  // units, which costs nothing in accuracy; 10 makes rounding negligible.
  int resolution_bits = 10;
};

class DiscreteLaplaceMechanism final : public RealMechanism {
 public:
  // Largest resolution_bits accepted (keeps every level within int64).
  static constexpr int kMaxResolutionBits = 30;
  // Validate accepts |level| ≤ 2^k + kValidationScales · s: an honest report
  // lies beyond that with probability < e^-64, and a forged one can move
  // the mean of n reports by at most (2^k + 64 s)·γ / n.
  static constexpr int kValidationScales = 64;
  // 128-bit uniforms per report: one per coin and one per fresh u of the
  // four runs of coin chains (see the .cc). A chain stops at coin K with
  // Pr[K ≥ k] = γ^(k−1)/(k−1)!, so the runs together need more than 168
  // uniforms with probability 2^-64.1 (computed in constant_work_test).
  static constexpr int kPaddedSteps = 168;

  static absl::StatusOr<std::unique_ptr<DiscreteLaplaceMechanism>> Create(
      const DiscreteLaplaceOptions& options);

  RealMechanismKind kind() const override {
    return RealMechanismKind::kDiscreteLaplace;
  }
  double epsilon() const override { return epsilon_; }
  double bound() const override { return bound_; }

  ScalarReport Randomize(double x, absl::BitGenRef gen) const override;
  double Probability(double x, const ScalarReport& report) const override;
  absl::Status Validate(const ScalarReport& report) const override;
  double Decode(const ScalarReport& report) const override;
  double DecodeBound() const override;
  double Variance(double x) const override;
  double WorstCaseVariance() const override;

  // The lattice step γ = bound / 2^k.
  double lattice_step() const { return lattice_step_; }
  // The noise scale s = scale_numerator / scale_denominator, in lattice steps.
  uint64_t scale_numerator() const { return scale_numerator_; }
  uint64_t scale_denominator() const { return scale_denominator_; }
  // The largest |level| Validate accepts.
  int64_t max_level() const { return max_level_; }

 private:
  DiscreteLaplaceMechanism(const DiscreteLaplaceOptions& options,
                           uint64_t scale_numerator, uint64_t scale_denominator,
                           double epsilon);

  // Pr[Z = z] for the discrete Laplace noise.
  double NoiseProbability(__int128 z) const;
  // Var[Z] = 2a/(1−a)², a = exp(−1/s).
  double NoiseVariance() const;

  double bound_;
  int resolution_bits_;
  double lattice_step_;
  uint64_t scale_numerator_;
  uint64_t scale_denominator_;
  double epsilon_;
  int64_t max_level_;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_DISCRETE_LAPLACE_H_
