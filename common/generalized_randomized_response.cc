// Generalized randomized response; see generalized_randomized_response.h.
#include "common/generalized_randomized_response.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/support_counts.h"
#include "common/validation.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(
    const GeneralizedRandomizedResponseOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("GRR", options.epsilon,
                                  GeneralizedRandomizedResponse::kMaxEpsilon));
  return ValidateDomainSize("GRR", options.domain_size, 2,
                            GeneralizedRandomizedResponse::kMaxDomainSize);
}

absl::Status ValidateItemReport(const FrequencyReport& report,
                                uint32_t domain_size) {
  const auto* item = std::get_if<ItemReport>(&report);
  if (item == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("GRR reports are ItemReport; got report alternative #",
                     report.index()));
  }
  if (item->item >= domain_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GRR report item ", item->item, " is outside [0, ", domain_size, ")"));
  }
  return absl::OkStatus();
}

// The support count of GRR is the item count.
class GrrAccumulator : public FrequencyAccumulator {
 public:
  GrrAccumulator(uint32_t domain_size, uint64_t keep_numerator,
                 PureProtocol protocol, double epsilon)
      : domain_size_(domain_size),
        keep_numerator_(keep_numerator),
        support_(domain_size, protocol, epsilon) {}

  absl::Status Add(const FrequencyReport& report) override {
    const auto* item = std::get_if<ItemReport>(&report);
    if (item == nullptr || item->item >= domain_size_) {
      return ValidateItemReport(report, domain_size_);
    }
    support_.AddReport(item->item);
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* grr = dynamic_cast<const GrrAccumulator*>(&other);
    if (grr == nullptr || grr->domain_size_ != domain_size_ ||
        grr->keep_numerator_ != keep_numerator_) {
      return absl::InvalidArgumentError(
          "GRR: can only merge an accumulator of a GRR oracle with the same "
          "domain_size and epsilon");
    }
    support_.Merge(grr->support_);
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return support_.num_reports(); }
  HistogramEstimate Estimate() const override { return support_.Estimate(); }

 private:
  uint32_t domain_size_;
  uint64_t keep_numerator_;  // with domain_size_, the merge key
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
  const uint32_t v = std::min(item, domain_size_ - 1);
  // Both draws happen every time, so timing cannot reveal whether the
  // report is the true item.
  const bool keep = FlipCoin(keep_, gen);
  uint32_t other = static_cast<uint32_t>(UniformBelow(domain_size_ - 1, gen));
  other += other >= v ? 1 : 0;  // skip the true item
  return ItemReport{.item = keep ? v : other};
}

double GeneralizedRandomizedResponse::Probability(
    uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const uint32_t v = std::min(item, domain_size_ - 1);
  return std::get<ItemReport>(report).item == v ? protocol_.p : protocol_.q;
}

absl::Status GeneralizedRandomizedResponse::Validate(
    const FrequencyReport& report) const {
  return ValidateItemReport(report, domain_size_);
}

std::unique_ptr<FrequencyAccumulator>
GeneralizedRandomizedResponse::NewAccumulator() const {
  return std::make_unique<GrrAccumulator>(domain_size_, keep_.numerator(),
                                          protocol_, epsilon_);
}

}  // namespace ldp
