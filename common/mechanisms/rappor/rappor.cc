// RAPPOR's client side and its exact probabilities; see rappor.h.
#include "common/mechanisms/rappor/rappor.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "common/mechanisms/rappor/rappor_decoder.h"

namespace ldp {
namespace {

constexpr std::string_view kRapporName = "rappor";

uint32_t OrDefault(uint32_t value, uint32_t fallback) {
  return value == 0 ? fallback : value;
}

absl::Status CheckShape(uint32_t domain_size, const RapporBloom& bloom) {
  if (domain_size != Rappor::kOpenDomainSize) {
    RETURN_IF_ERROR(ValidateDomainSize(kRapporName, domain_size, 2,
                                       Rappor::kMaxDomainSize,
                                       "or exactly 2^31 for an open domain"));
  }
  if (bloom.num_bits() > RapporBloom::kMaxBits ||
      bloom.num_hashes() > RapporBloom::kMaxHashes ||
      bloom.num_cohorts() > RapporBloom::kMaxCohorts) {
    return absl::InvalidArgumentError(
        absl::StrCat("rappor: num_bits must be at most ", RapporBloom::kMaxBits,
                     ", num_hashes at most ", RapporBloom::kMaxHashes,
                     " and num_cohorts at most ", RapporBloom::kMaxCohorts));
  }
  if (domain_size != Rappor::kOpenDomainSize &&
      uint64_t{bloom.num_bits()} * bloom.num_cohorts() < domain_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor: the server cannot tell ", domain_size, " items apart with ",
        bloom.num_cohorts(), " cohorts of ", bloom.num_bits(),
        " bits; raise num_cohorts or num_bits so that their product is at "
        "least the domain size"));
  }
  return absl::OkStatus();
}

// `memo` as a well-formed filter: SketchReport, cohort < C, k bits.
SketchReport NormalizedMemo(const RapporBloom& bloom,
                            const FrequencyReport& memo) {
  SketchReport out;
  if (const auto* sketch = std::get_if<SketchReport>(&memo)) out = *sketch;
  out.row = std::min(out.row, bloom.num_cohorts() - 1);
  out.column = 0;
  out.num_bits = bloom.num_bits();
  out.bits.resize(bloom.num_words(), 0);
  if (const uint32_t used = bloom.num_bits() % 64; used != 0) {
    out.bits.back() &= (uint64_t{1} << used) - 1;
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Rappor>> Rappor::Create(
    const RapporOptions& options) {
  const RapporBloom bloom(OrDefault(options.num_bits, kDefaultBits),
                          OrDefault(options.num_hashes, kDefaultHashes),
                          OrDefault(options.num_cohorts, kDefaultCohorts),
                          options.hash_seed);
  RETURN_IF_ERROR(CheckShape(options.domain_size, bloom));
  RETURN_IF_ERROR(ValidateEpsilonField(kRapporName, "epsilon_permanent",
                                       options.epsilon_permanent, kMaxEpsilon));
  if (!std::isfinite(options.epsilon_report) || options.epsilon_report <= 0 ||
      options.epsilon_report >= options.epsilon_permanent) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rappor: epsilon_report must be finite and in (0, epsilon_permanent) "
        "= (0, ",
        options.epsilon_permanent, "), got ", options.epsilon_report));
  }
  const double h = bloom.num_hashes();
  ASSIGN_OR_RETURN(
      const UnaryLayers layers,
      UnaryLayers::Solve(kRapporName, options.permanent, options.instantaneous,
                         options.epsilon_permanent / h,
                         options.epsilon_report / h, kMaxEpsilon));
  return std::unique_ptr<Rappor>(
      new Rappor(options.domain_size, bloom, layers));
}

FrequencyReport Rappor::Randomize(uint32_t item, absl::BitGenRef gen) const {
  return RandomizeFromMemo(Memoize(item, gen), gen);
}

double Rappor::FilterProbability(uint32_t item, const SketchReport& report,
                                 double p, double q) const {
  const std::vector<uint64_t> filter = bloom_.Filter(report.row, Clamp(item));
  int64_t on_one = 0, on_zero = 0;  // report ones on / off the filter
  int64_t filter_bits = 0;
  for (size_t w = 0; w < filter.size(); ++w) {
    on_one += std::popcount(report.bits[w] & filter[w]);
    on_zero += std::popcount(report.bits[w] & ~filter[w]);
    filter_bits += std::popcount(filter[w]);
  }
  const int64_t off_bits = bloom_.num_bits() - filter_bits;
  return std::pow(p, on_one) * std::pow(1 - p, filter_bits - on_one) *
         std::pow(q, on_zero) * std::pow(1 - q, off_bits - on_zero);
}

double Rappor::Probability(uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const PureProtocol one = layers_.composed();
  return FilterProbability(item, std::get<SketchReport>(report), one.p, one.q);
}

absl::Status Rappor::Validate(const FrequencyReport& report) const {
  return bloom_.ValidateReport(report);
}

std::unique_ptr<FrequencyAccumulator> Rappor::NewAccumulator() const {
  return std::make_unique<RapporAccumulator>(domain_size_, bloom_,
                                             layers_.composed(), epsilon());
}

double Rappor::Variance(double frequency, int64_t num_reports) const {
  if (num_reports <= 0) return std::numeric_limits<double>::infinity();
  absl::call_once(mean_inverse_once_, [this] {
    if (open_domain()) {
      // Each item sets about h bits in each of the C cohorts; a handful of
      // candidates among C·k bits are nearly orthogonal.
      mean_inverse_diagonal_ =
          1.0 /
          (static_cast<double>(bloom_.num_cohorts()) * bloom_.num_hashes());
      return;
    }
    std::vector<uint32_t> items(domain_size_);
    std::iota(items.begin(), items.end(), 0);
    const absl::StatusOr<double> mean =
        RapporDecoder(bloom_, layers_.composed())
            .MeanInverseGramDiagonal(items);
    mean_inverse_diagonal_ =
        mean.ok() ? *mean : std::numeric_limits<double>::infinity();
  });
  const auto [v0, v1] = BitNoise(layers_.composed());
  const double background =
      static_cast<double>(bloom_.num_hashes()) / bloom_.num_bits();
  return (bloom_.num_cohorts() * mean_inverse_diagonal_ *
              (v0 + v1 * background) +
          v1 * frequency) /
         static_cast<double>(num_reports);
}

FrequencyReport Rappor::Memoize(uint32_t item, absl::BitGenRef gen) const {
  SketchReport memo;
  memo.row = static_cast<uint32_t>(UniformBelow(bloom_.num_cohorts(), gen));
  memo.num_bits = bloom_.num_bits();
  memo.bits = bloom_.Filter(memo.row, Clamp(item));
  const BitCoins prr = layers_.permanent();
  for (uint64_t& word : memo.bits) {
    // Both coin sets for every word, so the draws never depend on the item.
    const uint64_t keep = FlipCoins64(prr.p, gen);
    const uint64_t set = FlipCoins64(prr.q, gen);
    word = (word & keep) | (~word & set);
  }
  if (const uint32_t used = bloom_.num_bits() % 64; used != 0) {
    memo.bits.back() &= (uint64_t{1} << used) - 1;
  }
  return memo;
}

absl::Status Rappor::ValidateMemo(const FrequencyReport& memo) const {
  return bloom_.ValidateReport(memo);
}

FrequencyReport Rappor::RandomizeFromMemo(const FrequencyReport& memo,
                                          absl::BitGenRef gen) const {
  SketchReport report = NormalizedMemo(bloom_, memo);
  for (uint64_t& word : report.bits) word = layers_.DrawReportWord(word, gen);
  if (const uint32_t used = bloom_.num_bits() % 64; used != 0) {
    report.bits.back() &= (uint64_t{1} << used) - 1;
  }
  return report;
}

double Rappor::MemoProbability(uint32_t item,
                               const FrequencyReport& memo) const {
  if (!ValidateMemo(memo).ok()) return 0;
  const BitCoins prr = layers_.permanent();
  return FilterProbability(item, std::get<SketchReport>(memo), prr.p.value(),
                           prr.q.value());
}

double Rappor::ProbabilityFromMemo(const FrequencyReport& memo,
                                   const FrequencyReport& report) const {
  if (!ValidateMemo(memo).ok() || !Validate(report).ok()) return 0;
  const auto& from = std::get<SketchReport>(memo);
  const auto& to = std::get<SketchReport>(report);
  if (from.row != to.row) return 0;
  return layers_.ReportProbability(from.bits, to.bits, bloom_.num_bits());
}

}  // namespace ldp
