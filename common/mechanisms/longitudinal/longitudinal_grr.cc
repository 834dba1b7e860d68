// L-GRR: memoized GRR, then fresh GRR of the memo; see longitudinal_grr.h.
#include "common/mechanisms/longitudinal/longitudinal_grr.h"

#include <variant>

#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"

namespace ldp {
namespace {

constexpr char kLgrrName[] = "L-GRR";

uint32_t LgrrItem(const FrequencyReport& report) {
  const auto* item = std::get_if<ItemReport>(&report);
  return item == nullptr ? 0 : item->item;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LongitudinalGrr>> LongitudinalGrr::Create(
    const LongitudinalGrrOptions& options) {
  RETURN_IF_ERROR(
      ValidateDomainSize(kLgrrName, options.domain_size, 2, kMaxDomainSize));
  ASSIGN_OR_RETURN(GrrLayers layers,
                   GrrLayers::Solve(kLgrrName, options.domain_size,
                                    options.epsilon_permanent,
                                    options.epsilon_report, kMaxEpsilon));
  return std::unique_ptr<LongitudinalGrr>(new LongitudinalGrr(layers));
}

FrequencyReport LongitudinalGrr::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  return RandomizeFromMemo(Memoize(item, gen), gen);
}

double LongitudinalGrr::Probability(uint32_t item,
                                    const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  return layers_.Probability(Clamp(item), LgrrItem(report));
}

absl::Status LongitudinalGrr::Validate(const FrequencyReport& report) const {
  return ValidateItemReport(report, domain_size(), kLgrrName);
}

std::unique_ptr<FrequencyAccumulator> LongitudinalGrr::NewAccumulator() const {
  return NewItemSupportAccumulator(kLgrrName, domain_size(), protocol(),
                                   epsilon());
}

FrequencyReport LongitudinalGrr::Memoize(uint32_t item,
                                         absl::BitGenRef gen) const {
  return ItemReport{.item = layers_.DrawPermanent(Clamp(item), gen)};
}

absl::Status LongitudinalGrr::ValidateMemo(const FrequencyReport& memo) const {
  return ValidateItemReport(memo, domain_size(), "L-GRR memo");
}

FrequencyReport LongitudinalGrr::RandomizeFromMemo(const FrequencyReport& memo,
                                                   absl::BitGenRef gen) const {
  return ItemReport{.item = layers_.DrawReport(Clamp(LgrrItem(memo)), gen)};
}

double LongitudinalGrr::MemoProbability(uint32_t item,
                                        const FrequencyReport& memo) const {
  if (!ValidateMemo(memo).ok()) return 0;
  return layers_.PermanentProbability(Clamp(item), LgrrItem(memo));
}

double LongitudinalGrr::ProbabilityFromMemo(
    const FrequencyReport& memo, const FrequencyReport& report) const {
  if (!ValidateMemo(memo).ok() || !Validate(report).ok()) return 0;
  return layers_.ReportProbability(LgrrItem(memo), LgrrItem(report));
}

}  // namespace ldp
