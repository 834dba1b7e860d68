// RS+FD[GRR]'s decoding, variances and exact sampler (fake_data_strategy.h).
//
// For a row r of reconstruction weights over the K cells, let s = r∘D with
// D_{jv} = d/(p_j − q_j) and u the report's cell indicators. Then
// n·Var(r·ŷ) = sᵀ·Cov(u)·s, and with g as in the header, κ_{jv} = 1/k_j and
// π_{jv} = g_{jv}/d + (d − 1)/(d·k_j) = E[u_{jv}]:
//   sᵀ·E[u·uᵀ]·s = Σ s²π + [2(s·g)(s·κ) + (d − 2)(s·κ)²
//                  − Σ_j (2(s_j·g_j)(s_j·κ_j) + (d − 2)(s_j·κ_j)²)]/d,
// the bracket being the cross-attribute terms (a rank-two form minus its
// diagonal blocks), and Cov(u) = E[u·uᵀ] − π·πᵀ.
#include "common/workload/strategies/fake_data_strategy.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"

namespace ldp {
namespace {

struct FakeData {
  std::shared_ptr<const FakeDataRandomizer> randomizer;
  int d = 0;                    // attributes
  int64_t n = 0;                // N
  int64_t k = 0;                // K = Σ k_j
  std::vector<int64_t> offset;  // first row of attribute j
  // Per row: D, the decoding shift, κ, p and q of the row's attribute.
  Eigen::VectorXd scale, shift, kappa, p, q;
};

// m = A·e_x summed with weights: the marginals of h (K values).
Eigen::VectorXd Marginals(const FakeData& f, const Eigen::VectorXd& h) {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(f.k);
  for (int64_t x = 0; x < f.n; ++x) {
    for (int j = 0; j < f.d; ++j) {
      m(f.offset[j] + f.randomizer->Digit(static_cast<uint32_t>(x), j)) += h(x);
    }
  }
  return m;
}

// n·Var(r·ŷ) at marginals m, in O(K).
double CovarianceForm(const FakeData& f, const Eigen::RowVectorXd& r,
                      const Eigen::VectorXd& m) {
  const Eigen::ArrayXd s = r.transpose().array() * f.scale.array();
  const Eigen::ArrayXd g = f.q.array() + (f.p - f.q).array() * m.array();
  const double d = f.d;
  const Eigen::ArrayXd pi = g / d + (d - 1) / d * f.kappa.array();
  const Eigen::ArrayXd kappa = f.kappa.array();
  double blocks = 0;
  for (int j = 0; j < f.d; ++j) {
    const int64_t first = f.offset[j], size = f.offset[j + 1] - first;
    const double sg = (s.segment(first, size) * g.segment(first, size)).sum();
    const double sk =
        (s.segment(first, size) * kappa.segment(first, size)).sum();
    blocks += 2 * sg * sk + (d - 2) * sk * sk;
  }
  const double sg = (s * g).sum(), sk = (s * kappa).sum(), spi = (s * pi).sum();
  const double cross = (2 * sg * sk + (d - 2) * sk * sk - blocks) / d;
  return (s * s * pi).sum() + cross - spi * spi;
}

class FakeDataAccumulator final : public StrategyAccumulator {
 public:
  explicit FakeDataAccumulator(std::shared_ptr<const FakeData> data)
      : data_(std::move(data)), counts_(data_->k, 0) {}

  absl::Status Add(const WorkloadReport& report) override {
    const FakeDataRandomizer& r = *data_->randomizer;
    if (absl::Status s = r.Validate(report); !s.ok()) return s;
    const uint32_t y = std::get<ItemReport>(report.inner).item;
    for (int j = 0; j < data_->d; ++j)
      ++counts_[data_->offset[j] + r.Digit(y, j)];
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const FakeDataAccumulator*>(&other);
    if (same == nullptr ||
        !(same->data_->randomizer->spec() == data_->randomizer->spec())) {
      return absl::InvalidArgumentError(
          "sampling_fake_data strategy: can only merge an accumulator of the "
          "same strategy (epsilon and attribute sizes)");
    }
    for (int64_t i = 0; i < data_->k; ++i) counts_[i] += same->counts_[i];
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    return Decode(*data_, counts_, num_reports_);
  }

  // ŷ from the cells' report counts.
  static Eigen::VectorXd Decode(const FakeData& f,
                                const std::vector<int64_t>& counts, int64_t n) {
    if (n == 0) return Eigen::VectorXd::Zero(f.k);
    Eigen::VectorXd y(f.k);
    for (int64_t i = 0; i < f.k; ++i) {
      y(i) =
          f.scale(i) * static_cast<double>(counts[i]) / static_cast<double>(n) -
          f.shift(i);
    }
    return y;
  }

 private:
  std::shared_ptr<const FakeData> data_;
  std::vector<int64_t> counts_;
  int64_t num_reports_ = 0;
};

class FakeDataStrategy final : public StrategyMechanism {
 public:
  explicit FakeDataStrategy(std::shared_ptr<const FakeData> data)
      : StrategyMechanism(data->randomizer), data_(std::move(data)) {}

  uint32_t output_dimension() const override {
    return static_cast<uint32_t>(data_->k);
  }
  Eigen::MatrixXd StrategyMatrix() const override {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(data_->k, data_->n);
    for (int64_t x = 0; x < data_->n; ++x) a.col(x) = OneHot(x);
    return a;
  }
  // At uniform data every cell is reported with probability 1/k_j, so
  // Var(z_{jv}) = D_{jv}²·(1/k_j)(1 − 1/k_j).
  Eigen::VectorXd ReconstructionWeights() const override {
    const Eigen::ArrayXd k = data_->kappa.array();
    return (data_->scale.array().square() * k * (1 - k)).inverse().matrix();
  }
  std::unique_ptr<StrategyAccumulator> NewAccumulator() const override {
    return std::make_unique<FakeDataAccumulator>(data_);
  }

  Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const override {
    Eigen::MatrixXd out(rows.rows(), data_->n);
    for (int64_t x = 0; x < data_->n; ++x) {
      const Eigen::VectorXd m = OneHot(x);
      for (Eigen::Index i = 0; i < rows.rows(); ++i) {
        out(i, x) = CovarianceForm(*data_, rows.row(i), m);
      }
    }
    return out;
  }

  Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                            const Eigen::VectorXd& h) const override {
    const Eigen::VectorXd m = Marginals(*data_, h);
    Eigen::VectorXd out(rows.rows());
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      out(i) = CovarianceForm(*data_, rows.row(i), m);
    }
    return out;
  }

  Eigen::VectorXd SampleEstimate(absl::Span<const int64_t> counts,
                                 absl::BitGenRef gen) const override;

 private:
  Eigen::VectorXd OneHot(int64_t x) const {
    Eigen::VectorXd m = Eigen::VectorXd::Zero(data_->k);
    for (int j = 0; j < data_->d; ++j) {
      m(data_->offset[j] +
        data_->randomizer->Digit(static_cast<uint32_t>(x), j)) = 1;
    }
    return m;
  }

  std::shared_ptr<const FakeData> data_;
};

// Exact in distribution, without randomizing agent by agent: the agents
// holding x split over the sampled attribute multinomially; those that
// sampled j report x_j through GRR_j, and every agent that did not sample
// j reports a uniform value of it, independently given the split.
Eigen::VectorXd FakeDataStrategy::SampleEstimate(
    absl::Span<const int64_t> counts, absl::BitGenRef gen) const {
  const FakeData& f = *data_;
  const FakeDataRandomizer& r = *f.randomizer;
  // real[row(j, u)]: agents that sampled j and hold x_j = u.
  std::vector<int64_t> real(f.k, 0), cells(f.k, 0);
  const Eigen::VectorXd uniform_d = Eigen::VectorXd::Constant(f.d, 1.0 / f.d);
  int64_t total = 0;
  const int64_t items = std::min<int64_t>(counts.size(), f.n);
  for (int64_t x = 0; x < items; ++x) {
    if (counts[x] <= 0) continue;
    total += counts[x];
    const std::vector<int64_t> split =
        SampleMultinomialCounts(uniform_d, counts[x], gen);
    for (int j = 0; j < f.d; ++j) {
      real[f.offset[j] + r.Digit(static_cast<uint32_t>(x), j)] += split[j];
    }
  }
  for (int j = 0; j < f.d; ++j) {
    const int64_t first = f.offset[j], size = f.offset[j + 1] - first;
    int64_t sampled = 0;
    for (int64_t u = 0; u < size; ++u) {
      Eigen::VectorXd grr = Eigen::VectorXd::Constant(size, f.q(first));
      grr(u) = f.p(first);
      const std::vector<int64_t> drawn =
          SampleMultinomialCounts(grr, real[first + u], gen);
      for (int64_t v = 0; v < size; ++v) cells[first + v] += drawn[v];
      sampled += real[first + u];
    }
    const std::vector<int64_t> fake = SampleMultinomialCounts(
        Eigen::VectorXd::Constant(size, 1.0 / size), total - sampled, gen);
    for (int64_t v = 0; v < size; ++v) cells[first + v] += fake[v];
  }
  return FakeDataAccumulator::Decode(f, cells, total);
}

}  // namespace

std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const FakeDataRandomizer> randomizer) {
  auto data = std::make_shared<FakeData>();
  const std::vector<uint32_t>& sizes = randomizer->spec().attribute_sizes;
  data->d = static_cast<int>(sizes.size());
  data->n = randomizer->domain_size();
  data->offset.push_back(0);
  for (uint32_t k : sizes) data->offset.push_back(data->offset.back() + k);
  data->k = data->offset.back();
  for (auto* v :
       {&data->scale, &data->shift, &data->kappa, &data->p, &data->q}) {
    v->resize(data->k);
  }
  const double d = data->d;
  for (int j = 0; j < data->d; ++j) {
    const GeneralizedRandomizedResponse& grr = randomizer->grr(j);
    const double p = grr.keep_probability(), q = grr.other_probability();
    const double k = sizes[j];
    for (int64_t i = data->offset[j]; i < data->offset[j + 1]; ++i) {
      data->scale(i) = d / (p - q);
      data->shift(i) = (q + (d - 1) / k) / (p - q);
      data->kappa(i) = 1 / k;
      data->p(i) = p;
      data->q(i) = q;
    }
  }
  data->randomizer = std::move(randomizer);
  return std::make_unique<FakeDataStrategy>(std::move(data));
}

double FakeDataCellVariance(const FakeDataRandomizer& randomizer, uint32_t j,
                            double frequency, int64_t num_reports) {
  const GeneralizedRandomizedResponse& grr = randomizer.grr(j);
  const double p = grr.keep_probability(), q = grr.other_probability();
  const double d = randomizer.num_attributes();
  const double k = randomizer.spec().attribute_sizes[j];
  const double pi = (q + frequency * (p - q)) / d + (d - 1) / (d * k);
  // Σ_i π_i(1 − π_i) = n·π(1 − π) − n·f(1 − f)·((p − q)/d)².
  return (d * d * pi * (1 - pi) / ((p - q) * (p - q)) -
          frequency * (1 - frequency)) /
         static_cast<double>(num_reports);
}

}  // namespace ldp
