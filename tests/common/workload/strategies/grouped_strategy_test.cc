// Grouped strategies (identity, hierarchical, GroupedHaar, Fourier): the shared
// strategy checks at small sizes over every report they can output, the
// layout of A, and the closed-form variances against a brute force that
// uses only Probability() and the accumulator's own decoding.
#include "common/workload/strategies/grouped_strategy.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_estimator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/strategy_checks.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

std::unique_ptr<StrategyMechanism> Make(const StrategySpec& spec) {
  auto strategy = CreateGroupedStrategy(spec);
  EXPECT_OK(strategy);
  return strategy.ok() ? *std::move(strategy) : nullptr;
}

// StrategySpec by assignment: designated initializers that skip its
// trailing vectors trip -Wmissing-field-initializers.
StrategySpec GroupedSpec(StrategyKind kind, double epsilon, uint32_t n) {
  StrategySpec spec;
  spec.kind = kind;
  spec.epsilon = epsilon;
  spec.domain_size = n;
  return spec;
}

StrategySpec GroupedIdentity(uint32_t n, double epsilon) {
  return GroupedSpec(StrategyKind::kIdentity, epsilon, n);
}
StrategySpec GroupedTree(uint32_t n, uint32_t b, double epsilon) {
  StrategySpec spec = GroupedSpec(StrategyKind::kHierarchical, epsilon, n);
  spec.branching = b;
  return spec;
}
StrategySpec GroupedHaar(uint32_t n, double epsilon) {
  return GroupedSpec(StrategyKind::kHaar, epsilon, n);
}
StrategySpec GroupedFourier(uint32_t d, std::vector<double> weights,
                            double epsilon) {
  StrategySpec spec =
      GroupedSpec(StrategyKind::kFourier, epsilon, uint32_t{1} << d);
  spec.num_bits = d;
  spec.order = static_cast<uint32_t>(weights.size());
  spec.level_weights = std::move(weights);
  return spec;
}

uint64_t Choose(uint32_t n, uint32_t k) {
  uint64_t c = 1;
  for (uint32_t i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

// Group sizes derived from the spec independently of the implementation
// (grouped_strategy.h): the test's own model of the layout.
std::vector<uint32_t> GroupSizes(const StrategySpec& spec) {
  std::vector<uint32_t> sizes;
  const uint32_t n = spec.domain_size;
  switch (spec.kind) {
    case StrategyKind::kIdentity:
      sizes.push_back(n);
      break;
    case StrategyKind::kHierarchical: {
      uint32_t h = 0;
      for (uint64_t span = 1; span < n; span *= spec.branching) ++h;
      for (uint32_t level = 1; level <= h; ++level) {
        uint64_t span = 1;
        for (uint32_t i = level; i < h; ++i) span *= spec.branching;
        sizes.push_back(static_cast<uint32_t>((n + span - 1) / span));
      }
      break;
    }
    case StrategyKind::kHaar: {
      uint32_t bits = 0;
      while ((uint32_t{1} << bits) < n) ++bits;
      sizes.assign((uint32_t{1} << bits) - 1, 2);
      break;
    }
    case StrategyKind::kFourier: {
      uint64_t groups = 0;
      for (uint32_t i = 1; i <= spec.order; ++i) {
        groups += Choose(spec.num_bits, i);
      }
      sizes.assign(groups, 2);
      break;
    }
    default:
      break;
  }
  return sizes;
}

bool UsesGrr(uint32_t group_size, double epsilon) {
  return group_size < 3 * std::exp(epsilon) + 2;
}

// Every report the strategy can output: GRR items, or every bit vector of
// an OUE group (sizes here stay ≤ 16 bits).
std::vector<WorkloadReport> AllReports(const StrategySpec& spec) {
  std::vector<WorkloadReport> reports;
  const std::vector<uint32_t> sizes = GroupSizes(spec);
  for (uint32_t g = 0; g < sizes.size(); ++g) {
    const uint32_t k = sizes[g];
    if (UsesGrr(k, spec.epsilon)) {
      for (uint32_t i = 0; i < k; ++i) {
        reports.push_back({.group = g, .inner = ItemReport{i}});
      }
    } else {
      EXPECT_LE(k, 16u);
      for (uint64_t bits = 0; bits < (uint64_t{1} << k); ++bits) {
        reports.push_back({.group = g, .inner = BitVectorReport{{bits}}});
      }
    }
  }
  return reports;
}

// The per-user variance n·Var(rows·ŷ) at h, by brute force: π_g = Σ_o
// Pr[(g, o)], each report decoded by an accumulator holding only it (so its
// group block is the single-report estimate), and
// v = Σ_g Var_g(rows·z)/π_g over x ~ h and o ~ R(x) | g.
Eigen::VectorXd BruteForceVariances(const StrategyMechanism& strategy,
                                    const std::vector<WorkloadReport>& reports,
                                    const Eigen::MatrixXd& rows,
                                    const Eigen::VectorXd& h) {
  std::map<uint32_t, std::vector<size_t>> by_group;
  for (size_t i = 0; i < reports.size(); ++i) {
    by_group[reports[i].group].push_back(i);
  }
  const Eigen::Index b = rows.rows();
  Eigen::VectorXd v = Eigen::VectorXd::Zero(b);
  for (const auto& [group, members] : by_group) {
    double pi = 0;
    for (size_t i : members) pi += strategy.Probability(0, reports[i]);
    Eigen::ArrayXd mean = Eigen::ArrayXd::Zero(b), second = mean;
    for (size_t i : members) {
      const std::unique_ptr<StrategyAccumulator> one =
          strategy.NewAccumulator();
      EXPECT_OK(one->Add(reports[i]));
      const Eigen::ArrayXd u = (rows * one->Estimate()).array();
      double weight = 0;
      for (uint32_t x = 0; x < strategy.domain_size(); ++x) {
        weight += h[x] * strategy.Probability(x, reports[i]) / pi;
      }
      mean += weight * u;
      second += weight * u.square();
    }
    v += ((second - mean.square()) / pi).matrix();
  }
  return v;
}

struct Case {
  std::string name;
  StrategySpec spec;
};

std::vector<Case> SmallCases() {
  std::vector<Case> cases;
  for (double epsilon : {0.5, 2.0}) {
    const std::string e = epsilon == 0.5 ? "_eps05" : "_eps2";
    cases.push_back({"identity8" + e, GroupedIdentity(8, epsilon)});
    cases.push_back({"tree2_8" + e, GroupedTree(8, 2, epsilon)});
    cases.push_back({"tree3_10" + e, GroupedTree(10, 3, epsilon)});
    cases.push_back({"haar8" + e, GroupedHaar(8, epsilon)});
    cases.push_back({"haar12" + e, GroupedHaar(12, epsilon)});
    cases.push_back({"fourier3" + e, GroupedFourier(3, {1, 2}, epsilon)});
    cases.push_back({"fourier4" + e, GroupedFourier(4, {1, 1, 3}, epsilon)});
  }
  return cases;
}

class GroupedCase : public ::testing::TestWithParam<Case> {};

INSTANTIATE_TEST_SUITE_P(Small, GroupedCase, ::testing::ValuesIn(SmallCases()),
                         [](const auto& info) { return info.param.name; });

TEST_P(GroupedCase, LayoutMatchesSpec) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  const std::vector<uint32_t> sizes = GroupSizes(spec);
  uint32_t rows = 1;  // the known total
  for (uint32_t k : sizes) rows += k;
  EXPECT_EQ(strategy->output_dimension(), rows);
  EXPECT_EQ(strategy->domain_size(), spec.domain_size);
  const Eigen::MatrixXd a = strategy->StrategyMatrix();
  // Every group's rows partition the items; the last row is all ones.
  uint32_t offset = 0;
  for (uint32_t k : sizes) {
    EXPECT_EQ(Eigen::RowVectorXd(a.middleRows(offset, k).colwise().sum()),
              Eigen::RowVectorXd::Ones(spec.domain_size));
    offset += k;
  }
  EXPECT_EQ(Eigen::RowVectorXd(a.row(rows - 1)),
            Eigen::RowVectorXd::Ones(spec.domain_size));
  // Group kinds as the spec says: GRR below 3e^ε + 2 items, else OUE.
  for (uint32_t g = 0; g < sizes.size(); ++g) {
    const WorkloadReport item{.group = g, .inner = ItemReport{0}};
    EXPECT_EQ(strategy->Validate(item).ok(), UsesGrr(sizes[g], spec.epsilon))
        << "group " << g;
  }
  EXPECT_THAT(strategy->Describe(),
              HasSubstr(std::string(StrategyKindName(spec.kind))));
}

TEST_P(GroupedCase, ExactPrivacyOverEveryReport) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  testing::ExpectStrategyPrivacy(*strategy, AllReports(spec), spec.epsilon,
                                 /*complete=*/true);
}

TEST_P(GroupedCase, SamplesFollowProbability) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  std::vector<uint32_t> items;
  for (uint32_t x = 0; x < spec.domain_size; ++x) items.push_back(x);
  testing::ExpectStrategySamplesFollowProbability(*strategy, AllReports(spec),
                                                  items, 10000, 101);
}

TEST_P(GroupedCase, DrawCountAndClamping) {
  const auto strategy = Make(GetParam().spec);
  ASSERT_NE(strategy, nullptr);
  testing::ExpectStrategyDrawCountIndependentOfItem(*strategy);
  testing::ExpectStrategyClampsOutOfRangeItems(*strategy);
}

TEST_P(GroupedCase, ClosedFormVariancesMatchBruteForce) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  const uint32_t n = spec.domain_size;
  const uint32_t k = strategy->output_dimension();
  testing::SeededGenerator gen(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  Eigen::MatrixXd rows(3, k);
  for (Eigen::Index i = 0; i < rows.size(); ++i) rows.data()[i] = uniform(gen);
  Eigen::VectorXd h(n);
  for (uint32_t x = 0; x < n; ++x) h[x] = 1 + x % 3;
  h /= h.sum();
  testing::ExpectVarianceFormsConsistent(*strategy, rows, h);

  const std::vector<WorkloadReport> reports = AllReports(spec);
  const Eigen::VectorXd brute =
      BruteForceVariances(*strategy, reports, rows, h);
  const Eigen::VectorXd closed = strategy->Variances(rows, h);
  for (Eigen::Index j = 0; j < rows.rows(); ++j) {
    EXPECT_NEAR(closed[j], brute[j], 1e-9 * (1 + brute[j])) << "row " << j;
  }
  const Eigen::MatrixXd point = strategy->PointMassVariances(rows);
  for (uint32_t x = 0; x < n; ++x) {
    const Eigen::VectorXd at_x = BruteForceVariances(
        *strategy, reports, rows, Eigen::VectorXd::Unit(n, x));
    for (Eigen::Index j = 0; j < rows.rows(); ++j) {
      EXPECT_NEAR(point(j, x), at_x[j], 1e-9 * (1 + at_x[j]))
          << "row " << j << " item " << x;
    }
  }
  // The WLS weights are the inverse per-coordinate variances at uniform
  // data (the known total: a large weight).
  const Eigen::VectorXd weights = strategy->ReconstructionWeights();
  const Eigen::VectorXd coordinate = strategy->Variances(
      Eigen::MatrixXd::Identity(k, k), Eigen::VectorXd::Constant(n, 1.0 / n));
  for (uint32_t i = 0; i + 1 < k; ++i) {
    EXPECT_NEAR(weights[i] * coordinate[i], 1.0, 1e-9) << "coordinate " << i;
  }
  EXPECT_NEAR(coordinate[k - 1], 0.0, 1e-12);
  EXPECT_GT(weights[k - 1], 100 * weights.head(k - 1).maxCoeff());
}

TEST_P(GroupedCase, Unbiased) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  std::vector<int64_t> counts(spec.domain_size);
  for (uint32_t x = 0; x < spec.domain_size; ++x) counts[x] = 50 + 40 * (x % 4);
  testing::ExpectStrategyUnbiased(*strategy, counts, 10, 202);
}

TEST_P(GroupedCase, RejectsMalformedReports) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  const std::vector<uint32_t> sizes = GroupSizes(spec);
  const uint32_t groups = static_cast<uint32_t>(sizes.size());
  std::vector<WorkloadReport> malformed = {
      {.group = groups, .inner = ItemReport{0}},
      {.group = ~uint32_t{0}, .inner = BitVectorReport{{1}}},
      {.group = 0, .inner = HashedReport{.seed = 1, .bucket = 0}},
      {.group = 0, .inner = SubsetReport{{0}}},
  };
  for (uint32_t g : {0u, groups - 1}) {
    const uint32_t k = sizes[g];
    if (UsesGrr(k, spec.epsilon)) {
      malformed.push_back({.group = g, .inner = ItemReport{k}});
      malformed.push_back({.group = g, .inner = BitVectorReport{{1}}});
    } else {
      malformed.push_back({.group = g, .inner = ItemReport{0}});
      malformed.push_back({.group = g, .inner = BitVectorReport{{}}});
      malformed.push_back({.group = g, .inner = BitVectorReport{{0, 0}}});
      malformed.push_back(
          {.group = g, .inner = BitVectorReport{{uint64_t{1} << k}}});
    }
  }
  testing::ExpectStrategyRejectsMalformed(*strategy, malformed);
}

TEST_P(GroupedCase, MergeEqualsSingleAccumulator) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  StrategySpec other_epsilon = spec;
  other_epsilon.epsilon = spec.epsilon + 0.25;
  const auto different_epsilon = Make(other_epsilon);
  const auto different_kind = Make(spec.kind == StrategyKind::kIdentity
                                       ? GroupedHaar(spec.domain_size, 1)
                                       : GroupedIdentity(spec.domain_size, 1));
  testing::ExpectStrategyMergeEqualsSingleAccumulator(
      *strategy, {different_epsilon.get(), different_kind.get()}, 3000);
}

TEST_P(GroupedCase, SampleEstimateMatchesAgentsAtPointMass) {
  const StrategySpec& spec = GetParam().spec;
  const auto strategy = Make(spec);
  ASSERT_NE(strategy, nullptr);
  std::vector<int64_t> counts(spec.domain_size, 0);
  counts[spec.domain_size - 2] = 600;
  testing::ExpectSampleEstimateMatchesAgents(*strategy, counts, 600, 303);
}

TEST(GroupedStrategy, SampleEstimateAtAMixtureStaysWithinTheVarianceBracket) {
  // For a mixture the fixed population's variance lies between the
  // h-average of the point-mass variances and the i.i.d. prediction.
  for (const StrategySpec& spec :
       {GroupedTree(16, 4, 1.0), GroupedHaar(16, 1.0),
        GroupedFourier(4, {2, 1}, 1.0)}) {
    const auto strategy = Make(spec);
    ASSERT_NE(strategy, nullptr);
    std::vector<int64_t> counts(16);
    for (uint32_t x = 0; x < 16; ++x) counts[x] = 40 + 20 * (x % 3);
    testing::ExpectSampleEstimateMatchesAgents(*strategy, counts, 500, 404);
  }
}

// At n = 1000 a finest GroupedHaar coefficient of N = 64 (π = 1/192) gets about
// 5 reports: normalizing by that random count (and estimating zeros when
// it is 0) costs ~30% more than the large-n limit. The finite-n prediction
// matches the measured mean squared error within 5 standard errors (from
// the squared errors' own spread); the limit is outside them.
TEST(GroupedStrategy, FiniteSampleVarianceMatchesSmallGroups) {
  const auto strategy = Make(GroupedHaar(64, 1.0));
  ASSERT_NE(strategy, nullptr);
  const Eigen::MatrixXd a = strategy->StrategyMatrix();
  constexpr uint32_t kItem = 37;
  constexpr int64_t kAgents = 1000;
  // Groups are stored level by level, coarsest first, then the all-ones
  // total row: the last two rows before it are a finest coefficient's
  // group (2·63 + 1 rows); take the one kItem falls in.
  ASSERT_EQ(a.rows(), 127);
  const Eigen::Index finest = a(124, kItem) == 1 ? 124 : 125;
  ASSERT_EQ(a(finest, kItem), 1);
  Eigen::MatrixXd r = Eigen::MatrixXd::Zero(1, a.rows());
  r(0, finest) = 1;
  Eigen::VectorXd h = Eigen::VectorXd::Zero(64);
  h[kItem] = 1;
  const double finite = strategy->FiniteSampleVariances(r, h, kAgents)[0];
  const double limit = strategy->Variances(r, h)[0];
  std::vector<int64_t> counts(64, 0);
  counts[kItem] = kAgents;
  testing::SeededGenerator gen(1000);
  testing::RunningMoments squared_error;
  constexpr int kRuns = 40'000;
  for (int run = 0; run < kRuns; ++run) {
    const double error = strategy->SampleEstimate(counts, gen)[finest] - 1.0;
    squared_error.Add(double(kAgents) * error * error);
  }
  const double se = std::sqrt(squared_error.variance() / kRuns);
  EXPECT_NEAR(squared_error.mean(), finite, 5 * se)
      << "limit " << limit << ", finite " << finite;
  EXPECT_GT(std::abs(squared_error.mean() - limit), 5 * se)
      << "limit " << limit << ", finite " << finite;
  // Plenty of reports per group: the two agree.
  EXPECT_NEAR(strategy->FiniteSampleVariances(r, h, 100'000'000)[0], limit,
              1e-4 * limit);
}

// A whole histogram answer sums every group's estimate. With a few reports
// per finest group, two groups are often empty together and their biases
// (which cancel within a GroupedHaar level) enter as cross terms: the
// prediction must carry them to match.
TEST(GroupedStrategy, FiniteSampleVarianceCountsGroupsEmptyTogether) {
  auto strategy = Make(GroupedHaar(64, 4.0));
  ASSERT_NE(strategy, nullptr);
  absl::StatusOr<Workload> histogram =
      Workload::Create({.kind = WorkloadKind::kHistogram, .domain_size = 64});
  ASSERT_OK(histogram);
  absl::StatusOr<std::shared_ptr<const WorkloadEstimator>> estimator =
      WorkloadEstimator::Create(*histogram, std::move(strategy));
  ASSERT_OK(estimator);
  const StrategyMechanism& haar = (*estimator)->strategy();
  constexpr uint32_t kItem = 21;
  constexpr int64_t kAgents = 120;
  const Eigen::MatrixXd r = (*estimator)->reconstruction().row(kItem);
  Eigen::VectorXd h = Eigen::VectorXd::Zero(64);
  h[kItem] = 1;
  const double finite = haar.FiniteSampleVariances(r, h, kAgents)[0];
  const double limit = haar.Variances(r, h)[0];
  std::vector<int64_t> counts(64, 0);
  counts[kItem] = kAgents;
  testing::SeededGenerator gen(1001);
  testing::RunningMoments squared_error;
  constexpr int kRuns = 40'000;
  for (int run = 0; run < kRuns; ++run) {
    const double error = r.row(0).dot(haar.SampleEstimate(counts, gen)) - 1.0;
    squared_error.Add(double(kAgents) * error * error);
  }
  const double se = std::sqrt(squared_error.variance() / kRuns);
  EXPECT_NEAR(squared_error.mean(), finite, 5 * se)
      << "limit " << limit << ", finite " << finite;
  EXPECT_GT(std::abs(squared_error.mean() - limit), 5 * se)
      << "limit " << limit << ", finite " << finite;
}

TEST(GroupedStrategy, EmptyAccumulatorEstimatesZeros) {
  for (const StrategySpec& spec :
       {GroupedIdentity(8, 1), GroupedTree(8, 2, 1), GroupedHaar(8, 1),
        GroupedFourier(3, {1, 1}, 1)}) {
    const auto strategy = Make(spec);
    ASSERT_NE(strategy, nullptr);
    const auto accumulator = strategy->NewAccumulator();
    EXPECT_EQ(accumulator->num_reports(), 0);
    EXPECT_EQ(accumulator->Estimate(),
              Eigen::VectorXd::Zero(strategy->output_dimension()));
    testing::SeededGenerator gen(1);
    EXPECT_EQ(strategy->SampleEstimate(std::vector<int64_t>(8, 0), gen),
              Eigen::VectorXd::Zero(strategy->output_dimension()));
  }
}

TEST(GroupedStrategy, HierarchicalRowsAreTreeNodes) {
  // N = 10, b = 3: levels of spans 9, 3, 1 with 2, 4, 10 nodes.
  const auto strategy = Make(GroupedTree(10, 3, 1));
  ASSERT_NE(strategy, nullptr);
  const Eigen::MatrixXd a = strategy->StrategyMatrix();
  ASSERT_EQ(a.rows(), 2 + 4 + 10 + 1);
  for (uint32_t x = 0; x < 10; ++x) {
    EXPECT_EQ(a(x / 9, x), 1) << x;
    EXPECT_EQ(a(2 + x / 3, x), 1) << x;
    EXPECT_EQ(a(6 + x, x), 1) << x;
  }
}

TEST(GroupedStrategy, HaarAndFourierBitConventions) {
  // GroupedHaar N = 8: group 0 is (ℓ = 0, r = 0): the bit is x's top bit; group
  // 2 is (ℓ = 1, r = 1): bit 1 of x XOR [H[1][x >> 2] = −1] = bit 1 XOR bit 2.
  const auto haar = Make(GroupedHaar(8, 1));
  ASSERT_NE(haar, nullptr);
  const Eigen::MatrixXd a = haar->StrategyMatrix();
  for (uint32_t x = 0; x < 8; ++x) {
    const uint32_t top = (x >> 2) & 1, middle = (x >> 1) & 1;
    EXPECT_EQ(a(1, x), top) << x;
    EXPECT_EQ(a(5, x), middle ^ top) << x;
  }
  // Fourier d = 3, k = 2: parities {0}, {1}, {2}, {0,1}, {0,2}, {1,2};
  // record bit i is bit d−1−i of x.
  const auto fourier = Make(GroupedFourier(3, {1, 1}, 1));
  ASSERT_NE(fourier, nullptr);
  const Eigen::MatrixXd f = fourier->StrategyMatrix();
  ASSERT_EQ(f.rows(), 13);
  for (uint32_t x = 0; x < 8; ++x) {
    const uint32_t b0 = (x >> 2) & 1, b1 = (x >> 1) & 1, b2 = x & 1;
    EXPECT_EQ(f(1, x), b0) << x;
    EXPECT_EQ(f(5, x), b2) << x;
    EXPECT_EQ(f(7, x), b0 ^ b1) << x;
    EXPECT_EQ(f(11, x), b1 ^ b2) << x;
  }
}

TEST(GroupedStrategy, FourierLevelProbabilitiesFollowWeights) {
  // d = 4, weights 1 : 3 over parities of weight 1 (4 of them) and 2 (6).
  const auto strategy = Make(GroupedFourier(4, {1, 3}, 1));
  ASSERT_NE(strategy, nullptr);
  auto group_probability = [&](uint32_t g) {
    return strategy->Probability(0, {.group = g, .inner = ItemReport{0}}) +
           strategy->Probability(0, {.group = g, .inner = ItemReport{1}});
  };
  for (uint32_t g = 0; g < 4; ++g) {
    EXPECT_NEAR(group_probability(g), 0.25 / 4, 1e-9) << g;
  }
  for (uint32_t g = 4; g < 10; ++g) {
    EXPECT_NEAR(group_probability(g), 0.75 / 6, 1e-9) << g;
  }
}

TEST(GroupedStrategy, BinaryGroupsHaveTheSameVarianceAtEveryPointMass) {
  // Mid-size GroupedHaar and Fourier against the brute force (2 reports a
  // group).
  for (const StrategySpec& spec :
       {GroupedHaar(48, 1.0), GroupedFourier(6, {1, 2, 1}, 1.0)}) {
    const auto strategy = Make(spec);
    ASSERT_NE(strategy, nullptr);
    testing::SeededGenerator gen(9);
    std::uniform_real_distribution<double> uniform(-1, 1);
    Eigen::MatrixXd rows(2, strategy->output_dimension());
    for (Eigen::Index i = 0; i < rows.size(); ++i)
      rows.data()[i] = uniform(gen);
    const std::vector<WorkloadReport> reports = AllReports(spec);
    const Eigen::MatrixXd point = strategy->PointMassVariances(rows);
    for (uint32_t x : {0u, 5u, spec.domain_size - 1}) {
      const Eigen::VectorXd brute = BruteForceVariances(
          *strategy, reports, rows, Eigen::VectorXd::Unit(spec.domain_size, x));
      for (Eigen::Index j = 0; j < rows.rows(); ++j) {
        EXPECT_NEAR(point(j, x), brute[j], 1e-9 * (1 + brute[j]));
      }
    }
  }
}

TEST(GroupedStrategy, CreateRejectsBadSpecs) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  struct Bad {
    StrategySpec spec;
    std::string field;
  };
  std::vector<Bad> bad = {
      {GroupedIdentity(8, 0), "epsilon"},
      {GroupedIdentity(8, -1), "epsilon"},
      {GroupedIdentity(8, nan), "epsilon"},
      {GroupedIdentity(8, inf), "epsilon"},
      {GroupedIdentity(8, 25), "epsilon"},
      {GroupedIdentity(1, 1), "domain_size"},
      {GroupedIdentity(0, 1), "domain_size"},
      {GroupedIdentity(4097, 1), "domain_size"},
      {GroupedTree(8, 1, 1), "branching"},
      {GroupedTree(8, 0, 1), "branching"},
      {GroupedFourier(3, {}, 1), "order"},
      {GroupedFourier(3, {1, 1, 1, 1}, 1), "order"},
      {GroupedFourier(3, {1, 0}, 1), "level_weights[1]"},
      {GroupedFourier(3, {nan}, 1), "level_weights[0]"},
      {GroupedFourier(3, {1, -inf}, 1), "level_weights[1]"},
  };
  StrategySpec too_many_bits = GroupedFourier(12, {1}, 1);
  too_many_bits.num_bits = 13;
  bad.push_back({too_many_bits, "num_bits"});
  StrategySpec wrong_size = GroupedFourier(3, {1}, 1);
  wrong_size.domain_size = 6;
  bad.push_back({wrong_size, "domain_size"});
  StrategySpec wrong_weights = GroupedFourier(3, {1, 1}, 1);
  wrong_weights.level_weights = {1};
  bad.push_back({wrong_weights, "level_weights"});
  bad.push_back({GroupedSpec(StrategyKind::kMatrix, 1, 4), "matrix"});
  for (const Bad& b : bad) {
    const auto strategy = CreateGroupedStrategy(b.spec);
    EXPECT_THAT(strategy, StatusIs(absl::StatusCode::kInvalidArgument))
        << b.field;
    EXPECT_THAT(std::string(strategy.status().message()), HasSubstr(b.field));
  }
}

TEST(GroupedStrategy, ImplementedEpsilonIsAtMostTheRequest) {
  for (double epsilon : {0.1, 1.0, 4.0, 10.0}) {
    for (const StrategySpec& spec :
         {GroupedIdentity(64, epsilon), GroupedTree(64, 4, epsilon),
          GroupedHaar(64, epsilon), GroupedFourier(6, {1, 1}, epsilon)}) {
      const auto strategy = Make(spec);
      ASSERT_NE(strategy, nullptr);
      EXPECT_LE(strategy->epsilon(), epsilon);
      // 2^-32 coins lose about 2^-32/q of ε (q ≈ e^-ε).
      EXPECT_GE(strategy->epsilon(), epsilon - 1e-4);
    }
  }
}

}  // namespace
}  // namespace ldp
