// RS+FD with unary fake data, OUE-z and OUE-r (unary_fake_data_randomizer.h,
// fake_data_strategy.h): the charged ε is the OUE's, attained over every
// record pair, and the per-attribute figure is the stated closed form (both
// by enumerating every report); the variance forms equal the covariance of
// one report computed by brute force from Probability; ŷ is unbiased, the
// sampler matches real agents and the cell variance matches its closed form
// within 5σ; and the planner scores all three RS+FD forms.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/fake_data_strategy.h"
#include "common/workload/strategies/strategy_factory.h"
#include "common/workload/strategies/strategy_planner.h"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategy_randomizers/unary_fake_data_randomizer.h"
#include "gtest/gtest.h"
#include "tests/testing/randomizer_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/strategy_checks.h"

namespace ldp {
namespace {

constexpr StrategyKind kUnaryForms[] = {StrategyKind::kFakeDataUnaryZero,
                                        StrategyKind::kFakeDataUnaryRandom};

std::unique_ptr<StrategyMechanism> MakeUnary(StrategyKind kind,
                                             std::vector<uint32_t> sizes,
                                             double epsilon) {
  absl::StatusOr<std::unique_ptr<StrategyMechanism>> s =
      CreateStrategy(testing::AttributeSpec(kind, std::move(sizes), epsilon));
  EXPECT_OK(s);
  return s.ok() ? *std::move(s) : nullptr;
}

const UnaryFakeDataRandomizer& UnaryRandomizerOf(const StrategyMechanism& s) {
  return dynamic_cast<const UnaryFakeDataRandomizer&>(*s.randomizer());
}

// Every report: each of the 2^K bit vectors (K ≤ 16 here).
std::vector<WorkloadReport> EveryUnaryReport(const UnaryFakeDataRandomizer& r) {
  std::vector<WorkloadReport> reports;
  for (uint64_t word = 0; word < (uint64_t{1} << r.num_bits()); ++word) {
    reports.push_back(
        {.group = 0, .inner = BitVectorReport{{word}, r.num_bits()}});
  }
  return reports;
}

// max ln Pr[R(x)=y]/Pr[R(x')=y] over x, x' that differ in one attribute.
double EnumeratedUnaryAttributeEpsilon(const UnaryFakeDataRandomizer& r) {
  const std::vector<WorkloadReport> reports = EveryUnaryReport(r);
  double worst = 0;
  for (uint32_t x = 0; x < r.domain_size(); ++x) {
    for (uint32_t z = 0; z < r.domain_size(); ++z) {
      int differ = 0;
      for (uint32_t j = 0; j < r.num_attributes(); ++j) {
        differ += r.Digit(x, j) != r.Digit(z, j) ? 1 : 0;
      }
      if (differ != 1) continue;
      for (const WorkloadReport& y : reports) {
        worst = std::max(worst,
                         std::log(r.Probability(x, y) / r.Probability(z, y)));
      }
    }
  }
  return worst;
}

TEST(UnaryFakeData, ChargedEpsilonIsTheOueEpsilonAttained) {
  for (StrategyKind kind : kUnaryForms) {
    for (double epsilon : {0.5, 1.0, 4.0}) {
      const std::unique_ptr<StrategyMechanism> s =
          MakeUnary(kind, {2, 3, 4}, epsilon);
      ASSERT_NE(s, nullptr);
      SCOPED_TRACE(s->Describe());
      testing::ExpectStrategyPrivacy(
          *s, EveryUnaryReport(UnaryRandomizerOf(*s)), epsilon,
          /*complete=*/true);
      EXPECT_NEAR(s->epsilon(), epsilon, 1e-6);
    }
  }
}

// The per-attribute figure by enumeration, and for OUE-z the paper's
// amplified ε' = ln((e^ε + d − 1)/d).
TEST(UnaryFakeData, AttributeEpsilonIsTheEnumeratedOne) {
  for (StrategyKind kind : kUnaryForms) {
    for (const std::vector<uint32_t>& sizes :
         {std::vector<uint32_t>{3, 3, 3}, std::vector<uint32_t>{2, 3, 4}}) {
      const std::unique_ptr<StrategyMechanism> s = MakeUnary(kind, sizes, 1.0);
      ASSERT_NE(s, nullptr);
      const UnaryFakeDataRandomizer& r = UnaryRandomizerOf(*s);
      SCOPED_TRACE(r.Describe());
      EXPECT_NEAR(EnumeratedUnaryAttributeEpsilon(r), r.attribute_epsilon(),
                  1e-9);
      EXPECT_LT(r.attribute_epsilon(), r.epsilon());
      if (kind == StrategyKind::kFakeDataUnaryZero) {
        EXPECT_NEAR(r.attribute_epsilon(),
                    std::log((std::exp(r.epsilon()) + 2) / 3), 1e-9);
      }
    }
  }
}

// n·Var(r·ŷ) of one report of an agent drawn from h, from the exact
// report distribution: the variance forms' closed form must equal it.
TEST(UnaryFakeData, VarianceFormsEqualTheBruteForceCovariance) {
  for (StrategyKind kind : kUnaryForms) {
    const std::unique_ptr<StrategyMechanism> s =
        MakeUnary(kind, {2, 3, 4}, 1.3);
    ASSERT_NE(s, nullptr);
    const UnaryFakeDataRandomizer& r = UnaryRandomizerOf(*s);
    SCOPED_TRACE(r.Describe());
    const uint32_t n = r.domain_size(), k = r.num_bits();
    std::vector<int64_t> counts(n);
    for (uint32_t x = 0; x < n; ++x) counts[x] = 3 + 5 * (x % 7);
    const Eigen::VectorXd h = testing::HistogramOfCounts(counts);
    Eigen::MatrixXd rows = Eigen::MatrixXd::Identity(k, k);
    rows.conservativeResize(k + 1, k);
    rows.row(k) = Eigen::RowVectorXd::LinSpaced(k, -1, 2);
    // One report's ŷ is its single-report estimate.
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(rows.rows());
    Eigen::VectorXd square = Eigen::VectorXd::Zero(rows.rows());
    for (const WorkloadReport& y : EveryUnaryReport(r)) {
      double pr = 0;
      for (uint32_t x = 0; x < n; ++x) pr += h[x] * r.Probability(x, y);
      const std::unique_ptr<StrategyAccumulator> one = s->NewAccumulator();
      ASSERT_OK(one->Add(y));
      const Eigen::VectorXd value = rows * one->Estimate();
      mean += pr * value;
      square += pr * value.cwiseProduct(value);
    }
    const Eigen::VectorXd brute = square - mean.cwiseProduct(mean);
    const Eigen::VectorXd closed = s->Variances(rows, h);
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      EXPECT_NEAR(closed[i], brute[i], 1e-9 * brute[i]) << "row " << i;
    }
    EXPECT_LT((mean - rows * s->StrategyMatrix() * h).norm(), 1e-9);
  }
}

TEST(UnaryFakeData, PassesSharedChecks) {
  for (StrategyKind kind : kUnaryForms) {
    const std::unique_ptr<StrategyMechanism> s =
        MakeUnary(kind, {2, 3, 4}, 1.0);
    ASSERT_NE(s, nullptr);
    SCOPED_TRACE(s->Describe());
    testing::ExpectAttributeStrategyChecks(*s);
    testing::ExpectStrategyDrawCountIndependentOfItem(*s);
    testing::ExpectStrategyClampsOutOfRangeItems(*s);
    testing::ExpectStrategyRejectsMalformed(
        *s, {{.group = 0, .inner = ItemReport{0}},
             {.group = 1, .inner = BitVectorReport{{1}, 9}},
             {.group = 0, .inner = BitVectorReport{{1}, 10}},
             {.group = 0, .inner = BitVectorReport{{1 << 9}, 9}},
             {.group = 0, .inner = BitVectorReport{{1, 0}, 9}}});
    const std::unique_ptr<StrategyMechanism> other_epsilon =
        MakeUnary(kind, {2, 3, 4}, 2.0);
    const std::unique_ptr<StrategyMechanism> other_form =
        MakeUnary(kind == kUnaryForms[0] ? kUnaryForms[1] : kUnaryForms[0],
                  {2, 3, 4}, 1.0);
    testing::ExpectStrategyMergeEqualsSingleAccumulator(
        *s, {other_epsilon.get(), other_form.get()}, 300);
  }
}

// At a point mass the population is the i.i.d. model: each cell's measured
// variance must match the closed form within 5 standard errors of a sample
// variance (5·√(2/R) = 5% at R = 20,000), and FakeDataCellVariance must
// equal Variances() there (every f(1 − f) is 0).
TEST(UnaryFakeData, MeasuredVarianceMatchesClosedForm) {
  for (StrategyKind kind : kUnaryForms) {
    const std::unique_ptr<StrategyMechanism> s =
        MakeUnary(kind, {2, 3, 4}, 2.0);
    ASSERT_NE(s, nullptr);
    SCOPED_TRACE(s->Describe());
    const UnaryFakeDataRandomizer& r = UnaryRandomizerOf(*s);
    const int64_t n = 500;
    const uint32_t x = 17;  // digits (1, 1, 1)
    std::vector<int64_t> counts(24, 0);
    counts[x] = n;
    const Eigen::VectorXd h = Eigen::VectorXd::Unit(24, x);
    const Eigen::VectorXd closed =
        s->Variances(Eigen::MatrixXd::Identity(9, 9), h) /
        static_cast<double>(n);
    const Eigen::VectorXd marginals = s->StrategyMatrix() * h;
    for (uint32_t j = 0; j < 3; ++j) {
      for (uint32_t v = 0; v < r.spec().attribute_sizes[j]; ++v) {
        const uint32_t row = r.offset(j) + v;
        const std::optional<double> cell =
            FakeDataCellVariance(r, j, marginals[row], n);
        ASSERT_TRUE(cell.has_value());
        EXPECT_NEAR(*cell, closed[row], 1e-12 * closed[row]);
      }
    }
    testing::ExpectSampledCellsMatchClosedForm(*s, counts, closed, marginals,
                                               20000, 37);
  }
}

// The planner scores all three RS+FD forms for 1-way marginals. With
// large attributes the unary forms beat GRR fakes, as OUE beats GRR, and
// with binary ones GRR fakes win: the choice between them is real.
TEST(UnaryFakeData, PlannerScoresTheThreeForms) {
  for (const auto& [sizes, unary_wins] :
       {std::pair{std::vector<uint32_t>{16, 16}, true},
        std::pair{std::vector<uint32_t>{2, 2, 2, 2}, false}}) {
    const absl::StatusOr<Workload> marginals = Workload::Create(
        {.kind = WorkloadKind::kAttributeMarginals, .attribute_sizes = sizes});
    ASSERT_OK(marginals);
    const absl::StatusOr<StrategyPlan> plan = PlanStrategy(
        *marginals, 1.0,
        {.include_optimized_matrix = false, .include_factorization = false});
    ASSERT_OK(plan);
    double grr = -1, zero = -1, random = -1;
    for (const StrategyCandidate& c : plan->candidates) {
      const double v = c.variance.worst();
      if (c.spec.kind == StrategyKind::kRandomSamplingFakeData) grr = v;
      if (c.spec.kind == StrategyKind::kFakeDataUnaryZero) zero = v;
      if (c.spec.kind == StrategyKind::kFakeDataUnaryRandom) random = v;
    }
    ASSERT_GT(grr, 0);
    ASSERT_GT(zero, 0);
    ASSERT_GT(random, 0);
    EXPECT_EQ(std::min(zero, random) < grr, unary_wins) << sizes.size();
  }
}

}  // namespace
}  // namespace ldp
