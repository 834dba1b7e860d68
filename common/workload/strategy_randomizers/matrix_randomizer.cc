// The optimized finite strategy Q as an ε-LDP randomizer
// (matrix_randomizer.h).
//
// Privacy is decided by integers: each column of Q becomes K weights summing
// to exactly 2^40 (largest-remainder rounding), the agent draws a 40-bit
// uniform integer and finds its output by binary search in the column's
// cumulative weights, Probability is weight / 2^40 exactly, and epsilon() is
// the largest ln(max/min) over a row of those integers — the ε really
// implemented, which Create checks against the requested one.
#include "common/workload/strategy_randomizers/matrix_randomizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/base/coin.h"
#include "common/workload/strategy_randomizers/strategy_shape.h"

namespace ldp {
namespace {

constexpr uint64_t kTotalWeight = uint64_t{1} << kMatrixStrategyWeightBits;

// Largest remainder: floor every scaled entry of column x, then hand the
// missing units to the largest fractional parts (ties to the lower row).
// `remainder` and `order` are K-entry scratch space, reused across columns.
void RoundColumn(const MatrixView& q, int64_t x, double sum,
                 std::vector<uint64_t>& weights, std::vector<double>& remainder,
                 std::vector<int64_t>& order) {
  const int64_t k = q.rows;
  uint64_t assigned = 0;
  for (int64_t o = 0; o < k; ++o) {
    const double scaled = q(o, x) / sum * static_cast<double>(kTotalWeight);
    const double floor = std::floor(scaled);
    weights[x * k + o] = static_cast<uint64_t>(floor);
    remainder[o] = scaled - floor;
    assigned += weights[x * k + o];
  }
  // |Σ scaled − 2^40| is a few ulps, so the deficit is within [−k, k].
  std::iota(order.begin(), order.end(), 0);
  if (assigned <= kTotalWeight) {
    uint64_t missing = kTotalWeight - assigned;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return remainder[a] > remainder[b];
    });
    for (int64_t i = 0; missing > 0; i = (i + 1) % k, --missing) {
      ++weights[x * k + order[i]];
    }
  } else {
    uint64_t excess = assigned - kTotalWeight;
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return remainder[a] < remainder[b];
    });
    for (int64_t i = 0; excess > 0; i = (i + 1) % k) {
      if (weights[x * k + order[i]] > 0) {
        --weights[x * k + order[i]];
        --excess;
      }
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<uint64_t>> MatrixStrategyWeights(
    const MatrixView& q) {
  const int64_t k = q.rows, n = q.cols;
  if (k == 0 || n == 0) {
    return absl::InvalidArgumentError("matrix strategy: matrix is empty");
  }
  std::vector<uint64_t> weights(static_cast<size_t>(k) * n);
  std::vector<double> remainder(k);
  std::vector<int64_t> order(k);
  for (int64_t x = 0; x < n; ++x) {
    double sum = 0;
    for (int64_t o = 0; o < k; ++o) {
      const double v = q(o, x);
      if (!std::isfinite(v) || v < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("matrix strategy: matrix entry (row ", o, ", column ",
                         x, ") must be finite and >= 0, got ", v));
      }
      sum += v;
    }
    if (std::abs(sum - 1) > 1e-9) {
      return absl::InvalidArgumentError(absl::StrCat(
          "matrix strategy: column ", x,
          " must sum to 1 (Q[o, x] = Pr[output o | item x]), sums to ", sum));
    }
    RoundColumn(q, x, sum, weights, remainder, order);
  }
  return weights;
}

double MatrixWeightsEpsilon(const std::vector<uint64_t>& weights, int64_t k,
                            int64_t n) {
  double epsilon = 0;
  for (int64_t o = 0; o < k; ++o) {
    uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
    for (int64_t x = 0; x < n; ++x) {
      const uint64_t w = weights[x * k + o];
      lo = std::min(lo, w);
      hi = std::max(hi, w);
    }
    if (hi == 0) continue;  // never output
    if (lo == 0) return std::numeric_limits<double>::infinity();
    epsilon = std::max(
        epsilon, std::log(static_cast<double>(hi) / static_cast<double>(lo)));
  }
  return epsilon;
}

MatrixRandomizer::MatrixRandomizer(StrategySpec spec,
                                   std::vector<uint64_t> weights,
                                   double epsilon)
    : spec_(std::move(spec)),
      k_(spec_.rows),
      n_(spec_.domain_size),
      weights_(std::move(weights)),
      cumulative_(weights_.size()),
      epsilon_(epsilon) {
  for (int64_t x = 0; x < n_; ++x) {
    uint64_t running = 0;
    for (int64_t o = 0; o < k_; ++o) {
      running += weights_[x * k_ + o];
      cumulative_[x * k_ + o] = running;
    }
  }
}

std::string MatrixRandomizer::Describe() const {
  return absl::StrCat("optimized matrix K=", k_);
}

double MatrixRandomizer::Entry(int64_t o, int64_t x) const {
  return static_cast<double>(weights_[x * k_ + o]) /
         static_cast<double>(kTotalWeight);
}

WorkloadReport MatrixRandomizer::Randomize(uint32_t item,
                                           absl::BitGenRef gen) const {
  const int64_t x = std::min<int64_t>(item, n_ - 1);
  const uint64_t u = UniformBelow(kTotalWeight, gen);
  const uint64_t* begin = cumulative_.data() + x * k_;
  const uint64_t* found = std::upper_bound(begin, begin + k_, u);
  return WorkloadReport{
      .group = 0, .inner = ItemReport{static_cast<uint32_t>(found - begin)}};
}

double MatrixRandomizer::Probability(uint32_t item,
                                     const WorkloadReport& report) const {
  if (!Validate(report).ok()) return 0;
  const int64_t x = std::min<int64_t>(item, n_ - 1);
  return Entry(std::get<ItemReport>(report.inner).item, x);
}

absl::Status MatrixRandomizer::Validate(const WorkloadReport& report) const {
  if (report.group != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: report group must be 0, got ", report.group));
  }
  const ItemReport* item = std::get_if<ItemReport>(&report.inner);
  if (item == nullptr) {
    return absl::InvalidArgumentError(
        "matrix strategy: a report must carry an item report");
  }
  if (item->item >= k_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: output ", item->item, " out of range [0, ", k_, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const MatrixRandomizer>> CreateMatrixRandomizer(
    const StrategySpec& spec) {
  if (absl::Status s =
          CheckStrategyShape(spec, StrategyKind::kMatrix, "matrix strategy");
      !s.ok()) {
    return s;
  }
  const int64_t k = spec.rows, n = spec.domain_size;
  absl::StatusOr<std::vector<uint64_t>> weights =
      MatrixStrategyWeights(MatrixView{.data = spec.matrix.data(),
                                       .rows = k,
                                       .cols = n,
                                       .row_stride = n,
                                       .column_stride = 1});
  if (!weights.ok()) return weights.status();
  const double epsilon = MatrixWeightsEpsilon(*weights, k, n);
  if (!(epsilon <= spec.epsilon * (1 + 1e-9))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: the matrix implements epsilon = ", epsilon,
        " (max over rows of ln(max/min) of its rounded entries), more than "
        "the requested epsilon ",
        spec.epsilon));
  }
  for (int64_t o = 0; o < k; ++o) {
    bool output = false;
    for (int64_t x = 0; x < n && !output; ++x)
      output = (*weights)[x * k + o] > 0;
    if (!output) {
      return absl::InvalidArgumentError(absl::StrCat(
          "matrix strategy: row ", o,
          " has (after rounding to 2^-40) zero probability for every item; "
          "drop it"));
    }
  }
  StrategySpec stripped = spec;
  stripped.matrix.clear();
  return std::make_shared<const MatrixRandomizer>(std::move(stripped),
                                                  *std::move(weights), epsilon);
}

}  // namespace ldp
