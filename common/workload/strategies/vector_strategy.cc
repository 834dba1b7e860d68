// A factorization's strategy A as the server's linear strategy, around the
// ℓ2-ball randomizer of Duchi, Jordan and Wainwright (vector_randomizer.h
// says how an agent draws its direction seed and sign bit).
//
// Decoding: Z = B·σU with B = 1/((2π−1)·c_d), c_d = E|⟨U, e⟩| =
// Γ(d/2)/(√π·Γ((d+1)/2)), so E[Z | Ṽ] = Ṽ and E[Z] = a_x (up to the 2^-32
// rounding of the Ṽ coin), and E[Z·Zᵀ] = (B²/d)·I exactly. The
// per-user variance of r·ŷ at data h is therefore (B²/d)‖r‖² − (r·A·h)².
#include "common/workload/strategies/vector_strategy.h"

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
#include "common/base/status_macros.h"
#include "common/workload/strategy_randomizers/vector_randomizer.h"

namespace ldp {
namespace {

struct VectorData {
  std::shared_ptr<const VectorRandomizer> randomizer;
  int64_t d = 0;  // rank: rows of A
  int64_t n = 0;
  Eigen::MatrixXd a;  // d×N
  double scale = 0;   // B
};

// Sums are exact, so that accumulators merged in any order or grouping, or
// through stored states, give one accumulator's estimate bit for bit: each
// report adds ±U, whose coordinates lie in [−1, 1], and each coordinate is
// rounded once to a grid of step 2^-61 and summed in 128 bits (n reports
// stay below 2^124). B is applied in Estimate.
class VectorAccumulator final : public StrategyAccumulator {
 public:
  explicit VectorAccumulator(std::shared_ptr<const VectorData> data)
      : data_(std::move(data)), sum_(static_cast<size_t>(data_->d), 0) {}

  absl::Status Add(const WorkloadReport& report) override {
    if (absl::Status s = data_->randomizer->Validate(report); !s.ok()) return s;
    const HashedReport& hashed = std::get<HashedReport>(report.inner);
    const double sign = hashed.bucket == 1 ? 1.0 : -1.0;
    // U, the public direction as the agent drew it from the seed.
    const std::vector<double> u = UnitDirection(hashed.seed, data_->d);
    for (size_t k = 0; k < sum_.size(); ++k) {
      sum_[k] += std::llrint(std::ldexp(sign * u[k], kFractionBits));
    }
    ++num_reports_;
    return absl::OkStatus();
  }

  absl::Status Merge(const StrategyAccumulator& other) override {
    const auto* same = dynamic_cast<const VectorAccumulator*>(&other);
    if (same == nullptr ||
        (same->data_ != data_ &&
         !(same->data_->randomizer->spec() == data_->randomizer->spec()))) {
      return absl::InvalidArgumentError(
          "vector strategy: can only merge an accumulator of the same "
          "strategy (epsilon, domain_size, rows and matrix)");
    }
    for (size_t k = 0; k < sum_.size(); ++k) sum_[k] += same->sum_[k];
    num_reports_ += same->num_reports_;
    return absl::OkStatus();
  }

  int64_t num_reports() const override { return num_reports_; }

  Eigen::VectorXd Estimate() const override {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(data_->d);
    if (num_reports_ == 0) return mean;
    const double factor = data_->scale / static_cast<double>(num_reports_);
    for (size_t k = 0; k < sum_.size(); ++k) {
      mean(static_cast<Eigen::Index>(k)) =
          factor * std::ldexp(static_cast<double>(sum_[k]), -kFractionBits);
    }
    return mean;
  }

  // counts: each coordinate's sum of ±U on the grid, shifted by n·2^61 so
  // that it lies in [0, n·2^62], as 128 bits (the high, then the low 64
  // bits), rank coordinates in order.
  AccumulatorState State() const override {
    AccumulatorState state{.num_reports = num_reports_};
    const __int128 shift = static_cast<__int128>(num_reports_) << kFractionBits;
    for (const __int128 sum : sum_) AppendInt128(sum + shift, state.counts);
    return state;
  }

  absl::Status MergeState(const AccumulatorState& state) override {
    RETURN_IF_ERROR(ValidateStateShape(
        state, "vector strategy", {.counts = 2 * sum_.size()}, num_reports_));
    const __int128 shift = static_cast<__int128>(state.num_reports)
                           << kFractionBits;
    for (size_t k = 0; k < sum_.size(); ++k) {
      const __int128 shifted = Int128At(state.counts, 2 * k);
      if (shifted < 0 || shifted > 2 * shift) {
        return absl::InvalidArgumentError(absl::StrCat(
            "vector strategy state: coordinate ", k, "'s sum is beyond what ",
            state.num_reports, " reports of unit vectors add up to"));
      }
    }
    for (size_t k = 0; k < sum_.size(); ++k) {
      sum_[k] += Int128At(state.counts, 2 * k) - shift;
    }
    num_reports_ += state.num_reports;
    return absl::OkStatus();
  }

 private:
  static constexpr int kFractionBits = 61;

  std::shared_ptr<const VectorData> data_;
  std::vector<__int128> sum_;  // Σ round(±U_k · 2^61)
  int64_t num_reports_ = 0;
};

class VectorStrategy final : public StrategyMechanism {
 public:
  explicit VectorStrategy(std::shared_ptr<const VectorData> data)
      : StrategyMechanism(data->randomizer), data_(std::move(data)) {}

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

std::unique_ptr<StrategyMechanism> VectorStrategyFor(
    std::shared_ptr<const VectorRandomizer> randomizer) {
  auto data = std::make_shared<VectorData>();
  data->d = randomizer->rank();
  data->n = randomizer->domain_size();
  data->a = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic,
                                           Eigen::Dynamic, Eigen::RowMajor>>(
      randomizer->spec().matrix.data(), data->d, data->n);
  const double pi = randomizer->agree().value();
  const double dd = static_cast<double>(data->d);
  const double c_d = std::exp(std::lgamma(dd / 2) - std::lgamma((dd + 1) / 2)) /
                     std::sqrt(std::numbers::pi);
  data->scale = 1 / ((2 * pi - 1) * c_d);
  data->randomizer = std::move(randomizer);
  return std::make_unique<VectorStrategy>(std::move(data));
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateVectorStrategy(
    const StrategySpec& spec) {
  absl::StatusOr<std::shared_ptr<const VectorRandomizer>> randomizer =
      CreateVectorRandomizer(spec);
  if (!randomizer.ok()) return randomizer.status();
  return VectorStrategyFor(*std::move(randomizer));
}

}  // namespace ldp
