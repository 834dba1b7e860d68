// The optimized finite strategy Q (matrix_optimizer.h) as a linear
// strategy for the workload estimator, around its randomizer
// (matrix_randomizer.h: the integer weights, draws and checks).
//
// Linear structure: the report is output o, so A = Q (k = K rows) and
// ŷ = counts/n estimates Q·h. ReconstructionWeights = 1/(Q·1/N) is
// McKenna's D⁻¹ (each output's inverse variance at uniform data). At data h
// the counts are multinomial: Cov(ŷ)·n = diag(Q·h) − (Q·h)(Q·h)ᵀ.
#include "common/workload/strategies/matrix_strategy.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/status_macros.h"
#include "common/workload/strategies/binomial_draw.h"

namespace ldp {
namespace {

// The randomizer and Q as doubles (weights / 2^40, exactly).
struct MatrixData {
  std::shared_ptr<const MatrixRandomizer> randomizer;
  int64_t k = 0;
  int64_t n = 0;
  Eigen::MatrixXd q;
};

class MatrixAccumulator final : public StrategyAccumulator {
 public:
  explicit MatrixAccumulator(std::shared_ptr<const MatrixData> data)
      : data_(std::move(data)), counts_(data_->k, 0) {}

  absl::Status Add(const WorkloadReport& report) override {
    if (absl::Status s = data_->randomizer->Validate(report); !s.ok()) return s;
    ++counts_[std::get<ItemReport>(report.inner).item];
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const MatrixAccumulator*>(&other);
    if (same == nullptr ||
        (same->data_ != data_ &&
         !(same->data_->randomizer->spec() == data_->randomizer->spec() &&
           same->data_->randomizer->weights() ==
               data_->randomizer->weights()))) {
      return absl::InvalidArgumentError(
          "matrix strategy: can only merge an accumulator of the same "
          "strategy (epsilon, domain_size, rows and matrix)");
    }
    for (int64_t o = 0; o < data_->k; ++o) counts_[o] += same->counts_[o];
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  // counts: the reports per output (K values, summing to num_reports).
  AccumulatorState State() const override {
    return {.num_reports = num_reports_, .counts = counts_};
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    return MergeCounts(state, "matrix strategy", 1, &counts_, &num_reports_);
  }

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
      : StrategyMechanism(data->randomizer), data_(std::move(data)) {}

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
        const uint64_t w = weights()[x * data_->k + o];
        const int64_t here =
            w >= weight_left
                ? left
                : DrawBinomial(
                      left,
                      static_cast<double>(w) / static_cast<double>(weight_left),
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
        mixture[o] += share * static_cast<double>(weights()[x * data_->k + o]);
      }
    }
    return Frequencies(SampleMultinomialCounts(mixture, n, gen),
                       std::max<int64_t>(n, 0));
  }

 private:
  static constexpr uint64_t kTotalWeight = uint64_t{1}
                                           << kMatrixStrategyWeightBits;

  const std::vector<uint64_t>& weights() const {
    return data_->randomizer->weights();
  }

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
  return MatrixStrategyWeights(MatrixView{.data = q.data(),
                                          .rows = q.rows(),
                                          .cols = q.cols(),
                                          .row_stride = 1,
                                          .column_stride = q.rows()});
}

absl::StatusOr<double> MatrixStrategyEpsilon(const Eigen::MatrixXd& q) {
  absl::StatusOr<std::vector<uint64_t>> weights = MatrixStrategyWeights(q);
  if (!weights.ok()) return weights.status();
  return MatrixWeightsEpsilon(*weights, q.rows(), q.cols());
}

std::unique_ptr<StrategyMechanism> MatrixStrategyFor(
    std::shared_ptr<const MatrixRandomizer> randomizer) {
  auto data = std::make_shared<MatrixData>();
  data->k = randomizer->outputs();
  data->n = randomizer->domain_size();
  data->q.resize(data->k, data->n);
  for (int64_t x = 0; x < data->n; ++x) {
    for (int64_t o = 0; o < data->k; ++o)
      data->q(o, x) = randomizer->Entry(o, x);
  }
  data->randomizer = std::move(randomizer);
  return std::make_unique<MatrixStrategy>(std::move(data));
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateMatrixStrategy(
    const StrategySpec& spec) {
  absl::StatusOr<std::shared_ptr<const MatrixRandomizer>> randomizer =
      CreateMatrixRandomizer(spec);
  if (!randomizer.ok()) return randomizer.status();
  return MatrixStrategyFor(*std::move(randomizer));
}

}  // namespace ldp
