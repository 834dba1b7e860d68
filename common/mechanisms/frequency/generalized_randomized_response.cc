// Generalized randomized response; see generalized_randomized_response.h.
#include "common/mechanisms/frequency/generalized_randomized_response.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/estimation/support_counts.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(
    const GeneralizedRandomizedResponseOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("GRR", options.epsilon,
                                  GeneralizedRandomizedResponse::kMaxEpsilon));
  return ValidateDomainSize("GRR", options.domain_size, 2,
                            GeneralizedRandomizedResponse::kMaxDomainSize);
}

// The support count of GRR is the item count.
class ItemSupportAccumulator : public FrequencyAccumulator {
 public:
  ItemSupportAccumulator(std::string_view mechanism, uint32_t domain_size,
                         PureProtocol protocol, double epsilon)
      : mechanism_(mechanism),
        domain_size_(domain_size),
        protocol_(protocol),
        epsilon_(epsilon),
        support_(domain_size, protocol, epsilon) {}

  absl::Status Add(const FrequencyReport& report) override {
    const auto* item = std::get_if<ItemReport>(&report);
    if (item == nullptr || item->item >= domain_size_) {
      return ValidateItemReport(report, domain_size_, mechanism_);
    }
    support_.AddReport(item->item);
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* o = dynamic_cast<const ItemSupportAccumulator*>(&other);
    if (o == nullptr || o->domain_size_ != domain_size_ ||
        !(o->protocol_ == protocol_) || o->epsilon_ != epsilon_) {
      return absl::InvalidArgumentError(
          absl::StrCat(mechanism_,
                       ": can only merge an accumulator of the same oracle "
                       "(same domain_size and epsilon)"));
    }
    support_.Merge(o->support_);
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return support_.num_reports(); }
  HistogramEstimate Estimate() const override { return support_.Estimate(); }

  // counts: the item counts (domain_size values), summing to num_reports.
  AccumulatorState State() const override { return support_.State(); }
  absl::Status MergeState(const AccumulatorState& state) override {
    return support_.MergeState(state, mechanism_, 1);
  }

 private:
  std::string mechanism_;
  uint32_t domain_size_;
  PureProtocol protocol_;  // with domain_size_ and epsilon_, the merge key
  double epsilon_;
  SupportCounts support_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GeneralizedRandomizedResponse>>
GeneralizedRandomizedResponse::Create(
    const GeneralizedRandomizedResponseOptions& options) {
  if (absl::Status status = ValidateOptions(options); !status.ok()) {
    return status;
  }
  const double e = std::exp(options.epsilon);
  const double others = options.domain_size - 1.0;
  const CoinProbability keep = CoinProbability::RoundDown(e / (e + others));
  const double implemented =
      std::log(keep.value() * others / (1 - keep.value()));
  if (!(implemented > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GRR: epsilon ", options.epsilon, " is too small for domain_size ",
        options.domain_size,
        ": at 2^-32 coin resolution the report would carry no signal"));
  }
  // When p happens to be a multiple of 2^-32 the implemented ε is the
  // requested one, and only the last ulp of the logarithm could exceed it.
  return std::unique_ptr<GeneralizedRandomizedResponse>(
      new GeneralizedRandomizedResponse(
          options.domain_size, keep, std::min(implemented, options.epsilon)));
}

GeneralizedRandomizedResponse::GeneralizedRandomizedResponse(
    uint32_t domain_size, CoinProbability keep, double epsilon)
    : domain_size_(domain_size),
      keep_(keep),
      protocol_{.p = keep.value(),
                .q = keep.Complement().value() / (domain_size - 1.0)},
      epsilon_(epsilon) {}

FrequencyReport GeneralizedRandomizedResponse::Randomize(
    uint32_t item, absl::BitGenRef gen) const {
  return ItemReport{.item = RandomizeGrrSymbol(std::min(item, domain_size_ - 1),
                                               domain_size_, keep_, gen)};
}

double GeneralizedRandomizedResponse::Probability(
    uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const uint32_t v = std::min(item, domain_size_ - 1);
  return std::get<ItemReport>(report).item == v ? protocol_.p : protocol_.q;
}

absl::Status GeneralizedRandomizedResponse::Validate(
    const FrequencyReport& report) const {
  return ValidateItemReport(report, domain_size_, "GRR");
}

std::unique_ptr<FrequencyAccumulator>
GeneralizedRandomizedResponse::NewAccumulator() const {
  return NewItemSupportAccumulator("GRR", domain_size_, protocol_, epsilon_);
}

uint32_t RandomizeGrrSymbol(uint32_t symbol, uint32_t alphabet,
                            CoinProbability keep, absl::BitGenRef gen) {
  const bool kept = FlipCoin(keep, gen);
  auto other = static_cast<uint32_t>(UniformBelow(alphabet - 1, gen));
  other += other >= symbol ? 1 : 0;  // skip the input
  return kept ? symbol : other;
}

double GrrStepEpsilon(uint64_t keep_numerator, uint32_t alphabet) {
  return std::log(static_cast<double>(keep_numerator)) +
         std::log(alphabet - 1.0) -
         std::log(static_cast<double>(CoinProbability::kDenominator -
                                      keep_numerator));
}

absl::Status ValidateItemReport(const FrequencyReport& report,
                                uint32_t domain_size,
                                std::string_view mechanism) {
  const auto* item = std::get_if<ItemReport>(&report);
  if (item == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(mechanism),
                     " reports are ItemReport; got report "
                     "alternative #",
                     report.index()));
  }
  if (item->item >= domain_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(mechanism), " report item ", item->item,
                     " is outside [0, ", domain_size, ")"));
  }
  return absl::OkStatus();
}

std::unique_ptr<FrequencyAccumulator> NewItemSupportAccumulator(
    std::string_view mechanism, uint32_t domain_size, PureProtocol protocol,
    double epsilon) {
  return std::make_unique<ItemSupportAccumulator>(mechanism, domain_size,
                                                  protocol, epsilon);
}

}  // namespace ldp
