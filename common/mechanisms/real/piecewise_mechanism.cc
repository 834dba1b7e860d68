// The piecewise mechanism on a grid of cells; see piecewise_mechanism.h for
// the discretization and the exact-unbiasedness argument.
#include "common/mechanisms/real/piecewise_mechanism.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/mechanisms/real/piecewise_quadratic.h"
#include "common/mechanisms/real/real_input.h"
#include "common/mechanisms/real/worst_case_memo.h"

namespace ldp {
namespace {

constexpr double kCoinDenominator =
    static_cast<double>(CoinProbability::kDenominator);

// ln(q_in / q_out) for inside numerator k, m band cells and j positions.
double InsideOutsideEpsilon(uint64_t k, int64_t band, int64_t positions) {
  return std::log(static_cast<double>(k) * static_cast<double>(positions) /
                  ((kCoinDenominator - static_cast<double>(k)) *
                   static_cast<double>(band)));
}

// Σ v and Σ v² over the `count` consecutive unit-spaced values starting at
// `first` (cell centres, shifted): count·mean and count·(mean² + (count² −
// 1)/12).
double SumOf(double first, double count) {
  return count * (first + (count - 1) / 2);
}
double SumOfSquares(double first, double count) {
  const double mean = first + (count - 1) / 2;
  return count * (mean * mean + (count * count - 1) / 12);
}

// x's band position (t + 1)/2 · J, rounded at random.
RandomizedRounding RoundToPosition(double x, double bound, int64_t positions) {
  return RandomizedRounding::Of(
      (ClampToBound(x, bound) / bound + 1) / 2 * static_cast<double>(positions),
      positions);
}

absl::Status ValidateCells(int64_t num_cells) {
  if (num_cells < PiecewiseMechanism::kMinCells ||
      num_cells > PiecewiseMechanism::kMaxCells) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_cells must be in [", PiecewiseMechanism::kMinCells, ", ",
        PiecewiseMechanism::kMaxCells, "], got ", num_cells));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<PiecewiseMechanism>> PiecewiseMechanism::Create(
    const PiecewiseOptions& options) {
  RETURN_IF_ERROR(ValidateEpsilonAndBound(options.epsilon, options.bound));
  RETURN_IF_ERROR(ValidateCells(options.num_cells));
  const double cells = static_cast<double>(options.num_cells);
  // The paper's band is (C − 1)/(2C) = 1/(e^{ε/2} + 1) of the output range.
  const int64_t band = std::clamp<int64_t>(
      std::llround(cells / (std::exp(options.epsilon / 2) + 1)), 1,
      options.num_cells - 1);
  const int64_t positions = options.num_cells - band;
  const double weighted_band = std::exp(options.epsilon) * band;
  uint64_t k =
      CoinProbability::RoundDown(weighted_band / (weighted_band + positions))
          .numerator();
  // Rounding K down lowers the ratio; the loop absorbs any error in exp().
  while (k > 0 && InsideOutsideEpsilon(k, band, positions) > options.epsilon) {
    --k;
  }
  const double implemented = InsideOutsideEpsilon(k, band, positions);
  if (!(implemented > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "epsilon ", options.epsilon, " is too small for num_cells ",
        options.num_cells, ": the cell probabilities round to equal values"));
  }
  auto mechanism = std::unique_ptr<PiecewiseMechanism>(
      new PiecewiseMechanism(options.bound, options.num_cells, band,
                             CoinProbability::FromNumerator(k), implemented));
  return mechanism;
}

double PiecewiseMechanism::WorstCaseVariance() const {
  absl::call_once(worst_case_once_, [this] {
    worst_case_variance_ = MemoizedWorstCase(VarianceKey(), [this] {
      return MaxOfPiecewiseQuadratic([this](double x) { return Variance(x); },
                                     InputGrid());
    });
  });
  return worst_case_variance_;
}

std::string PiecewiseMechanism::VarianceKey() const {
  // The cell probabilities and decode scale follow from these.
  return absl::StrCat("piecewise/", ExactKeyPart(bound_), num_cells_, "/",
                      band_cells_, "/", inside_.numerator());
}

PiecewiseMechanism::PiecewiseMechanism(double bound, int64_t num_cells,
                                       int64_t band_cells,
                                       CoinProbability inside, double epsilon)
    : bound_(bound),
      num_cells_(num_cells),
      band_cells_(band_cells),
      inside_(inside),
      epsilon_(epsilon),
      inside_cell_probability_(inside.value() /
                               static_cast<double>(band_cells)),
      outside_cell_probability_(inside.Complement().value() /
                                static_cast<double>(num_cells - band_cells)) {
  // E[Decode | j] = scale·(FirstMoment(j) − FirstMoment(0)) − b, and
  // FirstMoment(j) − FirstMoment(0) = m(q_in − q_out)·j, so this is b(2j/J −
  // 1): unbiased on the grid, hence (rounding) everywhere.
  const double slope = static_cast<double>(band_cells) *
                       (inside_cell_probability_ - outside_cell_probability_);
  decode_scale_ = 2 * bound / (slope * static_cast<double>(num_positions()));
  decode_offset_ = -decode_scale_ * FirstMoment(0) - bound;
}

// Moments use the centred value v = c + ½ − L/2, which keeps the variance
// free of cancellation for large L.
double PiecewiseMechanism::FirstMoment(int64_t j) const {
  const double shift = 0.5 - static_cast<double>(num_cells_) / 2;
  const double band =
      SumOf(static_cast<double>(j) + shift, static_cast<double>(band_cells_));
  const double all = SumOf(shift, static_cast<double>(num_cells_));
  return inside_cell_probability_ * band +
         outside_cell_probability_ * (all - band);
}

double PiecewiseMechanism::SecondMoment(int64_t j) const {
  const double shift = 0.5 - static_cast<double>(num_cells_) / 2;
  const double band = SumOfSquares(static_cast<double>(j) + shift,
                                   static_cast<double>(band_cells_));
  const double all = SumOfSquares(shift, static_cast<double>(num_cells_));
  return inside_cell_probability_ * band +
         outside_cell_probability_ * (all - band);
}

ScalarReport PiecewiseMechanism::Randomize(double x,
                                           absl::BitGenRef gen) const {
  const int64_t j = RoundToPosition(x, bound_, num_positions()).Sample(gen);
  // Both cells are drawn every time: the work must not tell whether the
  // report fell in the band, which sits at the input (DESIGN invariant 8).
  const bool inside = FlipCoin(inside_, gen);
  const int64_t in_band =
      j + static_cast<int64_t>(UniformBelow(band_cells_, gen));
  const int64_t u = static_cast<int64_t>(UniformBelow(num_positions(), gen));
  const int64_t outside = u < j ? u : u + band_cells_;
  return {.level = inside ? in_band : outside};
}

double PiecewiseMechanism::Probability(double x,
                                       const ScalarReport& report) const {
  if (report.level < 0 || report.level >= num_cells_) return 0;
  const RandomizedRounding rounding =
      RoundToPosition(x, bound_, num_positions());
  double probability = 0;
  for (int offset = 0; offset <= 1; ++offset) {
    const int64_t j = rounding.lower() + offset;
    const bool inside = report.level >= j && report.level < j + band_cells_;
    probability +=
        rounding.Weight(offset) *
        (inside ? inside_cell_probability_ : outside_cell_probability_);
  }
  return probability;
}

absl::Status PiecewiseMechanism::Validate(const ScalarReport& report) const {
  if (report.level < 0 || report.level >= num_cells_) {
    return absl::InvalidArgumentError(
        absl::StrCat("piecewise report level must be a cell in [0, ",
                     num_cells_, "), got ", report.level));
  }
  return absl::OkStatus();
}

double PiecewiseMechanism::Decode(const ScalarReport& report) const {
  // scale·(c + ½ − L/2) + offset, written so the centring matches the
  // moments exactly.
  const double centred = static_cast<double>(report.level) + 0.5 -
                         static_cast<double>(num_cells_) / 2;
  return decode_scale_ * centred + decode_offset_;
}

// Decode is affine in the cell, so the ends bound it.
double PiecewiseMechanism::DecodeBound() const {
  return std::max(std::fabs(Decode({.level = 0})),
                  std::fabs(Decode({.level = num_cells_ - 1})));
}

double PiecewiseMechanism::Variance(double x) const {
  const RandomizedRounding rounding =
      RoundToPosition(x, bound_, num_positions());
  double first = 0, second = 0;
  for (int offset = 0; offset <= 1; ++offset) {
    const double weight = rounding.Weight(offset);
    if (weight == 0) continue;
    first += weight * FirstMoment(rounding.lower() + offset);
    second += weight * SecondMoment(rounding.lower() + offset);
  }
  return decode_scale_ * decode_scale_ * (second - first * first);
}

std::vector<double> PiecewiseMechanism::InputGrid() const {
  const double positions = static_cast<double>(num_positions());
  std::vector<double> grid;
  grid.reserve(num_positions() + 1);
  for (int64_t j = 0; j <= num_positions(); ++j) {
    grid.push_back(bound_ * (2 * static_cast<double>(j) - positions) /
                   positions);
  }
  return grid;
}

}  // namespace ldp
