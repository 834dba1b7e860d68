// Central Laplace baselines; see the header for the neighbouring notion and
// the formulas.
#include "common/central/central_baseline.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/base/validation.h"

namespace ldp {
namespace {

constexpr char kMechanism[] = "central Laplace";

absl::Status ValidatePopulation(int64_t n) {
  if (n < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanism, ": the number of agents n must be at least 1, got ", n));
  }
  return absl::OkStatus();
}

absl::Status ValidateNAndEpsilon(int64_t n, double epsilon) {
  RETURN_IF_ERROR(ValidatePopulation(n));
  return ValidateEpsilon(kMechanism, epsilon);
}

// Laplace of scale b = sensitivity / ε has variance 2b².
double LaplaceVariance(double sensitivity, double epsilon) {
  const double scale = sensitivity / epsilon;
  return 2 * scale * scale;
}

// Per-bin variance of the histogram of fractions: sensitivity 2/n.
double HistogramBinVariance(int64_t n, double epsilon) {
  return LaplaceVariance(2.0 / static_cast<double>(n), epsilon);
}

// The local mechanism's lattice inputs are 2 steps apart at resolution 0, so
// its ε' = 2/s; asking it for ε' = 2ε/Δ yields s = Δ/ε.
constexpr double kLocalLatticeSensitivity = 2;

}  // namespace

absl::StatusOr<double> CentralCountingVariance(int64_t n, double epsilon) {
  RETURN_IF_ERROR(ValidateNAndEpsilon(n, epsilon));
  return LaplaceVariance(1.0 / static_cast<double>(n), epsilon);
}

absl::StatusOr<double> CentralMeanVariance(int64_t n, double epsilon,
                                           double lower, double upper) {
  RETURN_IF_ERROR(ValidateNAndEpsilon(n, epsilon));
  if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper)) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanism,
        ": the value bounds must be finite with lower < upper, got [", lower,
        ", ", upper, "]"));
  }
  return LaplaceVariance((upper - lower) / static_cast<double>(n), epsilon);
}

absl::StatusOr<double> CentralHistogramVariance(int64_t n, double epsilon) {
  RETURN_IF_ERROR(ValidateNAndEpsilon(n, epsilon));
  return HistogramBinVariance(n, epsilon);
}

absl::StatusOr<double> CentralWorkloadVariance(absl::Span<const double> row,
                                               int64_t n, double epsilon) {
  RETURN_IF_ERROR(ValidateNAndEpsilon(n, epsilon));
  double squared_norm = 0;
  for (size_t x = 0; x < row.size(); ++x) {
    if (!std::isfinite(row[x])) {
      return absl::InvalidArgumentError(
          absl::StrCat(kMechanism, ": query weight w[", x,
                       "] must be finite, got ", row[x]));
    }
    squared_norm += row[x] * row[x];
  }
  return squared_norm * HistogramBinVariance(n, epsilon);
}

absl::StatusOr<double> CentralWorkloadWorstVariance(const Workload& workload,
                                                    int64_t n, double epsilon) {
  RETURN_IF_ERROR(ValidateNAndEpsilon(n, epsilon));
  // w_jᵀ·I·w_j = ‖w_j‖², in the workload's closed form for every kind.
  const Eigen::Index domain_size = workload.domain_size();
  const Eigen::VectorXd squared_norms = workload.QuadraticForms(
      Eigen::MatrixXd::Identity(domain_size, domain_size));
  return squared_norms.maxCoeff() * HistogramBinVariance(n, epsilon);
}

absl::StatusOr<double> CentralPerQuestionEpsilon(double epsilon,
                                                 int64_t num_questions) {
  RETURN_IF_ERROR(ValidateEpsilon(kMechanism, epsilon));
  if (num_questions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanism, ": the number of questions must be at least 1, got ",
        num_questions));
  }
  return epsilon / static_cast<double>(num_questions);
}

absl::StatusOr<CentralDiscreteLaplace> CentralDiscreteLaplace::Create(
    double epsilon, int64_t l1_sensitivity) {
  if (l1_sensitivity < 1 || l1_sensitivity > kMaxSensitivity) {
    return absl::InvalidArgumentError(
        absl::StrCat(kMechanism, ": l1_sensitivity must be in [1, ",
                     kMaxSensitivity, "], got ", l1_sensitivity));
  }
  const double sensitivity = static_cast<double>(l1_sensitivity);
  // The sampler's limits (ε' ≤ 50, scale ≤ 2^50), restated in the caller's
  // terms so the message names the ε the caller passed.
  const double max_epsilon = 25 * sensitivity;
  const double min_epsilon = std::ldexp(sensitivity, -50);
  RETURN_IF_ERROR(ValidateEpsilon(kMechanism, epsilon, max_epsilon));
  if (epsilon < min_epsilon) {
    return absl::InvalidArgumentError(absl::StrCat(
        kMechanism, ": epsilon must be at least l1_sensitivity·2^-50 = ",
        min_epsilon, " (the noise scale would exceed 2^50), got ", epsilon));
  }
  ASSIGN_OR_RETURN(
      std::unique_ptr<DiscreteLaplaceMechanism> noise,
      DiscreteLaplaceMechanism::Create(
          {.epsilon = kLocalLatticeSensitivity * epsilon / sensitivity,
           .bound = 1,
           .resolution_bits = 0}));
  return CentralDiscreteLaplace(std::move(noise), l1_sensitivity);
}

CentralDiscreteLaplace::CentralDiscreteLaplace(
    std::unique_ptr<DiscreteLaplaceMechanism> noise, int64_t l1_sensitivity)
    : noise_(std::move(noise)), l1_sensitivity_(l1_sensitivity) {
  // num < 2^53 and den is a power of two, so both quotients are correctly
  // rounded from exact operands; the mechanism's s exceeds Δ/ε by ~2^-41
  // relatively, far more than any rounding here.
  const double numerator = static_cast<double>(noise_->scale_numerator());
  const double denominator = static_cast<double>(noise_->scale_denominator());
  scale_ = numerator / denominator;
  epsilon_ = static_cast<double>(l1_sensitivity_) * denominator / numerator;
}

int64_t CentralDiscreteLaplace::NoisyCount(int64_t count,
                                           absl::BitGenRef gen) const {
  // Input 0 is a lattice point, so the mechanism adds no rounding: its level
  // is the noise alone.
  return count + noise_->Randomize(0, gen).level;
}

std::vector<double> CentralDiscreteLaplace::NoisyFractions(
    absl::Span<const int64_t> counts, int64_t n, absl::BitGenRef gen) const {
  const double population = static_cast<double>(std::max<int64_t>(n, 1));
  std::vector<double> fractions;
  fractions.reserve(counts.size());
  for (const int64_t count : counts) {
    fractions.push_back(static_cast<double>(NoisyCount(count, gen)) /
                        population);
  }
  return fractions;
}

double CentralDiscreteLaplace::NoiseProbability(int64_t z) const {
  return noise_->Probability(0, ScalarReport{.level = z});
}

double CentralDiscreteLaplace::NoiseVariance() const {
  // At x = 0 the rounding variance is zero and the lattice step is 1.
  return noise_->Variance(0);
}

}  // namespace ldp
