// Duchi et al.'s one-bit mechanism with integer coins; see
// duchi_mechanism.h for the exact-unbiasedness argument.
#include "common/mechanisms/real/duchi_mechanism.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/real/real_input.h"

namespace ldp {
namespace {

constexpr double kDenominator =
    static_cast<double>(CoinProbability::kDenominator);

// ln((2^32 − A) / A): the likelihood ratio of either sign between x = ±b.
double ImplementedEpsilon(uint64_t a) {
  return std::log((kDenominator - static_cast<double>(a)) /
                  static_cast<double>(a));
}

// Rounds x's position in [−b, b] to endpoint 0 (−b) or 1 (+b).
RandomizedRounding RoundToEndpoint(double x, double bound) {
  return RandomizedRounding::Of((ClampToBound(x, bound) / bound + 1) / 2, 1);
}

}  // namespace

absl::StatusOr<std::unique_ptr<DuchiMechanism>> DuchiMechanism::Create(
    const DuchiOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilonAndBound(options.epsilon, options.bound));
  uint64_t a =
      CoinProbability::RoundUp(1 / (std::exp(options.epsilon) + 1)).numerator();
  // Rounding A up lowers the ratio; the loop also absorbs any error in
  // exp() and guarantees A ≥ 1 (A = 0 would be ε = ∞).
  if (a == 0) a = 1;
  while (ImplementedEpsilon(a) > options.epsilon) ++a;
  return std::unique_ptr<DuchiMechanism>(new DuchiMechanism(
      options.bound, CoinProbability::FromNumerator(a), ImplementedEpsilon(a)));
}

DuchiMechanism::DuchiMechanism(double bound, CoinProbability plus_at_lower,
                               double epsilon)
    : bound_(bound),
      plus_at_lower_(plus_at_lower),
      epsilon_(epsilon),
      output_magnitude_(bound * kDenominator /
                        (kDenominator -
                         2 * static_cast<double>(plus_at_lower.numerator()))) {}

ScalarReport DuchiMechanism::Randomize(double x, absl::BitGenRef gen) const {
  const bool upper = RoundToEndpoint(x, bound_).Sample(gen) == 1;
  const CoinProbability plus =
      upper ? plus_at_lower_.Complement() : plus_at_lower_;
  return {.level = FlipCoin(plus, gen) ? kPlus : kMinus};
}

double DuchiMechanism::PlusProbability(double x) const {
  const RandomizedRounding rounding = RoundToEndpoint(x, bound_);
  double plus = 0;
  for (int offset = 0; offset <= 1; ++offset) {
    const bool upper = rounding.lower() + offset == 1;
    plus += rounding.Weight(offset) *
            (upper ? plus_at_lower_.Complement() : plus_at_lower_).value();
  }
  return plus;
}

double DuchiMechanism::Probability(double x, const ScalarReport& report) const {
  if (report.level == kPlus) return PlusProbability(x);
  if (report.level == kMinus) return 1 - PlusProbability(x);
  return 0;
}

absl::Status DuchiMechanism::Validate(const ScalarReport& report) const {
  if (report.level != kMinus && report.level != kPlus) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Duchi report level must be -1 or +1, got ", report.level));
  }
  return absl::OkStatus();
}

double DuchiMechanism::Decode(const ScalarReport& report) const {
  return report.level == kPlus ? output_magnitude_ : -output_magnitude_;
}

double DuchiMechanism::Variance(double x) const {
  // The implemented mean b(2w − 1), w the rounding coin's probability.
  const double mean = bound_ * (2 * RoundToEndpoint(x, bound_).Mean() - 1);
  return output_magnitude_ * output_magnitude_ - mean * mean;
}

double DuchiMechanism::WorstCaseVariance() const {
  return output_magnitude_ * output_magnitude_;
}

}  // namespace ldp
