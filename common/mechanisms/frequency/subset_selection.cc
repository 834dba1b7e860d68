// k-subset selection; see subset_selection.h.
#include "common/mechanisms/frequency/subset_selection.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/estimation/support_counts.h"

namespace ldp {
namespace {

absl::Status ValidateOptions(const SubsetSelectionOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("subset selection", options.epsilon,
                                  SubsetSelection::kMaxEpsilon));
  RETURN_IF_ERROR(ValidateDomainSize("subset selection", options.domain_size, 2,
                                     SubsetSelection::kMaxDomainSize));
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

// A uniform `count`-subset of [0, others) as bits. Every position first
// joins independently with a coin near count/others (bit-sliced, a few draws
// per 64 positions); then uniform members leave, or uniform non-members join,
// until exactly `count` remain. The Bernoulli set given its size is a uniform
// subset of that size, and removing a uniform member of (or adding a uniform
// non-member to) a uniform subset keeps it uniform, so the result is an
// exactly uniform count-subset whatever coin is used; the coin only sets how
// many fix-ups are needed (about √others). Draws depend on nothing but the
// random bits. Unlike Floyd's algorithm, the bulk has no step-to-step memory
// dependency, which made Floyd's 275 steps cost ~1.2 µs at N = 1024.
void SampleUniformSubset(uint32_t others, uint32_t count,
                         std::vector<uint64_t>& bits, absl::BitGenRef gen) {
  // Six bits of the coin are plenty: the fix-ups absorb the rounding.
  const uint64_t sixty_fourths =
      std::clamp<uint64_t>((uint64_t{count} * 64 + others / 2) / others, 1, 63);
  const CoinProbability coin = CoinProbability::FromNumerator(
      sixty_fourths << (CoinProbability::kBits - 6));
  uint32_t members = 0;
  for (size_t w = 0; w < bits.size(); ++w) {
    // Positions 64w … 64w + 63 that exist (the last word may hold none).
    const uint64_t valid = others > 64 * w ? others - 64 * w : 0;
    const uint64_t mask =
        valid >= 64 ? ~uint64_t{0} : (uint64_t{1} << valid) - 1;
    bits[w] = FlipCoins64(coin, gen) & mask;
    members += static_cast<uint32_t>(std::popcount(bits[w]));
  }
  SmallUniformSampler uniform(gen);
  for (; members > count; --members) {
    ClearBit(bits, SelectBit(bits, uniform.Below(members)));
  }
  while (members < count) {
    const uint32_t t = uniform.Below(others);
    if (!TestBit(bits, t)) {
      SetBit(bits, t);
      ++members;
    }
  }
}

// Shifts every bit at position ≥ pos up by one and puts `bit` at pos: turns
// a subset of the N − 1 items other than v into a subset of [N]. Every word
// is rewritten by masks, whatever pos is, so the work does not reveal the
// item (DESIGN invariant 8).
void InsertBit(std::vector<uint64_t>& bits, uint32_t pos, bool bit) {
  const uint64_t word = pos / 64;
  const uint64_t low = (uint64_t{1} << (pos % 64)) - 1;
  uint64_t carry = 0;  // top bit of the previous word, if it moved
  for (uint64_t w = 0; w < bits.size(); ++w) {
    const uint64_t above = 0 - uint64_t{w > word};
    const uint64_t at = 0 - uint64_t{w == word};
    // Positions ≥ pos within this word.
    const uint64_t moving = above | (at & ~low);
    const uint64_t old = bits[w];
    const uint64_t inserted = at & (uint64_t{bit} << (pos % 64));
    bits[w] =
        (old & ~moving) | ((old & moving) << 1) | (carry & above) | inserted;
    carry = (old & moving) >> 63;
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

// Each report supports its k items.
class SubsetAccumulator : public FrequencyAccumulator {
 public:
  SubsetAccumulator(uint32_t domain_size, uint32_t subset_size,
                    uint64_t include_numerator, PureProtocol protocol,
                    double epsilon)
      : domain_size_(domain_size),
        subset_size_(subset_size),
        include_numerator_(include_numerator),
        support_(domain_size, protocol, epsilon) {}

  absl::Status Add(const FrequencyReport& report) override {
    if (absl::Status status =
            ValidateSubsetReport(report, domain_size_, subset_size_);
        !status.ok()) {
      return status;
    }
    support_.AddReport(std::get<SubsetReport>(report).items);
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
    support_.Merge(subset->support_);
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return support_.num_reports(); }
  HistogramEstimate Estimate() const override { return support_.Estimate(); }

  // counts: the support counts (domain_size values), summing to
  // subset_size · num_reports.
  AccumulatorState State() const override { return support_.State(); }
  absl::Status MergeState(const AccumulatorState& state) override {
    return support_.MergeState(state, "subset selection", subset_size_);
  }

 private:
  // The merge key.
  uint32_t domain_size_;
  uint32_t subset_size_;
  uint64_t include_numerator_;
  SupportCounts support_;
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
  protocol_ = {
      .p = p,
      .q = p * (subset_size - 1) / others + (1 - p) * subset_size / others};
  // C(N−1, k−1) = C(N−1, k) · k / (N − k).
  const double log_out = LogBinomial(domain_size - 1, subset_size);
  const double log_in = log_out + std::log(static_cast<double>(subset_size) /
                                           (domain_size - subset_size));
  subset_probability_in_ = std::exp(std::log(p) - log_in);
  subset_probability_out_ = std::exp(std::log1p(-p) - log_out);
}

FrequencyReport SubsetSelection::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  const uint32_t v = std::min(item, domain_size_ - 1);
  std::vector<uint64_t> chosen((domain_size_ + 63) / 64, 0);
  SampleUniformSubset(domain_size_ - 1, subset_size_, chosen, gen);
  // Dropping a uniform member of a uniform k-subset of the others leaves a
  // uniform (k−1)-subset; the true item takes its place with probability
  // p_in, else the member stays. Both are chosen among the others, before v
  // is inserted, so neither the draws nor the work depend on v.
  const uint32_t dropped = SelectBit(chosen, UniformBelow(subset_size_, gen));
  const bool include = FlipCoin(include_, gen);
  chosen[dropped / 64] &= ~(uint64_t{include} << (dropped % 64));
  InsertBit(chosen, v, include);

  SubsetReport report;
  report.items.resize(subset_size_);
  uint32_t* out = report.items.data();
  for (size_t w = 0; w < chosen.size(); ++w) {
    for (uint64_t bits = chosen[w]; bits != 0; bits &= bits - 1) {
      *out++ = static_cast<uint32_t>(w * 64 + std::countr_zero(bits));
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

}  // namespace ldp
