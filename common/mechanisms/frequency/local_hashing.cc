// Optimized local hashing client, exact likelihoods and vectorized decoder;
// see local_hashing.h.
#include "common/mechanisms/frequency/local_hashing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/sanitizer_build.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/pairwise_hash.h"

namespace ldp {
namespace {

using OlhParams = OptimizedLocalHashing::Params;

absl::StatusOr<uint32_t> ChooseNumBuckets(
    const OptimizedLocalHashingOptions& options) {
  if (options.num_buckets != 0) {
    if (options.num_buckets < 2 ||
        options.num_buckets > OptimizedLocalHashing::kMaxBuckets) {
      return absl::InvalidArgumentError(absl::StrCat(
          "local hashing: num_buckets must be 0 (default round(e^epsilon)+1) "
          "or in [2, ",
          OptimizedLocalHashing::kMaxBuckets, "], got ", options.num_buckets));
    }
    return options.num_buckets;
  }
  const double g = std::round(std::exp(options.epsilon)) + 1;
  if (g > OptimizedLocalHashing::kMaxBuckets) {
    return absl::InvalidArgumentError(absl::StrCat(
        "local hashing: the default num_buckets round(e^epsilon)+1 exceeds ",
        OptimizedLocalHashing::kMaxBuckets, " at epsilon ", options.epsilon,
        "; pass num_buckets explicitly"));
  }
  return static_cast<uint32_t>(g);
}

absl::StatusOr<OlhParams> MakeParams(
    const OptimizedLocalHashingOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("local hashing", options.epsilon));
  RETURN_IF_ERROR(ValidateDomainSize(
      "local hashing", options.domain_size, 2,
      OptimizedLocalHashing::kMaxDomainSize,
      /*hint=*/"use a count-mean sketch for larger domains"));
  absl::StatusOr<uint32_t> g = ChooseNumBuckets(options);
  if (!g.ok()) return g.status();
  // Round p down (then step past any floating-point doubt) so that
  // p (g − 1) / (1 − p) ≤ e^ε.
  const double e = std::exp(options.epsilon);
  uint64_t k = CoinProbability::RoundDown(e / (e + *g - 1)).numerator();
  while (k > 0 && GrrStepEpsilon(k, *g) > options.epsilon) --k;
  // The estimator needs p > q = 1/g.
  if (k * *g <= CoinProbability::kDenominator) {
    return absl::InvalidArgumentError(absl::StrCat(
        "local hashing: epsilon ", options.epsilon,
        " is below the resolution of 32-bit coins; use epsilon >= 1e-6"));
  }
  return OlhParams{.domain_size = options.domain_size,
                   .num_buckets = *g,
                   .keep = CoinProbability::FromNumerator(k),
                   .epsilon = GrrStepEpsilon(k, *g)};
}

// support[v] += (H(v) == bucket) for v in [0, n), where H(v) lies in the
// bucket iff its 32-bit hash lies in [lo, lo + width). Everything is 32-bit
// except the multiply-shift step a·v + b, which is carried incrementally, so
// the loop vectorizes; target_clones adds an AVX2 build picked at load time.
// Not under TSan: its ifunc resolver would be instrumented and run during
// relocation, before the TSan runtime exists (a segfault at load). Only on
// x86-64 (the arm64 device build has no AVX2 to pick).
#if defined(LDP_UNDER_TSAN) || !defined(__x86_64__)
#define LDP_COUNT_SUPPORT_CLONES
#else
#define LDP_COUNT_SUPPORT_CLONES \
  __attribute__((target_clones("avx2", "default")))
#endif
LDP_COUNT_SUPPORT_CLONES void CountSupport(uint64_t multiplier, uint64_t offset,
                                           uint32_t lo, uint32_t width,
                                           uint32_t* __restrict support,
                                           uint32_t n) {
  uint64_t step = offset;
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t h =
        PairwiseHash::Finalize(static_cast<uint32_t>(step >> 32));
    step += multiplier;
    support[v] += (h - lo) < width;
  }
}

// Server side. Support counts accumulate in uint32 lanes (which vectorize
// twice as wide as int64) and are widened before any lane could overflow.
class LocalHashingAccumulator final : public FrequencyAccumulator {
 public:
  explicit LocalHashingAccumulator(const HashedSupport& params)
      : params_(params),
        pending_(params.domain_size, 0),
        flushed_(params.domain_size, 0) {}

  absl::Status Add(const FrequencyReport& report) override {
    const auto* r = std::get_if<HashedReport>(&report);
    if (r == nullptr || r->bucket >= params_.num_buckets) {
      return absl::InvalidArgumentError(
          "local hashing accumulator: report is not a HashedReport with "
          "bucket below num_buckets");
    }
    if (num_pending_ == kMaxPending) Flush();
    // h lands in bucket y iff ⌈y·2^32/g⌉ ≤ h < ⌈(y+1)·2^32/g⌉.
    const uint64_t g = params_.num_buckets;
    const uint64_t lo = ((uint64_t{r->bucket} << 32) + g - 1) / g;
    const uint64_t hi = ((uint64_t{r->bucket + 1} << 32) + g - 1) / g;
    const PairwiseHash hash = PairwiseHash::FromSeed(r->seed);
    CountSupport(hash.multiplier(), hash.offset(), static_cast<uint32_t>(lo),
                 static_cast<uint32_t>(hi - lo), pending_.data(),
                 params_.domain_size);
    ++num_pending_;
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const FrequencyAccumulator& other) override {
    const auto* o = dynamic_cast<const LocalHashingAccumulator*>(&other);
    if (o == nullptr || !(o->params_ == params_)) {
      return absl::InvalidArgumentError(
          "local hashing accumulator: can only merge an accumulator of the "
          "same oracle (same epsilon, domain_size and num_buckets)");
    }
    for (size_t v = 0; v < flushed_.size(); ++v) {
      flushed_[v] += o->flushed_[v] + o->pending_[v];
    }
    num_reports_ += o->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  // counts: the support counts (domain_size values, each ≤ num_reports),
  // pending and flushed together.
  AccumulatorState State() const override {
    return {.num_reports = num_reports_, .counts = Support()};
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    constexpr char kName[] = "local hashing";
    RETURN_IF_ERROR(ValidateStateShape(
        state, kName, {.counts = flushed_.size()}, num_reports_));
    RETURN_IF_ERROR(ValidateStateRange(state.counts, kName, "support count", 0,
                                       state.num_reports));
    for (size_t v = 0; v < flushed_.size(); ++v) {
      flushed_[v] += state.counts[v];
    }
    num_reports_ += state.num_reports;
    return absl::OkStatus();
  }

  HistogramEstimate Estimate() const override {
    const std::vector<int64_t> support = Support();
    const PureProtocol protocol{.p = params_.p, .q = 1.0 / params_.num_buckets};
    return protocol.Estimate(support, num_reports_, params_.epsilon);
  }

 private:
  static constexpr uint32_t kMaxPending = std::numeric_limits<uint32_t>::max();

  std::vector<int64_t> Support() const {
    std::vector<int64_t> support(flushed_);
    for (size_t v = 0; v < support.size(); ++v) support[v] += pending_[v];
    return support;
  }

  void Flush() {
    for (size_t v = 0; v < flushed_.size(); ++v) {
      flushed_[v] += pending_[v];
      pending_[v] = 0;
    }
    num_pending_ = 0;
  }

  HashedSupport params_;
  std::vector<uint32_t> pending_;
  std::vector<int64_t> flushed_;
  uint32_t num_pending_ = 0;
  int64_t num_reports_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<OptimizedLocalHashing>>
OptimizedLocalHashing::Create(const OptimizedLocalHashingOptions& options) {
  absl::StatusOr<OlhParams> params = MakeParams(options);
  if (!params.ok()) return params.status();
  return std::unique_ptr<OptimizedLocalHashing>(
      new OptimizedLocalHashing(*params));
}

uint32_t OptimizedLocalHashing::HashBucket(uint64_t seed, uint32_t item,
                                           uint32_t num_buckets) {
  return PairwiseHash::FromSeed(seed).Bucket(item, num_buckets);
}

PureProtocol OptimizedLocalHashing::protocol() const {
  return PureProtocol{.p = params_.keep.value(),
                      .q = 1.0 / params_.num_buckets};
}

FrequencyReport OptimizedLocalHashing::Randomize(uint32_t item,
                                                 absl::BitGenRef gen) const {
  item = std::min(item, params_.domain_size - 1);
  HashedReport report{.seed = static_cast<uint64_t>(gen())};
  const uint32_t y = HashBucket(report.seed, item, params_.num_buckets);
  report.bucket = RandomizeGrrSymbol(y, params_.num_buckets, params_.keep, gen);
  return report;
}

double OptimizedLocalHashing::Probability(uint32_t item,
                                          const FrequencyReport& report) const {
  const auto* r = std::get_if<HashedReport>(&report);
  if (r == nullptr || r->bucket >= params_.num_buckets) return 0.0;
  item = std::min(item, params_.domain_size - 1);
  if (HashBucket(r->seed, item, params_.num_buckets) == r->bucket) {
    return params_.keep.value();
  }
  return params_.keep.Complement().value() / (params_.num_buckets - 1);
}

absl::Status OptimizedLocalHashing::Validate(
    const FrequencyReport& report) const {
  return ValidateHashedReport(report, params_.num_buckets, "local hashing");
}

std::unique_ptr<FrequencyAccumulator> OptimizedLocalHashing::NewAccumulator()
    const {
  return NewHashedSupportAccumulator({.domain_size = params_.domain_size,
                                      .num_buckets = params_.num_buckets,
                                      .p = params_.keep.value(),
                                      .epsilon = params_.epsilon});
}

absl::Status ValidateHashedReport(const FrequencyReport& report,
                                  uint32_t num_buckets,
                                  std::string_view mechanism) {
  const auto* r = std::get_if<HashedReport>(&report);
  if (r == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(mechanism), ": expected a HashedReport"));
  }
  if (r->bucket >= num_buckets) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(mechanism), ": bucket ", r->bucket,
                     " is not below num_buckets ", num_buckets));
  }
  return absl::OkStatus();
}

std::unique_ptr<FrequencyAccumulator> NewHashedSupportAccumulator(
    const HashedSupport& params) {
  return std::make_unique<LocalHashingAccumulator>(params);
}

}  // namespace ldp
