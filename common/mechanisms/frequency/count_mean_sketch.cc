// Count-mean sketch clients, exact likelihoods and debiased decoding; see
// count_mean_sketch.h for the estimator and its variance.
#include "common/mechanisms/frequency/count_mean_sketch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"
#include "common/mechanisms/frequency/pairwise_hash.h"
#include "common/mechanisms/frequency/walsh_hadamard.h"

namespace ldp {
namespace {

using Params = CountMeanSketch::Params;

size_t NumWords(uint32_t num_columns) { return (num_columns + 63) / 64; }

// Bits of the last word that hold columns (the rest must stay zero).
uint64_t LastWordMask(uint32_t num_columns) {
  const uint32_t used = num_columns % 64;
  return used == 0 ? ~uint64_t{0} : (uint64_t{1} << used) - 1;
}

// Privacy loss of flip probability k / 2^32: a CMS report differs in two
// bits between inputs, an HCMS report in one.
double FlipLoss(uint64_t k, SketchVariant variant) {
  const double one_bit =
      std::log(static_cast<double>(CoinProbability::kDenominator - k)) -
      std::log(static_cast<double>(k));
  return variant == SketchVariant::kCountMean ? 2 * one_bit : one_bit;
}

absl::Status ValidateShape(const CountMeanSketchOptions& options, uint32_t k,
                           uint32_t m) {
  const bool hadamard = options.variant == SketchVariant::kHadamard;
  if (k < 1 || k > CountMeanSketch::kMaxNumHashes) {
    return absl::InvalidArgumentError(
        absl::StrCat("count-mean sketch: num_hashes must be 0 (default ",
                     CountMeanSketch::kDefaultNumHashes, ") or in [1, ",
                     CountMeanSketch::kMaxNumHashes, "], got ", k));
  }
  if (m < 2 || m > CountMeanSketch::kMaxNumColumns ||
      (hadamard && !std::has_single_bit(m))) {
    return absl::InvalidArgumentError(
        absl::StrCat("count-mean sketch: num_columns must be 0 (default ",
                     CountMeanSketch::kDefaultNumColumns, ") or ",
                     hadamard ? "a power of two " : "", "in [2, ",
                     CountMeanSketch::kMaxNumColumns, "], got ", m));
  }
  if (uint64_t{k} * m > CountMeanSketch::kMaxSketchCells) {
    return absl::InvalidArgumentError(absl::StrCat(
        "count-mean sketch: num_hashes * num_columns must be at most ",
        CountMeanSketch::kMaxSketchCells, ", got ", k, " * ", m));
  }
  return absl::OkStatus();
}

absl::Status ValidateOptions(const CountMeanSketchOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilon("count-mean sketch", options.epsilon));
  RETURN_IF_ERROR(ValidateDomainSize("count-mean sketch", options.domain_size,
                                     2, kUnboundedDomainSize));
  if (options.variant != SketchVariant::kCountMean &&
      options.variant != SketchVariant::kHadamard) {
    return absl::InvalidArgumentError(
        absl::StrCat("count-mean sketch: unknown variant ",
                     static_cast<int>(options.variant)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Params> MakeParams(const CountMeanSketchOptions& options) {
  if (absl::Status s = ValidateOptions(options); !s.ok()) return s;
  Params params{.domain_size = options.domain_size,
                .num_hashes = options.num_hashes != 0
                                  ? options.num_hashes
                                  : CountMeanSketch::kDefaultNumHashes,
                .num_columns = options.num_columns != 0
                                   ? options.num_columns
                                   : CountMeanSketch::kDefaultNumColumns,
                .variant = options.variant,
                .hash_seed = options.hash_seed};
  if (absl::Status s =
          ValidateShape(options, params.num_hashes, params.num_columns);
      !s.ok()) {
    return s;
  }
  // Round φ up (then past any floating-point doubt): more flipping, never
  // more privacy loss than requested.
  const double bit_epsilon = params.variant == SketchVariant::kCountMean
                                 ? options.epsilon / 2
                                 : options.epsilon;
  uint64_t k =
      CoinProbability::RoundUp(1 / (1 + std::exp(bit_epsilon))).numerator();
  k = std::max<uint64_t>(k, 1);
  while (k < CoinProbability::kDenominator / 2 &&
         FlipLoss(k, params.variant) > options.epsilon) {
    ++k;
  }
  if (k >= CoinProbability::kDenominator / 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "count-mean sketch: epsilon ", options.epsilon,
        " is below the resolution of 32-bit coins; use epsilon >= 1e-6"));
  }
  params.flip = CoinProbability::FromNumerator(k);
  params.epsilon = FlipLoss(k, params.variant);
  return params;
}

// A sketch report's length in bits: m for a CMS bit vector, 1 for an HCMS
// sign; 0 marks a legacy stored report (frequency_report.h), checked by its
// words alone.
absl::Status ValidateNumBits(const Params& params, const SketchReport& r) {
  const bool hadamard = params.variant == SketchVariant::kHadamard;
  const uint32_t want = hadamard ? 1 : params.num_columns;
  if (r.num_bits == 0 || r.num_bits == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      hadamard ? "Hadamard count-mean sketch" : "count-mean sketch",
      " report has ", r.num_bits, " bits; this task's reports have exactly ",
      want));
}

absl::Status ValidateReport(const Params& params,
                            const FrequencyReport& report) {
  const auto* r = std::get_if<SketchReport>(&report);
  if (r == nullptr) {
    return absl::InvalidArgumentError(
        "count-mean sketch: expected a SketchReport");
  }
  if (r->row >= params.num_hashes) {
    return absl::InvalidArgumentError(
        absl::StrCat("count-mean sketch: row ", r->row,
                     " is not below num_hashes ", params.num_hashes));
  }
  RETURN_IF_ERROR(ValidateNumBits(params, *r));
  if (params.variant == SketchVariant::kHadamard) {
    if (r->column >= params.num_columns || r->bits.size() != 1 ||
        r->bits[0] > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Hadamard count-mean sketch: a report is a column below ",
          params.num_columns, " and exactly one bit word holding 0 or 1"));
    }
    return absl::OkStatus();
  }
  const size_t words = NumWords(params.num_columns);
  if (r->column != 0 || r->bits.size() != words ||
      (r->bits.back() & ~LastWordMask(params.num_columns)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "count-mean sketch: a report has column 0 and exactly ", words,
        " bit words with no bits set past column ", params.num_columns));
  }
  return absl::OkStatus();
}

// The file comment's variance; S = others_sum_of_squares.
double SketchVariance(const Params& params, double frequency,
                      int64_t num_reports, double others_sum_of_squares) {
  if (num_reports <= 0) return std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(num_reports);
  const double m = params.num_columns;
  const double k = params.num_hashes;
  const double phi = params.flip.value();
  const double gap = 1 - 2 * phi;
  double per_report;  // n · Var given the hashes, averaged over hashes
  if (params.variant == SketchVariant::kCountMean) {
    per_report = phi * (1 - phi) / (gap * gap) +
                 (1 - frequency) * (m - 1) * (1 - 1 / k) / (m * m);
  } else {
    per_report = 1 / (gap * gap) - frequency -
                 (1 - frequency) * (k + m - 1) / (k * m * m);
  }
  const double hash_term = (m - 1) * others_sum_of_squares / (k * m * m);
  const double scale = m / (m - 1);
  return scale * scale * (per_report / n + hash_term);
}

}  // namespace

absl::StatusOr<std::unique_ptr<CountMeanSketch>> CountMeanSketch::Create(
    const CountMeanSketchOptions& options) {
  absl::StatusOr<Params> params = MakeParams(options);
  if (!params.ok()) return params.status();
  return std::unique_ptr<CountMeanSketch>(new CountMeanSketch(*params));
}

FrequencyOracleKind CountMeanSketch::kind() const {
  return params_.variant == SketchVariant::kHadamard
             ? FrequencyOracleKind::kHadamardCountMeanSketch
             : FrequencyOracleKind::kCountMeanSketch;
}

uint32_t CountMeanSketch::Column(uint32_t row, uint32_t item) const {
  return PairwiseHash::FromSeed(params_.hash_seed, row)
      .Bucket(item, params_.num_columns);
}

FrequencyReport CountMeanSketch::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  item = std::min(item, params_.domain_size - 1);
  const auto row = static_cast<uint32_t>(UniformBelow(params_.num_hashes, gen));
  return RandomizeBits(row, Column(row, item), gen);
}

FrequencyReport CountMeanSketch::RandomizeBits(uint32_t row, uint32_t column,
                                               absl::BitGenRef gen) const {
  SketchReport report;
  report.row = row;
  if (params_.variant == SketchVariant::kHadamard) {
    report.column =
        static_cast<uint32_t>(UniformBelow(params_.num_columns, gen));
    const bool negative = HadamardEntryIsNegative(column, report.column);
    report.bits = {uint64_t{negative != FlipCoin(params_.flip, gen)}};
    report.num_bits = 1;
    return report;
  }
  report.num_bits = params_.num_columns;
  // Every bit is flipped independently; the one-hot bit is XORed in.
  report.bits.resize(NumWords(params_.num_columns));
  for (uint64_t& word : report.bits) word = FlipCoins64(params_.flip, gen);
  report.bits.back() &= LastWordMask(params_.num_columns);
  report.bits[column / 64] ^= uint64_t{1} << (column % 64);
  return report;
}

double CountMeanSketch::Probability(uint32_t item,
                                    const FrequencyReport& report) const {
  if (!ValidateReport(params_, report).ok()) return 0.0;
  const auto& r = std::get<SketchReport>(report);
  const uint32_t column =
      Column(r.row, std::min(item, params_.domain_size - 1));
  const double flip = params_.flip.value();
  const double keep = params_.flip.Complement().value();
  if (params_.variant == SketchVariant::kHadamard) {
    const bool negative = HadamardEntryIsNegative(column, r.column);
    return (r.bits[0] == uint64_t{negative}) ? keep : flip;
  }
  int flipped = 0;
  for (size_t w = 0; w < r.bits.size(); ++w) {
    uint64_t expected = (w == column / 64) ? uint64_t{1} << (column % 64) : 0;
    flipped += std::popcount(r.bits[w] ^ expected);
  }
  return std::pow(flip, flipped) *
         std::pow(keep, static_cast<int>(params_.num_columns) - flipped);
}

absl::Status CountMeanSketch::Validate(const FrequencyReport& report) const {
  return ValidateReport(params_, report);
}

std::unique_ptr<FrequencyAccumulator> CountMeanSketch::NewAccumulator() const {
  return NewSketchAccumulator();
}

std::unique_ptr<CountMeanSketchAccumulator>
CountMeanSketch::NewSketchAccumulator() const {
  return std::unique_ptr<CountMeanSketchAccumulator>(
      new CountMeanSketchAccumulator(params_));
}

double CountMeanSketch::Variance(double frequency, int64_t num_reports) const {
  if (num_reports <= 0) return std::numeric_limits<double>::infinity();
  return SketchVariance(params_, frequency, num_reports,
                        (1 - frequency) / static_cast<double>(num_reports));
}

double CountMeanSketch::PopulationVariance(double frequency,
                                           int64_t num_reports,
                                           double others_sum_of_squares) const {
  return SketchVariance(params_, frequency, num_reports, others_sum_of_squares);
}

CountMeanSketchAccumulator::CountMeanSketchAccumulator(
    const CountMeanSketch::Params& params)
    : params_(params), row_reports_(params.num_hashes, 0) {
  if (params_.variant == SketchVariant::kHadamard) {
    sign_sums_.assign(uint64_t{params_.num_hashes} * params_.num_columns, 0);
  } else {
    bit_sums_.assign(params_.num_hashes, BitSlicedCounter(params_.num_columns));
  }
}

absl::Status CountMeanSketchAccumulator::Add(const FrequencyReport& report) {
  if (absl::Status s = ValidateReport(params_, report); !s.ok()) return s;
  const auto& r = std::get<SketchReport>(report);
  if (params_.variant == SketchVariant::kHadamard) {
    // Bit 1 is the sign −1.
    sign_sums_[uint64_t{r.row} * params_.num_columns + r.column] +=
        1 - 2 * static_cast<int64_t>(r.bits[0]);
  } else {
    bit_sums_[r.row].Add(r.bits);
  }
  ++row_reports_[r.row];
  ++num_reports_;
  return absl::OkStatus();
}

absl::Status CountMeanSketchAccumulator::Merge(
    const FrequencyAccumulator& other) {
  const auto* o = dynamic_cast<const CountMeanSketchAccumulator*>(&other);
  if (o == nullptr || !(o->params_ == params_)) {
    return absl::InvalidArgumentError(
        "count-mean sketch accumulator: can only merge an accumulator of the "
        "same oracle (same epsilon, domain, sketch shape, variant and "
        "hash_seed)");
  }
  for (size_t j = 0; j < bit_sums_.size(); ++j) {
    if (absl::Status s = bit_sums_[j].Merge(o->bit_sums_[j]); !s.ok()) {
      return s;
    }
  }
  for (size_t i = 0; i < sign_sums_.size(); ++i) {
    sign_sums_[i] += o->sign_sums_[i];
  }
  for (size_t j = 0; j < row_reports_.size(); ++j) {
    row_reports_[j] += o->row_reports_[j];
  }
  num_reports_ += o->num_reports_;
  return absl::OkStatus();
}

std::vector<double> CountMeanSketchAccumulator::DebiasedSketch() const {
  const uint32_t m = params_.num_columns;
  const double phi = params_.flip.value();
  const double gap = 1 - 2 * phi;
  std::vector<double> sketch(uint64_t{params_.num_hashes} * m);
  for (uint32_t j = 0; j < params_.num_hashes; ++j) {
    double* row = sketch.data() + uint64_t{j} * m;
    if (params_.variant == SketchVariant::kHadamard) {
      // (H_m·T[j])[c] = Σ_l H[c][l]·T[j][l]; each report's sign has mean
      // (1 − 2φ)·H[h_j(v)][l], and H_m·H_m = m·I with l uniform over m.
      std::vector<int64_t> t(sign_sums_.begin() + uint64_t{j} * m,
                             sign_sums_.begin() + uint64_t{j + 1} * m);
      FastWalshHadamardTransform(absl::MakeSpan(t));
      for (uint32_t c = 0; c < m; ++c) row[c] = static_cast<double>(t[c]) / gap;
    } else {
      const std::vector<int64_t> sums = bit_sums_[j].Counts();
      const double expected_flips = static_cast<double>(row_reports_[j]) * phi;
      for (uint32_t c = 0; c < m; ++c) {
        row[c] = (static_cast<double>(sums[c]) - expected_flips) / gap;
      }
    }
  }
  return sketch;
}

HistogramEstimate CountMeanSketchAccumulator::EstimateItems(
    absl::Span<const uint32_t> candidates) const {
  HistogramEstimate estimate;
  estimate.num_reports = num_reports_;
  estimate.epsilon = params_.epsilon;
  estimate.frequencies.assign(candidates.size(), 0.0);
  estimate.variances.assign(candidates.size(),
                            std::numeric_limits<double>::infinity());
  if (num_reports_ == 0) return estimate;
  const std::vector<double> sketch = DebiasedSketch();
  const double second_moment = EstimateSecondMoment(sketch);
  std::vector<PairwiseHash> hashes;
  for (uint32_t j = 0; j < params_.num_hashes; ++j) {
    hashes.push_back(PairwiseHash::FromSeed(params_.hash_seed, j));
  }
  const uint32_t m = params_.num_columns;
  const double n = static_cast<double>(num_reports_);
  for (size_t i = 0; i < candidates.size(); ++i) {
    double total = 0;
    for (uint32_t j = 0; j < params_.num_hashes; ++j) {
      total += sketch[uint64_t{j} * m + hashes[j].Bucket(candidates[i], m)];
    }
    const double f = (m / (m - 1.0)) * (total / n - 1.0 / m);
    estimate.frequencies[i] = f;
    const double clamped = std::clamp(f, 0.0, 1.0);
    const double others =
        std::max(second_moment - clamped * clamped, (1 - clamped) / n);
    estimate.variances[i] =
        SketchVariance(params_, clamped, num_reports_, others);
  }
  return estimate;
}

double CountMeanSketchAccumulator::EstimateSecondMoment(
    const std::vector<double>& sketch) const {
  const double m = params_.num_columns;
  const double phi = params_.flip.value();
  const double gap = 1 - 2 * phi;
  // Σ_c Var[M̃[j][c]] contributed by one report: every CMS bit has variance
  // φ(1−φ); an HCMS report adds H[c][l]·y/(1−2φ) to every column c.
  const double noise_per_report = params_.variant == SketchVariant::kCountMean
                                      ? m * phi * (1 - phi) / (gap * gap)
                                      : m / (gap * gap) - 1;
  double total = 0;
  int rows = 0;
  for (uint32_t j = 0; j < params_.num_hashes; ++j) {
    const double nj = static_cast<double>(row_reports_[j]);
    if (nj < 2) continue;
    double squares = 0;
    for (uint32_t c = 0; c < params_.num_columns; ++c) {
      const double share = sketch[uint64_t{j} * params_.num_columns + c] / nj;
      squares += share * share;
    }
    // E[Σ_c ĝ_c²] = Σ_c g_c²(1 − 1/n_j) + 1/n_j + noise/n_j, where g_c is the
    // population share hashing to c; over hashes E[Σ_c g_c²] = F2 + (1−F2)/m.
    const double column_moment =
        (squares - noise_per_report / nj - 1 / nj) / (1 - 1 / nj);
    total += (column_moment - 1 / m) / (1 - 1 / m);
    ++rows;
  }
  return rows == 0 ? 0.0 : std::clamp(total / rows, 0.0, 1.0);
}

HistogramEstimate CountMeanSketchAccumulator::Estimate() const {
  if (params_.domain_size > CountMeanSketch::kMaxEnumeratedDomain) {
    HistogramEstimate empty;
    empty.num_reports = num_reports_;
    empty.epsilon = params_.epsilon;
    return empty;
  }
  std::vector<uint32_t> items(params_.domain_size);
  for (uint32_t v = 0; v < params_.domain_size; ++v) items[v] = v;
  return EstimateItems(items);
}

}  // namespace ldp
