#include "common/mechanisms/real/mean_accumulator.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/mechanisms/real/discrete_laplace.h"
#include "common/mechanisms/real/duchi_mechanism.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"
#include "gtest/gtest.h"
#include "tests/testing/accumulator_state_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::RunningMoments;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr RealMechanismKind kKinds[] = {
    RealMechanismKind::kDiscreteLaplace, RealMechanismKind::kDuchi,
    RealMechanismKind::kPiecewise, RealMechanismKind::kHybrid};

std::unique_ptr<RealMechanism> Make(RealMechanismKind kind, double epsilon,
                                    double bound) {
  absl::StatusOr<std::unique_ptr<RealMechanism>> m;
  switch (kind) {
    case RealMechanismKind::kDiscreteLaplace:
      m = DiscreteLaplaceMechanism::Create(
          {.epsilon = epsilon, .bound = bound});
      break;
    case RealMechanismKind::kDuchi:
      m = DuchiMechanism::Create({.epsilon = epsilon, .bound = bound});
      break;
    case RealMechanismKind::kPiecewise:
      m = PiecewiseMechanism::Create({.epsilon = epsilon, .bound = bound});
      break;
    case RealMechanismKind::kHybrid:
      m = HybridMechanism::Create({.epsilon = epsilon, .bound = bound});
      break;
  }
  EXPECT_OK(m);
  return std::move(m).value();
}

// n values spread irregularly over [−b, b] (golden-ratio sequence).
std::vector<double> Population(int n, double bound) {
  std::vector<double> values;
  for (int i = 0; i < n; ++i) {
    const double u = std::fmod(0.5 + i * 0.6180339887498949, 1.0);
    values.push_back(bound * (2 * u - 1));
  }
  return values;
}

void ExpectSameEstimate(const ScalarEstimate& a, const ScalarEstimate& b) {
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.standard_error, b.standard_error);
  EXPECT_EQ(a.interval.lower, b.interval.lower);
  EXPECT_EQ(a.interval.upper, b.interval.upper);
  EXPECT_EQ(a.num_reports, b.num_reports);
}

TEST(MeanAccumulator, FewReportsGiveTheWidestHonestAnswer) {
  auto m = Make(RealMechanismKind::kDuchi, 1.0, 2.0);
  MeanAccumulator accumulator(*m);
  ScalarEstimate empty = accumulator.Estimate(0.95);
  EXPECT_EQ(empty.num_reports, 0);
  EXPECT_EQ(empty.value, 0);
  EXPECT_TRUE(std::isinf(empty.standard_error));
  EXPECT_EQ(empty.interval.lower, -2.0);
  EXPECT_EQ(empty.interval.upper, 2.0);
  EXPECT_EQ(empty.epsilon, m->epsilon());
  EXPECT_EQ(empty.confidence, 0.95);

  ASSERT_OK(accumulator.Add({.level = DuchiMechanism::kPlus}));
  const ScalarEstimate one = accumulator.Estimate(0.95);
  EXPECT_EQ(one.value, m->Decode({.level = DuchiMechanism::kPlus}));
  EXPECT_DOUBLE_EQ(one.standard_error, std::sqrt(m->WorstCaseVariance() + 4.0));
  // Clipped to [−b, b], where the truth lies.
  EXPECT_EQ(one.interval.upper, 2.0);
}

TEST(MeanAccumulator, InvalidConfidenceGivesTheWholeRange) {
  auto m = Make(RealMechanismKind::kPiecewise, 1.0, 1.0);
  MeanAccumulator accumulator(*m);
  SeededGenerator gen(1);
  for (int i = 0; i < 1000; ++i)
    ASSERT_OK(accumulator.Add(m->Randomize(0.2, gen)));
  for (double confidence : {0.0, 1.0, -3.0, std::nan("")}) {
    const ScalarEstimate e = accumulator.Estimate(confidence);
    EXPECT_EQ(e.interval.lower, -1.0);
    EXPECT_EQ(e.interval.upper, 1.0);
  }
  const ScalarEstimate e = accumulator.Estimate(0.95);
  EXPECT_LT(e.interval.upper - e.interval.lower, 2.0);
  EXPECT_TRUE(e.interval.Contains(e.value));
}

// Acceptance (4): an invalid report changes nothing.
TEST(MeanAccumulator, InvalidReportsAreRejectedAndChangeNothing) {
  for (RealMechanismKind kind : kKinds) {
    auto m = Make(kind, 2.0, 1.0);
    MeanAccumulator accumulator(*m);
    SeededGenerator gen(2);
    for (int i = 0; i < 100; ++i)
      ASSERT_OK(accumulator.Add(m->Randomize(0.5, gen)));
    const ScalarEstimate before = accumulator.Estimate(0.9);
    for (int64_t level :
         {-(int64_t{1} << 62), -(int64_t{1} << 20), int64_t{1} << 40}) {
      EXPECT_THAT(accumulator.Add({.level = level}),
                  StatusIs(absl::StatusCode::kInvalidArgument))
          << RealMechanismKindName(kind) << " " << level;
    }
    ExpectSameEstimate(accumulator.Estimate(0.9), before);
  }
}

// Acceptance (4): Merge equals adding everything to one accumulator, and a
// different mechanism's accumulator is refused.
TEST(MeanAccumulator, MergeEqualsAddingAllReports) {
  for (RealMechanismKind kind : kKinds) {
    auto m = Make(kind, 1.0, 3.0);
    MeanAccumulator all(*m), left(*m), right(*m);
    SeededGenerator gen(4);
    for (int i = 0; i < 3000; ++i) {
      const ScalarReport report = m->Randomize(3.0 * std::sin(i), gen);
      ASSERT_OK(all.Add(report));
      ASSERT_OK((i % 3 == 0 ? left : right).Add(report));
    }
    ASSERT_OK(left.Merge(right));
    const ScalarEstimate merged = left.Estimate(0.95),
                         single = all.Estimate(0.95);
    EXPECT_EQ(merged.num_reports, single.num_reports);
    EXPECT_DOUBLE_EQ(merged.value, single.value) << RealMechanismKindName(kind);
    EXPECT_DOUBLE_EQ(merged.standard_error, single.standard_error);

    auto twin = Make(kind, 1.0, 3.0);  // equal parameters, other object
    MeanAccumulator foreign(*twin);
    ASSERT_OK(foreign.Add(m->Randomize(0.0, gen)));
    EXPECT_THAT(left.Merge(foreign),
                StatusIs(absl::StatusCode::kInvalidArgument));
    ExpectSameEstimate(left.Estimate(0.95), merged);
  }
}

// A stored state merges back as the accumulator would: a round trip
// reproduces it exactly, the halves merged through their states equal
// Merge bit for bit, and a damaged state is refused and changes nothing.
TEST(MeanAccumulator, StateMergesLikeTheAccumulator) {
  for (RealMechanismKind kind : kKinds) {
    SCOPED_TRACE(std::string(RealMechanismKindName(kind)));
    auto m = Make(kind, 1.0, 3.0);
    MeanAccumulator all(*m), left(*m), right(*m);
    SeededGenerator gen(8);
    for (int i = 0; i < 3000; ++i) {
      const ScalarReport report = m->Randomize(3.0 * std::sin(i), gen);
      ASSERT_OK(all.Add(report));
      ASSERT_OK((i % 3 == 0 ? left : right).Add(report));
    }
    const AccumulatorState state = all.State();
    EXPECT_EQ(state.num_reports, 3000);
    MeanAccumulator copy(*m);
    ASSERT_OK(copy.MergeState(state));
    EXPECT_TRUE(copy.State() == state);
    ExpectSameEstimate(copy.Estimate(0.95), all.Estimate(0.95));

    MeanAccumulator via_states(*m);
    ASSERT_OK(via_states.MergeState(left.State()));
    ASSERT_OK(via_states.MergeState(right.State()));
    ASSERT_OK(via_states.MergeState(MeanAccumulator(*m).State()));
    ASSERT_OK(left.Merge(right));
    EXPECT_TRUE(via_states.State() == left.State());
    ExpectSameEstimate(via_states.Estimate(0.95), left.Estimate(0.95));

    testing::ExpectMalformedStatesRejected(copy, state);
    AccumulatorState other_grid = state;
    ++other_grid.counts[4];
    AccumulatorState sums_without_reports = state;
    sums_without_reports.num_reports = 0;
    AccumulatorState sum_beyond_bound = state;  // n · 2^61 + 1, on the grid
    sum_beyond_bound.counts[2] = state.num_reports >> 3;
    sum_beyond_bound.counts[3] = (state.num_reports & 7) << 61 | 1;
    AccumulatorState negative_squares = state;
    negative_squares.counts[0] = -1;
    for (const AccumulatorState& bad : {other_grid, sums_without_reports,
                                        sum_beyond_bound, negative_squares}) {
      EXPECT_THAT(copy.MergeState(bad),
                  StatusIs(absl::StatusCode::kInvalidArgument));
    }
    EXPECT_TRUE(copy.State() == state);
  }
}

// Exact sums: the reports added in reverse, and a 1:2 split merged in
// either order, directly or through stored states, all give one
// accumulator's state and estimate bit for bit.
TEST(MeanAccumulator, SumsDoNotDependOnOrderOrGrouping) {
  for (RealMechanismKind kind : kKinds) {
    SCOPED_TRACE(std::string(RealMechanismKindName(kind)));
    auto m = Make(kind, 1.0, 3.0);
    SeededGenerator gen(9);
    std::vector<ScalarReport> reports;
    for (int i = 0; i < 3000; ++i) {
      reports.push_back(m->Randomize(3.0 * std::sin(i), gen));
    }
    MeanAccumulator all(*m), reversed(*m), left(*m), right(*m);
    for (size_t i = 0; i < reports.size(); ++i) {
      ASSERT_OK(all.Add(reports[i]));
      ASSERT_OK(reversed.Add(reports[reports.size() - 1 - i]));
      ASSERT_OK((i % 3 == 0 ? left : right).Add(reports[i]));
    }
    MeanAccumulator left_right = left, right_left = right, via_states(*m);
    ASSERT_OK(left_right.Merge(right));
    ASSERT_OK(right_left.Merge(left));
    ASSERT_OK(via_states.MergeState(right.State()));
    ASSERT_OK(via_states.MergeState(left.State()));
    for (const MeanAccumulator* same :
         {&reversed, &left_right, &right_left, &via_states}) {
      EXPECT_TRUE(same->State() == all.State());
      ExpectSameEstimate(same->Estimate(0.95), all.Estimate(0.95));
    }
  }
}

// The fixed-point grid costs at most 2^-62 of the decode bound's power of
// two per value: the mean and standard error agree with sums in extended
// precision to 1e-15 of the bound.
TEST(MeanAccumulator, GridRoundingIsNegligible) {
  for (RealMechanismKind kind : kKinds) {
    for (double epsilon : {0.5, 4.0}) {
      SCOPED_TRACE(absl::StrCat(std::string(RealMechanismKindName(kind)),
                                " ε=", epsilon));
      auto m = Make(kind, epsilon, 3.0);
      MeanAccumulator accumulator(*m);
      SeededGenerator gen(10);
      long double sum = 0, squares = 0;
      constexpr int kReports = 3000;
      for (int i = 0; i < kReports; ++i) {
        const ScalarReport report = m->Randomize(3.0 * std::sin(i), gen);
        ASSERT_OK(accumulator.Add(report));
        const long double value = m->Decode(report);
        sum += value;
        squares += value * value;
      }
      const long double n = kReports;
      const long double mean = sum / n;
      const long double se =
          std::sqrt((squares - n * mean * mean) / (n - 1) / n);
      const ScalarEstimate e = accumulator.Estimate(0.95);
      const double scale = m->DecodeBound();
      EXPECT_NEAR(e.value, static_cast<double>(mean), 1e-15 * scale);
      EXPECT_NEAR(e.standard_error, static_cast<double>(se), 1e-12 * scale);
    }
  }
}

TEST(MeanAccumulator, MergingWithItselfDoublesEveryReport) {
  auto m = Make(RealMechanismKind::kHybrid, 2.0, 1.0);
  MeanAccumulator accumulator(*m), twice(*m);
  SeededGenerator gen(6);
  for (int i = 0; i < 500; ++i) {
    const ScalarReport report = m->Randomize(0.3, gen);
    ASSERT_OK(accumulator.Add(report));
    ASSERT_OK(twice.Add(report));
    ASSERT_OK(twice.Add(report));
  }
  ASSERT_OK(accumulator.Merge(accumulator));
  EXPECT_EQ(accumulator.num_reports(), 1000);
  EXPECT_DOUBLE_EQ(accumulator.Estimate(0.95).value,
                   twice.Estimate(0.95).value);
  EXPECT_DOUBLE_EQ(accumulator.Estimate(0.95).standard_error,
                   twice.Estimate(0.95).standard_error);
}

// Acceptance (3), for every mechanism at ε ∈ {0.5, 1, 2, 4}: over R
// repetitions on a fixed population of n values, the estimate is unbiased
// (5 SE), its variance is within 10% of (1/n²) Σ Var(x_i) (R = 6000: the
// relative SD of the sample variance of near-normal estimates is
// √(2/R) = 1.8%, so 10% is 5.5 SD), the reported SE² averages
// E[s²]/n = (Σ(x_i − x̄)² + (n−1)/n Σ Var(x_i)) / (n(n−1)), and the 95%
// interval covers at least 95% (minus 5 SE) — more, as the population's
// own spread is in the SE.
TEST(MeanAccumulator, EstimatesAreUnbiasedWithHonestErrorBars) {
  // 100 values: the estimate is a sum of 100 independent reports, near
  // enough normal for the variance and coverage checks (200 took twice as
  // long under ASan for no stronger check).
  constexpr int kPopulation = 100;
  constexpr int kRepetitions = 6000;
  constexpr double kBound = 2.0;
  const std::vector<double> population = Population(kPopulation, kBound);
  double truth = 0, spread = 0;
  for (double x : population) truth += x / kPopulation;
  for (double x : population) spread += (x - truth) * (x - truth);
  SeededGenerator gen(43);
  for (RealMechanismKind kind : kKinds) {
    for (double epsilon : {0.5, 1.0, 2.0, 4.0}) {
      auto m = Make(kind, epsilon, kBound);
      double noise = 0;  // Σ Var(x_i)
      for (double x : population) noise += m->Variance(x);
      const double n = kPopulation;
      const double variance = noise / (n * n);
      const double expected_se2 =
          (spread + (n - 1) / n * noise) / (n * (n - 1));
      RunningMoments estimates, se2;
      int covered = 0;
      // Refusals are counted and checked once per repetition: a gMock
      // matcher per report was most of this test's time under ASan.
      for (int r = 0; r < kRepetitions; ++r) {
        MeanAccumulator accumulator(*m);
        int refused = 0;
        for (double x : population) {
          refused += !accumulator.Add(m->Randomize(x, gen)).ok();
        }
        ASSERT_EQ(refused, 0);
        const ScalarEstimate e = accumulator.Estimate(0.95);
        estimates.Add(e.value);
        se2.Add(e.standard_error * e.standard_error);
        covered += e.interval.Contains(truth);
      }
      const std::string label = absl::StrCat(
          std::string(RealMechanismKindName(kind)), " ε=", epsilon);
      EXPECT_LE(std::fabs(estimates.mean() - truth),
                5 * std::sqrt(variance / kRepetitions))
          << label;
      EXPECT_NEAR(estimates.variance() / variance, 1.0, 0.1) << label;
      EXPECT_NEAR(se2.mean(), expected_se2,
                  5 * std::sqrt(se2.variance() / kRepetitions))
          << label;
      EXPECT_GE(static_cast<double>(covered) / kRepetitions,
                0.95 - 5 * std::sqrt(0.95 * 0.05 / kRepetitions))
          << label;
    }
  }
}

}  // namespace
}  // namespace ldp
