// The certified γ₂ fixed point (gamma2_factorization.h): the bounds bracket
// known values (factorization-and-sq.md §1: prefix, k-way marginals in
// closed form, histogram), lower ≤ upper at every stopping point, and the
// returned A is a factorization with max column norm 1 whose least-squares
// R attains the upper bound; with the vector randomizer it gives
// v_max ≤ C_DJW·upper².
#include "common/workload/strategies/gamma2_factorization.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <numbers>

#include "Eigen/Core"
#include "Eigen/QR"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

Workload BuildWorkload(WorkloadSpec spec) {
  absl::StatusOr<Workload> w = Workload::Create(std::move(spec));
  EXPECT_OK(w);
  return *w;
}

void ExpectBrackets(const Workload& w, double known, double gap) {
  absl::StatusOr<Gamma2Factorization> f =
      FactorizeGamma2(w, {.relative_gap = gap});
  ASSERT_OK(f);
  SCOPED_TRACE(w.Describe());
  // The known values carry 6 significant digits.
  EXPECT_LE(f->lower_bound, known * (1 + 3e-6));
  EXPECT_GE(f->upper_bound, known * (1 - 3e-6));
  EXPECT_LE(f->upper_bound, f->lower_bound * (1 + gap));
  EXPECT_LE(f->lower_bound, f->upper_bound);
}

TEST(Gamma2, BracketsKnownValues) {
  ExpectBrackets(
      BuildWorkload({.kind = WorkloadKind::kPrefix, .domain_size = 16}),
      1.70448, 1e-4);
  ExpectBrackets(
      BuildWorkload({.kind = WorkloadKind::kPrefix, .domain_size = 64}),
      2.11137, 1e-4);
  ExpectBrackets(
      BuildWorkload({.kind = WorkloadKind::kHistogram, .domain_size = 32}), 1.0,
      1e-6);
  // k-way marginals over {0,1}^d: 2^{−k}·Σ_{i≤k} √(C(d,i)·C(k,i)).
  const double two_way_d4 = (1 + std::sqrt(4.0 * 2) + std::sqrt(6.0 * 1)) / 4;
  ExpectBrackets(
      BuildWorkload(
          {.kind = WorkloadKind::kMarginals, .num_bits = 4, .order = 2}),
      two_way_d4, 1e-4);
}

Workload CustomRows(uint32_t n, uint32_t rows,
                    const std::function<double(uint32_t)>& value) {
  WorkloadSpec spec{
      .kind = WorkloadKind::kCustom, .domain_size = n, .num_queries = rows};
  for (uint32_t j = 0; j < rows; ++j) {
    for (uint32_t x = 0; x < n; ++x) spec.dense.push_back(value(x));
  }
  return BuildWorkload(std::move(spec));
}

// k-way marginals over {0,1}^d: 2^{−k}·Σ_{i≤k} √(C(d,i)·C(k,i)).
int64_t Binomial(int n, int k) {
  int64_t c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;  // exact at each step
  return c;
}

double MarginalsGamma2(int d, int k) {
  double sum = 0;
  for (int i = 0; i <= k; ++i) {
    sum += std::sqrt(static_cast<double>(Binomial(d, i) * Binomial(k, i)));
  }
  return std::ldexp(sum, -k);
}

// The lower bound is certified: never above the exact γ₂, with no slack,
// on workloads of every rank. Summing the square roots of all eigenvalues
// gave 1.000000625 for one 0/1 row at N = 1024 (round-off eigenvalues of
// the null space) and 1.5694792224 for 2-way marginals over 4 bits, whose
// γ₂ is 1/4 + 1/√2 + √6/4 = 1.5694792169. The bound stays useful: within
// the requested gap of the exact value.
TEST(Gamma2, LowerBoundNeverExceedsTheExactValue) {
  struct Case {
    Workload workload;
    double exact;
  };
  const Case cases[] = {
      // One 0/1 row (rank 1): γ₂ = max |w_x| = 1.
      {CustomRows(1024, 1, [](uint32_t) { return 1.0; }), 1},
      {CustomRows(1024, 1, [](uint32_t x) { return x % 3 == 0 ? 1.0 : 0.0; }),
       1},
      // Repeated rows change nothing.
      {CustomRows(256, 5, [](uint32_t x) { return x < 100 ? 1.0 : 0.0; }), 1},
      // A row of twos: γ₂ scales.
      {CustomRows(512, 1, [](uint32_t) { return 2.0; }), 2},
      {BuildWorkload(
           {.kind = WorkloadKind::kMarginals, .num_bits = 4, .order = 2}),
       0.25 + 1 / std::sqrt(2.0) + std::sqrt(6.0) / 4},
      {BuildWorkload(
           {.kind = WorkloadKind::kMarginals, .num_bits = 8, .order = 1}),
       MarginalsGamma2(8, 1)},
      {BuildWorkload(
           {.kind = WorkloadKind::kMarginals, .num_bits = 6, .order = 3}),
       MarginalsGamma2(6, 3)},
      // Full rank, for contrast.
      {BuildWorkload({.kind = WorkloadKind::kHistogram, .domain_size = 256}),
       1},
  };
  EXPECT_DOUBLE_EQ(MarginalsGamma2(4, 2),
                   0.25 + 1 / std::sqrt(2.0) + std::sqrt(6.0) / 4);
  constexpr double kGap = 1e-4;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.workload.Describe());
    absl::StatusOr<Gamma2Factorization> f =
        FactorizeGamma2(c.workload, {.relative_gap = kGap});
    ASSERT_OK(f);
    EXPECT_LE(f->lower_bound, c.exact);
    EXPECT_GE(f->lower_bound, c.exact * (1 - kGap));
    // The upper bound is a computed ‖R‖·‖A‖, good to round-off.
    EXPECT_GE(f->upper_bound, c.exact * (1 - 1e-12));
  }
}

TEST(Gamma2, BoundsAreOrderedAtEveryStoppingPoint) {
  const Workload ranges =
      BuildWorkload({.kind = WorkloadKind::kAllRange, .domain_size = 24});
  double previous_gap = INFINITY;
  for (int iterations : {1, 2, 5, 20}) {
    absl::StatusOr<Gamma2Factorization> f =
        FactorizeGamma2(ranges, {.max_iterations = iterations});
    ASSERT_OK(f);
    EXPECT_EQ(f->iterations, iterations);
    EXPECT_GT(f->lower_bound, 0);
    EXPECT_LE(f->lower_bound, f->upper_bound);
    const double gap = f->upper_bound / f->lower_bound;
    EXPECT_LE(gap, previous_gap * (1 + 1e-12)) << iterations;
    previous_gap = gap;
  }
}

TEST(Gamma2, StrategyIsAFactorizationAttainingTheUpperBound) {
  const Workload w =
      BuildWorkload({.kind = WorkloadKind::kPrefix, .domain_size = 16});
  absl::StatusOr<Gamma2Factorization> f = FactorizeGamma2(w);
  ASSERT_OK(f);
  const Eigen::MatrixXd& a = f->strategy;
  ASSERT_EQ(a.cols(), 16);
  EXPECT_NEAR(a.colwise().norm().maxCoeff(), 1.0, 1e-12);
  absl::StatusOr<Eigen::MatrixXd> dense = w.Dense();
  ASSERT_OK(dense);
  // R = W·A⁺ reconstructs W exactly, and its rows are no longer than the
  // upper bound (‖A‖₁→₂ = 1).
  const Eigen::MatrixXd r = a.transpose()
                                .completeOrthogonalDecomposition()
                                .solve(dense->transpose())
                                .transpose();
  EXPECT_LT((r * a - *dense).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LE(r.rowwise().norm().maxCoeff(), f->upper_bound * (1 + 1e-9));
  EXPECT_GE(r.rowwise().norm().maxCoeff(), f->lower_bound * (1 - 1e-9));
}

TEST(Gamma2, WithTheVectorRandomizerMeetsTheDjwBound) {
  const Workload w =
      BuildWorkload({.kind = WorkloadKind::kPrefix, .domain_size = 16});
  absl::StatusOr<Gamma2Factorization> f = FactorizeGamma2(w);
  ASSERT_OK(f);
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s = CreateStrategy(
      MatrixStrategySpec(StrategyKind::kFactorization, 1, f->strategy));
  ASSERT_OK(s);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(
          w, std::shared_ptr<StrategyMechanism>(std::move(*s)));
  ASSERT_OK(estimator);
  const double bound = DjwVarianceConstant(1, f->strategy.rows()) *
                       f->upper_bound * f->upper_bound;
  const VarianceSummary v = (*estimator)->Variance();
  EXPECT_LE(v.v_max, bound * (1 + 1e-6));
  // Only the −(r·a_x)² term separates them.
  EXPECT_GE(v.v_max, bound - 1.0);
}

TEST(Gamma2, DjwConstant) {
  // d = 1: c_1 = 1, plain randomized response on ±1: coth²(ε/2).
  const double coth = 1 / std::tanh(0.5);
  EXPECT_NEAR(DjwVarianceConstant(1, 1), coth * coth, 1e-12);
  // d = 2: c_2 = Γ(1)/(√π·Γ(3/2)) = 2/π.
  EXPECT_NEAR(
      DjwVarianceConstant(1, 2),
      coth * coth / (2 * (2 / std::numbers::pi) * (2 / std::numbers::pi)),
      1e-12);
  // Large d: → (π/2)·coth²(ε/2); the reference table's 7.356 at ε = 1.
  EXPECT_NEAR(DjwVarianceConstant(1, 1 << 20),
              std::numbers::pi / 2 * coth * coth, 1e-5);
  EXPECT_NEAR(DjwVarianceConstant(1, 1 << 20), 7.356, 5e-4);
}

}  // namespace
}  // namespace ldp
