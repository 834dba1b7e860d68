// OUE and SUE unary encodings; see unary_encoding.h.
#include "common/mechanisms/frequency/unary_encoding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(const UnaryEncodingOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("unary encoding", options.epsilon,
                                  UnaryEncoding::kMaxEpsilon));
  RETURN_IF_ERROR(ValidateDomainSize("unary encoding", options.domain_size, 2,
                                     UnaryEncoding::kMaxDomainSize));
  if (options.variant != UnaryEncodingVariant::kOptimized &&
      options.variant != UnaryEncodingVariant::kSymmetric) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unary encoding: unknown variant ", static_cast<int>(options.variant)));
  }
  return absl::OkStatus();
}

// Debian's Abseil StrCat does not take std::string_view.
std::string KindName(FrequencyOracleKind kind) {
  return std::string(FrequencyOracleKindName(kind));
}

}  // namespace

absl::StatusOr<std::unique_ptr<UnaryEncoding>> UnaryEncoding::Create(
    const UnaryEncodingOptions& options) {
  if (absl::Status status = ValidateOptions(options); !status.ok()) {
    return status;
  }
  CoinProbability p = CoinProbability::Half();
  CoinProbability q = CoinProbability::Half();
  if (options.variant == UnaryEncodingVariant::kOptimized) {
    q = CoinProbability::RoundUp(1 / (std::exp(options.epsilon) + 1));
  } else {
    const double half = std::exp(options.epsilon / 2);
    p = CoinProbability::RoundDown(half / (half + 1));
    q = p.Complement();
  }
  const double implemented = std::log(p.value() / p.Complement().value()) +
                             std::log(q.Complement().value() / q.value());
  if (!(implemented > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unary encoding: epsilon ", options.epsilon,
        " is too small: at 2^-32 coin resolution the report would carry no "
        "signal"));
  }
  // min(): when no rounding happened only the logarithm's last ulp could
  // exceed the requested ε.
  return std::unique_ptr<UnaryEncoding>(
      new UnaryEncoding(options.domain_size, options.variant, p, q,
                        std::min(implemented, options.epsilon)));
}

UnaryEncoding::UnaryEncoding(uint32_t domain_size, UnaryEncodingVariant variant,
                             CoinProbability p, CoinProbability q,
                             double epsilon)
    : domain_size_(domain_size),
      variant_(variant),
      p_(p),
      q_(q),
      epsilon_(epsilon) {}

FrequencyOracleKind UnaryEncoding::kind() const {
  return variant_ == UnaryEncodingVariant::kOptimized
             ? FrequencyOracleKind::kOptimizedUnaryEncoding
             : FrequencyOracleKind::kSymmetricUnaryEncoding;
}

FrequencyReport UnaryEncoding::Randomize(uint32_t item,
                                         absl::BitGenRef gen) const {
  return RandomizeUnary(std::min(item, domain_size_ - 1), domain_size_, p_, q_,
                        gen);
}

double UnaryEncoding::Probability(uint32_t item,
                                  const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  return UnaryReportProbability(std::get<BitVectorReport>(report),
                                std::min(item, domain_size_ - 1), domain_size_,
                                p_.value(), q_.value());
}

absl::Status UnaryEncoding::Validate(const FrequencyReport& report) const {
  return ValidateUnaryReport(report, domain_size_, kind());
}

std::unique_ptr<FrequencyAccumulator> UnaryEncoding::NewAccumulator() const {
  return std::make_unique<UnaryEncodingAccumulator>(
      kind(), domain_size_, PureProtocol{.p = p_.value(), .q = q_.value()},
      epsilon_);
}

BitVectorReport RandomizeUnary(uint32_t item, uint32_t num_bits,
                               CoinProbability p, CoinProbability q,
                               absl::BitGenRef gen) {
  BitVectorReport report;
  report.num_bits = num_bits;
  report.words.resize(UnaryReportWords(num_bits));
  for (uint64_t& word : report.words) word = FlipCoins64(q, gen);
  // Drawn unconditionally and written without a branch on its value.
  const uint64_t truth = FlipCoin(p, gen) ? 1 : 0;
  uint64_t& word = report.words[item / 64];
  const int bit = static_cast<int>(item % 64);
  word = (word & ~(uint64_t{1} << bit)) | (truth << bit);
  report.words.back() &= UnaryReportLastWordMask(num_bits);
  return report;
}

absl::Status ValidateUnaryReport(const FrequencyReport& report,
                                 uint32_t num_bits, FrequencyOracleKind kind) {
  const auto* bits = std::get_if<BitVectorReport>(&report);
  if (bits == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(kind),
                     " reports are BitVectorReport; got report alternative #",
                     report.index()));
  }
  return ValidateUnaryReport(*bits, num_bits, kind);
}

absl::Status ValidateUnaryReport(const BitVectorReport& report,
                                 uint32_t num_bits, FrequencyOracleKind kind) {
  // 0: a legacy stored report (frequency_report.h), checked by its words.
  if (report.num_bits != 0 && report.num_bits != num_bits) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(kind), " report has ", report.num_bits,
                     " bits; this task's reports have exactly ", num_bits));
  }
  if (report.words.size() != UnaryReportWords(num_bits)) {
    return absl::InvalidArgumentError(absl::StrCat(
        KindName(kind), " report has ", report.words.size(), " words; a ",
        num_bits, "-bit report has ", UnaryReportWords(num_bits)));
  }
  if ((report.words.back() & ~UnaryReportLastWordMask(num_bits)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        KindName(kind), " report sets padding bits at or past bit ", num_bits));
  }
  return absl::OkStatus();
}

double UnaryReportProbability(const BitVectorReport& report, uint32_t item,
                              uint32_t num_bits, double p, double q) {
  int64_t ones = 0;
  for (uint64_t word : report.words) ones += std::popcount(word);
  const int64_t truth = (report.words[item / 64] >> (item % 64)) & 1;
  const int64_t other_ones = ones - truth;
  const int64_t other_zeros = (num_bits - 1) - other_ones;
  return (truth ? p : 1 - p) * std::pow(q, static_cast<double>(other_ones)) *
         std::pow(1 - q, static_cast<double>(other_zeros));
}

UnaryEncodingAccumulator::UnaryEncodingAccumulator(FrequencyOracleKind kind,
                                                   uint32_t domain_size,
                                                   PureProtocol protocol,
                                                   double epsilon)
    : kind_(kind),
      domain_size_(domain_size),
      protocol_(protocol),
      epsilon_(epsilon),
      counter_(domain_size) {}

absl::Status UnaryEncodingAccumulator::Add(const FrequencyReport& report) {
  const auto* bits = std::get_if<BitVectorReport>(&report);
  if (bits == nullptr ||
      (bits->num_bits != 0 && bits->num_bits != domain_size_) ||
      bits->words.size() != counter_.num_words() ||
      (bits->words.back() & ~UnaryReportLastWordMask(domain_size_)) != 0) {
    return ValidateUnaryReport(report, domain_size_, kind_);
  }
  counter_.Add(bits->words);
  ++num_reports_;
  return absl::OkStatus();
}

absl::Status UnaryEncodingAccumulator::Merge(
    const FrequencyAccumulator& other) {
  const auto* unary = dynamic_cast<const UnaryEncodingAccumulator*>(&other);
  if (unary == nullptr || unary->kind_ != kind_ ||
      unary->domain_size_ != domain_size_ ||
      unary->protocol_.p != protocol_.p || unary->protocol_.q != protocol_.q) {
    return absl::InvalidArgumentError(
        absl::StrCat(KindName(kind_),
                     ": can only merge an accumulator of the same oracle kind, "
                     "domain_size and epsilon"));
  }
  if (absl::Status status = counter_.Merge(unary->counter_); !status.ok()) {
    return status;
  }
  num_reports_ += unary->num_reports_;
  return absl::OkStatus();
}

AccumulatorState UnaryEncodingAccumulator::State() const {
  return {.num_reports = num_reports_, .counts = counter_.Counts()};
}

absl::Status UnaryEncodingAccumulator::MergeState(
    const AccumulatorState& state) {
  const std::string name = KindName(kind_);
  RETURN_IF_ERROR(
      ValidateStateShape(state, name, {.counts = domain_size_}, num_reports_));
  RETURN_IF_ERROR(ValidateStateRange(state.counts, name, "column sum", 0,
                                     state.num_reports));
  counter_.AddCounts(state.counts);
  num_reports_ += state.num_reports;
  return absl::OkStatus();
}

HistogramEstimate UnaryEncodingAccumulator::Estimate() const {
  return protocol_.Estimate(counter_.Counts(), num_reports_, epsilon_);
}

}  // namespace ldp
