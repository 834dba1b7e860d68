// The KLNRS generic private learner: its sample sizes satisfy the derived
// conditions, it PAC-learns thresholds at those sizes, it is ε-DP on
// neighbouring datasets, and at tiny ε it is close to uniform.
#include "common/central/private_pac_learner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

constexpr uint32_t kDomain = 64;

ConceptClass Thresholds() {
  auto thresholds = ConceptClass::Thresholds(kDomain);
  EXPECT_OK(thresholds);
  return std::move(thresholds).value();
}

PrivatePacLearner MakeLearner(double epsilon) {
  auto learner = PrivatePacLearner::Create(Thresholds(), epsilon);
  EXPECT_OK(learner);
  return std::move(learner).value();
}

// n points uniform on the domain, labeled by the threshold `target`.
std::vector<LabeledExample> Draw(size_t target, int64_t n,
                                 SeededGenerator& gen) {
  std::uniform_int_distribution<uint32_t> point(0, kDomain - 1);
  std::vector<LabeledExample> examples;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t x = point(gen);
    examples.push_back({.point = x, .label = x >= target});
  }
  return examples;
}

// Under the uniform distribution, thresholds s and t disagree on |s − t|
// of the kDomain points.
double TrueError(size_t hypothesis, size_t target) {
  const auto gap =
      std::abs(static_cast<int64_t>(hypothesis) - static_cast<int64_t>(target));
  return static_cast<double>(gap) / kDomain;
}

// ln|C| + ln(k/β), as in the derivation.
double LogTerm(size_t num_concepts, double beta, double k) {
  return std::log(static_cast<double>(num_concepts)) + std::log(k / beta);
}

TEST(ConceptClass, ThresholdsLabelPointsAtOrAboveT) {
  const ConceptClass thresholds = Thresholds();
  ASSERT_EQ(thresholds.size(), kDomain + 1);
  ASSERT_EQ(thresholds.domain_size(), kDomain);
  for (size_t t = 0; t <= kDomain; ++t) {
    for (uint32_t x = 0; x < kDomain; ++x) {
      EXPECT_EQ(thresholds.Label(t, x), x >= t);
    }
  }
}

TEST(ConceptClass, CountsMistakes) {
  const ConceptClass thresholds = Thresholds();
  const std::vector<LabeledExample> examples = {
      {.point = 3, .label = false},
      {.point = 10, .label = true},
      {.point = 40, .label = true},
  };
  EXPECT_EQ(thresholds.Mistakes(10, examples), 0);
  EXPECT_EQ(thresholds.Mistakes(0, examples), 1);   // 3 labeled true
  EXPECT_EQ(thresholds.Mistakes(41, examples), 2);  // 10 and 40 false
}

TEST(ConceptClass, RejectsMalformedClasses) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(ConceptClass::Create(0, {{}}), StatusIs(kInvalid));
  EXPECT_THAT(ConceptClass::Create(3, {}), StatusIs(kInvalid));
  EXPECT_THAT(ConceptClass::Create(3, {{true, false, true}, {true}}),
              StatusIs(kInvalid));
  EXPECT_THAT(ConceptClass::Thresholds(0), StatusIs(kInvalid));
  EXPECT_THAT(ConceptClass::Thresholds(1u << 20), StatusIs(kInvalid));
}

TEST(PrivatePacLearner, RejectsBadInputs) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(PrivatePacLearner::Create(Thresholds(), 0), StatusIs(kInvalid));
  EXPECT_THAT(PrivatePacLearner::Create(Thresholds(), NAN), StatusIs(kInvalid));
  const PrivatePacLearner learner = MakeLearner(1);
  const std::vector<LabeledExample> outside = {{.point = kDomain}};
  SeededGenerator gen(1);
  EXPECT_THAT(learner.Learn(outside, gen), StatusIs(kInvalid));
}

TEST(PrivateLearnerSampleSize, IsTheLeastNMeetingTheRealizableCondition) {
  for (const double epsilon : {0.1, 1.0, 10.0}) {
    for (const double alpha : {0.01, 0.1}) {
      const double beta = 0.05;
      auto n = PrivateLearnerSampleSize(
          kDomain + 1, epsilon, {.max_error = alpha, .confidence = 1 - beta});
      ASSERT_OK(n);
      const double log_term = LogTerm(kDomain + 1, beta, 2);
      // Utility: empirical error ≤ a = 2L/(εn); Chernoff and a union bound:
      // no concept with error > α has empirical error ≤ a once
      // n(α − a)²/(2α) ≥ L (the derivation in private_pac_learner.cc).
      const auto holds = [&](int64_t samples) {
        const double m = static_cast<double>(samples);
        const double a = 2 * log_term / (epsilon * m);
        return a < alpha && m * (alpha - a) * (alpha - a) / (2 * alpha) >=
                                log_term * (1 - 1e-12);
      };
      EXPECT_TRUE(holds(*n)) << epsilon << " " << alpha;
      EXPECT_FALSE(holds(*n - 1)) << epsilon << " " << alpha;
    }
  }
}

TEST(PrivateAgnosticLearnerSampleSize, IsTheLeastNMeetingTheAgnosticBound) {
  for (const double epsilon : {0.1, 1.0, 10.0}) {
    for (const double alpha : {0.02, 0.1}) {
      const double beta = 0.05;
      auto n = PrivateAgnosticLearnerSampleSize(
          kDomain + 1, epsilon, {.max_error = alpha, .confidence = 1 - beta});
      ASSERT_OK(n);
      const double privacy = LogTerm(kDomain + 1, beta, 2);
      const double convergence = LogTerm(kDomain + 1, beta, 4);
      // err ≤ OPT + 2L/(εn) + 2√(L'/(2n)).
      const auto excess = [&](int64_t samples) {
        const double m = static_cast<double>(samples);
        return 2 * privacy / (epsilon * m) +
               2 * std::sqrt(convergence / (2 * m));
      };
      EXPECT_LE(excess(*n), alpha * (1 + 1e-12));
      EXPECT_GT(excess(*n - 1), alpha);
      // Agnostic learning never needs fewer examples than realizable.
      auto realizable = PrivateLearnerSampleSize(
          kDomain + 1, epsilon, {.max_error = alpha, .confidence = 1 - beta});
      ASSERT_OK(realizable);
      EXPECT_GE(*n, *realizable);
    }
  }
}

TEST(PrivateLearnerSampleSize, GrowsAsEpsilonShrinksAndRejectsBadGoals) {
  auto strict = PrivateLearnerSampleSize(65, 0.1, {.max_error = 0.1});
  auto loose = PrivateLearnerSampleSize(65, 1.0, {.max_error = 0.1});
  ASSERT_OK(strict);
  ASSERT_OK(loose);
  EXPECT_GT(*strict, *loose);
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(PrivateLearnerSampleSize(0, 1, {.max_error = 0.1}),
              StatusIs(kInvalid));
  EXPECT_THAT(PrivateLearnerSampleSize(65, 0, {.max_error = 0.1}),
              StatusIs(kInvalid));
  EXPECT_THAT(PrivateLearnerSampleSize(65, 1, {.max_error = 0}),
              StatusIs(kInvalid));
  EXPECT_THAT(
      PrivateLearnerSampleSize(65, 1, {.max_error = 0.1, .confidence = 1}),
      StatusIs(kInvalid));
  EXPECT_THAT(PrivateAgnosticLearnerSampleSize(65, 1e-20, {.max_error = 1e-9}),
              StatusIs(absl::StatusCode::kOutOfRange));
}

TEST(PrivatePacLearner, LearnsThresholdsAtThePlannedSampleSize) {
  const double epsilon = 1;
  const PacGoal goal = {.max_error = 0.1, .confidence = 0.9};
  const double beta = 1 - goal.confidence;
  const PrivatePacLearner learner = MakeLearner(epsilon);
  auto n = PrivateLearnerSampleSize(learner.concepts().size(), epsilon, goal);
  ASSERT_OK(n);
  SeededGenerator gen(4242);
  constexpr int kRuns = 200;
  int failures = 0;
  for (int run = 0; run < kRuns; ++run) {
    const size_t target = static_cast<size_t>(run) % (kDomain + 1);
    auto hypothesis = learner.Learn(Draw(target, *n, gen), gen);
    ASSERT_OK(hypothesis);
    if (TrueError(*hypothesis, target) > goal.max_error) ++failures;
  }
  // Each run fails with probability ≤ β (the theorem), independently:
  // Binomial(R, ≤ β) exceeds βR + 5σ with probability < 1e-6.
  EXPECT_LE(failures, beta * kRuns + 5 * std::sqrt(kRuns * beta * (1 - beta)));
}

TEST(PrivatePacLearner, NeighbouringDatasetsAreEpsilonClose) {
  const double epsilon = 0.7;
  const PrivatePacLearner learner = MakeLearner(epsilon);
  SeededGenerator gen(99);
  const std::vector<LabeledExample> examples = Draw(23, 30, gen);
  auto original = learner.OutputDistribution(examples);
  ASSERT_OK(original);
  double worst = 1;
  // Replace each example by every possible labeled example.
  for (size_t i = 0; i < examples.size(); ++i) {
    std::vector<LabeledExample> neighbour = examples;
    for (uint32_t x = 0; x < kDomain; ++x) {
      for (const bool label : {false, true}) {
        neighbour[i] = {.point = x, .label = label};
        auto changed = learner.OutputDistribution(neighbour);
        ASSERT_OK(changed);
        for (size_t h = 0; h < learner.concepts().size(); ++h) {
          const double p = original->Probability(h);
          const double q = changed->Probability(h);
          worst = std::max({worst, p / q, q / p});
        }
      }
    }
  }
  EXPECT_LE(worst, std::exp(epsilon) * (1 + 1e-12));
}

TEST(PrivatePacLearner, TinyEpsilonIsNearlyUniform) {
  // Scores lie in [−n, 0], so weights e^(−ε·mistakes/2) are within e^(εn/2)
  // of each other and every probability within that factor of 1/|C|.
  const double epsilon = 1e-6;
  const int64_t n = 10;
  const PrivatePacLearner learner = MakeLearner(epsilon);
  SeededGenerator gen(3);
  auto distribution = learner.OutputDistribution(Draw(40, n, gen));
  ASSERT_OK(distribution);
  const double uniform = 1.0 / static_cast<double>(learner.concepts().size());
  const double spread = std::exp(epsilon * static_cast<double>(n) / 2);
  for (const double p : distribution->Probabilities()) {
    EXPECT_LE(p, uniform * spread * (1 + 1e-12));
    EXPECT_GE(p, uniform / spread * (1 - 1e-12));
  }
}

TEST(PrivatePacLearner, LargeEpsilonIsNearlyConsistent) {
  // Every inconsistent concept has score ≤ −1 against the consistent
  // target's 0, so its probability is at most e^(−ε/2): the inconsistent
  // ones together carry at most |C|·e^(−ε/2).
  const double epsilon = 40;
  const PrivatePacLearner learner = MakeLearner(epsilon);
  SeededGenerator gen(17);
  const std::vector<LabeledExample> examples = Draw(12, 50, gen);
  auto distribution = learner.OutputDistribution(examples);
  ASSERT_OK(distribution);
  double inconsistent = 0;
  for (size_t h = 0; h < learner.concepts().size(); ++h) {
    if (learner.concepts().Mistakes(h, examples) > 0) {
      inconsistent += distribution->Probability(h);
    }
  }
  EXPECT_LE(inconsistent, static_cast<double>(learner.concepts().size()) *
                              std::exp(-epsilon / 2));
}

}  // namespace
}  // namespace ldp
