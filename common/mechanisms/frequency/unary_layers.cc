// The PRR and IRR coins of a bit-by-bit longitudinal encoding; see
// unary_layers.h.
#include "common/mechanisms/frequency/unary_layers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

constexpr uint64_t kHalfNumerator = CoinProbability::kDenominator / 2;

bool IsKnownVariant(UnaryEncodingVariant variant) {
  return variant == UnaryEncodingVariant::kOptimized ||
         variant == UnaryEncodingVariant::kSymmetric;
}

// The PRR is a unary encoding at ε∞, rounded as in unary_encoding.cc.
BitCoins PermanentCoins(UnaryEncodingVariant variant, double epsilon) {
  if (variant == UnaryEncodingVariant::kOptimized) {
    return {CoinProbability::Half(),
            CoinProbability::RoundUp(1 / (std::exp(epsilon) + 1))};
  }
  const double half = std::exp(epsilon / 2);
  const CoinProbability p = CoinProbability::RoundDown(half / (half + 1));
  return {p, p.Complement()};
}

// IRR coins indexed by u in [0, 2^31]: q2 = 1/2 − u·2^-32, and p2 = 1/2
// (optimized) or 1 − q2 (symmetric). u = 0 is pure noise; the composed
// ratio grows with u.
BitCoins InstantaneousCoins(UnaryEncodingVariant variant, uint64_t u) {
  const CoinProbability q = CoinProbability::FromNumerator(kHalfNumerator - u);
  return {variant == UnaryEncodingVariant::kOptimized ? CoinProbability::Half()
                                                      : q.Complement(),
          q};
}

PureProtocol Compose(const BitCoins& permanent, const BitCoins& instantaneous) {
  const double p1 = permanent.p.value(), q1 = permanent.q.value();
  const double p2 = instantaneous.p.value(), q2 = instantaneous.q.value();
  return {.p = p1 * p2 + (1 - p1) * q2, .q = q1 * p2 + (1 - q1) * q2};
}

// The largest u whose composed ε is below ε1 (by a 1e-12 margin, so double
// rounding in the search can never land above it).
absl::StatusOr<BitCoins> SolveInstantaneous(std::string_view mechanism,
                                            UnaryEncodingVariant variant,
                                            const BitCoins& permanent,
                                            double epsilon_report) {
  const double target = epsilon_report - 1e-12;
  auto epsilon_at = [&](uint64_t u) {
    const PureProtocol one = Compose(permanent, InstantaneousCoins(variant, u));
    return UnaryEpsilon(one.p, one.q);
  };
  uint64_t lo = 0, hi = kHalfNumerator;  // epsilon_at(lo) = 0 <= target
  if (epsilon_at(hi) <= target) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism), ": epsilon_report ", epsilon_report,
        " is unreachable with this permanent layer: one report leaks at most ",
        epsilon_at(hi),
        "; lower epsilon_report, raise epsilon_permanent, or use "
        "permanent = kOptimized with instantaneous = kSymmetric"));
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (epsilon_at(mid) <= target ? lo : hi) = mid;
  }
  if (lo == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism), ": epsilon_report ", epsilon_report,
        " is too small: at 2^-32 coin resolution a report would "
        "carry no signal"));
  }
  return InstantaneousCoins(variant, lo);
}

absl::Status ValidateLayers(std::string_view mechanism,
                            UnaryEncodingVariant permanent,
                            UnaryEncodingVariant instantaneous,
                            double epsilon_permanent, double epsilon_report,
                            double max_epsilon) {
  RETURN_IF_ERROR(ValidateEpsilonField(mechanism, "epsilon_permanent",
                                       epsilon_permanent, max_epsilon));
  if (!std::isfinite(epsilon_report) || epsilon_report <= 0 ||
      epsilon_report >= epsilon_permanent) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism),
        ": epsilon_report must be finite and in (0, epsilon_permanent) = (0, ",
        epsilon_permanent, "), got ", epsilon_report));
  }
  if (!IsKnownVariant(permanent) || !IsKnownVariant(instantaneous)) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(mechanism),
        ": permanent and instantaneous must each be kOptimized or kSymmetric"));
  }
  return absl::OkStatus();
}

}  // namespace

double UnaryEpsilon(double p, double q) {
  return std::log(p / (1 - p)) + std::log((1 - q) / q);
}

absl::StatusOr<UnaryLayers> UnaryLayers::Solve(
    std::string_view mechanism, UnaryEncodingVariant permanent,
    UnaryEncodingVariant instantaneous, double epsilon_permanent,
    double epsilon_report, double max_epsilon) {
  RETURN_IF_ERROR(ValidateLayers(mechanism, permanent, instantaneous,
                                 epsilon_permanent, epsilon_report,
                                 max_epsilon));
  const BitCoins prr = PermanentCoins(permanent, epsilon_permanent);
  ASSIGN_OR_RETURN(
      const BitCoins irr,
      SolveInstantaneous(mechanism, instantaneous, prr, epsilon_report));
  const PureProtocol one = Compose(prr, irr);
  // min(): when no rounding happened only the logarithm's last ulp could
  // exceed the requested ε∞.
  return UnaryLayers(
      prr, irr, UnaryEpsilon(one.p, one.q),
      std::min(UnaryEpsilon(prr.p.value(), prr.q.value()), epsilon_permanent));
}

UnaryLayers::UnaryLayers(BitCoins permanent, BitCoins instantaneous,
                         double epsilon, double epsilon_infinity)
    : permanent_(permanent),
      instantaneous_(instantaneous),
      composed_(Compose(permanent, instantaneous)),
      epsilon_(epsilon),
      epsilon_infinity_(epsilon_infinity) {}

uint64_t UnaryLayers::DrawReportWord(uint64_t memo, absl::BitGenRef gen) const {
  if (instantaneous_.p == instantaneous_.q.Complement()) {
    // Symmetric IRR: every bit flips with probability q2, one coin set.
    return memo ^ FlipCoins64(instantaneous_.q, gen);
  }
  const uint64_t keep = FlipCoins64(instantaneous_.p, gen);  // its 1-bits
  const uint64_t set = FlipCoins64(instantaneous_.q, gen);   // its 0-bits
  return (memo & keep) | (~memo & set);
}

double UnaryLayers::ReportProbability(const std::vector<uint64_t>& memo,
                                      const std::vector<uint64_t>& report,
                                      uint32_t num_bits) const {
  int64_t kept = 0, dropped = 0, raised = 0;  // 1→1, 1→0, 0→1
  for (size_t w = 0; w < report.size() && w < memo.size(); ++w) {
    kept += std::popcount(memo[w] & report[w]);
    dropped += std::popcount(memo[w] & ~report[w]);
    raised += std::popcount(~memo[w] & report[w]);
  }
  const int64_t stayed = num_bits - kept - dropped - raised;  // 0→0
  const double p2 = instantaneous_.p.value(), q2 = instantaneous_.q.value();
  return std::pow(p2, kept) * std::pow(1 - p2, dropped) * std::pow(q2, raised) *
         std::pow(1 - q2, stayed);
}

}  // namespace ldp
