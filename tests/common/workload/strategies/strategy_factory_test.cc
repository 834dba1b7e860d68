// CreateStrategy: the shared field checks, and dispatch of every kind to
// its family (grouped, matrix, vector) — the strategy it builds is the one
// the family's own Create builds from the same spec.
#include "common/workload/strategies/strategy_factory.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/workload/strategies/grouped_strategy.h"
#include "common/workload/strategies/matrix_strategy.h"
#include "common/workload/strategies/vector_strategy.h"
#include "common/workload/strategies/workload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

// StrategySpec by assignment: designated initializers that skip its
// trailing vectors trip -Wmissing-field-initializers.
StrategySpec FactorySpec(StrategyKind kind, double epsilon, uint32_t n) {
  StrategySpec spec;
  spec.kind = kind;
  spec.epsilon = epsilon;
  spec.domain_size = n;
  return spec;
}

// GRR on 3 items as an explicit output matrix (rows = outputs, row-major).
StrategySpec GrrMatrix(double epsilon) {
  const double e = std::exp(epsilon), keep = e / (e + 2), other = 1 / (e + 2);
  StrategySpec spec = FactorySpec(StrategyKind::kMatrix, epsilon, 3);
  spec.rows = 3;
  for (int o = 0; o < 3; ++o) {
    for (int x = 0; x < 3; ++x) spec.matrix.push_back(o == x ? keep : other);
  }
  return spec;
}

// A = I_3 (unit columns) for the ℓ2-ball randomizer.
StrategySpec IdentityFactorization(double epsilon) {
  StrategySpec spec = FactorySpec(StrategyKind::kFactorization, epsilon, 3);
  spec.rows = 3;
  for (int r = 0; r < 3; ++r) {
    for (int x = 0; x < 3; ++x) spec.matrix.push_back(r == x ? 1 : 0);
  }
  return spec;
}

std::vector<StrategySpec> OneOfEachKind() {
  StrategySpec tree = FactorySpec(StrategyKind::kHierarchical, 1, 8);
  tree.branching = 2;
  StrategySpec fourier = FactorySpec(StrategyKind::kFourier, 1, 8);
  fourier.num_bits = 3;
  fourier.order = 2;
  fourier.level_weights = {1, 1};
  return {FactorySpec(StrategyKind::kIdentity, 1, 8),
          tree,
          FactorySpec(StrategyKind::kHaar, 1, 8),
          fourier,
          GrrMatrix(1),
          IdentityFactorization(1)};
}

absl::StatusOr<std::unique_ptr<StrategyMechanism>> CreateByFamily(
    const StrategySpec& spec) {
  switch (spec.kind) {
    case StrategyKind::kMatrix:
      return CreateMatrixStrategy(spec);
    case StrategyKind::kFactorization:
      return CreateVectorStrategy(spec);
    default:
      return CreateGroupedStrategy(spec);
  }
}

TEST(StrategyFactory, DispatchesEveryKindToItsFamily) {
  for (const StrategySpec& spec : OneOfEachKind()) {
    const std::string kind(StrategyKindName(spec.kind));
    SCOPED_TRACE(kind);
    auto strategy = CreateStrategy(spec);
    ASSERT_OK(strategy);
    auto direct = CreateByFamily(spec);
    ASSERT_OK(direct);
    EXPECT_EQ((*strategy)->Describe(), (*direct)->Describe());
    EXPECT_EQ((*strategy)->domain_size(), spec.domain_size);
    EXPECT_EQ((*strategy)->output_dimension(), (*direct)->output_dimension());
    EXPECT_EQ((*strategy)->epsilon(), (*direct)->epsilon());
    EXPECT_LE((*strategy)->epsilon(), spec.epsilon);
    EXPECT_EQ((*strategy)->StrategyMatrix(), (*direct)->StrategyMatrix());
    // Agent and server built from the same spec: the same report for the
    // same coins, decoded by either side's accumulator.
    testing::SeededGenerator a(3), b(3);
    const WorkloadReport report = (*strategy)->Randomize(1, a);
    EXPECT_EQ(report, (*direct)->Randomize(1, b));
    EXPECT_EQ((*strategy)->Probability(1, report),
              (*direct)->Probability(1, report));
    const auto accumulator = (*direct)->NewAccumulator();
    EXPECT_OK(accumulator->Add(report));
    const auto other = (*strategy)->NewAccumulator();
    EXPECT_OK(other->Merge(*accumulator));
    EXPECT_EQ(other->num_reports(), 1);
  }
}

// The agent builds only the randomizer (strategy_randomizer.h), the server
// the strategy around it: for every kind both draw the same reports from
// the same coins and price and check them alike, and a strategy built
// around a randomizer shares it.
TEST(StrategyFactory, StrategiesWrapTheAgentsRandomizer) {
  for (const StrategySpec& spec : OneOfEachKind()) {
    SCOPED_TRACE(std::string(StrategyKindName(spec.kind)));
    auto randomizer = CreateStrategyRandomizer(spec);
    ASSERT_OK(randomizer);
    auto strategy = CreateStrategy(spec);
    ASSERT_OK(strategy);
    EXPECT_EQ((*strategy)->Describe(), (*randomizer)->Describe());
    EXPECT_EQ((*strategy)->epsilon(), (*randomizer)->epsilon());
    testing::SeededGenerator a(7), b(7);
    for (uint32_t x = 0; x < spec.domain_size + 2; ++x) {
      const WorkloadReport report = (*randomizer)->Randomize(x, a);
      EXPECT_EQ(report, (*strategy)->Randomize(x, b)) << "item " << x;
      EXPECT_OK((*strategy)->Validate(report));
      EXPECT_EQ((*strategy)->Probability(x, report),
                (*randomizer)->Probability(x, report));
    }
    auto wrapped = StrategyForRandomizer(*randomizer);
    ASSERT_OK(wrapped);
    EXPECT_EQ((*wrapped)->randomizer(), *randomizer);
    EXPECT_EQ((*wrapped)->StrategyMatrix(), (*strategy)->StrategyMatrix());
    // A strategy passed as a randomizer is unwrapped, not wrapped twice.
    auto rewrapped = StrategyForRandomizer(
        std::shared_ptr<const StrategyRandomizer>(*std::move(wrapped)));
    ASSERT_OK(rewrapped);
    EXPECT_EQ((*rewrapped)->randomizer(), *randomizer);
  }
  EXPECT_THAT(StrategyForRandomizer(nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(StrategyFactory, RejectsSharedFieldsWithTheirNames) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  for (StrategySpec spec : OneOfEachKind()) {
    const std::string kind(StrategyKindName(spec.kind));
    for (double epsilon : {0.0, -1.0, nan, inf}) {
      StrategySpec bad = spec;
      bad.epsilon = epsilon;
      auto strategy = CreateStrategy(bad);
      EXPECT_THAT(strategy, StatusIs(absl::StatusCode::kInvalidArgument))
          << kind << " " << epsilon;
      EXPECT_THAT(std::string(strategy.status().message()),
                  HasSubstr("epsilon"));
    }
    for (uint32_t n : {0u, kMaxWorkloadDomainSize + 1}) {
      StrategySpec bad = spec;
      bad.domain_size = n;
      auto strategy = CreateStrategy(bad);
      EXPECT_THAT(strategy, StatusIs(absl::StatusCode::kInvalidArgument))
          << kind << " " << n;
      EXPECT_THAT(std::string(strategy.status().message()),
                  HasSubstr("domain_size"));
    }
  }
}

TEST(StrategyFactory, PassesFamilyErrorsThrough) {
  StrategySpec tree = FactorySpec(StrategyKind::kHierarchical, 1, 8);
  tree.branching = 1;
  EXPECT_THAT(CreateStrategy(tree),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec fourier = FactorySpec(StrategyKind::kFourier, 1, 8);
  fourier.num_bits = 4;
  fourier.order = 1;
  fourier.level_weights = {1};
  auto bad_bits = CreateStrategy(fourier);
  EXPECT_THAT(bad_bits, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(bad_bits.status().message()),
              HasSubstr("2^num_bits"));
  StrategySpec matrix = GrrMatrix(1);
  matrix.matrix.pop_back();
  EXPECT_THAT(CreateStrategy(matrix),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A Q whose implemented ε exceeds the spec's.
  StrategySpec leaky = GrrMatrix(2);
  leaky.epsilon = 1;
  EXPECT_THAT(CreateStrategy(leaky),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec vector = IdentityFactorization(1);
  vector.rows = 0;
  EXPECT_THAT(CreateStrategy(vector),
              StatusIs(absl::StatusCode::kInvalidArgument));
  StrategySpec unknown = IdentityFactorization(1);
  unknown.kind = static_cast<StrategyKind>(99);
  EXPECT_THAT(CreateStrategy(unknown),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
