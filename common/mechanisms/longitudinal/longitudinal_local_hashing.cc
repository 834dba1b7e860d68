// L-OLH: a memoized hashed GRR and fresh GRRs of it; see
// longitudinal_local_hashing.h.
#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"

#include <algorithm>
#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/local_hashing.h"

namespace ldp {
namespace {

constexpr char kLolhName[] = "L-OLH";

HashedReport LolhHashed(const FrequencyReport& report) {
  const auto* hashed = std::get_if<HashedReport>(&report);
  return hashed == nullptr ? HashedReport{} : *hashed;
}

// n·Var[f̂] at f = 0 of one report, GRR over [g] at ε1 (e = e^{ε1}).
double LolhUnitVariance(uint32_t g, double e) {
  const double big_p = e / (e + g - 1), q = 1.0 / g;
  return q * (1 - q) / ((big_p - q) * (big_p - q));
}

absl::StatusOr<uint32_t> LolhBuckets(
    const LongitudinalLocalHashingOptions& options) {
  if (options.num_buckets == 0) {
    return LongitudinalLocalHashing::BestNumBuckets(options.epsilon_report);
  }
  if (options.num_buckets < 2 ||
      options.num_buckets > LongitudinalLocalHashing::kMaxBuckets) {
    return absl::InvalidArgumentError(absl::StrCat(
        kLolhName, ": num_buckets must be 0 (choose) or in [2, ",
        LongitudinalLocalHashing::kMaxBuckets, "], got ", options.num_buckets));
  }
  return options.num_buckets;
}

}  // namespace

uint32_t LongitudinalLocalHashing::BestNumBuckets(double epsilon_report) {
  const double e = std::exp(epsilon_report);
  uint32_t best = 2;
  double best_variance = INFINITY;
  // The variance is convex in g with its optimum near e + 1.
  const double last = std::min<double>(kMaxChosenBuckets, 2 * (e + 2));
  for (uint32_t g = 2; g <= last; ++g) {
    const double variance = LolhUnitVariance(g, e);
    if (variance < best_variance) {
      best = g;
      best_variance = variance;
    }
  }
  return best;
}

absl::StatusOr<std::unique_ptr<LongitudinalLocalHashing>>
LongitudinalLocalHashing::Create(
    const LongitudinalLocalHashingOptions& options) {
  RETURN_IF_ERROR(
      ValidateDomainSize(kLolhName, options.domain_size, 2, kMaxDomainSize));
  // Checked before BestNumBuckets, which needs finite ε∞ > ε1 > 0.
  RETURN_IF_ERROR(
      GrrLayers::ValidateEpsilons(kLolhName, options.epsilon_permanent,
                                  options.epsilon_report, kMaxEpsilon));
  ASSIGN_OR_RETURN(const uint32_t g, LolhBuckets(options));
  ASSIGN_OR_RETURN(GrrLayers layers,
                   GrrLayers::Solve(kLolhName, g, options.epsilon_permanent,
                                    options.epsilon_report, kMaxEpsilon));
  return std::unique_ptr<LongitudinalLocalHashing>(
      new LongitudinalLocalHashing(options.domain_size, layers));
}

PureProtocol LongitudinalLocalHashing::protocol() const {
  return {.p = layers_.composed().p, .q = 1.0 / num_buckets()};
}

uint32_t LongitudinalLocalHashing::Hash(uint64_t seed, uint32_t item) const {
  return OptimizedLocalHashing::HashBucket(
      seed, std::min(item, domain_size_ - 1), num_buckets());
}

FrequencyReport LongitudinalLocalHashing::Randomize(uint32_t item,
                                                    absl::BitGenRef gen) const {
  return RandomizeFromMemo(Memoize(item, gen), gen);
}

double LongitudinalLocalHashing::Probability(
    uint32_t item, const FrequencyReport& report) const {
  if (!Validate(report).ok()) return 0;
  const HashedReport r = LolhHashed(report);
  return layers_.Probability(Hash(r.seed, item), r.bucket);
}

absl::Status LongitudinalLocalHashing::Validate(
    const FrequencyReport& report) const {
  return ValidateHashedReport(report, num_buckets(), kLolhName);
}

std::unique_ptr<FrequencyAccumulator> LongitudinalLocalHashing::NewAccumulator()
    const {
  return NewHashedSupportAccumulator({.domain_size = domain_size_,
                                      .num_buckets = num_buckets(),
                                      .p = layers_.composed().p,
                                      .epsilon = epsilon()});
}

FrequencyReport LongitudinalLocalHashing::Memoize(uint32_t item,
                                                  absl::BitGenRef gen) const {
  HashedReport memo{.seed = static_cast<uint64_t>(gen())};
  memo.bucket = layers_.DrawPermanent(Hash(memo.seed, item), gen);
  return memo;
}

absl::Status LongitudinalLocalHashing::ValidateMemo(
    const FrequencyReport& memo) const {
  return ValidateHashedReport(memo, num_buckets(), "L-OLH memo");
}

FrequencyReport LongitudinalLocalHashing::RandomizeFromMemo(
    const FrequencyReport& memo, absl::BitGenRef gen) const {
  HashedReport report = LolhHashed(memo);
  report.bucket =
      layers_.DrawReport(std::min(report.bucket, num_buckets() - 1), gen);
  return report;
}

double LongitudinalLocalHashing::MemoProbability(
    uint32_t item, const FrequencyReport& memo) const {
  if (!ValidateMemo(memo).ok()) return 0;
  const HashedReport m = LolhHashed(memo);
  return layers_.PermanentProbability(Hash(m.seed, item), m.bucket);
}

double LongitudinalLocalHashing::ProbabilityFromMemo(
    const FrequencyReport& memo, const FrequencyReport& report) const {
  if (!ValidateMemo(memo).ok() || !Validate(report).ok()) return 0;
  const HashedReport m = LolhHashed(memo), r = LolhHashed(report);
  if (m.seed != r.seed) return 0;
  return layers_.ReportProbability(m.bucket, r.bucket);
}

}  // namespace ldp
