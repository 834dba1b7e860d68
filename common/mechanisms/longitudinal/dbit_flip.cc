// dBitFlipPM client, exact likelihoods and estimator; see dbit_flip.h.
#include "common/mechanisms/longitudinal/dbit_flip.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/pairwise_hash.h"

namespace ldp {
namespace {

constexpr char kDBitName[] = "dBitFlipPM";

// Everything the estimator needs; equal keys mean mergeable accumulators.
struct DBitParams {
  uint32_t domain_size = 0;
  uint32_t sampled_buckets = 0;
  CoinProbability keep = CoinProbability::Half();
  friend bool operator==(const DBitParams&, const DBitParams&) = default;
};

// Bits 0 … d − 1 (d ≤ 32, so the shift never reaches 64).
uint64_t LowBits(uint32_t d) { return (uint64_t{1} << d) - 1; }

// ln(p/q) for p = k/2^32 and q = 1 − p, from the integers.
double BitLogRatio(uint64_t k) {
  return std::log(static_cast<double>(k)) -
         std::log(static_cast<double>(CoinProbability::kDenominator - k));
}

absl::StatusOr<uint32_t> ChooseSampledBuckets(const DBitFlipOptions& options) {
  const uint32_t max_d =
      std::min(options.domain_size, DBitFlip::kMaxSampledBuckets);
  if (options.sampled_buckets == 0) return max_d;
  if (options.sampled_buckets > max_d) {
    return absl::InvalidArgumentError(absl::StrCat(
        kDBitName,
        ": sampled_buckets must be 0 (default min(domain_size, 32)) or in "
        "[1, ",
        max_d, "] for domain_size ", options.domain_size, ", got ",
        options.sampled_buckets));
  }
  return options.sampled_buckets;
}

absl::Status ValidateDBitReport(const FrequencyReport& report, uint32_t d) {
  const auto* r = std::get_if<HashedReport>(&report);
  if (r == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        kDBitName, ": reports are HashedReport (a seed and ", d,
        " bits in bucket); got report alternative #", report.index()));
  }
  if ((r->bucket & ~LowBits(d)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kDBitName, ": report bits 0x", absl::Hex(r->bucket),
                     " set bits past sampled_buckets d = ", d));
  }
  return absl::OkStatus();
}

// Bit i set iff s_i = v: the bits that carry the item. No branch on v.
uint64_t ItemMask(const DBitFlip::Buckets& sampled, uint32_t v) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < sampled.size; ++i) {
    mask |= uint64_t{sampled.items[i] == v} << i;
  }
  return mask;
}

double DBitVariance(const DBitParams& params, double frequency,
                    int64_t num_reports) {
  if (num_reports <= 0) return std::numeric_limits<double>::infinity();
  const double p = params.keep.value();
  const double q = params.keep.Complement().value();
  const double spread =
      static_cast<double>(params.domain_size) / params.sampled_buckets;
  return (spread * p * q / ((p - q) * (p - q)) + frequency * (spread - 1)) /
         static_cast<double>(num_reports);
}

// Per bucket v: m_v (reports whose S holds v) and c_v (those with v's bit 1).
class DBitFlipAccumulator final : public FrequencyAccumulator {
 public:
  DBitFlipAccumulator(const DBitParams& params, double epsilon)
      : params_(params),
        epsilon_(epsilon),
        sampled_(params.domain_size, 0),
        ones_(params.domain_size, 0) {}

  absl::Status Add(const FrequencyReport& report) override {
    RETURN_IF_ERROR(ValidateDBitReport(report, params_.sampled_buckets));
    const auto& r = std::get<HashedReport>(report);
    const DBitFlip::Buckets sampled = DBitFlip::SampledBuckets(
        r.seed, params_.domain_size, params_.sampled_buckets);
    for (uint32_t i = 0; i < sampled.size; ++i) {
      ++sampled_[sampled.items[i]];
      ones_[sampled.items[i]] += (r.bucket >> i) & 1;
    }
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* o = dynamic_cast<const DBitFlipAccumulator*>(&other);
    if (o == nullptr || !(o->params_ == params_)) {
      return absl::InvalidArgumentError(absl::StrCat(
          kDBitName,
          " accumulator: can only merge an accumulator of the same oracle "
          "(same epsilon, domain_size and sampled_buckets)"));
    }
    for (size_t v = 0; v < sampled_.size(); ++v) {
      sampled_[v] += o->sampled_[v];
      ones_[v] += o->ones_[v];
    }
    num_reports_ += o->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  // counts: m_v for every bucket v (domain_size values, summing to
  // sampled_buckets · num_reports), then c_v (each in [0, m_v]).
  AccumulatorState State() const override {
    AccumulatorState state{.num_reports = num_reports_, .counts = sampled_};
    state.counts.insert(state.counts.end(), ones_.begin(), ones_.end());
    return state;
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    const size_t n = sampled_.size();
    RETURN_IF_ERROR(
        ValidateStateShape(state, kDBitName, {.counts = 2 * n}, num_reports_));
    const absl::Span<const int64_t> sampled =
        absl::MakeConstSpan(state.counts).first(n);
    const absl::Span<const int64_t> ones =
        absl::MakeConstSpan(state.counts).subspan(n);
    RETURN_IF_ERROR(ValidateStateRange(sampled, kDBitName, "sampled count", 0,
                                       state.num_reports));
    RETURN_IF_ERROR(ValidateStateSum(
        sampled, kDBitName, "sampled counts",
        static_cast<__int128>(params_.sampled_buckets) * state.num_reports));
    for (size_t v = 0; v < n; ++v) {
      if (ones[v] < 0 || ones[v] > sampled[v]) {
        return absl::InvalidArgumentError(absl::StrCat(
            kDBitName, " state: the ones count of bucket ", v, " is ", ones[v],
            ", outside [0, ", sampled[v], "] (its sampled count)"));
      }
    }
    for (size_t v = 0; v < n; ++v) {
      sampled_[v] += sampled[v];
      ones_[v] += ones[v];
    }
    num_reports_ += state.num_reports;
    return absl::OkStatus();
  }

  HistogramEstimate Estimate() const override {
    HistogramEstimate estimate;
    estimate.num_reports = num_reports_;
    estimate.epsilon = epsilon_;
    estimate.frequencies.assign(sampled_.size(), 0.0);
    estimate.variances.resize(sampled_.size());
    const double p = params_.keep.value();
    const double q = params_.keep.Complement().value();
    const double scale =
        static_cast<double>(params_.domain_size) /
        (static_cast<double>(num_reports_) * params_.sampled_buckets * (p - q));
    for (size_t v = 0; v < sampled_.size(); ++v) {
      if (num_reports_ > 0) {
        estimate.frequencies[v] =
            scale * (static_cast<double>(ones_[v]) -
                     q * static_cast<double>(sampled_[v]));
      }
      estimate.variances[v] = DBitVariance(
          params_, std::clamp(estimate.frequencies[v], 0.0, 1.0), num_reports_);
    }
    return estimate;
  }

 private:
  DBitParams params_;
  double epsilon_;
  std::vector<int64_t> sampled_;  // m_v
  std::vector<int64_t> ones_;     // c_v
  int64_t num_reports_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DBitFlip>> DBitFlip::Create(
    const DBitFlipOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon(kDBitName, options.epsilon, kMaxEpsilon));
  RETURN_IF_ERROR(ValidateDomainSize(
      kDBitName, options.domain_size, 2, kMaxDomainSize,
      /*hint=*/"bucket larger domains upstream, in the domain encoding"));
  ASSIGN_OR_RETURN(const uint32_t d, ChooseSampledBuckets(options));
  // With d ≥ 2 two items can differ in two bits, each bit gets half of ε.
  const double bits_apart = d >= 2 ? 2 : 1;
  const double e = std::exp(options.epsilon / bits_apart);
  const CoinProbability keep = CoinProbability::RoundDown(e / (e + 1));
  if (keep.numerator() <= CoinProbability::kDenominator / 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        kDBitName, ": epsilon ", options.epsilon,
        " is too small: at 2^-32 coin resolution the bits would carry no "
        "signal"));
  }
  // min(): when p is exactly on the grid only the logarithm's last ulp could
  // exceed the requested ε.
  const double implemented = bits_apart * BitLogRatio(keep.numerator());
  return std::unique_ptr<DBitFlip>(new DBitFlip(
      options.domain_size, d, keep, std::min(implemented, options.epsilon)));
}

DBitFlip::Buckets DBitFlip::SampledBuckets(uint64_t seed, uint32_t domain_size,
                                           uint32_t d) {
  Buckets sampled;
  d = std::min({d, domain_size, kMaxSampledBuckets});
  uint64_t step = 0;
  // Floyd: each j adds one new bucket, so S is a uniform d-subset when t is
  // uniform; j itself is never in S yet, which makes the fallback safe.
  for (uint64_t j = domain_size - d; j < domain_size; ++j) {
    const uint64_t z = PairwiseHash::SplitMix64(seed, ++step);
    const auto t =
        static_cast<uint32_t>((static_cast<__uint128_t>(z) * (j + 1)) >> 64);
    const auto end = sampled.items.begin() + sampled.size;
    const bool taken = std::find(sampled.items.begin(), end, t) != end;
    sampled.items[sampled.size++] = taken ? static_cast<uint32_t>(j) : t;
  }
  return sampled;
}

FrequencyReport DBitFlip::Randomize(uint32_t item, absl::BitGenRef gen) const {
  const uint32_t v = std::min(item, domain_size_ - 1);
  HashedReport report{.seed = static_cast<uint64_t>(gen())};
  const uint64_t at_item =
      ItemMask(SampledBuckets(report.seed, domain_size_, sampled_buckets_), v);
  // Lane i tells whether bit i agrees with [s_i = v] (probability p): one
  // coin set whatever v is, so the draws cannot reveal it.
  const uint64_t agree = FlipCoins64(keep_, gen);
  report.bucket =
      static_cast<uint32_t>(~(agree ^ at_item) & LowBits(sampled_buckets_));
  return report;
}

double DBitFlip::Probability(uint32_t item,
                             const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const auto& r = std::get<HashedReport>(report);
  const uint64_t at_item =
      ItemMask(SampledBuckets(r.seed, domain_size_, sampled_buckets_),
               std::min(item, domain_size_ - 1));
  const int agree =
      std::popcount(~(r.bucket ^ at_item) & LowBits(sampled_buckets_));
  const int disagree = static_cast<int>(sampled_buckets_) - agree;
  return std::pow(keep_.value(), agree) *
         std::pow(keep_.Complement().value(), disagree);
}

absl::Status DBitFlip::Validate(const FrequencyReport& report) const {
  return ValidateDBitReport(report, sampled_buckets_);
}

std::unique_ptr<FrequencyAccumulator> DBitFlip::NewAccumulator() const {
  return std::make_unique<DBitFlipAccumulator>(
      DBitParams{.domain_size = domain_size_,
                 .sampled_buckets = sampled_buckets_,
                 .keep = keep_},
      epsilon_);
}

double DBitFlip::Variance(double frequency, int64_t num_reports) const {
  return DBitVariance({.domain_size = domain_size_,
                       .sampled_buckets = sampled_buckets_,
                       .keep = keep_},
                      frequency, num_reports);
}

FrequencyReport DBitFlip::Memoize(uint32_t item, absl::BitGenRef gen) const {
  return Randomize(item, gen);
}

absl::Status DBitFlip::ValidateMemo(const FrequencyReport& memo) const {
  return Validate(memo);
}

FrequencyReport DBitFlip::RandomizeFromMemo(const FrequencyReport& memo,
                                            absl::BitGenRef /*gen*/) const {
  const auto* r = std::get_if<HashedReport>(&memo);
  if (r == nullptr) return HashedReport{};
  return HashedReport{
      .seed = r->seed,
      .bucket = static_cast<uint32_t>(r->bucket & LowBits(sampled_buckets_))};
}

double DBitFlip::MemoProbability(uint32_t item,
                                 const FrequencyReport& memo) const {
  return Probability(item, memo);
}

double DBitFlip::ProbabilityFromMemo(const FrequencyReport& memo,
                                     const FrequencyReport& report) const {
  return Validate(memo).ok() && Validate(report).ok() && memo == report ? 1 : 0;
}

}  // namespace ldp
