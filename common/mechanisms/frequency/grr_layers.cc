// Chained permanent and instantaneous GRR; see grr_layers.h.
#include "common/mechanisms/frequency/grr_layers.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"

namespace ldp {
namespace {

constexpr uint64_t kCoinOne = CoinProbability::kDenominator;

// {P, Q} of one report for coin numerators (p1, p2) over [k].
PureProtocol ComposeGrrLayers(uint32_t k, double p1, double p2) {
  const double q1 = (1 - p1) / (k - 1.0), q2 = (1 - p2) / (k - 1.0);
  return {.p = p1 * p2 + (1 - p1) * q2, .q = q1 * p2 + (1 - q1) * q2};
}

double CoinValue(uint64_t u) { return static_cast<double>(u) / kCoinOne; }

absl::StatusOr<uint64_t> PermanentKeepNumerator(std::string_view mechanism,
                                                uint32_t k, double epsilon) {
  const double e = std::exp(epsilon);
  uint64_t u = CoinProbability::RoundDown(e / (e + k - 1)).numerator();
  while (u > 0 && GrrStepEpsilon(u, k) > epsilon)
    --u;  // past any rounding doubt
  if (u * k <= kCoinOne) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism), ": epsilon_permanent ", epsilon,
        " is too small: at 2^-32 coin resolution the memo would carry no "
        "signal"));
  }
  return u;
}

// The largest p2 numerator whose composed ε is at most ε1 (by a 1e-12
// margin, so double rounding in the search cannot land above it).
absl::StatusOr<uint64_t> ReportKeepNumerator(std::string_view mechanism,
                                             uint32_t k, uint64_t p1,
                                             double epsilon_report) {
  const double target = epsilon_report - 1e-12;
  auto epsilon_at = [&](uint64_t u) {
    const PureProtocol one = ComposeGrrLayers(k, CoinValue(p1), CoinValue(u));
    return std::log(one.p / one.q);
  };
  uint64_t lo = (kCoinOne + k - 1) / k, hi = kCoinOne;  // p2 = 1/k: no signal
  if (epsilon_at(hi) <= target) return hi;  // ε∞ rounded below ε1
  if (epsilon_at(lo) > target) lo = 0;      // cannot happen for k ≥ 2
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (epsilon_at(mid) <= target ? lo : hi) = mid;
  }
  if (lo * k <= kCoinOne || !(epsilon_at(lo) > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism), ": epsilon_report ", epsilon_report,
        " is too small: at 2^-32 coin resolution a report would carry no "
        "signal"));
  }
  return lo;
}

}  // namespace

absl::Status GrrLayers::ValidateEpsilons(std::string_view mechanism,
                                         double permanent, double report,
                                         double max_epsilon) {
  RETURN_IF_ERROR(ValidateEpsilonField(mechanism, "epsilon_permanent",
                                       permanent, max_epsilon));
  if (!std::isfinite(report) || report <= 0 || report >= permanent) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(mechanism),
                     ": epsilon_report must be finite and in (0, "
                     "epsilon_permanent) = (0, ",
                     permanent, "), got ", report));
  }
  return absl::OkStatus();
}

absl::StatusOr<GrrLayers> GrrLayers::Solve(std::string_view mechanism,
                                           uint32_t alphabet,
                                           double epsilon_permanent,
                                           double epsilon_report,
                                           double max_epsilon) {
  RETURN_IF_ERROR(ValidateEpsilons(mechanism, epsilon_permanent, epsilon_report,
                                   max_epsilon));
  ASSIGN_OR_RETURN(
      const uint64_t p1,
      PermanentKeepNumerator(mechanism, alphabet, epsilon_permanent));
  ASSIGN_OR_RETURN(const uint64_t p2, ReportKeepNumerator(mechanism, alphabet,
                                                          p1, epsilon_report));
  return GrrLayers(alphabet, CoinProbability::FromNumerator(p1),
                   CoinProbability::FromNumerator(p2));
}

GrrLayers::GrrLayers(uint32_t alphabet, CoinProbability keep_permanent,
                     CoinProbability keep_report)
    : alphabet_(alphabet),
      keep_permanent_(keep_permanent),
      keep_report_(keep_report),
      composed_(ComposeGrrLayers(alphabet, keep_permanent.value(),
                                 keep_report.value())),
      epsilon_infinity_(GrrStepEpsilon(keep_permanent.numerator(), alphabet)),
      epsilon_(std::log(composed_.p / composed_.q)) {}

uint32_t GrrLayers::DrawPermanent(uint32_t symbol, absl::BitGenRef gen) const {
  return RandomizeGrrSymbol(symbol, alphabet_, keep_permanent_, gen);
}

uint32_t GrrLayers::DrawReport(uint32_t memo, absl::BitGenRef gen) const {
  return RandomizeGrrSymbol(memo, alphabet_, keep_report_, gen);
}

double GrrLayers::PermanentProbability(uint32_t symbol, uint32_t memo) const {
  return memo == symbol
             ? keep_permanent_.value()
             : keep_permanent_.Complement().value() / (alphabet_ - 1.0);
}

double GrrLayers::ReportProbability(uint32_t memo, uint32_t report) const {
  return report == memo ? keep_report_.value()
                        : keep_report_.Complement().value() / (alphabet_ - 1.0);
}

double GrrLayers::Probability(uint32_t symbol, uint32_t report) const {
  return report == symbol ? composed_.p : composed_.q;
}

}  // namespace ldp
