// The exponential mechanism: exact probabilities, ε-DP on neighbouring
// scores, no overflow or NaN at extreme scores, a sampler that follows its
// probabilities, and the McSherry–Talwar utility guarantee.
#include "common/central/exponential_mechanism.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::SeededGenerator;
using testing::StatusIs;

ExponentialMechanism Make(const std::vector<double>& scores, double sensitivity,
                          double epsilon) {
  auto mechanism = ExponentialMechanism::Create(scores, sensitivity, epsilon);
  EXPECT_OK(mechanism);
  return std::move(mechanism).value();
}

double Sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

// max over outcomes of Pr[i | a] / Pr[i | b], both ways.
double MaxOutcomeRatio(const ExponentialMechanism& a,
                       const ExponentialMechanism& b) {
  double worst = 1;
  for (size_t i = 0; i < a.num_candidates(); ++i) {
    worst = std::max({worst, a.Probability(i) / b.Probability(i),
                      b.Probability(i) / a.Probability(i)});
  }
  return worst;
}

TEST(ExponentialMechanism, ProbabilitiesMatchTheDefinition) {
  const std::vector<double> scores = {0, 1, 2.5, -3, 1};
  const double sensitivity = 1.5;
  const double epsilon = 0.8;
  const ExponentialMechanism mechanism = Make(scores, sensitivity, epsilon);
  std::vector<double> weights;
  for (const double u : scores) {
    weights.push_back(std::exp(epsilon * u / (2 * sensitivity)));
  }
  const double total = Sum(weights);
  ASSERT_EQ(mechanism.num_candidates(), scores.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    EXPECT_NEAR(mechanism.Probability(i), weights[i] / total,
                1e-14 * weights[i] / total);
  }
  EXPECT_NEAR(Sum(mechanism.Probabilities()), 1, 1e-15 * scores.size());
  EXPECT_EQ(mechanism.Probability(1), mechanism.Probability(4));
}

TEST(ExponentialMechanism, NeighbouringScoresAreEpsilonClose) {
  const std::vector<double> base = {0, -1, 2, 0.5};
  const double sensitivity = 2;
  const double epsilon = 1.3;
  const ExponentialMechanism original = Make(base, sensitivity, epsilon);
  // Every neighbour whose scores each move by −Δ, 0 or +Δ (3^4 of them):
  // the extremes of the allowed box, where the ratio is largest.
  std::vector<double> shifted(base.size());
  for (int code = 0; code < 81; ++code) {
    int digits = code;
    for (size_t i = 0; i < base.size(); ++i, digits /= 3) {
      shifted[i] = base[i] + (digits % 3 - 1) * sensitivity;
    }
    const ExponentialMechanism neighbour = Make(shifted, sensitivity, epsilon);
    EXPECT_LE(MaxOutcomeRatio(original, neighbour),
              std::exp(epsilon) * (1 + 1e-12));
  }
}

TEST(ExponentialMechanism, PrivacyBoundIsNearlyAttained) {
  // A candidate with negligible weight gains e^(ε/2) itself while the total,
  // dominated by the others, loses e^(ε/2): the ratio approaches e^ε.
  const double epsilon = 1;
  const ExponentialMechanism before = Make({0, -60}, 1, epsilon);
  const ExponentialMechanism after = Make({-1, -59}, 1, epsilon);
  const double ratio = after.Probability(1) / before.Probability(1);
  EXPECT_LE(ratio, std::exp(epsilon) * (1 + 1e-12));
  EXPECT_GE(ratio, std::exp(epsilon) * (1 - 1e-9));
}

TEST(ExponentialMechanism, ExtremeScoresStayFinite) {
  const std::vector<double> scores = {1e300,   -1e300,   1e300,
                                      DBL_MAX, -DBL_MAX, 0};
  for (const double epsilon : {1e-300, 1e-10, 1.0, 1e10}) {
    const ExponentialMechanism mechanism = Make(scores, 1, epsilon);
    for (const double p : mechanism.Probabilities()) {
      EXPECT_TRUE(std::isfinite(p));
      EXPECT_GE(p, 0);
    }
    EXPECT_NEAR(Sum(mechanism.Probabilities()), 1, 1e-14);
  }
  // Many equal huge scores: uniform.
  const std::vector<double> equal(1000, 1e300);
  const ExponentialMechanism uniform = Make(equal, 1, 1);
  for (const double p : uniform.Probabilities()) EXPECT_DOUBLE_EQ(p, 1e-3);
}

TEST(ExponentialMechanism, OverflowingScoreGapsKeepTheirWeight) {
  // u_1 − u_0 = −2·DBL_MAX overflows, but ε/(2Δ) = 5e-309 brings the exponent
  // back to ≈ −1.8: a naive difference would give NaN or 0.
  const double epsilon = 1e-308;
  const ExponentialMechanism mechanism = Make({DBL_MAX, -DBL_MAX}, 1, epsilon);
  const double weight = std::exp(-DBL_MAX * epsilon);  // ε(−2M)/2 = −εM
  EXPECT_NEAR(mechanism.Probability(1), weight / (1 + weight), 1e-12 * weight);
  EXPECT_NEAR(mechanism.Probability(0), 1 / (1 + weight), 1e-12);
}

TEST(ExponentialMechanism, RejectsBadInputs) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(ExponentialMechanism::Create({}, 1, 1), StatusIs(kInvalid));
  const std::vector<double> with_nan = {0, NAN};
  EXPECT_THAT(ExponentialMechanism::Create(with_nan, 1, 1), StatusIs(kInvalid));
  const std::vector<double> with_infinity = {0, -INFINITY};
  EXPECT_THAT(ExponentialMechanism::Create(with_infinity, 1, 1),
              StatusIs(kInvalid));
  const std::vector<double> fine = {0, 1};
  EXPECT_THAT(ExponentialMechanism::Create(fine, 0, 1), StatusIs(kInvalid));
  EXPECT_THAT(ExponentialMechanism::Create(fine, 1, -1), StatusIs(kInvalid));
  EXPECT_THAT(ExponentialMechanism::Create(fine, 1, INFINITY),
              StatusIs(kInvalid));
  // ε/Δ overflows, or underflows to 0.
  EXPECT_THAT(ExponentialMechanism::Create(fine, 1e-300, 1e300),
              StatusIs(kInvalid));
  EXPECT_THAT(ExponentialMechanism::Create(fine, 1e300, 1e-300),
              StatusIs(kInvalid));
}

TEST(ExponentialMechanism, SamplesFollowTheProbabilities) {
  std::vector<double> scores;
  for (int i = 0; i < 20; ++i) scores.push_back(0.3 * i);
  const ExponentialMechanism mechanism = Make(scores, 1, 1);
  SeededGenerator gen(91);
  constexpr int kSamples = 200000;
  std::vector<double> observed(scores.size(), 0);
  for (int s = 0; s < kSamples; ++s) ++observed[mechanism.Sample(gen)];
  std::vector<double> expected;
  for (const double p : mechanism.Probabilities()) {
    expected.push_back(kSamples * p);
  }
  EXPECT_TRUE(ChiSquare(observed, expected).Passes());
}

TEST(ExponentialMechanism, ZeroWeightCandidatesAreNeverSampled) {
  // Weights e^(−5e299) underflow to 0, also at the end of the list.
  const ExponentialMechanism mechanism = Make({0, -1e300, 0, -1e300}, 1, 1);
  EXPECT_EQ(mechanism.Probability(1), 0);
  EXPECT_EQ(mechanism.Probability(3), 0);
  SeededGenerator gen(5);
  constexpr int kSamples = 20000;
  int first = 0;
  for (int s = 0; s < kSamples; ++s) {
    const size_t i = mechanism.Sample(gen);
    ASSERT_TRUE(i == 0 || i == 2) << i;
    if (i == 0) ++first;
  }
  // Binomial(S, 1/2) within 5σ.
  EXPECT_NEAR(first, kSamples / 2, 5 * std::sqrt(kSamples / 4.0));
}

TEST(UtilityLossBound, IsTheMcSherryTalwarBound) {
  auto bound = UtilityLossBound(100, 2, 0.5, 0.05);
  ASSERT_OK(bound);
  EXPECT_NEAR(*bound, 2 * 2 / 0.5 * (std::log(100) + std::log(1 / 0.05)),
              1e-12 * *bound);
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(UtilityLossBound(0, 1, 1, 0.1), StatusIs(kInvalid));
  EXPECT_THAT(UtilityLossBound(10, 0, 1, 0.1), StatusIs(kInvalid));
  EXPECT_THAT(UtilityLossBound(10, 1, NAN, 0.1), StatusIs(kInvalid));
  EXPECT_THAT(UtilityLossBound(10, 1, 1, 0), StatusIs(kInvalid));
  EXPECT_THAT(UtilityLossBound(10, 1, 1, 1), StatusIs(kInvalid));
}

TEST(UtilityLossBound, HoldsExactlyAndEmpirically) {
  // The least favourable case: one optimal candidate, all others exactly at
  // OPT − bound. The bad event then has probability
  // (N−1)·β/N / (1 + (N−1)·β/N), just below β: the bound is nearly tight.
  constexpr size_t kCandidates = 100;
  const double sensitivity = 1;
  const double epsilon = 0.5;
  const double beta = 0.1;
  auto bound = UtilityLossBound(kCandidates, sensitivity, epsilon, beta);
  ASSERT_OK(bound);
  std::vector<double> scores(kCandidates, -*bound);
  scores[0] = 0;
  const ExponentialMechanism mechanism = Make(scores, sensitivity, epsilon);

  const double exact_bad = 1 - mechanism.Probability(0);
  EXPECT_LE(exact_bad, beta);
  EXPECT_GE(exact_bad, beta / 2);

  SeededGenerator gen(2718);
  constexpr int kSamples = 100000;
  int bad = 0;
  for (int s = 0; s < kSamples; ++s) {
    if (scores[mechanism.Sample(gen)] <= -*bound) ++bad;
  }
  // Binomial(S, p ≤ β): the count exceeds βS + 5σ with probability < 1e-6.
  EXPECT_LE(bad, beta * kSamples + 5 * std::sqrt(kSamples * beta * (1 - beta)));
}

}  // namespace
}  // namespace ldp
