// k-subset selection; see subset_selection.h.
#include "common/subset_selection.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(const SubsetSelectionOptions& options) {
  constexpr double kMaxEpsilon = SubsetSelection::kMaxEpsilon;
  if (!std::isfinite(options.epsilon) || options.epsilon <= 0 ||
      options.epsilon > kMaxEpsilon) {
    return absl::InvalidArgumentError(
        absl::StrCat("subset selection: epsilon must be finite and in (0, ",
                     kMaxEpsilon, "], got ", options.epsilon));
  }
  constexpr uint32_t kMaxDomainSize = SubsetSelection::kMaxDomainSize;
  if (options.domain_size < 2 || options.domain_size > kMaxDomainSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("subset selection: domain_size must be in [2, ",
                     kMaxDomainSize, "], got ", options.domain_size));
  }
  if (options.subset_size >= options.domain_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "subset selection: subset_size must be in [1, domain_size - 1] = [1, ",
        options.domain_size - 1, "] (or 0 for the default), got ",
        options.subset_size));
  }
  return absl::OkStatus();
}

uint32_t DefaultSubsetSize(double epsilon, uint32_t domain_size) {
  const double k = std::round(domain_size / (std::exp(epsilon) + 1));
  return static_cast<uint32_t>(std::max(1.0, k));
}

// ln C(n, k), summing min(k, n − k) logarithms; std::lgamma would be shorter
// but writes the global `signgam`, a data race when oracles are created
// concurrently.
double LogBinomial(uint32_t n, uint32_t k) {
  const uint32_t m = std::min(k, n - k);
  double sum = 0;
  for (uint32_t i = 1; i <= m; ++i) {
    sum += std::log(static_cast<double>(n - m + i) / i);
  }
  return sum;
}

bool TestBit(const std::vector<uint64_t>& bits, uint32_t i) {
  return (bits[i / 64] >> (i % 64)) & 1;
}
void SetBit(std::vector<uint64_t>& bits, uint32_t i) {
  bits[i / 64] |= uint64_t{1} << (i % 64);
}
void ClearBit(std::vector<uint64_t>& bits, uint32_t i) {
  bits[i / 64] &= ~(uint64_t{1} << (i % 64));
}

// The i-th of the items other than v, in increasing order.
uint32_t SkipItem(uint32_t i, uint32_t v) { return i + (i >= v ? 1 : 0); }

// Floyd's algorithm: `count` distinct items of [N] \ {v}, uniformly, set in
// `chosen` (N bits, initially zero). Step j needs t uniform in [0, j + 1).
// One x = UniformBelow(r_1 ⋯ r_m) is uniform over the product of the ranges,
// so its mixed-radix digits are m independent uniform steps. Packing
// kStepsPerDraw steps (while the product fits 32 bits) cuts the draws, at
// the price of divisions. The draws depend only on N and count.
#ifndef FREQ1_STEPS
#define FREQ1_STEPS 3
#endif
void SampleOthers(uint32_t v, uint32_t domain_size, uint32_t count,
                  std::vector<uint64_t>& chosen, absl::BitGenRef gen) {
  constexpr int kStepsPerDraw = FREQ1_STEPS;
  const uint32_t others = domain_size - 1;
  for (uint32_t j = others - count; j < others;) {
    uint64_t product = j + 1;
    int steps = 1;
    while (steps < kStepsPerDraw && j + steps < others &&
           product * (j + steps + 1) <= uint64_t{UINT32_MAX}) {
      product *= j + steps + 1;
      ++steps;
    }
    uint32_t digits = static_cast<uint32_t>(UniformBelow(product, gen));
    for (int i = 0; i < steps; ++i, ++j) {
      const uint32_t t = i + 1 == steps ? digits : digits % (j + 1);
      digits /= j + 1;
      SetBit(chosen, SkipItem(TestBit(chosen, SkipItem(t, v)) ? j : t, v));
    }
  }
}

// Position of the r-th (0-based) set bit; r < popcount(bits).
uint32_t SelectBit(const std::vector<uint64_t>& bits, uint64_t r) {
  for (size_t w = 0;; ++w) {
    uint64_t word = bits[w];
    const uint64_t ones = std::popcount(word);
    if (r < ones) {
      for (; r > 0; --r) word &= word - 1;
      return static_cast<uint32_t>(w * 64 + std::countr_zero(word));
    }
    r -= ones;
  }
}

absl::Status ValidateSubsetReport(const FrequencyReport& report,
                                  uint32_t domain_size, uint32_t subset_size) {
  const auto* subset = std::get_if<SubsetReport>(&report);
  if (subset == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "subset selection reports are SubsetReport; got report alternative #",
        report.index()));
  }
  if (subset->items.size() != subset_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("subset selection report has ", subset->items.size(),
                     " items; expected exactly ", subset_size));
  }
  for (size_t i = 0; i < subset->items.size(); ++i) {
    if (subset->items[i] >= domain_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("subset selection report item ", subset->items[i],
                       " is outside [0, ", domain_size, ")"));
    }
    if (i > 0 && subset->items[i] <= subset->items[i - 1]) {
      return absl::InvalidArgumentError(
          "subset selection report items must be strictly increasing");
    }
  }
  return absl::OkStatus();
}

// One int64 count per item; each report supports its k items.
class SubsetAccumulator : public FrequencyAccumulator {
 public:
  SubsetAccumulator(uint32_t domain_size, uint32_t subset_size,
                    uint64_t include_numerator, PureProtocol protocol,
                    double epsilon)
      : domain_size_(domain_size),
        subset_size_(subset_size),
        include_numerator_(include_numerator),
        protocol_(protocol),
        epsilon_(epsilon),
        counts_(domain_size, 0) {}

  absl::Status Add(const FrequencyReport& report) override {
    if (absl::Status status =
            ValidateSubsetReport(report, domain_size_, subset_size_);
        !status.ok()) {
      return status;
    }
    for (uint32_t item : std::get<SubsetReport>(report).items) ++counts_[item];
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* subset = dynamic_cast<const SubsetAccumulator*>(&other);
    if (subset == nullptr || subset->domain_size_ != domain_size_ ||
        subset->subset_size_ != subset_size_ ||
        subset->include_numerator_ != include_numerator_) {
      return absl::InvalidArgumentError(
          "subset selection: can only merge an accumulator of a subset "
          "selection oracle with the same domain_size, subset_size and "
          "epsilon");
    }
    for (uint32_t v = 0; v < domain_size_; ++v) counts_[v] += subset->counts_[v];
    num_reports_ += subset->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  HistogramEstimate Estimate() const override {
    return protocol_.Estimate(counts_, num_reports_, epsilon_);
  }

 private:
  uint32_t domain_size_;
  uint32_t subset_size_;
  uint64_t include_numerator_;
  PureProtocol protocol_;
  double epsilon_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SubsetSelection>> SubsetSelection::Create(
    const SubsetSelectionOptions& options) {
  if (absl::Status status = ValidateOptions(options); !status.ok()) {
    return status;
  }
  const uint32_t n = options.domain_size;
  const uint32_t k = options.subset_size != 0
                         ? options.subset_size
                         : DefaultSubsetSize(options.epsilon, n);
  const double weight = k * std::exp(options.epsilon);
  const CoinProbability include =
      CoinProbability::RoundDown(weight / (weight + (n - k)));
  const double implemented =
      std::log(include.value() / include.Complement().value()) +
      std::log(static_cast<double>(n - k) / k);
  if (!(implemented > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "subset selection: epsilon ", options.epsilon,
        " is too small for domain_size ", n, " and subset_size ", k,
        ": at 2^-32 coin resolution the report would carry no signal"));
  }
  // min(): when no rounding happened only the logarithm's last ulp could
  // exceed the requested ε.
  return std::unique_ptr<SubsetSelection>(new SubsetSelection(
      n, k, include, std::min(implemented, options.epsilon)));
}

SubsetSelection::SubsetSelection(uint32_t domain_size, uint32_t subset_size,
                                 CoinProbability include, double epsilon)
    : domain_size_(domain_size),
      subset_size_(subset_size),
      include_(include),
      epsilon_(epsilon) {
  const double p = include.value();
  const double others = domain_size - 1.0;
  protocol_ = {.p = p,
               .q = p * (subset_size - 1) / others +
                    (1 - p) * subset_size / others};
  // C(N−1, k−1) = C(N−1, k) · k / (N − k).
  const double log_out = LogBinomial(domain_size - 1, subset_size);
  const double log_in =
      log_out + std::log(static_cast<double>(subset_size) /
                         (domain_size - subset_size));
  subset_probability_in_ = std::exp(std::log(p) - log_in);
  subset_probability_out_ = std::exp(std::log1p(-p) - log_out);
}

FrequencyReport SubsetSelection::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  const uint32_t v = std::min(item, domain_size_ - 1);
  const uint32_t others = domain_size_ - 1;
  std::vector<uint64_t> chosen((domain_size_ + 63) / 64, 0);
  // Sample k uniform others, or their complement when that is smaller.
  if (subset_size_ <= others / 2) {
    SampleOthers(v, domain_size_, subset_size_, chosen, gen);
  } else {
    SampleOthers(v, domain_size_, others - subset_size_, chosen, gen);
    for (uint64_t& word : chosen) word = ~word;
    if (domain_size_ % 64 != 0) {
      chosen.back() &= (uint64_t{1} << (domain_size_ % 64)) - 1;
    }
    ClearBit(chosen, v);
  }
  // Dropping a uniform member of a uniform k-subset of the others leaves a
  // uniform (k−1)-subset; the true item takes its place with probability
  // p_in. The dropped member is put back otherwise, so the work and the
  // number of draws are the same either way.
  const uint32_t dropped = SelectBit(chosen, UniformBelow(subset_size_, gen));
  const bool include = FlipCoin(include_, gen);
  ClearBit(chosen, dropped);
  SetBit(chosen, include ? v : dropped);

  SubsetReport report;
  report.items.reserve(subset_size_);
  for (size_t w = 0; w < chosen.size(); ++w) {
    for (uint64_t bits = chosen[w]; bits != 0; bits &= bits - 1) {
      report.items.push_back(
          static_cast<uint32_t>(w * 64 + std::countr_zero(bits)));
    }
  }
  return report;
}

double SubsetSelection::Probability(uint32_t item,
                                    const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const uint32_t v = std::min(item, domain_size_ - 1);
  const std::vector<uint32_t>& items = std::get<SubsetReport>(report).items;
  return std::binary_search(items.begin(), items.end(), v)
             ? subset_probability_in_
             : subset_probability_out_;
}

absl::Status SubsetSelection::Validate(const FrequencyReport& report) const {
  return ValidateSubsetReport(report, domain_size_, subset_size_);
}

std::unique_ptr<FrequencyAccumulator> SubsetSelection::NewAccumulator() const {
  return std::make_unique<SubsetAccumulator>(
      domain_size_, subset_size_, include_.numerator(), protocol_, epsilon_);
}

double SubsetSelection::Variance(double frequency, int64_t num_reports) const {
  return protocol_.Variance(frequency, num_reports);
}

}  // namespace ldp
