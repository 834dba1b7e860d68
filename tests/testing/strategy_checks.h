// Checks every workload strategy must pass (strategy.h contract), so each
// strategy's test states only what is particular to it (its report set,
// sizes and seeds): the randomizer's checks (randomizer_checks.h: the exact
// e^ε ratio by enumeration, samples that follow Probability()), plus an
// unbiased ŷ ≈ A·h with the strategy's own closed-form variances, rejection
// of malformed reports, mergeable accumulators and stored states, and a
// SampleEstimate that agrees with agents randomizing one by one.
// Thresholds follow statistics.h (5 standard errors, χ² at 1 − 1e-6).
#ifndef LDP_TESTS_TESTING_STRATEGY_CHECKS_H_
#define LDP_TESTS_TESTING_STRATEGY_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/estimation/accumulator_state.h"
#include "common/workload/strategies/strategy.h"
#include "gtest/gtest.h"
#include "tests/testing/accumulator_state_checks.h"
#include "tests/testing/randomizer_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// The linear structure is self-consistent: A is k×N, weights are k positive
// numbers, PointMassVariances(rows) is b×N, non-negative, and its column x
// equals Variances(rows, e_x); at any h, the variance is at least the
// h-average of the point-mass variances (a mixture's variance ≥ the mean of
// its components' variances).
inline void ExpectVarianceFormsConsistent(const StrategyMechanism& strategy,
                                          const Eigen::MatrixXd& rows,
                                          const Eigen::VectorXd& h) {
  const uint32_t n = strategy.domain_size();
  const uint32_t k = strategy.output_dimension();
  const Eigen::MatrixXd a = strategy.StrategyMatrix();
  ASSERT_EQ(a.rows(), k);
  ASSERT_EQ(a.cols(), n);
  const Eigen::VectorXd weights = strategy.ReconstructionWeights();
  ASSERT_EQ(weights.size(), k);
  for (uint32_t i = 0; i < k; ++i) {
    EXPECT_TRUE(std::isfinite(weights[i]) && weights[i] > 0) << "row " << i;
  }
  ASSERT_EQ(rows.cols(), k);
  const Eigen::MatrixXd point = strategy.PointMassVariances(rows);
  ASSERT_EQ(point.rows(), rows.rows());
  ASSERT_EQ(point.cols(), n);
  for (uint32_t x = 0; x < n; ++x) {
    const Eigen::VectorXd at_x =
        strategy.Variances(rows, Eigen::VectorXd::Unit(n, x));
    ASSERT_EQ(at_x.size(), rows.rows());
    for (Eigen::Index j = 0; j < rows.rows(); ++j) {
      EXPECT_GE(point(j, x), -1e-9) << "row " << j << " item " << x;
      EXPECT_NEAR(at_x[j], point(j, x), 1e-9 * (1 + std::abs(point(j, x))))
          << "row " << j << " item " << x;
    }
  }
  const Eigen::VectorXd mixed = strategy.Variances(rows, h);
  const Eigen::VectorXd averaged = point * h;
  for (Eigen::Index j = 0; j < rows.rows(); ++j) {
    EXPECT_GE(mixed[j], averaged[j] - 1e-9 * (1 + std::abs(averaged[j])))
        << "row " << j;
  }
}

// counts[x] / Σ counts as a vector.
inline Eigen::VectorXd HistogramOfCounts(const std::vector<int64_t>& counts) {
  Eigen::VectorXd h(counts.size());
  double n = 0;
  for (int64_t c : counts) n += static_cast<double>(c);
  for (size_t x = 0; x < counts.size(); ++x) {
    h[static_cast<Eigen::Index>(x)] = static_cast<double>(counts[x]) / n;
  }
  return h;
}

// Feeds `accumulator` one real Randomize report per agent: counts[x] agents
// hold item x, in item order.
inline void AddAgentReports(const StrategyMechanism& strategy,
                            const std::vector<int64_t>& counts,
                            StrategyAccumulator& accumulator,
                            absl::BitGenRef gen) {
  for (uint32_t x = 0; x < counts.size(); ++x) {
    for (int64_t i = 0; i < counts[x]; ++i) {
      ASSERT_OK(accumulator.Add(strategy.Randomize(x, gen)));
    }
  }
}

// (c) `repetitions` independent populations of counts[x] agents holding x,
// each randomized agent by agent and accumulated: every coordinate of the
// averaged ŷ is within 5σ of A·h, σ² = Variances(I, h) / (n·repetitions)
// (+1e-9 for coordinates the strategy knows exactly).
inline void ExpectStrategyUnbiased(const StrategyMechanism& strategy,
                                   const std::vector<int64_t>& counts,
                                   int repetitions, uint64_t seed) {
  ASSERT_EQ(counts.size(), strategy.domain_size());
  const Eigen::VectorXd h = HistogramOfCounts(counts);
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  const uint32_t k = strategy.output_dimension();
  const Eigen::VectorXd truth = strategy.StrategyMatrix() * h;
  const Eigen::VectorXd per_user =
      strategy.Variances(Eigen::MatrixXd::Identity(k, k), h);
  SeededGenerator gen(seed);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(k);
  for (int r = 0; r < repetitions; ++r) {
    const std::unique_ptr<StrategyAccumulator> accumulator =
        strategy.NewAccumulator();
    AddAgentReports(strategy, counts, *accumulator, gen);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_EQ(accumulator->num_reports(), n);
    const Eigen::VectorXd y = accumulator->Estimate();
    ASSERT_EQ(y.size(), k);
    sum += y;
  }
  const Eigen::VectorXd mean = sum / repetitions;
  const double scale = static_cast<double>(n) * repetitions;
  for (uint32_t i = 0; i < k; ++i) {
    EXPECT_LE(std::abs(mean[i] - truth[i]),
              5 * std::sqrt(per_user[i] / scale) + 1e-9)
        << strategy.Describe() << " coordinate " << i << ": mean " << mean[i]
        << " truth " << truth[i] << " per-user variance " << per_user[i];
  }
}

// (d) Each malformed report: Validate says InvalidArgument, Probability is 0
// for every item, and Add to an accumulator holding one report per item
// fails without changing its count or estimate.
inline void ExpectStrategyRejectsMalformed(
    const StrategyMechanism& strategy,
    const std::vector<WorkloadReport>& malformed) {
  SeededGenerator gen(17);
  const std::unique_ptr<StrategyAccumulator> accumulator =
      strategy.NewAccumulator();
  for (uint32_t x = 0; x < strategy.domain_size(); ++x) {
    ASSERT_OK(accumulator->Add(strategy.Randomize(x, gen)));
  }
  const Eigen::VectorXd before = accumulator->Estimate();
  const int64_t count = accumulator->num_reports();
  for (size_t i = 0; i < malformed.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("malformed report #", i, " ",
                              StrategyReportKey(malformed[i])));
    EXPECT_THAT(strategy.Validate(malformed[i]),
                StatusIs(absl::StatusCode::kInvalidArgument));
    for (uint32_t x = 0; x < strategy.domain_size(); ++x) {
      EXPECT_EQ(strategy.Probability(x, malformed[i]), 0.0) << "item " << x;
    }
    EXPECT_THAT(accumulator->Add(malformed[i]),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(accumulator->num_reports(), count);
    EXPECT_EQ(accumulator->Estimate(), before);
  }
}

inline void ExpectSameStrategyEstimate(const Eigen::VectorXd& a,
                                       const Eigen::VectorXd& b) {
  ASSERT_EQ(a.size(), b.size());
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    // Every accumulator's sums are exact (counts, or the vector strategy's
    // fixed-point sums), so a merge in any grouping changes no bit.
    EXPECT_EQ(a[i], b[i]) << "coordinate " << i;
  }
}

// ExpectStatesMergeLikeAccumulatorsOf (accumulator_state_checks.h) for
// accumulators of `strategy`.
inline void ExpectStrategyStatesMergeLikeAccumulators(
    const StrategyMechanism& strategy, const StrategyAccumulator& all,
    const StrategyAccumulator& left, const StrategyAccumulator& right,
    StrategyAccumulator& via_states) {
  ExpectStatesMergeLikeAccumulatorsOf(
      [&strategy] { return strategy.NewAccumulator(); }, all, left, right,
      via_states,
      [](const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
        ExpectSameStrategyEstimate(a, b);
      });
}

// (e) `num_reports` reports of items i mod N split 1:2 over two
// accumulators and merged estimate what one accumulator of all of them
// does, and merging their states (ExpectStrategyStatesMergeLikeAccumulators)
// leaves exactly what the merge does; merging an accumulator of any
// strategy in `others` (different kind or parameters) is InvalidArgument
// and changes nothing.
inline void ExpectStrategyMergeEqualsSingleAccumulator(
    const StrategyMechanism& strategy,
    const std::vector<const StrategyMechanism*>& others, int num_reports) {
  SeededGenerator gen(23);
  const std::unique_ptr<StrategyAccumulator> all = strategy.NewAccumulator();
  const std::unique_ptr<StrategyAccumulator> left = strategy.NewAccumulator();
  const std::unique_ptr<StrategyAccumulator> right = strategy.NewAccumulator();
  for (int i = 0; i < num_reports; ++i) {
    const WorkloadReport report = strategy.Randomize(
        static_cast<uint32_t>(i) % strategy.domain_size(), gen);
    ASSERT_OK(all->Add(report));
    ASSERT_OK((i % 3 == 0 ? *left : *right).Add(report));
  }
  const std::unique_ptr<StrategyAccumulator> via_states =
      strategy.NewAccumulator();
  ExpectStrategyStatesMergeLikeAccumulators(strategy, *all, *left, *right,
                                            *via_states);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_OK(left->Merge(*right));
  EXPECT_EQ(left->num_reports(), num_reports);
  ExpectSameStrategyEstimate(left->Estimate(), all->Estimate());
  // a.MergeState(b.State()) is a.Merge(b), bit for bit.
  EXPECT_TRUE(via_states->State() == left->State());
  EXPECT_EQ(via_states->Estimate(), left->Estimate());
  const Eigen::VectorXd merged = left->Estimate();
  for (const StrategyMechanism* other : others) {
    SCOPED_TRACE(other->Describe());
    const std::unique_ptr<StrategyAccumulator> foreign =
        other->NewAccumulator();
    ASSERT_OK(foreign->Add(other->Randomize(0, gen)));
    EXPECT_THAT(left->Merge(*foreign),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(left->num_reports(), num_reports);
    EXPECT_EQ(left->Estimate(), merged);
  }
}

// (f) `repetitions` draws of rows·SampleEstimate(counts) and as many of
// rows·(agent-by-agent accumulation), rows b×k (default: the identity, i.e.
// ŷ itself). For each row and each path: the mean is within 5σ of
// rows·A·h, and n times the sample variance lies in the bracket
// [Σ_x h_x·PointMassVariances(rows)(j, x), Variances(rows, h)_j], widened
// by 5·√(2/(R−1)) + `variance_slack` (relative). The two ends coincide at
// a point mass; for a mixture the population here is fixed (counts), whose
// variance is below the i.i.d.-agents prediction of Variances(rows, h) by
// up to the spread of the items themselves. The two paths' means also
// agree within 5σ. `variance_slack` absorbs finite-n effects of per-group
// normalization (E[1/n_g] > 1/E[n_g]: relative (1 − π_g)/(n·π_g)) and the
// sample variance's excess kurtosis; keep n·π_g ≳ 20. Returns the ratios
// measured n·Var / Variances(rows, h) of the SampleEstimate path, for
// reporting.
inline std::vector<double> ExpectSampleEstimateMatchesAgents(
    const StrategyMechanism& strategy, const std::vector<int64_t>& counts,
    int repetitions, uint64_t seed, Eigen::MatrixXd rows = {},
    double variance_slack = 0.02) {
  std::vector<double> ratios;
  const uint32_t k = strategy.output_dimension();
  if (rows.size() == 0) rows = Eigen::MatrixXd::Identity(k, k);
  EXPECT_EQ(rows.cols(), k);
  EXPECT_EQ(counts.size(), strategy.domain_size());
  if (rows.cols() != k || counts.size() != strategy.domain_size()) {
    return ratios;
  }
  const Eigen::VectorXd h = HistogramOfCounts(counts);
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  const Eigen::VectorXd truth = rows * (strategy.StrategyMatrix() * h);
  const Eigen::VectorXd upper =
      strategy.Variances(rows, h) / static_cast<double>(n);
  const Eigen::VectorXd lower =
      strategy.PointMassVariances(rows) * h / static_cast<double>(n);
  SeededGenerator gen(seed);
  const Eigen::Index b = rows.rows();
  std::vector<RunningMoments> sampled(b), agents(b);
  for (int r = 0; r < repetitions; ++r) {
    const Eigen::VectorXd y = strategy.SampleEstimate(counts, gen);
    EXPECT_EQ(y.size(), k);
    if (y.size() != k) return ratios;
    const Eigen::VectorXd answers = rows * y;
    for (Eigen::Index j = 0; j < b; ++j) sampled[j].Add(answers[j]);
    const std::unique_ptr<StrategyAccumulator> accumulator =
        strategy.NewAccumulator();
    AddAgentReports(strategy, counts, *accumulator, gen);
    if (::testing::Test::HasFailure()) return ratios;
    const Eigen::VectorXd agent_answers = rows * accumulator->Estimate();
    for (Eigen::Index j = 0; j < b; ++j) agents[j].Add(agent_answers[j]);
  }
  const double tolerance =
      5 * std::sqrt(2.0 / (repetitions - 1)) + variance_slack;
  for (Eigen::Index j = 0; j < b; ++j) {
    EXPECT_LE(lower[j], upper[j] * (1 + 1e-9) + 1e-15) << "row " << j;
    const double se = std::sqrt(upper[j] / repetitions);
    for (const auto* path : {&sampled, &agents}) {
      const char* name = path == &sampled ? "SampleEstimate" : "agents";
      const RunningMoments& m = (*path)[j];
      EXPECT_LE(std::abs(m.mean() - truth[j]), 5 * se + 1e-9)
          << strategy.Describe() << " " << name << " row " << j << ": mean "
          << m.mean() << " truth " << truth[j];
      if (upper[j] > 1e-15) {
        EXPECT_GE(m.variance(), lower[j] * (1 - tolerance))
            << strategy.Describe() << " " << name << " row " << j
            << ": n·Var measured " << m.variance() * n << " below "
            << lower[j] * n;
        EXPECT_LE(m.variance(), upper[j] * (1 + tolerance))
            << strategy.Describe() << " " << name << " row " << j
            << ": n·Var measured " << m.variance() * n << " above "
            << upper[j] * n;
      } else {
        EXPECT_LE(m.variance(), 1e-15) << name << " row " << j;
      }
    }
    EXPECT_LE(std::abs(sampled[j].mean() - agents[j].mean()),
              5 * std::sqrt(2.0) * se + 1e-9)
        << strategy.Describe() << " row " << j;
    ratios.push_back(upper[j] > 0 ? sampled[j].variance() / upper[j] : 1.0);
  }
  return ratios;
}

// A strategy over attributes of the given sizes (their product is N).
inline StrategySpec AttributeSpec(StrategyKind kind,
                                  std::vector<uint32_t> sizes, double epsilon) {
  StrategySpec spec;
  spec.kind = kind;
  spec.epsilon = epsilon;
  spec.domain_size = 1;
  for (uint32_t k : sizes) spec.domain_size *= k;
  spec.attribute_sizes = std::move(sizes);
  return spec;
}

// The variance forms, unbiasedness and the sampler of a marginal strategy
// over three attributes of sizes 2, 3 and 4 (24 items, 9 cells), at uneven
// counts, on the 9 cells and one row spread over them.
inline void ExpectAttributeStrategyChecks(const StrategyMechanism& strategy) {
  EXPECT_EQ(strategy.output_dimension(), 9u);
  std::vector<int64_t> counts(24);
  for (uint32_t x = 0; x < 24; ++x) counts[x] = 10 + 7 * (x % 5);
  const Eigen::VectorXd h = HistogramOfCounts(counts);
  Eigen::MatrixXd rows = Eigen::MatrixXd::Identity(9, 9);
  rows.conservativeResize(10, 9);
  rows.row(9) = Eigen::RowVectorXd::LinSpaced(9, -1, 1);
  ExpectVarianceFormsConsistent(strategy, rows, h);
  ExpectStrategyUnbiased(strategy, counts, 40, 11);
  ExpectSampleEstimateMatchesAgents(strategy, counts, 300, 12, rows);
}

// `reps` draws of SampleEstimate(counts): each of the first closed.size()
// cells' sample variance within 5 standard errors of a sample variance of
// `closed` (5·√(2/(reps − 1)), and within 10%), and its mean within 5σ of
// `truth`. At a point mass the population is the i.i.d. model, so `closed`
// can be Variances(I, h)/n there.
inline void ExpectSampledCellsMatchClosedForm(
    const StrategyMechanism& strategy, const std::vector<int64_t>& counts,
    const Eigen::VectorXd& closed, const Eigen::VectorXd& truth, int reps,
    uint64_t seed) {
  const Eigen::Index cells = closed.size();
  SeededGenerator gen(seed);
  std::vector<RunningMoments> moments(cells);
  for (int i = 0; i < reps; ++i) {
    const Eigen::VectorXd y = strategy.SampleEstimate(counts, gen);
    for (Eigen::Index c = 0; c < cells; ++c) moments[c].Add(y[c]);
  }
  for (Eigen::Index c = 0; c < cells; ++c) {
    const double ratio = moments[c].variance() / closed[c];
    EXPECT_LE(std::abs(ratio - 1), 5 * std::sqrt(2.0 / (reps - 1)))
        << "cell " << c;
    EXPECT_LE(std::abs(ratio - 1), 0.1) << "cell " << c;
    EXPECT_LE(std::abs(moments[c].mean() - truth[c]),
              5 * std::sqrt(closed[c] / reps))
        << "cell " << c;
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_STRATEGY_CHECKS_H_
