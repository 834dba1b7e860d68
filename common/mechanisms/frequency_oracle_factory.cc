// Oracle construction from a spec, and the lowest-variance chooser.
#include "common/mechanisms/frequency_oracle_factory.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/frequency/count_mean_sketch.h"
#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "common/mechanisms/frequency/hadamard_response.h"
#include "common/mechanisms/frequency/local_hashing.h"
#include "common/mechanisms/frequency/subset_selection.h"
#include "common/mechanisms/frequency/unary_encoding.h"
#include "common/mechanisms/longitudinal/dbit_flip.h"
#include "common/mechanisms/longitudinal/longitudinal.h"
#include "common/mechanisms/longitudinal/longitudinal_grr.h"
#include "common/mechanisms/longitudinal/longitudinal_local_hashing.h"
#include "common/mechanisms/rappor/rappor.h"

namespace ldp {
namespace {

// Oracles whose decoding enumerates the domain are offered up to this N.
constexpr uint32_t kMaxEnumeratedDomain = uint32_t{1} << 20;

template <typename T>
absl::StatusOr<std::unique_ptr<FrequencyOracle>> Upcast(
    absl::StatusOr<std::unique_ptr<T>> oracle) {
  if (!oracle.ok()) return oracle.status();
  return std::unique_ptr<FrequencyOracle>(std::move(*oracle));
}

int64_t BitsFor(uint64_t values) {  // bits to name one of `values` symbols
  return values <= 1 ? 0 : std::bit_width(values - 1);
}

absl::StatusOr<std::unique_ptr<FrequencyOracle>> CreateSketch(
    const FrequencyOracleSpec& spec, SketchVariant variant) {
  CountMeanSketchOptions options{.epsilon = spec.epsilon,
                                 .domain_size = spec.domain_size,
                                 .num_hashes = spec.num_hashes,
                                 .num_columns = spec.num_columns,
                                 .variant = variant};
  if (spec.hash_seed != 0) options.hash_seed = spec.hash_seed;
  return Upcast(CountMeanSketch::Create(options));
}

// The kind's name, with the rows per item of a general Hadamard response.
std::string SpecName(const FrequencyOracleSpec& spec) {
  std::string name(FrequencyOracleKindName(spec.kind));
  if (spec.kind == FrequencyOracleKind::kHadamardResponse &&
      spec.rows_per_item > 1) {
    absl::StrAppend(&name, " (", spec.rows_per_item, " rows per item)");
  }
  return name;
}

int64_t ReportBits(const FrequencyOracle& oracle) {
  const uint32_t n = oracle.domain_size();
  switch (oracle.kind()) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse:
      return BitsFor(n);
    case FrequencyOracleKind::kOptimizedUnaryEncoding:
    case FrequencyOracleKind::kSymmetricUnaryEncoding:
    case FrequencyOracleKind::kLongitudinalUnaryEncoding:
      return n;
    case FrequencyOracleKind::kLongitudinalGrr:
      return BitsFor(n);
    case FrequencyOracleKind::kOptimizedLocalHashing:
      return 64 + BitsFor(static_cast<const OptimizedLocalHashing&>(oracle)
                              .num_buckets());
    case FrequencyOracleKind::kLongitudinalLocalHashing:
      return 64 + BitsFor(static_cast<const LongitudinalLocalHashing&>(oracle)
                              .num_buckets());
    case FrequencyOracleKind::kDBitFlip:
      return 64 + static_cast<const DBitFlip&>(oracle).sampled_buckets();
    case FrequencyOracleKind::kRappor: {
      const RapporBloom& bloom = static_cast<const Rappor&>(oracle).bloom();
      return BitsFor(bloom.num_cohorts()) + bloom.num_bits();
    }
    case FrequencyOracleKind::kSubsetSelection:
      return int64_t{
                 static_cast<const SubsetSelection&>(oracle).subset_size()} *
             BitsFor(n);
    case FrequencyOracleKind::kHadamardResponse:
      return BitsFor(
          static_cast<const HadamardResponse&>(oracle).output_size());
    case FrequencyOracleKind::kCountMeanSketch: {
      const auto& cms = static_cast<const CountMeanSketch&>(oracle);
      return BitsFor(cms.num_hashes()) + cms.num_columns();
    }
    case FrequencyOracleKind::kHadamardCountMeanSketch: {
      const auto& cms = static_cast<const CountMeanSketch&>(oracle);
      return BitsFor(cms.num_hashes()) + BitsFor(cms.num_columns()) + 1;
    }
  }
  return 0;
}

// Hadamard response is offered in its one-block form (the fewest report
// bits) and, where ε makes more rows per item better, in its general form.
std::vector<FrequencyOracleSpec> CandidateSpecs(double epsilon,
                                                uint32_t domain_size) {
  using K = FrequencyOracleKind;
  std::vector<FrequencyOracleSpec> specs;
  const auto add = [&](K kind, uint32_t rows_per_item = 0) {
    specs.push_back({.kind = kind,
                     .epsilon = epsilon,
                     .domain_size = domain_size,
                     .rows_per_item = rows_per_item});
  };
  if (domain_size > kMaxEnumeratedDomain) {
    add(K::kHadamardCountMeanSketch);
    add(K::kCountMeanSketch);
    return specs;
  }
  for (K kind : {K::kGeneralizedRandomizedResponse, K::kOptimizedUnaryEncoding,
                 K::kSymmetricUnaryEncoding, K::kOptimizedLocalHashing,
                 K::kSubsetSelection, K::kHadamardResponse}) {
    add(kind);
  }
  const uint32_t rows = HadamardResponse::BestRowsPerItem(epsilon, domain_size);
  if (rows > 1) add(K::kHadamardResponse, rows);
  return specs;
}

}  // namespace

absl::StatusOr<std::unique_ptr<FrequencyOracle>> CreateFrequencyOracle(
    const FrequencyOracleSpec& spec) {
  switch (spec.kind) {
    case FrequencyOracleKind::kGeneralizedRandomizedResponse:
      return Upcast(GeneralizedRandomizedResponse::Create(
          {.epsilon = spec.epsilon, .domain_size = spec.domain_size}));
    case FrequencyOracleKind::kOptimizedUnaryEncoding:
    case FrequencyOracleKind::kSymmetricUnaryEncoding:
      return Upcast(UnaryEncoding::Create(
          {.epsilon = spec.epsilon,
           .domain_size = spec.domain_size,
           .variant = spec.kind == FrequencyOracleKind::kOptimizedUnaryEncoding
                          ? UnaryEncodingVariant::kOptimized
                          : UnaryEncodingVariant::kSymmetric}));
    case FrequencyOracleKind::kOptimizedLocalHashing:
      return Upcast(
          OptimizedLocalHashing::Create({.epsilon = spec.epsilon,
                                         .domain_size = spec.domain_size,
                                         .num_buckets = spec.num_buckets}));
    case FrequencyOracleKind::kSubsetSelection:
      return Upcast(SubsetSelection::Create({.epsilon = spec.epsilon,
                                             .domain_size = spec.domain_size,
                                             .subset_size = spec.subset_size}));
    case FrequencyOracleKind::kHadamardResponse:
      return Upcast(HadamardResponse::Create(
          {.epsilon = spec.epsilon,
           .domain_size = spec.domain_size,
           .rows_per_item = std::max(spec.rows_per_item, uint32_t{1})}));
    case FrequencyOracleKind::kCountMeanSketch:
      return CreateSketch(spec, SketchVariant::kCountMean);
    case FrequencyOracleKind::kHadamardCountMeanSketch:
      return CreateSketch(spec, SketchVariant::kHadamard);
    case FrequencyOracleKind::kLongitudinalUnaryEncoding:
      return Upcast(LongitudinalUnaryEncoding::Create(
          {.epsilon_permanent = spec.epsilon_permanent,
           .epsilon_report = spec.epsilon,
           .domain_size = spec.domain_size}));
    case FrequencyOracleKind::kLongitudinalGrr:
      return Upcast(
          LongitudinalGrr::Create({.epsilon_permanent = spec.epsilon_permanent,
                                   .epsilon_report = spec.epsilon,
                                   .domain_size = spec.domain_size}));
    case FrequencyOracleKind::kLongitudinalLocalHashing:
      return Upcast(LongitudinalLocalHashing::Create(
          {.epsilon_permanent = spec.epsilon_permanent,
           .epsilon_report = spec.epsilon,
           .domain_size = spec.domain_size,
           .num_buckets = spec.num_buckets}));
    case FrequencyOracleKind::kDBitFlip:
      return Upcast(
          DBitFlip::Create({.epsilon = spec.epsilon,
                            .domain_size = spec.domain_size,
                            .sampled_buckets = spec.sampled_buckets}));
    case FrequencyOracleKind::kRappor:
      return Upcast(Rappor::Create({.epsilon_permanent = spec.epsilon_permanent,
                                    .epsilon_report = spec.epsilon,
                                    .domain_size = spec.domain_size,
                                    .num_bits = spec.num_columns,
                                    .num_hashes = spec.num_hashes,
                                    .num_cohorts = spec.num_cohorts,
                                    .hash_seed = spec.hash_seed}));
  }
  return absl::InvalidArgumentError("unknown frequency oracle kind");
}

namespace {

// Builds every spec and keeps the smallest variance (up to the slack, then
// the smallest reports).
absl::StatusOr<OracleChoice> ChooseAmong(
    const std::vector<FrequencyOracleSpec>& specs, double epsilon,
    uint32_t domain_size, const ChooserOptions& options) {
  OracleChoice choice;
  absl::Status last_error = absl::OkStatus();
  for (const FrequencyOracleSpec& spec : specs) {
    auto oracle = CreateFrequencyOracle(spec);
    if (!oracle.ok()) {
      last_error = oracle.status();
      continue;
    }
    OracleCandidate candidate{.spec = spec,
                              .unit_variance = (*oracle)->Variance(0.0, 1),
                              .report_bits = ReportBits(**oracle)};
    if (options.max_report_bits > 0 &&
        candidate.report_bits > options.max_report_bits) {
      continue;
    }
    choice.candidates.push_back(candidate);
  }
  if (choice.candidates.empty()) {
    if (!last_error.ok()) return last_error;
    return absl::InvalidArgumentError(absl::StrCat(
        "no frequency oracle fits reports of at most ", options.max_report_bits,
        " bits for a domain of ", domain_size, " items"));
  }
  std::stable_sort(choice.candidates.begin(), choice.candidates.end(),
                   [](const OracleCandidate& a, const OracleCandidate& b) {
                     return a.unit_variance < b.unit_variance;
                   });
  const double acceptable =
      choice.candidates.front().unit_variance * (1 + options.variance_slack);
  choice.chosen = choice.candidates.front();
  for (const OracleCandidate& candidate : choice.candidates) {
    if (candidate.unit_variance <= acceptable &&
        candidate.report_bits < choice.chosen.report_bits) {
      choice.chosen = candidate;
    }
  }
  choice.reason = absl::StrFormat(
      "%s: n*Var = %.4g with %d-bit reports at epsilon=%g, N=%u (best of %d "
      "candidates: %s, n*Var = %.4g; reports within %g%% of the best variance "
      "are chosen by size)",
      SpecName(choice.chosen.spec), choice.chosen.unit_variance,
      choice.chosen.report_bits, epsilon, domain_size, choice.candidates.size(),
      SpecName(choice.candidates.front().spec),
      choice.candidates.front().unit_variance, options.variance_slack * 100);
  return choice;
}

}  // namespace

absl::StatusOr<OracleChoice> ChooseFrequencyOracle(
    double epsilon, uint32_t domain_size, const ChooserOptions& options) {
  return ChooseAmong(CandidateSpecs(epsilon, domain_size), epsilon, domain_size,
                     options);
}

absl::StatusOr<OracleChoice> ChooseLongitudinalOracle(
    double epsilon, double epsilon_permanent, uint32_t domain_size,
    const ChooserOptions& options) {
  std::vector<FrequencyOracleSpec> specs;
  for (FrequencyOracleKind kind :
       {FrequencyOracleKind::kLongitudinalGrr,
        FrequencyOracleKind::kLongitudinalUnaryEncoding,
        FrequencyOracleKind::kLongitudinalLocalHashing}) {
    specs.push_back({.kind = kind,
                     .epsilon = epsilon,
                     .domain_size = domain_size,
                     .epsilon_permanent = epsilon_permanent});
  }
  return ChooseAmong(specs, epsilon, domain_size, options);
}

}  // namespace ldp
