#include "common/estimation/false_discovery.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace ldp {
namespace {

// m = 6, q = 0.1: thresholds k·q/m = 0.0167, 0.0333, 0.05, 0.0667, 0.0833,
// 0.1. Sorted p: 0.001 (≤ .0167), 0.02 (≤ .0333), 0.06 (> .05), 0.065
// (≤ .0667), 0.5, 0.9: the largest qualifying k is 4, so the step-up rejects
// the four smallest, including 0.06, which a step-down would have kept.
TEST(BenjaminiHochberg, StepsUpToTheLargestQualifyingRank) {
  const std::vector<double> p = {0.5, 0.065, 0.001, 0.9, 0.06, 0.02};
  EXPECT_EQ(BenjaminiHochberg(p, 0.1),
            (std::vector<bool>{false, true, true, false, true, true}));
  EXPECT_EQ(BenjaminiHochberg(p, 0.01),
            (std::vector<bool>{false, false, true, false, false, false}));
  EXPECT_EQ(BenjaminiHochberg(p, 0.0001), std::vector<bool>(6, false));
}

TEST(BenjaminiHochberg, NeverRejectsNanAndHandlesNoHypotheses) {
  EXPECT_EQ(BenjaminiHochberg({NAN, 0.0}, 0.5),
            (std::vector<bool>{false, true}));
  EXPECT_TRUE(BenjaminiHochberg({}, 0.1).empty());
}

}  // namespace
}  // namespace ldp
