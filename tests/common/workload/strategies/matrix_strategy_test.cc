// The optimized finite strategy Q as a randomizer (matrix_strategy.h): the
// shared strategy checks (exact ε by enumeration, samples follow
// Probability, unbiased ŷ with its closed-form variances, malformed
// reports, merges, SampleEstimate) on a hand-built and an optimized Q, and
// the integer rounding that decides ε.
#include "common/workload/strategies/matrix_strategy.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/matrix_optimizer.h"
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

StrategySpec SpecOf(const Eigen::MatrixXd& q, double epsilon) {
  return MatrixStrategySpec(StrategyKind::kMatrix, epsilon, q);
}

// Randomized response as a K = N matrix at ε' = ε·(1 − 1e-8) (a hair under
// ε, so the rounded weights cannot exceed ε).
Eigen::MatrixXd RandomizedResponse(uint32_t n, double epsilon) {
  const double e = std::exp(epsilon * (1 - 1e-8));
  Eigen::MatrixXd q = Eigen::MatrixXd::Constant(n, n, 1.0);
  q.diagonal().setConstant(e);
  return q / (e + n - 1);
}

// A McKenna-optimized Q for prefix N = 8 (K = 16 outputs).
Eigen::MatrixXd OptimizedPrefix8(double epsilon) {
  absl::StatusOr<Workload> prefix =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = 8});
  EXPECT_OK(prefix);
  absl::StatusOr<OptimizedMatrix> q = OptimizeStrategyMatrix(
      *prefix, epsilon, {.num_outputs = 16, .iterations = 200, .seed = 5});
  EXPECT_OK(q);
  return q->q;
}

std::unique_ptr<StrategyMechanism> Make(const Eigen::MatrixXd& q,
                                        double epsilon) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s =
      CreateMatrixStrategy(SpecOf(q, epsilon));
  EXPECT_OK(s);
  return s.ok() ? *std::move(s) : nullptr;
}

std::vector<WorkloadReport> AllOutputs(const StrategyMechanism& s) {
  std::vector<WorkloadReport> reports;
  for (uint32_t o = 0; o < s.output_dimension(); ++o) {
    reports.push_back({.group = 0, .inner = ItemReport{o}});
  }
  return reports;
}

std::vector<uint32_t> AllItems(uint32_t n) {
  std::vector<uint32_t> items;
  for (uint32_t x = 0; x < n; ++x) items.push_back(x);
  return items;
}

class MatrixStrategyChecks : public ::testing::TestWithParam<double> {};

TEST_P(MatrixStrategyChecks, PassSharedChecks) {
  const double epsilon = GetParam();
  for (const Eigen::MatrixXd& q :
       {RandomizedResponse(8, epsilon), OptimizedPrefix8(epsilon)}) {
    const std::unique_ptr<StrategyMechanism> s = Make(q, epsilon);
    ASSERT_NE(s, nullptr);
    SCOPED_TRACE(s->Describe());
    EXPECT_EQ(s->domain_size(), 8u);
    EXPECT_EQ(s->output_dimension(), q.rows());
    const std::vector<WorkloadReport> reports = AllOutputs(*s);
    testing::ExpectStrategyPrivacy(*s, reports, epsilon, /*complete=*/true);
    testing::ExpectStrategySamplesFollowProbability(*s, reports, AllItems(8),
                                                    20000, 11);
    testing::ExpectStrategyDrawCountIndependentOfItem(*s);
    testing::ExpectStrategyClampsOutOfRangeItems(*s);
    const Eigen::VectorXd h = Eigen::VectorXd::LinSpaced(8, 1, 8) /
                              Eigen::VectorXd::LinSpaced(8, 1, 8).sum();
    testing::ExpectVarianceFormsConsistent(
        *s, Eigen::MatrixXd::Random(5, s->output_dimension()), h);
    const std::vector<int64_t> counts = {300, 0, 100, 500, 50, 250, 400, 400};
    testing::ExpectStrategyUnbiased(*s, counts, 40, 12);
    testing::ExpectStrategyRejectsMalformed(
        *s, {{.group = 1, .inner = ItemReport{0}},
             {.group = 0, .inner = ItemReport{s->output_dimension()}},
             {.group = 0, .inner = BitVectorReport{{1}}},
             {.group = 0, .inner = HashedReport{.seed = 1, .bucket = 0}}});
    const std::unique_ptr<StrategyMechanism> other =
        Make(RandomizedResponse(8, epsilon / 2), epsilon);
    testing::ExpectStrategyMergeEqualsSingleAccumulator(*s, {other.get()}, 300);
    testing::ExpectSampleEstimateMatchesAgents(*s, counts, 300, 13);
  }
}

INSTANTIATE_TEST_SUITE_P(Epsilons, MatrixStrategyChecks,
                         ::testing::Values(0.5, 2.0));

// Agents iid from h: the output counts are one multinomial over Q·h. The
// output frequencies are unbiased for Q·h (5σ) and n·Var of each matches
// the closed form at h within 10% (4000 runs: the sample variance's
// relative SD is 2.2%).
TEST(MatrixStrategy, SampleIidEstimateFollowsTheMixture) {
  const Eigen::MatrixXd q = OptimizedPrefix8(1.0);
  const std::unique_ptr<StrategyMechanism> s = Make(q, 1.0);
  ASSERT_NE(s, nullptr);
  Eigen::VectorXd h(8);
  h << 0.05, 0.1, 0.2, 0.05, 0.3, 0.1, 0.15, 0.05;
  constexpr int64_t kAgents = 2000;
  constexpr int kRuns = 4000;
  const Eigen::Index k = q.rows();
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(k, k);
  const Eigen::VectorXd predicted = s->Variances(identity, h);
  const Eigen::VectorXd mean = s->StrategyMatrix() * h;
  std::vector<testing::RunningMoments> moments(static_cast<size_t>(k));
  testing::SeededGenerator gen(31);
  for (int run = 0; run < kRuns; ++run) {
    const Eigen::VectorXd y = s->SampleIidEstimate(h, kAgents, gen);
    for (Eigen::Index o = 0; o < k; ++o)
      moments[static_cast<size_t>(o)].Add(y[o]);
  }
  for (Eigen::Index o = 0; o < k; ++o) {
    SCOPED_TRACE(o);
    const testing::RunningMoments& m = moments[static_cast<size_t>(o)];
    EXPECT_LE(std::abs(m.mean() - mean[o]),
              5 * std::sqrt(predicted[o] / kAgents / kRuns));
    EXPECT_NEAR(m.variance() * kAgents / predicted[o], 1.0, 0.10);
  }
}

TEST(MatrixStrategy, ReportsItsLinearStructure) {
  const Eigen::MatrixXd q = RandomizedResponse(4, 1);
  const std::unique_ptr<StrategyMechanism> s = Make(q, 1);
  ASSERT_NE(s, nullptr);
  EXPECT_LT((s->StrategyMatrix() - q).cwiseAbs().maxCoeff(), 1e-12);
  // D⁻¹ with D = Q·1/N: RR's rows sum to 1, so every weight is N.
  EXPECT_LT((s->ReconstructionWeights() - Eigen::VectorXd::Constant(4, 4.0))
                .cwiseAbs()
                .maxCoeff(),
            1e-9);  // Q is rounded to 2^-40
  // Multinomial: Var(ŷ_o)·n at e_x is Q[o,x](1 − Q[o,x]).
  const Eigen::MatrixXd v =
      s->PointMassVariances(Eigen::MatrixXd::Identity(4, 4));
  for (int o = 0; o < 4; ++o) {
    for (int x = 0; x < 4; ++x) {
      EXPECT_NEAR(v(o, x), q(o, x) * (1 - q(o, x)), 1e-12);
    }
  }
}

TEST(MatrixStrategy, WeightsSumExactlyAndEpsilonComesFromThem) {
  const Eigen::MatrixXd q = OptimizedPrefix8(1);
  absl::StatusOr<std::vector<uint64_t>> w = MatrixStrategyWeights(q);
  ASSERT_OK(w);
  for (Eigen::Index x = 0; x < q.cols(); ++x) {
    uint64_t total = 0;
    for (Eigen::Index o = 0; o < q.rows(); ++o) {
      const uint64_t weight = (*w)[x * q.rows() + o];
      total += weight;
      EXPECT_NEAR(static_cast<double>(weight), q(o, x) * 0x1.0p40, 1.0);
    }
    EXPECT_EQ(total, uint64_t{1} << kMatrixStrategyWeightBits);
  }
  absl::StatusOr<double> epsilon = MatrixStrategyEpsilon(q);
  ASSERT_OK(epsilon);
  EXPECT_LE(*epsilon, 1.0);
  EXPECT_GT(*epsilon, 1.0 - 1e-5);
  EXPECT_EQ(Make(q, 1)->epsilon(), *epsilon);
}

TEST(MatrixStrategy, RejectsBadSpecs) {
  const Eigen::MatrixXd rr = RandomizedResponse(4, 1);
  EXPECT_THAT(CreateMatrixStrategy(SpecOf(rr, 0.5)),
              StatusIs(absl::StatusCode::kInvalidArgument));  // ε too large
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double epsilon : {0.0, -1.0, nan}) {
    EXPECT_THAT(CreateMatrixStrategy(SpecOf(rr, epsilon)),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  StrategySpec wrong_size = SpecOf(rr, 1);
  wrong_size.matrix.pop_back();
  EXPECT_THAT(CreateMatrixStrategy(wrong_size),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec zero_rows = SpecOf(rr, 1);
  zero_rows.rows = 0;
  EXPECT_THAT(CreateMatrixStrategy(zero_rows),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec not_stochastic = SpecOf(rr, 1);
  not_stochastic.matrix[0] += 1e-6;
  auto status = CreateMatrixStrategy(not_stochastic);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(status.status().message()), HasSubstr("column 0"));
  StrategySpec negative = SpecOf(rr, 1);
  negative.matrix[1] = -rr(0, 1);      // (0, 1) < 0
  negative.matrix[5] += 2 * rr(0, 1);  // (1, 1): column 1 still sums to 1
  EXPECT_THAT(CreateMatrixStrategy(negative),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec not_finite = SpecOf(rr, 1);
  not_finite.matrix[2] = nan;
  EXPECT_THAT(CreateMatrixStrategy(not_finite),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A zero next to a non-zero in a row is an infinite likelihood ratio.
  Eigen::MatrixXd with_zero = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_THAT(CreateMatrixStrategy(SpecOf(with_zero, 5)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // An all-zero row would have an infinite reconstruction weight.
  Eigen::MatrixXd zero_row(3, 2);
  zero_row << 0.5, 0.5, 0.5, 0.5, 0, 0;
  EXPECT_THAT(CreateMatrixStrategy(SpecOf(zero_row, 1)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // More entries than the factory builds (the size is checked before the
  // matrix, so none needs to be allocated).
  StrategySpec too_big;
  too_big.kind = StrategyKind::kMatrix;
  too_big.epsilon = 1;
  too_big.domain_size = kMaxWorkloadDomainSize;
  too_big.rows =
      kMaxInProcessStrategyMatrixEntries / kMaxWorkloadDomainSize + 1;
  EXPECT_THAT(CreateMatrixStrategy(too_big),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec wrong_kind = SpecOf(rr, 1);
  wrong_kind.kind = StrategyKind::kFactorization;
  EXPECT_THAT(CreateMatrixStrategy(wrong_kind),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(MatrixStrategy, FactoryBuildsIt) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s =
      CreateStrategy(SpecOf(RandomizedResponse(4, 1), 1));
  ASSERT_OK(s);
  EXPECT_EQ((*s)->output_dimension(), 4u);
}

}  // namespace
}  // namespace ldp
