// The McKenna et al. strategy optimizer (matrix_optimizer.h): its result is
// a valid ε-LDP strategy (column-stochastic, implemented ε ≤ ε after the
// integer rounding matrix_strategy.h applies), the descent lowers the
// objective from its random start, it is deterministic given the seed, it
// stops on time, and on prefix N = 16 it beats the identity strategy
// (randomized response / OUE) on v_max. Big-N figures live in bench/.
#include "common/workload/strategies/matrix_optimizer.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "Eigen/Core"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/workload/strategies/matrix_strategy.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

Workload PrefixWorkload(uint32_t n) {
  absl::StatusOr<Workload> w =
      Workload::Create({.kind = WorkloadKind::kPrefix, .domain_size = n});
  EXPECT_OK(w);
  return *w;
}

StrategySpec MatrixSpec(const Eigen::MatrixXd& q, double epsilon) {
  return MatrixStrategySpec(StrategyKind::kMatrix, epsilon, q);
}

VarianceSummary VarianceOf(const Workload& w, const StrategySpec& spec) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s = CreateStrategy(spec);
  EXPECT_OK(s);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> e =
      WorkloadEstimator::Create(
          w, std::shared_ptr<StrategyMechanism>(std::move(*s)));
  EXPECT_OK(e);
  return (*e)->Variance();
}

void ExpectValidStrategy(const Eigen::MatrixXd& q, uint32_t n, double epsilon) {
  ASSERT_EQ(q.cols(), n);
  EXPECT_GE(q.rows(), n);
  EXPECT_GE(q.minCoeff(), 0);
  EXPECT_LT((q.colwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
  absl::StatusOr<double> implemented = MatrixStrategyEpsilon(q);
  ASSERT_OK(implemented);
  EXPECT_LE(*implemented, epsilon);
  // The box is used (the optimum spends the whole budget).
  EXPECT_GT(*implemented, epsilon * (1 - 1e-5));
}

TEST(MatrixOptimizer, ResultIsAValidStrategyAndTheDescentHelps) {
  const Workload w = PrefixWorkload(16);
  for (double epsilon : {0.5, 1.0, 2.0}) {
    SCOPED_TRACE(epsilon);
    absl::StatusOr<OptimizedMatrix> start =
        OptimizeStrategyMatrix(w, epsilon, {.iterations = 0, .seed = 3});
    absl::StatusOr<OptimizedMatrix> best =
        OptimizeStrategyMatrix(w, epsilon, {.iterations = 300, .seed = 3});
    ASSERT_OK(start);
    ASSERT_OK(best);
    EXPECT_EQ(start->iterations, 0);
    EXPECT_GT(best->iterations, 10);
    ExpectValidStrategy(start->q, 16, epsilon);
    ExpectValidStrategy(best->q, 16, epsilon);
    EXPECT_LT(best->objective, 0.8 * start->objective);
    // The objective is McKenna's average, mean_x Σ_j v_j(e_x). At uniform
    // data v_j = mean_x v_j(e_x) + Var_x(w_jx) (a mixture), and prefix j
    // is an indicator with mean (j+1)/N: cross-check the estimator.
    const VarianceSummary v = VarianceOf(w, MatrixSpec(best->q, epsilon));
    double spread = 0;
    for (int j = 0; j < 16; ++j)
      spread += (j + 1) / 16.0 * (1 - (j + 1) / 16.0);
    EXPECT_NEAR(v.v_avg, (best->objective + spread) / 16, 1e-6 * v.v_avg);
    EXPECT_GE(v.v_max, v.v_avg);
  }
}

TEST(MatrixOptimizer, BeatsTheIdentityStrategyOnPrefix) {
  const Workload w = PrefixWorkload(16);
  absl::StatusOr<OptimizedMatrix> q = OptimizeStrategyMatrix(w, 1, {.seed = 1});
  ASSERT_OK(q);
  const VarianceSummary optimized = VarianceOf(w, MatrixSpec(q->q, 1));
  StrategySpec identity_spec;
  identity_spec.kind = StrategyKind::kIdentity;
  identity_spec.epsilon = 1;
  identity_spec.domain_size = 16;
  const VarianceSummary identity = VarianceOf(w, identity_spec);
  EXPECT_LT(optimized.v_max, 0.7 * identity.v_max)
      << "optimized " << optimized.v_max << " identity " << identity.v_max;
}

TEST(MatrixOptimizer, DeterministicGivenTheSeed) {
  const Workload w = PrefixWorkload(8);
  absl::StatusOr<OptimizedMatrix> a =
      OptimizeStrategyMatrix(w, 1, {.iterations = 50, .seed = 9});
  absl::StatusOr<OptimizedMatrix> b =
      OptimizeStrategyMatrix(w, 1, {.iterations = 50, .seed = 9});
  absl::StatusOr<OptimizedMatrix> c =
      OptimizeStrategyMatrix(w, 1, {.iterations = 50, .seed = 10});
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(c);
  EXPECT_EQ(a->q, b->q);
  EXPECT_EQ(a->objective, b->objective);
  EXPECT_NE(a->q, c->q);
}

TEST(MatrixOptimizer, StopsAtTheTimeLimit) {
  const Workload w = PrefixWorkload(64);
  const absl::Time start = absl::Now();
  absl::StatusOr<OptimizedMatrix> q = OptimizeStrategyMatrix(
      w, 1, {.iterations = 1000000, .time_limit = absl::Milliseconds(200)});
  ASSERT_OK(q);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  ExpectValidStrategy(q->q, 64, 1);
}

TEST(MatrixOptimizer, HonorsNumOutputs) {
  absl::StatusOr<OptimizedMatrix> q = OptimizeStrategyMatrix(
      PrefixWorkload(8), 1, {.num_outputs = 8, .iterations = 20});
  ASSERT_OK(q);
  EXPECT_LE(q->q.rows(), 8);
  ExpectValidStrategy(q->q, 8, 1);
}

TEST(MatrixOptimizer, RejectsBadArguments) {
  const Workload w = PrefixWorkload(8);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double epsilon :
       {0.0, -1.0, nan, std::numeric_limits<double>::infinity()}) {
    EXPECT_THAT(OptimizeStrategyMatrix(w, epsilon),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  EXPECT_THAT(OptimizeStrategyMatrix(w, 1, {.num_outputs = 4}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
