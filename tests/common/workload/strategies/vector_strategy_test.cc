// The ℓ2-ball (DJW) vector randomizer for a factorization's strategy A
// (vector_strategy.h): its reports carry a continuous public direction, so
// privacy is checked over sampled reports plus conditional-distribution and
// likelihood-ratio checks; unbiasedness, the (B²/d)·I second moment, merges
// and malformed reports through the shared strategy checks.
#include "common/workload/strategies/vector_strategy.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/gamma2_factorization.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/strategy_checks.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

StrategySpec VectorSpecOf(const Eigen::MatrixXd& a, double epsilon) {
  return MatrixStrategySpec(StrategyKind::kFactorization, epsilon, a);
}

// A rank-3 strategy over N = 8 with column norms from 0.3 to exactly 1,
// and an all-zero column (item 6: no query asks about it).
Eigen::MatrixXd SmallStrategy() {
  Eigen::MatrixXd a(3, 8);
  a << 1, 0, 0, 0.5, 0.2, -0.3, 0, 0.6,  //
      0, 1, 0, 0.5, -0.2, 0.3, 0, 0.0,   //
      0, 0, 1, 0.5, 0.1, 0.3, 0, 0.8;
  return a;
}

std::unique_ptr<StrategyMechanism> MakeVectorWorkload(const Eigen::MatrixXd& a,
                                                      double epsilon) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s =
      CreateVectorStrategy(VectorSpecOf(a, epsilon));
  EXPECT_OK(s);
  return s.ok() ? *std::move(s) : nullptr;
}

std::vector<uint32_t> EveryItem(uint32_t n) {
  std::vector<uint32_t> items;
  for (uint32_t x = 0; x < n; ++x) items.push_back(x);
  return items;
}

// The reports sharing r's public direction: both sign bits.
std::vector<WorkloadReport> BothSigns(const WorkloadReport& r) {
  const uint64_t seed = std::get<HashedReport>(r.inner).seed;
  return {{.group = 0, .inner = HashedReport{.seed = seed, .bucket = 0}},
          {.group = 0, .inner = HashedReport{.seed = seed, .bucket = 1}}};
}

class VectorStrategyChecks : public ::testing::TestWithParam<double> {};

TEST_P(VectorStrategyChecks, PassSharedChecks) {
  const double epsilon = GetParam();
  const std::unique_ptr<StrategyMechanism> s =
      MakeVectorWorkload(SmallStrategy(), epsilon);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->domain_size(), 8u);
  EXPECT_EQ(s->output_dimension(), 3u);
  // π is rounded down to 2^-32: ε is at most the request, and close.
  EXPECT_LE(s->epsilon(), epsilon);
  EXPECT_GT(s->epsilon(), epsilon - 1e-8);
  testing::ExpectStrategyPrivacy(
      *s, testing::ReportsDrawnFromRandomize(*s, 200, 3), epsilon,
      /*complete=*/false);
  testing::ExpectConditionalSamplesFollowProbability(*s, EveryItem(8), 20000, 4,
                                                     BothSigns);
  testing::ExpectLikelihoodRatiosAverageToOne(*s, {0, 3, 5, 7}, 20000, 5);
  testing::ExpectStrategyDrawCountIndependentOfItem(*s);
  testing::ExpectStrategyClampsOutOfRangeItems(*s);
  const Eigen::VectorXd h = Eigen::VectorXd::Constant(8, 1.0 / 8);
  testing::ExpectVarianceFormsConsistent(*s, Eigen::MatrixXd::Random(4, 3), h);
  const std::vector<int64_t> counts = {300, 0, 100, 500, 50, 250, 400, 400};
  testing::ExpectStrategyUnbiased(*s, counts, 40, 6);
  testing::ExpectStrategyRejectsMalformed(
      *s, {{.group = 1, .inner = HashedReport{.seed = 1, .bucket = 0}},
           {.group = 0, .inner = HashedReport{.seed = 1, .bucket = 2}},
           {.group = 0, .inner = ItemReport{0}},
           {.group = 0, .inner = BitVectorReport{{1}}}});
  Eigen::MatrixXd shrunk = SmallStrategy() / 2;
  const std::unique_ptr<StrategyMechanism> other =
      MakeVectorWorkload(shrunk, epsilon);
  testing::ExpectStrategyMergeEqualsSingleAccumulator(*s, {other.get()}, 300);
  // Also checks the second moment: n·Var(ŷ_i) = B²/d − (A·h)_i².
  testing::ExpectSampleEstimateMatchesAgents(
      *s, {60, 0, 20, 100, 10, 50, 80, 80}, 400, 7);
}

INSTANTIATE_TEST_SUITE_P(Epsilons, VectorStrategyChecks,
                         ::testing::Values(0.5, 2.0));

TEST(VectorStrategy, SecondMomentIsTheDjwConstant) {
  // Var = (B²/d)·‖r‖² − (r·a_x)² with B²/d = C_DJW(ε, d) (ideal coin, to
  // 1e-7): the vector randomizer is the one DjwVarianceConstant describes.
  const std::unique_ptr<StrategyMechanism> s =
      MakeVectorWorkload(SmallStrategy(), 1);
  ASSERT_NE(s, nullptr);
  const Eigen::MatrixXd v =
      s->PointMassVariances(Eigen::MatrixXd::Identity(3, 3));
  const Eigen::MatrixXd a = SmallStrategy();
  for (int i = 0; i < 3; ++i) {
    for (int x = 0; x < 8; ++x) {
      EXPECT_NEAR(v(i, x) + a(i, x) * a(i, x), DjwVarianceConstant(1, 3),
                  1e-7 * DjwVarianceConstant(1, 3));
    }
  }
  EXPECT_EQ(s->ReconstructionWeights(), Eigen::VectorXd::Ones(3));
  EXPECT_EQ(s->StrategyMatrix(), a);
}

TEST(VectorStrategy, DecodedReportsAreUnbiasedForOneItem) {
  // Per-agent: mean of decoded Z for item 5 (‖a‖ < 1, so Ṽ's coin matters)
  // within 5σ of a_7 in every coordinate, σ² = (B²/d − a_i²)/n.
  const std::unique_ptr<StrategyMechanism> s =
      MakeVectorWorkload(SmallStrategy(), 1);
  ASSERT_NE(s, nullptr);
  testing::SeededGenerator gen(8);
  const std::unique_ptr<StrategyAccumulator> acc = s->NewAccumulator();
  const int n = 200000;
  for (int i = 0; i < n; ++i) ASSERT_OK(acc->Add(s->Randomize(5, gen)));
  const Eigen::VectorXd y = acc->Estimate();
  const Eigen::VectorXd truth = SmallStrategy().col(5);
  const Eigen::VectorXd var = s->Variances(Eigen::MatrixXd::Identity(3, 3),
                                           Eigen::VectorXd::Unit(8, 5));
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(std::abs(y[i] - truth[i]), 5 * std::sqrt(var[i] / n)) << i;
  }
}

TEST(VectorStrategy, RejectsBadSpecs) {
  const Eigen::MatrixXd a = SmallStrategy();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double epsilon : {0.0, -1.0, nan}) {
    EXPECT_THAT(CreateVectorStrategy(VectorSpecOf(a, epsilon)),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  Eigen::MatrixXd too_long = a;
  too_long(0, 3) = 0.9;  // ‖(0.9, 0.5, 0.5)‖ > 1
  auto status = CreateVectorStrategy(VectorSpecOf(too_long, 1));
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("column 3"));
  Eigen::MatrixXd not_finite = a;
  not_finite(1, 1) = nan;
  EXPECT_THAT(CreateVectorStrategy(VectorSpecOf(not_finite, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec wrong_size = VectorSpecOf(a, 1);
  wrong_size.matrix.push_back(0);
  EXPECT_THAT(CreateVectorStrategy(wrong_size),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec no_rows = VectorSpecOf(a, 1);
  no_rows.rows = 0;
  EXPECT_THAT(CreateVectorStrategy(no_rows),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec wrong_kind = VectorSpecOf(a, 1);
  wrong_kind.kind = StrategyKind::kMatrix;
  EXPECT_THAT(CreateVectorStrategy(wrong_kind),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(VectorStrategy, FactoryBuildsItFromAGamma2Factorization) {
  absl::StatusOr<Workload> prefix =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 8});
  ASSERT_OK(prefix);
  absl::StatusOr<Gamma2Factorization> f = FactorizeGamma2(*prefix);
  ASSERT_OK(f);
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s =
      CreateStrategy(VectorSpecOf(f->strategy, 1));
  ASSERT_OK(s);
  EXPECT_EQ((*s)->output_dimension(), f->strategy.rows());
}

}  // namespace
}  // namespace ldp
