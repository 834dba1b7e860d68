// Longitudinal unary encoding (memoized PRR + fresh IRR); see longitudinal.h.
#include "common/mechanisms/longitudinal/longitudinal.h"

#include <algorithm>
#include <variant>

#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

constexpr std::string_view kName = "longitudinal";

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
  ASSIGN_OR_RETURN(
      const UnaryLayers layers,
      UnaryLayers::Solve(kName, options.permanent, options.instantaneous,
                         options.epsilon_permanent, options.epsilon_report,
                         kMaxEpsilon));
  RETURN_IF_ERROR(
      ValidateDomainSize(kName, options.domain_size, 2, kMaxDomainSize));
  return std::unique_ptr<LongitudinalUnaryEncoding>(
      new LongitudinalUnaryEncoding(options.domain_size, layers));
}

FrequencyReport LongitudinalUnaryEncoding::Randomize(
    uint32_t item, absl::BitGenRef gen) const {
  return RandomizeFromMemo(Memoize(item, gen), gen);
}

double LongitudinalUnaryEncoding::Probability(
    uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  // PRR and IRR act bit by bit, so one report's bits are independent with
  // Pr[1] = P at the input and Q elsewhere.
  const PureProtocol one = layers_.composed();
  return UnaryReportProbability(std::get<BitVectorReport>(report),
                                std::min(item, domain_size_ - 1), domain_size_,
                                one.p, one.q);
}

absl::Status LongitudinalUnaryEncoding::Validate(
    const FrequencyReport& report) const {
  return ValidateUnaryReport(report, domain_size_, kind());
}

std::unique_ptr<FrequencyAccumulator>
LongitudinalUnaryEncoding::NewAccumulator() const {
  return std::make_unique<UnaryEncodingAccumulator>(
      kind(), domain_size_, layers_.composed(), epsilon());
}

FrequencyReport LongitudinalUnaryEncoding::Memoize(uint32_t item,
                                                   absl::BitGenRef gen) const {
  return RandomizeUnary(std::min(item, domain_size_ - 1), domain_size_,
                        layers_.permanent().p, layers_.permanent().q, gen);
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
    report.words[w] =
        layers_.DrawReportWord(MemoWord(permanent, w, words, last_mask), gen);
  }
  report.words.back() &= last_mask;
  return report;
}

double LongitudinalUnaryEncoding::MemoProbability(
    uint32_t item, const FrequencyReport& memo) const {
  if (!ValidateMemo(memo).ok()) return 0;
  return UnaryReportProbability(std::get<BitVectorReport>(memo),
                                std::min(item, domain_size_ - 1), domain_size_,
                                p1(), q1());
}

double LongitudinalUnaryEncoding::ProbabilityFromMemo(
    const FrequencyReport& memo, const FrequencyReport& report) const {
  if (!ValidateMemo(memo).ok() || !Validate(report).ok()) return 0;
  return layers_.ReportProbability(std::get<BitVectorReport>(memo).words,
                                   std::get<BitVectorReport>(report).words,
                                   domain_size_);
}

}  // namespace ldp
