// The RS+FD forms' decoding, variances and exact sampler
// (fake_data_strategy.h).
//
// For a row r of reconstruction weights over the K cells, let s = r∘D with
// D_{jv} = d/(p_j − q_j) and u the report's cell indicators. Then
// n·Var(r·ŷ) = sᵀ·Cov(u)·s, and with g and κ as in the header and
// π_{jv} = g_{jv}/d + (d − 1)/d·κ_{jv} = E[u_{jv}]:
//   sᵀ·E[u·uᵀ]·s = Σ s²π + [2(s·g)(s·κ) + (d − 2)(s·κ)²
//                  − Σ_j (2(s_j·g_j)(s_j·κ_j) + (d − 2)(s_j·κ_j)²)]/d
//                  + (unary) Σ_j [c_j((Σ s_j)² − Σ s_j²)
//                                 + 2a_j((s_j·m_j)(Σ s_j) − Σ s_j²m_j)],
// the bracket being the cross-attribute terms (a rank-two form minus its
// diagonal blocks), the last the pairs of bits within a block, set
// together with probability c_j + a_j(m_v + m_w); Cov(u) = E[u·uᵀ] − π·πᵀ.
#include "common/workload/strategies/fake_data_strategy.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/workload/strategies/binomial_draw.h"

namespace ldp {
namespace {

struct FakeData {
  std::shared_ptr<const StrategyRandomizer> randomizer;
  StrategySpec spec;
  bool unary = false;           // a bit block per attribute, not a tuple
  int d = 0;                    // attributes
  int64_t n = 0;                // N
  int64_t k = 0;                // K = Σ k_j
  std::vector<int64_t> offset;  // first row of attribute j
  std::vector<uint32_t> place;  // Π of the sizes after attribute j
  // Per row: D, the decoding shift, κ, p and q of the row's attribute;
  // unary only: the within-block pair terms c and a.
  Eigen::VectorXd scale, shift, kappa, p, q, pair_c, pair_a;
  // OUE-r: a fake's hot bit is set with p; otherwise fakes are all q.
  bool one_hot_fakes = false;

  uint32_t Digit(int64_t x, int j) const {
    return static_cast<uint32_t>(x / place[j]) % spec.attribute_sizes[j];
  }
};

// m = A·e_x summed with weights: the marginals of h (K values).
Eigen::VectorXd Marginals(const FakeData& f, const Eigen::VectorXd& h) {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(f.k);
  for (int64_t x = 0; x < f.n; ++x) {
    for (int j = 0; j < f.d; ++j) m(f.offset[j] + f.Digit(x, j)) += h(x);
  }
  return m;
}

// Σ over pairs of distinct bits v, w of one block of s_v·s_w·E[u_v·u_w].
double WithinBlocks(const FakeData& f, const Eigen::ArrayXd& s,
                    const Eigen::ArrayXd& m) {
  double sum = 0;
  for (int j = 0; j < f.d; ++j) {
    const int64_t first = f.offset[j], size = f.offset[j + 1] - first;
    const Eigen::ArrayXd sj = s.segment(first, size);
    const Eigen::ArrayXd mj = m.segment(first, size);
    const double total = sj.sum(), squares = sj.square().sum();
    sum += f.pair_c(first) * (total * total - squares) +
           2 * f.pair_a(first) *
               ((sj * mj).sum() * total - (sj.square() * mj).sum());
  }
  return sum;
}

// n·Var(r·ŷ) at marginals m, in O(K).
double CovarianceForm(const FakeData& f, const Eigen::RowVectorXd& r,
                      const Eigen::VectorXd& m) {
  const Eigen::ArrayXd s = r.transpose().array() * f.scale.array();
  const Eigen::ArrayXd g = f.q.array() + (f.p - f.q).array() * m.array();
  const double d = f.d;
  const Eigen::ArrayXd kappa = f.kappa.array();
  const Eigen::ArrayXd pi = g / d + (d - 1) / d * kappa;
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
  const double within = f.unary ? WithinBlocks(f, s, m.array()) : 0;
  return (s * s * pi).sum() + cross + within - spi * spi;
}

class FakeDataAccumulator final : public StrategyAccumulator {
 public:
  explicit FakeDataAccumulator(std::shared_ptr<const FakeData> data)
      : data_(std::move(data)), counts_(data_->k, 0) {}

  absl::Status Add(const WorkloadReport& report) override {
    if (absl::Status s = data_->randomizer->Validate(report); !s.ok()) {
      return s;
    }
    if (data_->unary) {
      const std::vector<uint64_t>& words =
          std::get<BitVectorReport>(report.inner).words;
      for (size_t w = 0; w < words.size(); ++w) {
        for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
          ++counts_[64 * w + std::countr_zero(bits)];
        }
      }
    } else {
      const uint32_t y = std::get<ItemReport>(report.inner).item;
      for (int j = 0; j < data_->d; ++j) {
        ++counts_[data_->offset[j] + data_->Digit(y, j)];
      }
    }
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const FakeDataAccumulator*>(&other);
    if (same == nullptr || !(same->data_->spec == data_->spec)) {
      return absl::InvalidArgumentError(
          "sampling_fake_data strategy: can only merge an accumulator of the "
          "same strategy (form, epsilon and attribute sizes)");
    }
    for (int64_t i = 0; i < data_->k; ++i) counts_[i] += same->counts_[i];
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    return Decode(*data_, counts_, num_reports_);
  }

  // counts: the reports setting each cell (K values, each ≤ num_reports;
  // a tuple report sets one cell per attribute, so there each attribute's
  // cells sum to num_reports).
  AccumulatorState State() const override {
    return {.num_reports = num_reports_, .counts = counts_};
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    constexpr char kName[] = "sampling_fake_data strategy";
    RETURN_IF_ERROR(ValidateStateShape(state, kName, {.counts = counts_.size()},
                                       num_reports_));
    RETURN_IF_ERROR(ValidateStateRange(state.counts, kName, "cell count", 0,
                                       state.num_reports));
    for (int j = 0; j < data_->d && !data_->unary; ++j) {
      RETURN_IF_ERROR(ValidateStateSum(
          absl::MakeConstSpan(state.counts)
              .subspan(data_->offset[j],
                       data_->offset[j + 1] - data_->offset[j]),
          kName, absl::StrCat("cell counts of attribute ", j),
          state.num_reports));
    }
    for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += state.counts[i];
    num_reports_ += state.num_reports;
    return absl::OkStatus();
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
  // At uniform data (m = 1/k_j) each cell's indicator has mean π and
  // Var(z_{jv}) = D_{jv}²·π(1 − π).
  Eigen::VectorXd ReconstructionWeights() const override {
    const FakeData& f = *data_;
    Eigen::ArrayXd uniform(f.k);
    for (int j = 0; j < f.d; ++j) {
      const int64_t size = f.offset[j + 1] - f.offset[j];
      uniform.segment(f.offset[j], size).setConstant(1.0 / size);
    }
    const Eigen::ArrayXd g = f.q.array() + (f.p - f.q).array() * uniform;
    const Eigen::ArrayXd pi = g / f.d + (f.d - 1.0) / f.d * f.kappa.array();
    return (f.scale.array().square() * pi * (1 - pi)).inverse().matrix();
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
      m(data_->offset[j] + data_->Digit(x, j)) = 1;
    }
    return m;
  }

  std::shared_ptr<const FakeData> data_;
};

// One attribute's cell counts given real[v], the agents that sampled it
// and hold value v, out of `total`: GRR moves each agent to one cell (the
// fakes uniformly); unary sets each bit independently given the agent's
// hot bit (its value, or an OUE-r fake's drawn value).
void SampleAttribute(const FakeData& f, int j, const int64_t* real,
                     int64_t total, absl::BitGenRef gen, int64_t* cells) {
  const int64_t first = f.offset[j], size = f.offset[j + 1] - first;
  int64_t sampled = 0;
  for (int64_t u = 0; u < size; ++u) sampled += real[u];
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(size, 1.0 / size);
  std::vector<int64_t> fake(size, 0);
  if (!f.unary || f.one_hot_fakes) {
    fake = SampleMultinomialCounts(uniform, total - sampled, gen);
  }
  const double p = f.p(first), q = f.q(first);
  for (int64_t u = 0; u < size; ++u) {
    if (f.unary) {
      const int64_t hot = real[u] + fake[u];
      cells[u] += DrawBinomial(hot, p, gen) + DrawBinomial(total - hot, q, gen);
      continue;
    }
    Eigen::VectorXd grr = Eigen::VectorXd::Constant(size, q);
    grr(u) = p;
    const std::vector<int64_t> drawn =
        SampleMultinomialCounts(grr, real[u], gen);
    for (int64_t v = 0; v < size; ++v) cells[v] += drawn[v];
    cells[u] += fake[u];
  }
}

// Exact in distribution, without randomizing agent by agent: the agents
// holding x split over the sampled attribute multinomially; given the
// split, the attributes' cells are drawn independently.
Eigen::VectorXd FakeDataStrategy::SampleEstimate(
    absl::Span<const int64_t> counts, absl::BitGenRef gen) const {
  const FakeData& f = *data_;
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
    for (int j = 0; j < f.d; ++j) real[f.offset[j] + f.Digit(x, j)] += split[j];
  }
  for (int j = 0; j < f.d; ++j) {
    SampleAttribute(f, j, &real[f.offset[j]], total, gen, &cells[f.offset[j]]);
  }
  return FakeDataAccumulator::Decode(f, cells, total);
}

// One attribute's coins: p, q, and κ (a fake's chance to set a cell).
struct AttributeCoins {
  double p = 0, q = 0, kappa = 0;
};

std::shared_ptr<FakeData> BuildFakeData(
    std::shared_ptr<const StrategyRandomizer> randomizer,
    const StrategySpec& spec, const std::vector<AttributeCoins>& coins) {
  auto data = std::make_shared<FakeData>();
  const std::vector<uint32_t>& sizes = spec.attribute_sizes;
  data->spec = spec;
  // Both follow from the form, kept as flags for the per-report paths.
  data->unary = spec.kind != StrategyKind::kRandomSamplingFakeData;
  data->one_hot_fakes = spec.kind == StrategyKind::kFakeDataUnaryRandom;
  const bool one_hot_fakes = data->one_hot_fakes;
  data->d = static_cast<int>(sizes.size());
  data->n = spec.domain_size;
  data->offset.push_back(0);
  for (uint32_t k : sizes) data->offset.push_back(data->offset.back() + k);
  data->k = data->offset.back();
  data->place.assign(sizes.size(), 1);
  for (size_t j = sizes.size() - 1; j-- > 0;) {
    data->place[j] = data->place[j + 1] * sizes[j + 1];
  }
  for (auto* v : {&data->scale, &data->shift, &data->kappa, &data->p, &data->q,
                  &data->pair_c, &data->pair_a}) {
    v->resize(data->k);
  }
  const double d = data->d;
  for (int j = 0; j < data->d; ++j) {
    const auto [p, q, kappa] = coins[j];
    const double k = sizes[j];
    // A fake block sets two given bits together with q², or, when one of
    // them is its hot bit (2/k of the one-hot draws), p·q.
    const double fake_pair =
        one_hot_fakes ? q * q + 2 * q * (p - q) / k : q * q;
    for (int64_t i = data->offset[j]; i < data->offset[j + 1]; ++i) {
      data->scale(i) = d / (p - q);
      data->shift(i) = (q + (d - 1) * kappa) / (p - q);
      data->kappa(i) = kappa;
      data->p(i) = p;
      data->q(i) = q;
      data->pair_c(i) = q * q / d + (d - 1) / d * fake_pair;
      data->pair_a(i) = q * (p - q) / d;
    }
  }
  data->randomizer = std::move(randomizer);
  return data;
}

std::vector<AttributeCoins> CoinsOf(const FakeDataRandomizer& r) {
  std::vector<AttributeCoins> coins;
  for (uint32_t j = 0; j < r.num_attributes(); ++j) {
    coins.push_back({.p = r.grr(j).keep_probability(),
                     .q = r.grr(j).other_probability(),
                     .kappa = 1.0 / r.spec().attribute_sizes[j]});
  }
  return coins;
}

std::vector<AttributeCoins> CoinsOf(const UnaryFakeDataRandomizer& r) {
  std::vector<AttributeCoins> coins;
  for (uint32_t j = 0; j < r.num_attributes(); ++j) {
    coins.push_back({.p = r.p(), .q = r.q(), .kappa = r.fake_probability(j)});
  }
  return coins;
}

}  // namespace

std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const FakeDataRandomizer> randomizer) {
  const std::vector<AttributeCoins> coins = CoinsOf(*randomizer);
  const StrategySpec spec = randomizer->spec();
  return std::make_unique<FakeDataStrategy>(
      BuildFakeData(std::move(randomizer), spec, coins));
}

std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const UnaryFakeDataRandomizer> randomizer) {
  const std::vector<AttributeCoins> coins = CoinsOf(*randomizer);
  const StrategySpec spec = randomizer->spec();
  return std::make_unique<FakeDataStrategy>(
      BuildFakeData(std::move(randomizer), spec, coins));
}

std::optional<double> FakeDataCellVariance(const StrategyRandomizer& randomizer,
                                           uint32_t j, double frequency,
                                           int64_t num_reports) {
  std::vector<AttributeCoins> coins;
  if (const auto* grr = dynamic_cast<const FakeDataRandomizer*>(&randomizer)) {
    coins = CoinsOf(*grr);
  } else if (const auto* unary =
                 dynamic_cast<const UnaryFakeDataRandomizer*>(&randomizer)) {
    coins = CoinsOf(*unary);
  }
  if (j >= coins.size()) return std::nullopt;
  const auto [p, q, kappa] = coins[j];
  const double d = static_cast<double>(coins.size());
  const double pi = (q + frequency * (p - q)) / d + (d - 1) / d * kappa;
  // Σ_i π_i(1 − π_i) = n·π(1 − π) − n·f(1 − f)·((p − q)/d)².
  return (d * d * pi * (1 - pi) / ((p - q) * (p - q)) -
          frequency * (1 - frequency)) /
         static_cast<double>(num_reports);
}

}  // namespace ldp
