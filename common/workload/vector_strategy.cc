// The ℓ2-ball randomizer of Duchi, Jordan and Wainwright (JASA 2018) for a
// factorization's strategy A (rank d × N, columns of norm ≤ 1), with the
// report compressed to a public direction seed and one sign bit
// (factorization-and-sq.md §1).
//
// Agent with item x, v = a_x:
//  1. Ṽ = +v/‖v‖ with probability ½ + ‖v‖/2, else −v/‖v‖ (E[Ṽ] = v; for
//     v = 0, ±e₁ with probability ½ each);
//  2. a 64-bit seed s, drawn independently of x; U = the unit vector the
//     seed names (UnitDirection below, identical on agent and server);
//  3. with probability π = e^ε/(1+e^ε) send the sign σ with ⟨σU, Ṽ⟩ ≥ 0,
//     otherwise the other one.
// Both probabilities are exact integer coins (coin.h); π is rounded down,
// so epsilon() = ln(π/(1−π)) of the coin used never exceeds the request.
// The seed is public and independent of x, so Pr[bit | s, x] alone decides
// the privacy loss: for either Ṽ it is π or 1−π, a ratio ≤ π/(1−π).
//
// Decoding: Z = B·σU with B = 1/((2π−1)·c_d), c_d = E|⟨U, e⟩| =
// Γ(d/2)/(√π·Γ((d+1)/2)), so E[Z | Ṽ] = Ṽ and E[Z] = a_x (up to the 2^-32
// rounding of step 1's coin), and E[Z·Zᵀ] = (B²/d)·I exactly. The
// per-user variance of r·ŷ at data h is therefore (B²/d)‖r‖² − (r·A·h)².
#include "common/workload/vector_strategy.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
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

// The public direction named by a report's seed: d standard Gaussians by
// Box–Muller from a SplitMix64 stream seeded with s, normalized. This is
// not privacy noise (s is drawn independently of the item and sent in the
// clear); it only has to be the same function on agent and server, which
// is why it is fixed here rather than taken from a library distribution.
Eigen::VectorXd UnitDirection(uint64_t seed, int64_t d) {
  uint64_t state = seed;
  auto next_unit = [&state] {  // uniform in (0, 1]
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>((z >> 11) + 1) * 0x1.0p-53;
  };
  Eigen::VectorXd u(d);
  for (int64_t i = 0; i < d; i += 2) {
    const double radius = std::sqrt(-2.0 * std::log(next_unit()));
    const double angle = 2.0 * std::numbers::pi * next_unit();
    u[i] = radius * std::cos(angle);
    if (i + 1 < d) u[i + 1] = radius * std::sin(angle);
  }
  const double norm = u.norm();
  if (!(norm > 0)) return Eigen::VectorXd::Unit(d, 0);
  return u / norm;
}

struct VectorData {
  StrategySpec spec;
  int64_t d = 0;  // rank: rows of A
  int64_t n = 0;
  Eigen::MatrixXd a;                  // d×N
  std::vector<CoinProbability> plus;  // per item: Pr[Ṽ = +a_x/‖a_x‖]
  Eigen::MatrixXd directions;         // d×N: a_x/‖a_x‖
  CoinProbability agree = CoinProbability::Half();  // π
  double epsilon = 0;
  double scale = 0;  // B
};

// Pr[bit | U, Ṽ] for a given Ṽ: π when the bit's sign agrees with Ṽ.
double BitGivenDirection(const VectorData& data, double projection,
                         uint32_t bit) {
  const uint32_t agreeing_bit = projection >= 0 ? 1 : 0;
  return bit == agreeing_bit ? data.agree.value()
                             : data.agree.Complement().value();
}

class VectorAccumulator final : public StrategyAccumulator {
 public:
  explicit VectorAccumulator(std::shared_ptr<const VectorData> data)
      : data_(std::move(data)), sum_(Eigen::VectorXd::Zero(data_->d)) {}

  absl::Status Add(const WorkloadReport& report) override {
    const HashedReport* hashed = std::get_if<HashedReport>(&report.inner);
    if (report.group != 0 || hashed == nullptr || hashed->bucket > 1) {
      return absl::InvalidArgumentError(
          "vector strategy: a report must be group 0 with a hashed report "
          "whose bucket (the sign bit) is 0 or 1");
    }
    const double sign = hashed->bucket == 1 ? 1.0 : -1.0;
    sum_ += (sign * data_->scale) * UnitDirection(hashed->seed, data_->d);
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const VectorAccumulator*>(&other);
    if (same == nullptr ||
        (same->data_ != data_ && !(same->data_->spec == data_->spec))) {
      return absl::InvalidArgumentError(
          "vector strategy: can only merge an accumulator of the same "
          "strategy (epsilon, domain_size, rows and matrix)");
    }
    sum_ += same->sum_;
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    if (num_reports_ == 0) return Eigen::VectorXd::Zero(data_->d);
    return sum_ / static_cast<double>(num_reports_);
  }

 private:
  std::shared_ptr<const VectorData> data_;
  Eigen::VectorXd sum_;
  int64_t num_reports_ = 0;
};

class VectorStrategy final : public StrategyMechanism {
 public:
  explicit VectorStrategy(std::shared_ptr<const VectorData> data)
      : data_(std::move(data)) {}

  std::string Describe() const override {
    return absl::StrCat("factorization rank=", data_->d,
                        ", l2-ball randomizer");
  }
  uint32_t domain_size() const override {
    return static_cast<uint32_t>(data_->n);
  }
  double epsilon() const override { return data_->epsilon; }

  WorkloadReport Randomize(uint32_t item, absl::BitGenRef gen) const override {
    const int64_t x = std::min<int64_t>(item, data_->n - 1);
    // Three draws whatever x is: the Ṽ coin, the public seed, the π coin.
    const bool plus = FlipCoin(data_->plus[x], gen);
    const uint64_t seed = gen();
    const bool agree = FlipCoin(data_->agree, gen);
    const Eigen::VectorXd u = UnitDirection(seed, data_->d);
    double projection = u.dot(data_->directions.col(x));
    if (!plus) projection = -projection;
    const uint32_t agreeing_bit = projection >= 0 ? 1 : 0;
    return WorkloadReport{
        .group = 0,
        .inner = HashedReport{
            .seed = seed, .bucket = agree ? agreeing_bit : 1 - agreeing_bit}};
  }

  double Probability(uint32_t item,
                     const WorkloadReport& report) const override {
    if (!Validate(report).ok()) return 0;
    const int64_t x = std::min<int64_t>(item, data_->n - 1);
    const HashedReport& hashed = std::get<HashedReport>(report.inner);
    const Eigen::VectorXd u = UnitDirection(hashed.seed, data_->d);
    // Same floating-point expression as Randomize, so the sign agrees.
    const double projection = u.dot(data_->directions.col(x));
    const double p_plus = data_->plus[x].value();
    return p_plus * BitGivenDirection(*data_, projection, hashed.bucket) +
           (1 - p_plus) * BitGivenDirection(*data_, -projection, hashed.bucket);
  }

  absl::Status Validate(const WorkloadReport& report) const override {
    if (report.group != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vector strategy: report group must be 0, got ", report.group));
    }
    const HashedReport* hashed = std::get_if<HashedReport>(&report.inner);
    if (hashed == nullptr) {
      return absl::InvalidArgumentError(
          "vector strategy: a report must carry a hashed report (direction "
          "seed and sign bit)");
    }
    if (hashed->bucket > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vector strategy: the sign bit (bucket) must be 0 or 1, got ",
          hashed->bucket));
    }
    return absl::OkStatus();
  }

  uint32_t output_dimension() const override {
    return static_cast<uint32_t>(data_->d);
  }
  Eigen::MatrixXd StrategyMatrix() const override { return data_->a; }
  // Every coordinate of Z has the same variance B²/d − (A·h)_i²; at
  // uniform data the second term is small, so equal weights.
  Eigen::VectorXd ReconstructionWeights() const override {
    return Eigen::VectorXd::Ones(data_->d);
  }
  std::unique_ptr<StrategyAccumulator> NewAccumulator() const override {
    return std::make_unique<VectorAccumulator>(data_);
  }

  Eigen::MatrixXd PointMassVariances(
      const Eigen::MatrixXd& rows) const override {
    const double second =
        data_->scale * data_->scale / static_cast<double>(data_->d);
    Eigen::MatrixXd mean;
    mean.noalias() = rows * data_->a;
    Eigen::MatrixXd out = -mean.cwiseProduct(mean);
    out.colwise() += second * rows.rowwise().squaredNorm();
    return out;
  }

  Eigen::VectorXd Variances(const Eigen::MatrixXd& rows,
                            const Eigen::VectorXd& h) const override {
    const double second =
        data_->scale * data_->scale / static_cast<double>(data_->d);
    const Eigen::VectorXd mean = rows * (data_->a * h);
    return second * rows.rowwise().squaredNorm() - mean.cwiseProduct(mean);
  }

  // The statistic (a sum of continuous vectors) has no cheap exact
  // sampler, so this randomizes and decodes agent by agent: O(n·d).
  Eigen::VectorXd SampleEstimate(absl::Span<const int64_t> counts,
                                 absl::BitGenRef gen) const override {
    VectorAccumulator accumulator(data_);
    const int64_t items = std::min<int64_t>(counts.size(), data_->n);
    for (int64_t x = 0; x < items; ++x) {
      for (int64_t i = 0; i < counts[x]; ++i) {
        // Valid by construction.
        accumulator.Add(Randomize(static_cast<uint32_t>(x), gen)).IgnoreError();
      }
    }
    return accumulator.Estimate();
  }

 private:
  std::shared_ptr<const VectorData> data_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateVectorStrategy(
    const StrategySpec& spec) {
  if (spec.kind != StrategyKind::kFactorization) {
    return absl::InvalidArgumentError(
        "vector strategy: spec.kind must be kFactorization");
  }
  if (absl::Status s = ValidateEpsilon("vector strategy", spec.epsilon);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateDomainSize("vector strategy", spec.domain_size,
                                          1, kMaxWorkloadDomainSize);
      !s.ok()) {
    return s;
  }
  const uint64_t d = spec.rows, n = spec.domain_size;
  if (d == 0) {
    return absl::InvalidArgumentError("vector strategy: rows must be >= 1");
  }
  if (d * n > kMaxInProcessStrategyMatrixEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector strategy: rows x domain_size = ", d * n, " exceeds ",
        kMaxInProcessStrategyMatrixEntries, " entries"));
  }
  if (spec.matrix.size() != d * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vector strategy: matrix must hold rows x domain_size = ", d * n,
        " values (row-major), got ", spec.matrix.size()));
  }
  auto data = std::make_shared<VectorData>();
  data->spec = spec;
  data->d = static_cast<int64_t>(d);
  data->n = static_cast<int64_t>(n);
  data->a = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic,
                                           Eigen::Dynamic, Eigen::RowMajor>>(
      spec.matrix.data(), d, n);
  if (!data->a.allFinite()) {
    return absl::InvalidArgumentError(
        "vector strategy: matrix entries must be finite");
  }
  data->directions.resize(data->d, data->n);
  for (int64_t x = 0; x < data->n; ++x) {
    const double norm = data->a.col(x).norm();
    if (norm > 1 + 1e-9) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vector strategy: column ", x, " of the matrix has norm ", norm,
          " > 1 (scale A so that every column lies in the unit ball)"));
    }
    // An item no query asks about has a zero column: any unit direction,
    // each sign with probability ½, keeps E[Ṽ] = 0.
    data->directions.col(x) =
        norm > 0 ? Eigen::VectorXd(data->a.col(x) / norm)
                 : Eigen::VectorXd::Unit(data->d, 0);
    // Pr[Ṽ = +v/‖v‖] = (1 + ‖v‖)/2, to the nearest 2^-32.
    const double p = std::min(1.0, (1 + norm) / 2);
    data->plus.push_back(CoinProbability::FromNumerator(static_cast<uint64_t>(
        std::llround(p * static_cast<double>(CoinProbability::kDenominator)))));
  }
  // π rounded down so the implemented ε never exceeds the request.
  const double e = std::exp(spec.epsilon);
  data->agree = CoinProbability::RoundDown(e / (1 + e));
  const double pi = data->agree.value();
  if (!(pi > 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("vector strategy: epsilon ", spec.epsilon,
                     " is too small for a 32-bit coin to implement"));
  }
  // ln(π/(1−π)) ≤ ε exactly; min() only absorbs the log's last-ulp error.
  data->epsilon = std::min(std::log(pi / (1 - pi)), spec.epsilon);
  const double dd = static_cast<double>(data->d);
  const double c_d = std::exp(std::lgamma(dd / 2) - std::lgamma((dd + 1) / 2)) /
                     std::sqrt(std::numbers::pi);
  data->scale = 1 / ((2 * pi - 1) * c_d);
  return std::unique_ptr<StrategyMechanism>(
      std::make_unique<VectorStrategy>(std::move(data)));
}

}  // namespace ldp
