// Central Laplace baselines: the closed forms follow the Laplace variance 2b²
// with the replace-one sensitivities, and the discrete Laplace sampler is
// private, has the variance it reports, and draws from its own pmf.
#include "common/central/central_baseline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "absl/types/span.h"
#include "common/workload/strategies/workload.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::MaxProbabilityRatio;
using testing::RunningMoments;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr double kRelative = 1e-12;

// Laplace of scale b has variance 2b².
double LaplaceVariance(double scale) { return 2 * scale * scale; }

CentralDiscreteLaplace MakeSampler(double epsilon, int64_t sensitivity) {
  auto sampler = CentralDiscreteLaplace::Create(epsilon, sensitivity);
  EXPECT_OK(sampler);
  return std::move(sampler).value();
}

TEST(CentralVariance, UsesReplaceOneSensitivities) {
  const int64_t n = 1000;
  const double epsilon = 0.7;
  const double nd = static_cast<double>(n);

  auto counting = CentralCountingVariance(n, epsilon);
  ASSERT_OK(counting);
  EXPECT_NEAR(*counting, LaplaceVariance(1 / (nd * epsilon)),
              kRelative * *counting);

  auto mean = CentralMeanVariance(n, epsilon, -2, 3);
  ASSERT_OK(mean);
  EXPECT_NEAR(*mean, LaplaceVariance(5 / (nd * epsilon)), kRelative * *mean);

  // One agent moving between two bins changes the L1 norm by 2/n.
  auto histogram = CentralHistogramVariance(n, epsilon);
  ASSERT_OK(histogram);
  EXPECT_NEAR(*histogram, LaplaceVariance(2 / (nd * epsilon)),
              kRelative * *histogram);
  EXPECT_NEAR(*histogram, 4 * *counting, kRelative * *histogram);

  const std::vector<double> row = {1, -0.5, 0, 2};
  auto query = CentralWorkloadVariance(row, n, epsilon);
  ASSERT_OK(query);
  EXPECT_NEAR(*query, (1 + 0.25 + 4) * *histogram, kRelative * *query);
}

TEST(CentralVariance, ShrinksAsOneOverNSquared) {
  auto small = CentralCountingVariance(100, 1);
  auto large = CentralCountingVariance(1000, 1);
  ASSERT_OK(small);
  ASSERT_OK(large);
  EXPECT_NEAR(*small / *large, 100, 100 * kRelative);
}

TEST(CentralVariance, RejectsBadInputs) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(CentralCountingVariance(0, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralCountingVariance(10, 0), StatusIs(kInvalid));
  EXPECT_THAT(CentralCountingVariance(10, NAN), StatusIs(kInvalid));
  EXPECT_THAT(CentralCountingVariance(10, INFINITY), StatusIs(kInvalid));
  EXPECT_THAT(CentralMeanVariance(10, 1, 1, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralMeanVariance(10, 1, 2, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralMeanVariance(10, 1, -INFINITY, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralHistogramVariance(-5, 1), StatusIs(kInvalid));
  const std::vector<double> bad_row = {1, NAN};
  EXPECT_THAT(CentralWorkloadVariance(bad_row, 10, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralPerQuestionEpsilon(1, 0), StatusIs(kInvalid));
  EXPECT_THAT(CentralPerQuestionEpsilon(-1, 3), StatusIs(kInvalid));
}

TEST(CentralVariance, BasicCompositionSplitsTheBudget) {
  const int64_t m = 8;
  auto each = CentralPerQuestionEpsilon(2.0, m);
  ASSERT_OK(each);
  EXPECT_DOUBLE_EQ(*each, 2.0 / m);
  auto one = CentralCountingVariance(500, 2.0);
  auto split = CentralCountingVariance(500, *each);
  ASSERT_OK(one);
  ASSERT_OK(split);
  // Variance is quadratic in 1/ε.
  EXPECT_NEAR(*split / *one, m * m, m * m * kRelative);
}

TEST(CentralWorkloadWorstVariance, IsTheWorstDenseRow) {
  for (const WorkloadKind kind :
       {WorkloadKind::kHistogram, WorkloadKind::kPrefix,
        WorkloadKind::kAllRange}) {
    auto workload = Workload::Create({.kind = kind, .domain_size = 16});
    ASSERT_OK(workload);
    auto dense = workload->Dense();
    ASSERT_OK(dense);
    double worst_row = 0;
    for (Eigen::Index j = 0; j < dense->rows(); ++j) {
      const Eigen::VectorXd row = dense->row(j).transpose();
      auto variance = CentralWorkloadVariance(
          absl::MakeConstSpan(row.data(), static_cast<size_t>(row.size())), 250,
          1.5);
      ASSERT_OK(variance);
      worst_row = std::max(worst_row, *variance);
    }
    auto worst = CentralWorkloadWorstVariance(*workload, 250, 1.5);
    ASSERT_OK(worst);
    EXPECT_NEAR(*worst, worst_row, kRelative * worst_row)
        << WorkloadKindName(kind);
  }
}

TEST(CentralDiscreteLaplace, ImplementsAtMostTheRequestedEpsilon) {
  for (const int64_t sensitivity : {1, 2, 3, 7}) {
    for (const double epsilon : {0.01, 0.5, 1.0, 3.0, 20.0}) {
      const CentralDiscreteLaplace sampler = MakeSampler(epsilon, sensitivity);
      EXPECT_LE(sampler.epsilon(), epsilon);
      EXPECT_GT(sampler.epsilon(), epsilon * (1 - 1e-9));
      EXPECT_GE(sampler.scale(), static_cast<double>(sensitivity) / epsilon);
    }
  }
}

TEST(CentralDiscreteLaplace, RejectsBadParameters) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(CentralDiscreteLaplace::Create(1, 0), StatusIs(kInvalid));
  EXPECT_THAT(CentralDiscreteLaplace::Create(0, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralDiscreteLaplace::Create(NAN, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralDiscreteLaplace::Create(26, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralDiscreteLaplace::Create(1e-20, 1), StatusIs(kInvalid));
  EXPECT_THAT(CentralDiscreteLaplace::Create(
                  1, CentralDiscreteLaplace::kMaxSensitivity + 1),
              StatusIs(kInvalid));
}

// The pmf's own (central) moments over |z| ≤ 80 s (the rest has mass < e^-80).
struct PmfMoments {
  double mass = 0;
  double second_moment = 0;
  double fourth_moment = 0;
};

PmfMoments SumPmf(const CentralDiscreteLaplace& sampler) {
  const int64_t half = static_cast<int64_t>(std::ceil(80 * sampler.scale()));
  PmfMoments moments;
  for (int64_t z = -half; z <= half; ++z) {
    const double p = sampler.NoiseProbability(z);
    moments.mass += p;
    const double square = static_cast<double>(z) * static_cast<double>(z);
    moments.second_moment += square * p;
    moments.fourth_moment += square * square * p;
  }
  return moments;
}

TEST(CentralDiscreteLaplace, VarianceIsTheDiscreteFormula) {
  for (const double epsilon : {0.2, 1.0, 4.0}) {
    const CentralDiscreteLaplace sampler = MakeSampler(epsilon, 1);
    const double s = sampler.scale();
    const double a = std::exp(-1 / s);
    EXPECT_NEAR(sampler.NoiseVariance(), 2 * a / ((1 - a) * (1 - a)),
                1e-9 * sampler.NoiseVariance());

    const PmfMoments moments = SumPmf(sampler);
    EXPECT_NEAR(moments.mass, 1, 1e-12);
    EXPECT_NEAR(moments.second_moment, sampler.NoiseVariance(),
                1e-9 * sampler.NoiseVariance());

    // 2a/(1−a)² = 1/(2 sinh²(1/(2s))) = 2s² − 1/6 + 1/(120 s²) − …, an
    // alternating series with decreasing terms: below continuous Laplace.
    EXPECT_LT(sampler.NoiseVariance(), 2 * s * s);
    EXPECT_NEAR(sampler.NoiseVariance(), 2 * s * s - 1.0 / 6,
                1 / (120 * s * s) + 1e-9 * s * s);
  }
}

TEST(CentralDiscreteLaplace, NeighbouringCountsAreEpsilonClose) {
  for (const int64_t sensitivity : {1, 2}) {
    const CentralDiscreteLaplace sampler = MakeSampler(0.8, sensitivity);
    // Replace-one moves each of `sensitivity` bins by 1; every bin's noise is
    // independent, so the total ratio is the per-bin ratio to that power.
    const std::vector<int64_t> counts = {10, 11};
    std::vector<int64_t> outputs;
    for (int64_t w = -200; w <= 220; ++w) outputs.push_back(w);
    const double per_bin = MaxProbabilityRatio<int64_t, int64_t>(
        counts, outputs, [&](const int64_t& count, const int64_t& w) {
          return sampler.NoiseProbability(w - count);
        });
    const double total = std::pow(per_bin, static_cast<double>(sensitivity));
    EXPECT_LE(total, std::exp(sampler.epsilon()) * (1 + kRelative));
    // The bound is attained (one step away from the true count).
    EXPECT_GE(total, std::exp(sampler.epsilon()) * (1 - 1e-9));
  }
}

TEST(CentralDiscreteLaplace, SamplesFollowThePmf) {
  const CentralDiscreteLaplace sampler = MakeSampler(0.5, 2);  // s = 4
  SeededGenerator gen(20240901);
  constexpr int kSamples = 200000;
  const int64_t half = static_cast<int64_t>(std::ceil(30 * sampler.scale()));
  std::vector<double> observed(2 * half + 2, 0);  // last bin: |z| > half
  RunningMoments moments;
  for (int i = 0; i < kSamples; ++i) {
    const int64_t z = sampler.NoisyCount(0, gen);
    moments.Add(static_cast<double>(z));
    ++observed[std::abs(z) > half ? 2 * half + 1 : z + half];
  }
  std::vector<double> expected(observed.size(), 0);
  double window_mass = 0;
  for (int64_t z = -half; z <= half; ++z) {
    const double p = sampler.NoiseProbability(z);
    expected[z + half] = kSamples * p;
    window_mass += p;
  }
  expected.back() = kSamples * std::max(0.0, 1 - window_mass);
  EXPECT_TRUE(ChiSquare(observed, expected).Passes());

  // 5σ: the sample mean's sd is √(Var/S), the sample variance's
  // √((μ₄ − Var²)/S) with μ₄ the pmf's fourth moment.
  const double variance = sampler.NoiseVariance();
  const PmfMoments pmf = SumPmf(sampler);
  EXPECT_NEAR(moments.mean(), 0, 5 * std::sqrt(variance / kSamples));
  EXPECT_NEAR(
      moments.variance(), variance,
      5 * std::sqrt((pmf.fourth_moment - variance * variance) / kSamples));
}

TEST(CentralDiscreteLaplace, NoisyFractionsDivideNoisyCountsByN) {
  const CentralDiscreteLaplace sampler = MakeSampler(1.0, 2);
  SeededGenerator gen(7);
  const std::vector<int64_t> counts = {30, 0, 70};
  const std::vector<double> fractions =
      sampler.NoisyFractions(counts, 100, gen);
  ASSERT_EQ(fractions.size(), counts.size());
  for (const double fraction : fractions) {
    EXPECT_EQ(fraction * 100, std::round(fraction * 100));
  }
}

}  // namespace
}  // namespace ldp
