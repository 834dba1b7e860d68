// Longitudinal unary encoding (memoized PRR + fresh IRR); see longitudinal.h.
#include "common/longitudinal.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/validation.h"

namespace ldp {
namespace {

constexpr uint64_t kHalfNumerator = CoinProbability::kDenominator / 2;

bool IsKnownVariant(UnaryEncodingVariant variant) {
  return variant == UnaryEncodingVariant::kOptimized ||
         variant == UnaryEncodingVariant::kSymmetric;
}

absl::Status ValidateOptions(const LongitudinalUnaryEncodingOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilonField("longitudinal", "epsilon_permanent",
                                       options.epsilon_permanent,
                                       LongitudinalUnaryEncoding::kMaxEpsilon));
  if (!std::isfinite(options.epsilon_report) || options.epsilon_report <= 0 ||
      options.epsilon_report >= options.epsilon_permanent) {
    return absl::InvalidArgumentError(absl::StrCat(
        "longitudinal: epsilon_report must be finite and in (0, "
        "epsilon_permanent) = (0, ",
        options.epsilon_permanent, "), got ", options.epsilon_report));
  }
  RETURN_IF_ERROR(
      ValidateDomainSize("longitudinal", options.domain_size, 2,
                         LongitudinalUnaryEncoding::kMaxDomainSize));
  if (!IsKnownVariant(options.permanent) ||
      !IsKnownVariant(options.instantaneous)) {
    return absl::InvalidArgumentError(
        "longitudinal: permanent and instantaneous must each be kOptimized or "
        "kSymmetric");
  }
  return absl::OkStatus();
}

struct Coins {
  CoinProbability p;  // Pr[1 | 1-bit in]
  CoinProbability q;  // Pr[1 | 0-bit in]
};

// The PRR is a unary encoding at ε∞, rounded as in unary_encoding.cc.
Coins PermanentCoins(UnaryEncodingVariant variant, double epsilon) {
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
Coins InstantaneousCoins(UnaryEncodingVariant variant, uint64_t u) {
  const CoinProbability q = CoinProbability::FromNumerator(kHalfNumerator - u);
  return {variant == UnaryEncodingVariant::kOptimized ? CoinProbability::Half()
                                                      : q.Complement(),
          q};
}

PureProtocol Compose(const Coins& permanent, const Coins& instantaneous) {
  const double p1 = permanent.p.value(), q1 = permanent.q.value();
  const double p2 = instantaneous.p.value(), q2 = instantaneous.q.value();
  return {.p = p1 * p2 + (1 - p1) * q2, .q = q1 * p2 + (1 - q1) * q2};
}

// ln of the unary likelihood ratio p(1 − q) / (q(1 − p)).
double UnaryEpsilon(double p, double q) {
  return std::log(p / (1 - p)) + std::log((1 - q) / q);
}

// The largest u whose composed ε is below ε1 (by a 1e-12 margin, so double
// rounding in the search can never land above it).
absl::StatusOr<Coins> SolveInstantaneous(UnaryEncodingVariant variant,
                                         const Coins& permanent,
                                         double epsilon_report) {
  const double target = epsilon_report - 1e-12;
  auto epsilon_at = [&](uint64_t u) {
    const PureProtocol one = Compose(permanent, InstantaneousCoins(variant, u));
    return UnaryEpsilon(one.p, one.q);
  };
  uint64_t lo = 0, hi = kHalfNumerator;  // epsilon_at(lo) = 0 <= target
  if (epsilon_at(hi) <= target) {
    return absl::InvalidArgumentError(absl::StrCat(
        "longitudinal: epsilon_report ", epsilon_report,
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
        "longitudinal: epsilon_report ", epsilon_report,
        " is too small: at 2^-32 coin resolution a report would carry no "
        "signal"));
  }
  return InstantaneousCoins(variant, lo);
}

// `memo` truncated or zero-extended to `words` words, padding masked.
uint64_t MemoWord(const BitVectorReport& memo, size_t w, size_t words,
                  uint64_t last_mask) {
  const uint64_t word = w < memo.words.size() ? memo.words[w] : 0;
  return w + 1 == words ? word & last_mask : word;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LongitudinalUnaryEncoding>>
LongitudinalUnaryEncoding::Create(
    const LongitudinalUnaryEncodingOptions& options) {
  if (absl::Status status = ValidateOptions(options); !status.ok()) {
    return status;
  }
  const Coins permanent =
      PermanentCoins(options.permanent, options.epsilon_permanent);
  const absl::StatusOr<Coins> instantaneous = SolveInstantaneous(
      options.instantaneous, permanent, options.epsilon_report);
  if (!instantaneous.ok()) return instantaneous.status();
  const PureProtocol one = Compose(permanent, *instantaneous);
  // min(): when no rounding happened only the logarithm's last ulp could
  // exceed the requested ε∞.
  const double epsilon_infinity =
      std::min(UnaryEpsilon(permanent.p.value(), permanent.q.value()),
               options.epsilon_permanent);
  return std::unique_ptr<LongitudinalUnaryEncoding>(
      new LongitudinalUnaryEncoding(
          options.domain_size, permanent.p, permanent.q, instantaneous->p,
          instantaneous->q, UnaryEpsilon(one.p, one.q), epsilon_infinity));
}

LongitudinalUnaryEncoding::LongitudinalUnaryEncoding(
    uint32_t domain_size, CoinProbability p1, CoinProbability q1,
    CoinProbability p2, CoinProbability q2, double epsilon,
    double epsilon_infinity)
    : domain_size_(domain_size),
      p1_(p1),
      q1_(q1),
      p2_(p2),
      q2_(q2),
      protocol_(Compose({p1, q1}, {p2, q2})),
      epsilon_(epsilon),
      epsilon_infinity_(epsilon_infinity) {}

FrequencyReport LongitudinalUnaryEncoding::Randomize(
    uint32_t item, absl::BitGenRef gen) const {
  return RandomizeFromMemo(Memoize(item, gen), gen);
}

double LongitudinalUnaryEncoding::Probability(
    uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  // PRR and IRR act bit by bit, so one report's bits are independent with
  // Pr[1] = P at the input and Q elsewhere.
  return UnaryReportProbability(std::get<BitVectorReport>(report),
                                std::min(item, domain_size_ - 1), domain_size_,
                                protocol_.p, protocol_.q);
}

absl::Status LongitudinalUnaryEncoding::Validate(
    const FrequencyReport& report) const {
  return ValidateUnaryReport(report, domain_size_, kind());
}

std::unique_ptr<FrequencyAccumulator>
LongitudinalUnaryEncoding::NewAccumulator() const {
  return std::make_unique<UnaryEncodingAccumulator>(kind(), domain_size_,
                                                    protocol_, epsilon_);
}

FrequencyReport LongitudinalUnaryEncoding::Memoize(uint32_t item,
                                                   absl::BitGenRef gen) const {
  return RandomizeUnary(std::min(item, domain_size_ - 1), domain_size_, p1_,
                        q1_, gen);
}

absl::Status LongitudinalUnaryEncoding::ValidateMemo(
    const FrequencyReport& memo) const {
  return ValidateUnaryReport(memo, domain_size_, kind());
}

FrequencyReport LongitudinalUnaryEncoding::RandomizeFromMemo(
    const FrequencyReport& memo, absl::BitGenRef gen) const {
  static const BitVectorReport kNoBits;
  const auto* bits = std::get_if<BitVectorReport>(&memo);
  const BitVectorReport& permanent = bits != nullptr ? *bits : kNoBits;
  const size_t words = UnaryReportWords(domain_size_);
  const uint64_t last_mask = UnaryReportLastWordMask(domain_size_);
  BitVectorReport report;
  report.num_bits = domain_size_;
  report.words.resize(words);
  for (size_t w = 0; w < words; ++w) {
    const uint64_t memo = MemoWord(permanent, w, words, last_mask);
    if (p2_ == q2_.Complement()) {
      // Symmetric IRR: every bit flips with probability q2, one coin set.
      report.words[w] = memo ^ FlipCoins64(q2_, gen);
    } else {
      const uint64_t keep = FlipCoins64(p2_, gen);  // for the 1-bits
      const uint64_t set = FlipCoins64(q2_, gen);   // for its 0-bits
      report.words[w] = (memo & keep) | (~memo & set);
    }
  }
  report.words.back() &= last_mask;
  return report;
}

double LongitudinalUnaryEncoding::MemoProbability(
    uint32_t item, const FrequencyReport& memo) const {
  if (!ValidateMemo(memo).ok()) return 0;
  return UnaryReportProbability(std::get<BitVectorReport>(memo),
                                std::min(item, domain_size_ - 1), domain_size_,
                                p1_.value(), q1_.value());
}

double LongitudinalUnaryEncoding::ProbabilityFromMemo(
    const FrequencyReport& memo, const FrequencyReport& report) const {
  if (!ValidateMemo(memo).ok() || !Validate(report).ok()) return 0;
  const BitVectorReport& permanent = std::get<BitVectorReport>(memo);
  const std::vector<uint64_t>& out = std::get<BitVectorReport>(report).words;
  int64_t kept = 0, dropped = 0, raised = 0;  // 1→1, 1→0, 0→1
  for (size_t w = 0; w < out.size(); ++w) {
    kept += std::popcount(permanent.words[w] & out[w]);
    dropped += std::popcount(permanent.words[w] & ~out[w]);
    raised += std::popcount(~permanent.words[w] & out[w]);
  }
  const int64_t stayed = domain_size_ - kept - dropped - raised;  // 0→0
  const double p2 = p2_.value(), q2 = q2_.value();
  return std::pow(p2, kept) * std::pow(1 - p2, dropped) * std::pow(q2, raised) *
         std::pow(1 - q2, stayed);
}

}  // namespace ldp
