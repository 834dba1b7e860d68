// Local Laplace on a lattice with the Canonne–Kamath–Steinke sampler; see
// discrete_laplace.h for the privacy argument.
#include "common/discrete_laplace.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/coin.h"
#include "common/real_input.h"
#include "common/status_macros.h"

namespace ldp {
namespace {

// Noise scales are kept ≤ 2^50 lattice steps so every honest level, and
// the validation window, fits comfortably in an int64.
constexpr double kMaxScale = 0x1p50;
// The scale's numerator is brought into [2^40, 2^41): rounding it up by one
// then costs at most ~1e-12 of ε, relatively.
constexpr int kScaleNumeratorBits = 40;

// Bernoulli(exp(−num/den)) for 0 ≤ num ≤ den (CKS20 Algorithm 1, γ ≤ 1):
// count K up while Bernoulli(γ/K) succeeds; Pr[K odd] is the alternating
// Taylor series of exp(−γ). Bernoulli(γ/K) is the product of the exact
// rational coins Bernoulli(num/den) and Bernoulli(1/K), so nothing
// overflows and no double is involved.
bool BernoulliExpMinus(uint64_t num, uint64_t den, absl::BitGenRef gen) {
  uint64_t k = 1;
  while (UniformBelow(den, gen) < num &&
         (k == 1 || UniformBelow(k, gen) == 0)) {
    ++k;
  }
  return k % 2 == 1;
}

// Z with Pr[Z = z] ∝ exp(−|z| · den / num) (CKS20 Algorithm 2 with
// scale t/s = num/den): a geometric in units of 1/num, cut into blocks of
// den, with a random sign and the double-counted zero rejected.
int64_t SampleDiscreteLaplace(uint64_t num, uint64_t den, absl::BitGenRef gen) {
  for (;;) {
    const uint64_t u = UniformBelow(num, gen);
    if (!BernoulliExpMinus(u, num, gen)) continue;
    uint64_t v = 0;
    while (BernoulliExpMinus(1, 1, gen)) ++v;
    const unsigned __int128 x = static_cast<unsigned __int128>(num) * v + u;
    // Beyond 2^62 only with probability exp(−2^12): capped to avoid
    // overflow, never reached in practice.
    const uint64_t y = static_cast<uint64_t>(
        std::min<unsigned __int128>(x / den, uint64_t{1} << 62));
    const bool negative = FlipCoin(CoinProbability::Half(), gen);
    if (negative && y == 0) continue;
    return negative ? -static_cast<int64_t>(y) : static_cast<int64_t>(y);
  }
}

absl::Status ValidateResolution(int resolution_bits) {
  if (resolution_bits < 0 ||
      resolution_bits > DiscreteLaplaceMechanism::kMaxResolutionBits) {
    return absl::InvalidArgumentError(
        absl::StrCat("resolution_bits must be in [0, ",
                     DiscreteLaplaceMechanism::kMaxResolutionBits, "], got ",
                     resolution_bits));
  }
  return absl::OkStatus();
}

// x's lattice position, shifted to [0, 2^(k+1)], rounded at random.
RandomizedRounding RoundToLattice(double x, double bound, int k) {
  const double clamped = ClampToBound(x, bound);
  return RandomizedRounding::Of(
      std::ldexp(clamped / bound, k) + std::ldexp(1.0, k), int64_t{2} << k);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DiscreteLaplaceMechanism>>
DiscreteLaplaceMechanism::Create(const DiscreteLaplaceOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilonAndBound(options.epsilon, options.bound));
  RETURN_IF_ERROR(ValidateResolution(options.resolution_bits));
  const double sensitivity = std::ldexp(1.0, options.resolution_bits + 1);
  const double scale = sensitivity / options.epsilon;
  if (scale > kMaxScale) {
    return absl::InvalidArgumentError(absl::StrCat(
        "epsilon ", options.epsilon, " is too small for resolution_bits ",
        options.resolution_bits, ": the noise scale 2^(k+1)/epsilon = ", scale,
        " lattice steps exceeds 2^50; lower resolution_bits"));
  }
  // s' = num / 2^shift with num = ⌈scale·2^shift⌉ + 1: the +1 absorbs the
  // rounding of `scale` itself, so s' > Δ/ε exactly and ε' = Δ/s' < ε.
  const int shift = std::max(0, kScaleNumeratorBits - std::ilogb(scale));
  const uint64_t numerator =
      static_cast<uint64_t>(std::ceil(std::ldexp(scale, shift))) + 1;
  const uint64_t denominator = uint64_t{1} << shift;
  // Δ·2^shift and num are exact doubles, so this quotient is correctly
  // rounded and, being below the double ε mathematically, is ≤ ε.
  const double implemented =
      std::ldexp(sensitivity, shift) / static_cast<double>(numerator);
  return std::unique_ptr<DiscreteLaplaceMechanism>(new DiscreteLaplaceMechanism(
      options, numerator, denominator, implemented));
}

DiscreteLaplaceMechanism::DiscreteLaplaceMechanism(
    const DiscreteLaplaceOptions& options, uint64_t scale_numerator,
    uint64_t scale_denominator, double epsilon)
    : bound_(options.bound),
      resolution_bits_(options.resolution_bits),
      lattice_step_(std::ldexp(options.bound, -options.resolution_bits)),
      scale_numerator_(scale_numerator),
      scale_denominator_(scale_denominator),
      epsilon_(epsilon),
      max_level_((int64_t{1} << options.resolution_bits) +
                 static_cast<int64_t>(std::ceil(
                     kValidationScales * static_cast<double>(scale_numerator) /
                     static_cast<double>(scale_denominator)))) {}

ScalarReport DiscreteLaplaceMechanism::Randomize(double x,
                                                 absl::BitGenRef gen) const {
  const int64_t lattice_index =
      RoundToLattice(x, bound_, resolution_bits_).Sample(gen) -
      (int64_t{1} << resolution_bits_);
  return {.level =
              lattice_index +
              SampleDiscreteLaplace(scale_numerator_, scale_denominator_, gen)};
}

double DiscreteLaplaceMechanism::NoiseProbability(__int128 z) const {
  const double inverse_scale = static_cast<double>(scale_denominator_) /
                               static_cast<double>(scale_numerator_);
  const double a = std::exp(-inverse_scale);
  const double magnitude = static_cast<double>(z < 0 ? -z : z);
  return -std::expm1(-inverse_scale) / (1 + a) *
         std::exp(-magnitude * inverse_scale);
}

double DiscreteLaplaceMechanism::Probability(double x,
                                             const ScalarReport& report) const {
  const RandomizedRounding rounding =
      RoundToLattice(x, bound_, resolution_bits_);
  double probability = 0;
  for (int offset = 0; offset <= 1; ++offset) {
    const double weight = rounding.Weight(offset);
    if (weight == 0) continue;
    const __int128 lattice_index =
        rounding.lower() + offset - (int64_t{1} << resolution_bits_);
    probability +=
        weight * NoiseProbability(__int128{report.level} - lattice_index);
  }
  return probability;
}

absl::Status DiscreteLaplaceMechanism::Validate(
    const ScalarReport& report) const {
  if (report.level < -max_level_ || report.level > max_level_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "discrete Laplace level ", report.level, " is outside [", -max_level_,
        ", ", max_level_,
        "]; an honest report lands there with probability < e^-64"));
  }
  return absl::OkStatus();
}

double DiscreteLaplaceMechanism::Decode(const ScalarReport& report) const {
  return static_cast<double>(report.level) * lattice_step_;
}

double DiscreteLaplaceMechanism::NoiseVariance() const {
  const double inverse_scale = static_cast<double>(scale_denominator_) /
                               static_cast<double>(scale_numerator_);
  const double one_minus_a = -std::expm1(-inverse_scale);
  return 2 * std::exp(-inverse_scale) / (one_minus_a * one_minus_a);
}

double DiscreteLaplaceMechanism::Variance(double x) const {
  const double up = RoundToLattice(x, bound_, resolution_bits_).up().value();
  return lattice_step_ * lattice_step_ * (up * (1 - up) + NoiseVariance());
}

double DiscreteLaplaceMechanism::WorstCaseVariance() const {
  return lattice_step_ * lattice_step_ * (0.25 + NoiseVariance());
}

}  // namespace ldp
