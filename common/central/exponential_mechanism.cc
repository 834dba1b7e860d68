// The exponential mechanism; see the header for the privacy argument and
// the numerics.
#include "common/central/exponential_mechanism.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

constexpr char kMechanismName[] = "exponential mechanism";
constexpr int kThresholdBits = 53;
constexpr uint64_t kThresholdScale = uint64_t{1} << kThresholdBits;

absl::Status ValidateScores(absl::Span<const double> scores) {
  if (scores.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kMechanismName, ": needs at least one candidate"));
  }
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!std::isfinite(scores[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          kMechanismName, ": score[", i, "] must be finite, got ", scores[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateSensitivityAndEpsilon(double sensitivity, double epsilon) {
  RETURN_IF_ERROR(ValidateEpsilonField(kMechanismName, "sensitivity",
                                       sensitivity, kUnboundedEpsilon));
  return ValidateEpsilon(kMechanismName, epsilon);
}

// ln of candidate i's weight relative to the best: ε(u_i − u_max)/(2Δ) ≤ 0.
// u_i − u_max can overflow to −∞ only when both are near ±DBL_MAX; halving
// each first keeps it finite (and exact, at those magnitudes), and a −∞
// product is a correct weight of 0, never a NaN (ε/Δ is finite and > 0).
double LogRelativeWeight(double score, double best, double epsilon_per_unit) {
  const double difference = score - best;
  if (std::isfinite(difference)) return 0.5 * (difference * epsilon_per_unit);
  return (0.5 * score - 0.5 * best) * epsilon_per_unit;
}

// Running sum with Neumaier's compensation: the prefix sums that become the
// sampling thresholds stay within ~2 ulps however many weights there are.
class CompensatedSum {
 public:
  void Add(double x) {
    const double t = sum_ + x;
    compensation_ +=
        std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const { return sum_ + compensation_; }

 private:
  double sum_ = 0;
  double compensation_ = 0;
};

// ⌊2^53 · prefix/total⌋, forced nondecreasing, and exactly 2^53 from the
// last positive weight on.
std::vector<uint64_t> CumulativeThresholds(const std::vector<double>& weights,
                                           double total) {
  std::vector<uint64_t> thresholds(weights.size());
  CompensatedSum prefix;
  uint64_t previous = 0;
  size_t last_positive = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    prefix.Add(weights[i]);
    if (weights[i] > 0) last_positive = i;
    const double scaled =
        std::floor(std::ldexp(prefix.value() / total, kThresholdBits));
    const uint64_t threshold =
        std::min(kThresholdScale, static_cast<uint64_t>(std::max(0.0, scaled)));
    previous = std::max(previous, threshold);
    thresholds[i] = previous;
  }
  std::fill(thresholds.begin() + static_cast<std::ptrdiff_t>(last_positive),
            thresholds.end(), kThresholdScale);
  return thresholds;
}

}  // namespace

absl::StatusOr<ExponentialMechanism> ExponentialMechanism::Create(
    absl::Span<const double> scores, double sensitivity, double epsilon) {
  RETURN_IF_ERROR(ValidateScores(scores));
  RETURN_IF_ERROR(ValidateSensitivityAndEpsilon(sensitivity, epsilon));
  const double epsilon_per_unit = epsilon / sensitivity;
  if (!std::isfinite(epsilon_per_unit) || !(epsilon_per_unit > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanismName, ": epsilon / sensitivity = ", epsilon, " / ",
        sensitivity, " is not a positive finite double; rescale the scores"));
  }
  const double best = *std::max_element(scores.begin(), scores.end());
  std::vector<double> weights;
  weights.reserve(scores.size());
  CompensatedSum total;
  for (const double score : scores) {
    weights.push_back(
        std::exp(LogRelativeWeight(score, best, epsilon_per_unit)));
    total.Add(weights.back());
  }
  // The best candidate's weight is exactly exp(0) = 1, so total ≥ 1.
  const double total_weight = total.value();
  std::vector<uint64_t> thresholds =
      CumulativeThresholds(weights, total_weight);
  std::vector<double> probabilities = std::move(weights);
  for (double& p : probabilities) p /= total_weight;
  return ExponentialMechanism(std::move(probabilities), std::move(thresholds),
                              sensitivity, epsilon);
}

size_t ExponentialMechanism::Sample(absl::BitGenRef gen) const {
  const uint64_t u = UniformBelow(kThresholdScale, gen);
  // The first candidate whose cumulative threshold exceeds U; the last
  // threshold is 2^53 > U, so one always does.
  const auto it = std::upper_bound(cumulative_thresholds_.begin(),
                                   cumulative_thresholds_.end(), u);
  return static_cast<size_t>(it - cumulative_thresholds_.begin());
}

absl::StatusOr<double> UtilityLossBound(size_t num_candidates,
                                        double sensitivity, double epsilon,
                                        double beta) {
  if (num_candidates == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kMechanismName, ": needs at least one candidate"));
  }
  RETURN_IF_ERROR(ValidateSensitivityAndEpsilon(sensitivity, epsilon));
  if (!(beta > 0 && beta < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanismName, ": failure probability beta must be in (0, 1), got ",
        beta));
  }
  return 2 * sensitivity / epsilon *
         (std::log(static_cast<double>(num_candidates)) - std::log(beta));
}

}  // namespace ldp
