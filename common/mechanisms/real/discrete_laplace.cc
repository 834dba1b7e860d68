// Local Laplace on a lattice with the Canonne–Kamath–Steinke sampler, padded
// to a fixed number of draws; see discrete_laplace.h for the privacy and
// timing arguments.
#include "common/mechanisms/real/discrete_laplace.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/real/real_input.h"

namespace ldp {
namespace {

// Noise scales are kept ≤ 2^50 lattice steps so every honest level, and
// the validation window, fits comfortably in an int64.
constexpr double kMaxScale = 0x1p50;
// The scale's numerator is brought into [2^40, 2^41): rounding it up by one
// then costs at most ~1e-12 of ε, relatively.
constexpr int kScaleNumeratorBits = 40;

using uint128 = unsigned __int128;

// Uniform in [0, n), 0 < n < 2^64, from exactly two 64-bit draws: Lemire's
// multiply-shift on a 128-bit word. The biased region it must reject has
// probability < n / 2^128 (UniformBelow's is n / 2^64, up to 2^-13 for the
// numerators here), so a redraw practically never changes the draw count,
// and when it happens it is independent of the value returned.
uint64_t UniformBelowWide(uint64_t n, absl::BitGenRef gen) {
  for (;;) {
    const uint64_t high = gen();
    const uint64_t low = gen();
    // (high·2^64 + low)·n = result·2^128 + rest.
    const uint128 low_product = static_cast<uint128>(low) * n;
    const uint128 high_product =
        static_cast<uint128>(high) * n + (low_product >> 64);
    const uint128 rest =
        (high_product << 64) | static_cast<uint64_t>(low_product);
    // The threshold 2^128 mod n is below n: only then is it computed.
    if (rest >= n || rest >= (0 - static_cast<uint128>(n)) % n) {
      return static_cast<uint64_t>(high_product >> 64);
    }
  }
}

// The noise is Z = G₀ − G₁ for two independent geometrics
// G = ⌊(U + num·V) / den⌋ of CKS20 Algorithm 2, each from two "runs" of
// Bernoulli(exp(−γ)) chains (Algorithm 1: flip Bernoulli(γ/k) for
// k = 1, 2, … until tails; the chain is odd if that k is odd):
//   U-run: per chain a fresh uniform u < num and γ = u/num, until a chain
//          is odd; that u is U (Pr[U = u] ∝ exp(−u/num)).
//   V-run: γ = 1, counting odd chains until an even one; the count is V
//          (Pr[V = v] ∝ e^−v). Its k = 1 coin is certain, so it starts at 2.
// Pr[G = g] = (1 − a) a^g with a = exp(−den/num), and the difference of two
// such is the discrete Laplace law exactly, with no random sign and no
// rejected zero (Algorithm 2's outer loop).
enum RunPhase : uint64_t { kFirstU, kFirstV, kSecondU, kSecondV, kDone };

// Below this k the coin's range num·k < 2^51 · 2^12 cannot overflow.
constexpr uint64_t kMaxFusedK = uint64_t{1} << 12;

// Flags are 0 or 1 so that a step can combine them arithmetically.
struct SamplerState {
  uint64_t phase = kFirstU;
  uint64_t need_u = 1;  // a U-chain starts: the next uniform is its u;
  uint64_t k = 1;       // else it is the coin Bernoulli(γ/k), heads if
  uint64_t range = 0;   // a uniform below range = num·k is below
  uint64_t gamma = 0;   // gamma = γ·num
  uint64_t u[2] = {0, 0};
  uint64_t v[2] = {0, 0};
};

// `if_one` when flag is 1, `if_zero` when it is 0, without a branch.
uint64_t Select(uint64_t flag, uint64_t if_one, uint64_t if_zero) {
  const uint64_t mask = 0 - flag;
  return (if_one & mask) | (if_zero & ~mask);
}

// One uniform of the sampler: a U-chain's u, or the current chain's coin.
// Every step draws the same two words and does the same arithmetic, also
// once the runs are done, and applies its outcome by masks, not branches.
// k reaches kMaxFusedK only after 4095 heads in a row (probability
// < 1/4095!), far past the padded budget; the coin is then
// Bernoulli(γ)·Bernoulli(1/k), with two more draws.
inline void SamplerStep(uint64_t num, SamplerState& s, absl::BitGenRef gen) {
  const bool split = s.k >= kMaxFusedK;
  const uint64_t r =
      UniformBelowWide(Select(s.need_u | uint64_t{split}, num, s.range), gen);
  uint64_t heads = r < s.gamma;
  if (split) heads &= uint64_t{UniformBelowWide(s.k, gen) == 0};
  const uint64_t running = s.phase != kDone;
  const uint64_t coin = running & (s.need_u ^ 1);
  const uint64_t ends = coin & (heads ^ 1);
  const uint64_t odd = s.k & 1;
  const uint64_t in_v_run = s.phase & 1;
  const uint64_t second = s.phase >> 1;  // 1 in the second geometric
  const uint64_t accept_u = ends & (in_v_run ^ 1) & odd;
  const uint64_t count_v = ends & in_v_run & odd;
  // After an end a V-chain follows, except after an even chain (a rejected
  // u, or the end of the first V-run); once done, nothing changes.
  const uint64_t next_v = odd | (in_v_run & second);
  s.u[0] = Select(accept_u & (second ^ 1), s.gamma, s.u[0]);
  s.u[1] = Select(accept_u & second, s.gamma, s.u[1]);
  s.v[0] += count_v & (second ^ 1);
  s.v[1] += count_v & second;
  s.phase += accept_u | (ends & in_v_run & (odd ^ 1));
  s.k = Select(ends, 1 + next_v, s.k + coin);
  s.range = Select(ends, num << next_v, s.range + (num & (0 - coin)));
  s.gamma = Select(s.need_u & running, r, Select(ends & next_v, num, s.gamma));
  s.need_u = Select(ends, next_v ^ 1, s.need_u & (running ^ 1));
}

// ⌊(u + num·v) / 2^shift⌋. Beyond 2^62 only with probability exp(−2^12):
// capped to avoid overflow, never reached in practice.
int64_t Geometric(uint64_t u, uint64_t v, uint64_t num, int shift) {
  const uint128 x = static_cast<uint128>(num) * v + u;
  return static_cast<int64_t>(std::min<uint128>(x >> shift, uint64_t{1} << 62));
}

// Z with Pr[Z = z] ∝ exp(−|z| · 2^shift / num). The first kPaddedSteps
// uniforms are always drawn; only if the runs are not done by then
// (probability < 2^-64) does the loop go on, so the result stays exact.
int64_t SampleDiscreteLaplace(uint64_t num, int shift, absl::BitGenRef gen) {
  SamplerState s{.range = num};
  for (int step = 0; step < DiscreteLaplaceMechanism::kPaddedSteps; ++step) {
    SamplerStep(num, s, gen);
  }
  while (s.phase != kDone) SamplerStep(num, s, gen);
  return Geometric(s.u[0], s.v[0], num, shift) -
         Geometric(s.u[1], s.v[1], num, shift);
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
              SampleDiscreteLaplace(scale_numerator_,
                                    std::countr_zero(scale_denominator_), gen)};
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

double DiscreteLaplaceMechanism::DecodeBound() const {
  return std::fabs(Decode({.level = max_level_}));
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
