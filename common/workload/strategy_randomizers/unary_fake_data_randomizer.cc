// RS+FD[OUE-z] and RS+FD[OUE-r]'s agent half (unary_fake_data_randomizer.h):
// the draw, the exact probability of a report and both privacy figures.
#include "common/workload/strategy_randomizers/unary_fake_data_randomizer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/workload/strategy_randomizers/strategy_shape.h"

namespace ldp {
namespace {

bool Bit(const std::vector<uint64_t>& words, uint32_t i) {
  return ((words[i / 64] >> (i % 64)) & 1) != 0;
}

void SetBit(std::vector<uint64_t>& words, uint32_t i) {
  words[i / 64] |= uint64_t{1} << (i % 64);
}

const char* FormName(const StrategySpec& spec) {
  return spec.kind == StrategyKind::kFakeDataUnaryRandom ? "OUE-r" : "OUE-z";
}

}  // namespace

UnaryFakeDataRandomizer::UnaryFakeDataRandomizer(StrategySpec spec,
                                                 CoinProbability p,
                                                 CoinProbability q)
    : spec_(std::move(spec)), p_(p), q_(q) {
  const std::vector<uint32_t>& sizes = spec_.attribute_sizes;
  place_.assign(sizes.size(), 1);
  for (size_t j = sizes.size() - 1; j-- > 0;) {
    place_[j] = place_[j + 1] * sizes[j + 1];
  }
  offset_.push_back(0);
  for (uint32_t k : sizes) offset_.push_back(offset_.back() + k);
  const double a = p_.value() / q_.value();
  const double b = (1 - p_.value()) / (1 - q_.value());
  // min(): when no rounding happened only the logarithm's last ulp could
  // exceed the requested ε (as UnaryEncoding).
  epsilon_ = std::min(std::log(a / b), spec_.epsilon);
  const double d = num_attributes();
  if (!random_fakes()) {
    attribute_epsilon_ = std::log((a + (d - 1) * b) / (d * b));
    return;
  }
  // Σ_i of the smallest ρ_i, then attribute j's own at t = 1 in its place.
  double smallest = 0;
  for (uint32_t k : sizes) smallest += k * b / ((k - 1) * a + b);
  for (uint32_t k : sizes) {
    const double rest = smallest - k * b / ((k - 1) * a + b);
    const double spread = a + (k - 1) * b;
    attribute_epsilon_ =
        std::max(attribute_epsilon_,
                 std::log((k * a / spread + rest) / (k * b / spread + rest)));
  }
}

double UnaryFakeDataRandomizer::fake_probability(uint32_t j) const {
  if (!random_fakes()) return q();
  const double k = spec_.attribute_sizes[j];
  return (p() + (k - 1) * q()) / k;
}

std::string UnaryFakeDataRandomizer::Describe() const {
  return absl::StrCat("sampling_fake_data d=", num_attributes(), " (",
                      absl::StrJoin(spec_.attribute_sizes, "×"), "), ",
                      FormName(spec_), ", epsilon=", epsilon_,
                      " (per attribute ", attribute_epsilon_, ")");
}

WorkloadReport UnaryFakeDataRandomizer::Randomize(uint32_t item,
                                                  absl::BitGenRef gen) const {
  const uint32_t x = std::min(item, spec_.domain_size - 1);
  const auto j = static_cast<uint32_t>(UniformBelow(num_attributes(), gen));
  // A zero vector is a one-hot vector whose hot bit is drawn with q.
  const CoinProbability fake_hot = random_fakes() ? p_ : q_;
  BitVectorReport report;
  report.num_bits = num_bits();
  report.words.assign(UnaryReportWords(num_bits()), 0);
  for (uint32_t i = 0; i < num_attributes(); ++i) {
    const uint32_t k = spec_.attribute_sizes[i];
    const auto fake_value = static_cast<uint32_t>(UniformBelow(k, gen));
    // Both blocks are always drawn, so the draws do not depend on j or x.
    const BitVectorReport real = RandomizeUnary(Digit(x, i), k, p_, q_, gen);
    const BitVectorReport fake =
        RandomizeUnary(fake_value, k, fake_hot, q_, gen);
    const std::vector<uint64_t>& block = i == j ? real.words : fake.words;
    for (uint32_t v = 0; v < k; ++v) {
      if (Bit(block, v)) SetBit(report.words, offset_[i] + v);
    }
  }
  return WorkloadReport{.group = 0, .inner = std::move(report)};
}

double UnaryFakeDataRandomizer::Probability(
    uint32_t item, const WorkloadReport& report) const {
  if (!Validate(report).ok()) return 0;
  const uint32_t x = std::min(item, spec_.domain_size - 1);
  const std::vector<uint64_t>& words =
      std::get<BitVectorReport>(report.inner).words;
  const double a = p() / q(), b = (1 - p()) / (1 - q());
  // Π_i F_i(y_i) · (1/d)·Σ_j ρ_j(y_j, x_j), with F_i over Z_i, the zero
  // vector's probability: 1 (OUE-z) or (t·a + (k − t)·b)/k (OUE-r).
  double product = 1, sum = 0;
  for (uint32_t i = 0; i < num_attributes(); ++i) {
    const uint32_t k = spec_.attribute_sizes[i];
    uint32_t ones = 0;
    for (uint32_t v = 0; v < k; ++v) ones += Bit(words, offset_[i] + v);
    const double zero_vector =
        std::pow(q(), ones) * std::pow(1 - q(), k - ones);
    const double spread =
        random_fakes() ? (ones * a + (k - ones) * b) / k : 1.0;
    product *= zero_vector * spread;
    sum += (Bit(words, offset_[i] + Digit(x, i)) ? a : b) / spread;
  }
  return product * sum / num_attributes();
}

absl::Status UnaryFakeDataRandomizer::Validate(
    const WorkloadReport& report) const {
  const auto* bits = std::get_if<BitVectorReport>(&report.inner);
  if (report.group != 0 || bits == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("sampling_fake_data ", FormName(spec_),
                     " strategy: a report is group 0 with one bit vector"));
  }
  // A length of 0 is a report stored before lengths were kept, as every
  // unary validator accepts (frequency_report.h).
  const uint32_t k = num_bits();
  if ((bits->num_bits != k && bits->num_bits != 0) ||
      bits->words.size() != UnaryReportWords(k) ||
      (bits->words.back() & ~UnaryReportLastWordMask(k)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sampling_fake_data ", FormName(spec_), " strategy: a report has ", k,
        " bits (one block per attribute) in ", UnaryReportWords(k),
        " words with zero padding; got ", bits->num_bits, " bits in ",
        bits->words.size(), " words"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const UnaryFakeDataRandomizer>>
CreateUnaryFakeDataRandomizer(const StrategySpec& spec) {
  const std::string name =
      absl::StrCat("sampling_fake_data ", FormName(spec), " strategy");
  if (absl::Status s = CheckAttributeSizes(spec, name); !s.ok()) return s;
  if (absl::Status s =
          ValidateEpsilon(name, spec.epsilon, UnaryEncoding::kMaxEpsilon);
      !s.ok()) {
    return s;
  }
  const CoinProbability p = CoinProbability::Half();
  const CoinProbability q =
      CoinProbability::RoundUp(1 / (std::exp(spec.epsilon) + 1));
  if (!(q.value() < p.value())) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": epsilon ", spec.epsilon,
        " is too small: at 2^-32 coin resolution the report would carry no "
        "signal"));
  }
  StrategySpec kept = spec;
  kept.matrix.clear();
  return std::make_shared<const UnaryFakeDataRandomizer>(std::move(kept), p, q);
}

}  // namespace ldp
