// The worst-case variance memo: it remembers per exact key, it never hands
// one mechanism's value to another, and it stops growing at its cap.
#include "common/mechanisms/real/worst_case_memo.h"

#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/mechanisms/real/hybrid_mechanism.h"
#include "common/mechanisms/real/piecewise_mechanism.h"
#include "common/mechanisms/real/piecewise_quadratic.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

TEST(WorstCaseMemo, ComputesOncePerKey) {
  int calls = 0;
  const auto compute = [&calls] { return ++calls * 1.5; };
  EXPECT_EQ(MemoizedWorstCase("memo-test/a", compute), 1.5);
  EXPECT_EQ(MemoizedWorstCase("memo-test/a", compute), 1.5);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(MemoizedWorstCase("memo-test/b", compute), 3.0);
  EXPECT_EQ(calls, 2);
}

TEST(WorstCaseMemo, KeysTellApartDoublesThatPrintAlike) {
  EXPECT_NE(ExactKeyPart(0.1), ExactKeyPart(std::nextafter(0.1, 1.0)));
  EXPECT_NE(ExactKeyPart(0.0), ExactKeyPart(-0.0));
  EXPECT_EQ(ExactKeyPart(0.25), ExactKeyPart(0.5 / 2));
}

// The exact maximum of `m`'s variance over the piecewise grid, computed here
// without the memo.
double DirectWorstCase(const RealMechanism& m, const PiecewiseMechanism& grid) {
  return MaxOfPiecewiseQuadratic([&m](double x) { return m.Variance(x); },
                                 grid.InputGrid());
}

// Mechanisms a breath apart in ε or bound, built in turn in one process:
// each one's memoized worst case is its own exact maximum.
TEST(WorstCaseMemo, EveryMechanismGetsItsOwnWorstCase) {
  for (double epsilon : {0.5, 1.0, 1.0 + 1e-9, 2.0, 4.0}) {
    for (double bound : {0.1, 0.25, 0.25 * (1 + 1e-12), 3.0}) {
      SCOPED_TRACE(absl::StrCat("ε = ", epsilon, ", b = ", bound));
      auto piecewise = PiecewiseMechanism::Create(
          {.epsilon = epsilon, .bound = bound, .num_cells = 256});
      ASSERT_OK(piecewise);
      EXPECT_EQ((*piecewise)->WorstCaseVariance(),
                DirectWorstCase(**piecewise, **piecewise));
      const HybridOptions options{
          .epsilon = epsilon, .bound = bound, .num_cells = 256};
      auto hybrid = HybridMechanism::Create(options);
      ASSERT_OK(hybrid);
      EXPECT_EQ((*hybrid)->WorstCaseVariance(),
                DirectWorstCase(**hybrid, **piecewise));
      // A second object with the same options takes the remembered value.
      auto again = HybridMechanism::Create(options);
      ASSERT_OK(again);
      EXPECT_EQ((*again)->WorstCaseVariance(), (*hybrid)->WorstCaseVariance());
    }
  }
}

TEST(WorstCaseMemo, StopsGrowingAtItsCap) {
  const auto one = [] { return 1.0; };
  for (int i = 0; i <= kMaxWorstCaseMemoEntries; ++i) {
    MemoizedWorstCase(absl::StrCat("memo-cap-test/", i), one);
  }
  // Full now, whatever else this process put there: a new key is computed
  // every time.
  int calls = 0;
  const auto counted = [&calls] { return ++calls * 1.0; };
  EXPECT_EQ(MemoizedWorstCase("memo-cap-test/new", counted), 1.0);
  EXPECT_EQ(MemoizedWorstCase("memo-cap-test/new", counted), 2.0);
}

}  // namespace
}  // namespace ldp
