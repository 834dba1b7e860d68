// The closed-form maximum-likelihood histograms (frequency_mle.h): they
// recover the truth from noiseless counts, satisfy their KKT conditions on
// noisy counts (which, the likelihoods being concave, makes them the
// maxima), beat every feasible perturbation, and refuse bad input.
#include "common/estimation/frequency_mle.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/zipf_support_counts.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;

PureProtocol GrrChannel(double epsilon, int d) {
  const double e = std::exp(epsilon);
  return {.p = e / (e + d - 1), .q = 1 / (e + d - 1)};
}

PureProtocol OueChannel(double epsilon) {
  return {.p = 0.5, .q = 1 / (std::exp(epsilon) + 1)};
}

double Total(const std::vector<double>& f) {
  return std::accumulate(f.begin(), f.end(), 0.0);
}

double BitwiseLogLikelihood(const std::vector<int64_t>& c, int64_t n,
                            const PureProtocol& ch,
                            const std::vector<double>& f) {
  double sum = 0;
  for (size_t v = 0; v < c.size(); ++v) {
    const double pi = ch.q + (ch.p - ch.q) * f[v];
    sum += c[v] * std::log(pi) + (n - c[v]) * std::log1p(-pi);
  }
  return sum;
}

TEST(SupportShareMaximumLikelihood, RecoversTheTruthFromExpectedGrrCounts) {
  const PureProtocol grr = GrrChannel(1, 5);
  const std::vector<double> truth = {0.5, 0.2, 0.15, 0.1, 0.05};
  std::vector<int64_t> counts(5);
  for (int v = 0; v < 5; ++v) {
    counts[v] = std::llround(1e12 * (grr.q + (grr.p - grr.q) * truth[v]));
  }
  absl::StatusOr<std::vector<double>> f =
      SupportShareMaximumLikelihood(counts, grr);
  ASSERT_OK(f);
  for (int v = 0; v < 5; ++v) EXPECT_NEAR((*f)[v], truth[v], 1e-9);
}

// KKT of max Σ C_v·log(r + f_v) on the simplex (r = q/(p − q)): C_v/(r +
// f_v) is one λ on the support and C_v/r ≤ λ off it.
TEST(SupportShareMaximumLikelihood, SatisfiesItsOptimalityConditions) {
  struct Case {
    PureProtocol ch;
    int d;
  };
  for (const auto& [ch, d] :
       {Case{GrrChannel(1, 1024), 1024}, Case{OueChannel(1), 1024},
        Case{GrrChannel(4, 64), 64}}) {
    const std::vector<int64_t> counts =
        testing::ZipfSupportCounts(ch, d, 100'000, 7);
    absl::StatusOr<std::vector<double>> f =
        SupportShareMaximumLikelihood(counts, ch);
    ASSERT_OK(f);
    EXPECT_NEAR(Total(*f), 1, 1e-12);
    const double r = ch.q / (ch.p - ch.q);
    double lambda = 0;
    int active = 0;
    for (int v = 0; v < d; ++v) {
      if ((*f)[v] > 0) lambda = counts[v] / (r + (*f)[v]), ++active;
    }
    ASSERT_GT(active, 0);
    for (int v = 0; v < d; ++v) {
      EXPECT_GE((*f)[v], 0);
      if ((*f)[v] > 0) {
        EXPECT_NEAR(counts[v] / (r + (*f)[v]), lambda, 1e-9 * lambda) << v;
      } else {
        EXPECT_LE(counts[v] / r, lambda * (1 + 1e-12)) << v;
      }
    }
    // Moving mass between two items never raises the likelihood.
    std::vector<double> moved = *f;
    const double step = std::min(1e-4, moved[0]);
    moved[0] -= step;
    moved[d - 1] += step;
    EXPECT_LE(SupportShareLogLikelihood(counts, ch, moved),
              SupportShareLogLikelihood(counts, ch, *f));
  }
}

TEST(BitwiseMaximumLikelihood, RecoversTheTruthFromExpectedUeCounts) {
  const PureProtocol oue = OueChannel(1);
  const std::vector<double> truth = {0.4, 0.3, 0.2, 0.1, 0};
  const int64_t n = 1'000'000'000;
  std::vector<int64_t> counts(5);
  for (int v = 0; v < 5; ++v) {
    counts[v] = std::llround(n * (oue.q + (oue.p - oue.q) * truth[v]));
  }
  absl::StatusOr<std::vector<double>> f =
      BitwiseMaximumLikelihood(counts, n, oue);
  ASSERT_OK(f);
  for (int v = 0; v < 5; ++v) EXPECT_NEAR((*f)[v], truth[v], 1e-8);
}

TEST(BitwiseMaximumLikelihood, BeatsEveryPairwisePerturbation) {
  const PureProtocol oue = OueChannel(1);
  const int d = 256;
  const int64_t n = 20'000;
  const std::vector<int64_t> counts = testing::ZipfSupportCounts(oue, d, n, 11);
  absl::StatusOr<std::vector<double>> f =
      BitwiseMaximumLikelihood(counts, n, oue);
  ASSERT_OK(f);
  EXPECT_NEAR(Total(*f), 1, 1e-12);
  const double best = BitwiseLogLikelihood(counts, n, oue, *f);
  for (int from = 0; from < d; from += 17) {
    for (int to = 3; to < d; to += 31) {
      if (from == to || (*f)[from] == 0) continue;
      std::vector<double> moved = *f;
      const double step = std::min(1e-5, moved[from]);
      moved[from] -= step;
      moved[to] += step;
      EXPECT_LE(BitwiseLogLikelihood(counts, n, oue, moved), best + 1e-9)
          << from << " -> " << to;
    }
  }
}

TEST(FrequencyMle, RefusesBadInput) {
  const PureProtocol good{.p = 0.6, .q = 0.2};
  const PureProtocol bad{.p = 0.2, .q = 0.3};
  EXPECT_THAT(SupportShareMaximumLikelihood(std::vector<int64_t>{1, 2}, bad),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SupportShareMaximumLikelihood(std::vector<int64_t>{}, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SupportShareMaximumLikelihood(std::vector<int64_t>{-1, 2}, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(BitwiseMaximumLikelihood(std::vector<int64_t>{1, 5}, 4, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(BitwiseMaximumLikelihood(std::vector<int64_t>{0, 0}, 0, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // All counts zero: nothing to prefer, uniform.
  absl::StatusOr<std::vector<double>> f =
      SupportShareMaximumLikelihood(std::vector<int64_t>{0, 0, 0, 0}, good);
  ASSERT_OK(f);
  EXPECT_EQ(*f, std::vector<double>(4, 0.25));
}

}  // namespace
}  // namespace ldp
