// The optimized finite strategy Q (matrix_optimizer.h) as an ε-LDP
// randomizer and a linear strategy for the workload estimator.
//
// Privacy is decided by integers: each column of Q becomes K weights summing
// to exactly 2^40 (largest-remainder rounding), the agent draws a 40-bit
// uniform integer and finds its output by binary search in the column's
// cumulative weights, Probability is weight / 2^40 exactly, and epsilon() is
// the largest ln(max/min) over a row of those integers — the ε really
// implemented, which Create checks against the requested one.
//
// Linear structure: the report is output o, so A = Q (k = K rows) and
// ŷ = counts/n estimates Q·h. ReconstructionWeights = 1/(Q·1/N) is
// McKenna's D⁻¹ (each output's inverse variance at uniform data). At data h
// the counts are multinomial: Cov(ŷ)·n = diag(Q·h) − (Q·h)(Q·h)ᵀ.
#include "common/workload/matrix_strategy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/coin.h"
#include "common/validation.h"
#include "common/workload/workload.h"

namespace ldp {
namespace {

constexpr uint64_t kTotalWeight = uint64_t{1} << kMatrixStrategyWeightBits;

// Per-row implemented ε of column-major integer weights (K×N).
double WeightsEpsilon(const std::vector<uint64_t>& weights, int64_t k,
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

// Binomial draw for the sufficient-statistic sampler (benchmarks only).
int64_t Binomial(int64_t trials, double probability, absl::BitGenRef gen) {
  if (trials <= 0 || probability <= 0) return 0;
  if (probability >= 1) return trials;
  return std::binomial_distribution<int64_t>(trials, probability)(gen);
}

struct MatrixData {
  StrategySpec spec;  // without the matrix (weights hold it)
  int64_t k = 0;
  int64_t n = 0;
  std::vector<uint64_t> weights;     // column-major K×N
  std::vector<uint64_t> cumulative;  // per column: Σ_{o' ≤ o} w
  Eigen::MatrixXd q;                 // weights / 2^40, exactly
  double epsilon = 0;
};

class MatrixAccumulator final : public StrategyAccumulator {
 public:
  explicit MatrixAccumulator(std::shared_ptr<const MatrixData> data)
      : data_(std::move(data)), counts_(data_->k, 0) {}

  absl::Status Add(const WorkloadReport& report) override {
    const ItemReport* item = std::get_if<ItemReport>(&report.inner);
    if (report.group != 0 || item == nullptr || item->item >= data_->k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "matrix strategy: a report must be group 0 with an item report "
          "below ",
          data_->k));
    }
    ++counts_[item->item];
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const MatrixAccumulator*>(&other);
    if (same == nullptr ||
        (same->data_ != data_ && !(same->data_->spec == data_->spec &&
                                   same->data_->weights == data_->weights))) {
      return absl::InvalidArgumentError(
          "matrix strategy: can only merge an accumulator of the same "
          "strategy (epsilon, domain_size, rows and matrix)");
    }
    for (int64_t o = 0; o < data_->k; ++o) counts_[o] += same->counts_[o];
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(data_->k);
    if (num_reports_ == 0) return y;
    for (int64_t o = 0; o < data_->k; ++o) {
      y[o] =
          static_cast<double>(counts_[o]) / static_cast<double>(num_reports_);
    }
    return y;
  }

 private:
  std::shared_ptr<const MatrixData> data_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

class MatrixStrategy final : public StrategyMechanism {
 public:
  explicit MatrixStrategy(std::shared_ptr<const MatrixData> data)
      : data_(std::move(data)) {}

  std::string Describe() const override {
    return absl::StrCat("optimized matrix K=", data_->k);
  }
  uint32_t domain_size() const override {
    return static_cast<uint32_t>(data_->n);
  }
  double epsilon() const override { return data_->epsilon; }

  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override {
    const int64_t x = std::min<int64_t>(item, data_->n - 1);
    // One 40-bit uniform integer u; the output is the first o whose
    // cumulative weight exceeds u, so Pr[o] = w_o / 2^40 exactly.
    const uint64_t u = UniformBelow(kTotalWeight, gen);
    const uint64_t* begin = data_->cumulative.data() + x * data_->k;
    const uint64_t* found = std::upper_bound(begin, begin + data_->k, u);
    return WorkloadReport{
        .group = 0, .inner = ItemReport{static_cast<uint32_t>(found - begin)}};
  }

  double Probability(uint32_t item,
                     const WorkloadReport& report) const override {
    if (!Validate(report).ok()) return 0;
    const int64_t x = std::min<int64_t>(item, data_->n - 1);
    const uint32_t o = std::get<ItemReport>(report.inner).item;
    return data_->q(o, x);
  }

  absl::Status Validate(const WorkloadReport& report) const override {
    if (report.group != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "matrix strategy: report group must be 0, got ", report.group));
    }
    const ItemReport* item = std::get_if<ItemReport>(&report.inner);
    if (item == nullptr) {
      return absl::InvalidArgumentError(
          "matrix strategy: a report must carry an item report");
    }
    if (item->item >= data_->k) {
      return absl::InvalidArgumentError(
          absl::StrCat("matrix strategy: output ", item->item,
                       " out of range [0, ", data_->k, ")"));
    }
    return absl::OkStatus();
  }

  uint32_t output_dimension() const override {
    return static_cast<uint32_t>(data_->k);
  }
  Eigen::MatrixXd StrategyMatrix() const override { return data_->q; }

  Eigen::VectorXd ReconstructionWeights() const override {
    // 1 / (Q·1/N): every row has a non-zero weight (checked in Create).
    return (data_->q.rowwise().sum() / static_cast<double>(data_->n))
        .cwiseInverse();
  }

  std::unique_ptr<StrategyAccumulator> NewAccumulator() const override {
    return std::make_unique<MatrixAccumulator>(data_);
  }

  Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const override {
    // At e_x: Σ_o r_o²·Q[o,x] − (r·Q[:,x])².
    Eigen::MatrixXd second;
    second.noalias() = rows.cwiseProduct(rows) * data_->q;
    Eigen::MatrixXd mean;
    mean.noalias() = rows * data_->q;
    return second - mean.cwiseProduct(mean);
  }

  Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                            const Eigen::VectorXd& h) const override {
    const Eigen::VectorXd qh = data_->q * h;
    const Eigen::VectorXd mean = rows * qh;
    return rows.cwiseProduct(rows) * qh - mean.cwiseProduct(mean);
  }

  Eigen::VectorXd SampleEstimate(absl::Span<const int64_t> counts,
                                 absl::BitGenRef gen) const override {
    // Each item's agents spread multinomially over the outputs, drawn as
    // sequential binomials on the exact integer weights.
    std::vector<int64_t> outputs(data_->k, 0);
    int64_t n = 0;
    const int64_t items = std::min<int64_t>(counts.size(), data_->n);
    for (int64_t x = 0; x < items; ++x) {
      int64_t left = counts[x];
      if (left <= 0) continue;
      n += left;
      uint64_t weight_left = kTotalWeight;
      for (int64_t o = 0; o < data_->k && left > 0; ++o) {
        const uint64_t w = data_->weights[x * data_->k + o];
        const int64_t here =
            w >= weight_left ? left
                             : Binomial(left,
                                        static_cast<double>(w) /
                                            static_cast<double>(weight_left),
                                        gen);
        outputs[o] += here;
        left -= here;
        weight_left -= w;
      }
    }
    return Frequencies(outputs, n);
  }

  // Agents iid from h: each report is iid from the mixture Q·h, so the
  // output counts are one multinomial over the K outputs.
  Eigen::VectorXd SampleIidEstimate(const Eigen::VectorXd& h, int64_t n,
                                    absl::BitGenRef gen) const override {
    Eigen::VectorXd mixture = Eigen::VectorXd::Zero(data_->k);
    const int64_t items = std::min<int64_t>(h.size(), data_->n);
    for (int64_t x = 0; x < items; ++x) {
      if (h[x] <= 0) continue;
      const double share = h[x] / static_cast<double>(kTotalWeight);
      for (int64_t o = 0; o < data_->k; ++o) {
        mixture[o] +=
            share * static_cast<double>(data_->weights[x * data_->k + o]);
      }
    }
    return Frequencies(SampleMultinomialCounts(mixture, n, gen),
                       std::max<int64_t>(n, 0));
  }

 private:
  Eigen::VectorXd Frequencies(const std::vector<int64_t>& outputs,
                              int64_t n) const {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(data_->k);
    if (n == 0) return y;
    for (int64_t o = 0; o < data_->k; ++o) {
      y[o] = static_cast<double>(outputs[o]) / static_cast<double>(n);
    }
    return y;
  }

  std::shared_ptr<const MatrixData> data_;
};

}  // namespace

absl::StatusOr<std::vector<uint64_t>> MatrixStrategyWeights(
    const Eigen::MatrixXd& q) {
  const int64_t k = q.rows(), n = q.cols();
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
    // Largest remainder: floor every scaled entry, then hand the missing
    // units to the largest fractional parts (ties to the lower row).
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
  return weights;
}

absl::StatusOr<double> MatrixStrategyEpsilon(const Eigen::MatrixXd& q) {
  absl::StatusOr<std::vector<uint64_t>> weights = MatrixStrategyWeights(q);
  if (!weights.ok()) return weights.status();
  return WeightsEpsilon(*weights, q.rows(), q.cols());
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateMatrixStrategy(
    const StrategySpec& spec) {
  if (spec.kind != StrategyKind::kMatrix) {
    return absl::InvalidArgumentError(
        "matrix strategy: spec.kind must be kMatrix");
  }
  if (absl::Status s = ValidateEpsilon("matrix strategy", spec.epsilon);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateDomainSize("matrix strategy", spec.domain_size,
                                          1, kMaxWorkloadDomainSize);
      !s.ok()) {
    return s;
  }
  const uint64_t k = spec.rows, n = spec.domain_size;
  if (k == 0) {
    return absl::InvalidArgumentError("matrix strategy: rows must be >= 1");
  }
  if (k * n > kMaxInProcessStrategyMatrixEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: rows x domain_size = ", k * n, " exceeds ",
        kMaxInProcessStrategyMatrixEntries, " entries (use fewer outputs)"));
  }
  if (spec.matrix.size() != k * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: matrix must hold rows x domain_size = ", k * n,
        " values (row-major), got ", spec.matrix.size()));
  }
  auto data = std::make_shared<MatrixData>();
  data->spec = spec;
  data->k = static_cast<int64_t>(k);
  data->n = static_cast<int64_t>(n);
  const Eigen::MatrixXd q =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                     Eigen::RowMajor>>(spec.matrix.data(), k,
                                                       n);
  absl::StatusOr<std::vector<uint64_t>> weights = MatrixStrategyWeights(q);
  if (!weights.ok()) return weights.status();
  data->weights = *std::move(weights);
  data->spec.matrix.clear();
  data->epsilon = WeightsEpsilon(data->weights, data->k, data->n);
  if (!(data->epsilon <= spec.epsilon * (1 + 1e-9))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "matrix strategy: the matrix implements epsilon = ", data->epsilon,
        " (max over rows of ln(max/min) of its rounded entries), more than "
        "the requested epsilon ",
        spec.epsilon));
  }
  data->q.resize(data->k, data->n);
  data->cumulative.resize(data->weights.size());
  for (int64_t x = 0; x < data->n; ++x) {
    uint64_t running = 0;
    for (int64_t o = 0; o < data->k; ++o) {
      const uint64_t w = data->weights[x * data->k + o];
      running += w;
      data->cumulative[x * data->k + o] = running;
      data->q(o, x) =
          static_cast<double>(w) / static_cast<double>(kTotalWeight);
    }
  }
  for (int64_t o = 0; o < data->k; ++o) {
    if (data->q.row(o).sum() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "matrix strategy: row ", o,
          " has (after rounding to 2^-40) zero probability for every item; "
          "drop it"));
    }
  }
  return std::unique_ptr<StrategyMechanism>(
      std::make_unique<MatrixStrategy>(std::move(data)));
}

}  // namespace ldp
