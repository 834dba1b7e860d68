// Iterative Bayesian update (iterative_bayesian_update.h): its result is
// the support-share likelihood's maximum that frequency_mle.h computes in
// closed form, certified by the Frank–Wolfe gap; EM from other starts heads
// there, SQUAREM faster than plain EM; and Hadamard response, whose reports
// the model does not fit, is refused.
#include "common/mechanisms/frequency/iterative_bayesian_update.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/estimation/frequency_mle.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/zipf_support_counts.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;

TEST(IterativeBayesianUpdate, RecoversTheTruthFromExpectedGrrCounts) {
  const double e = std::exp(1.0);
  const int d = 5;
  const PureProtocol grr{.p = e / (e + d - 1), .q = 1 / (e + d - 1)};
  const std::vector<double> truth = {0.5, 0.2, 0.15, 0.1, 0.05};
  const int64_t n = 1'000'000'000;
  std::vector<int64_t> counts(d);
  for (int v = 0; v < d; ++v) {
    counts[v] = std::llround(n * (grr.q + (grr.p - grr.q) * truth[v]));
  }
  absl::StatusOr<IbuResult> f = IterativeBayesianUpdate(counts, n, grr);
  ASSERT_OK(f);
  EXPECT_TRUE(f->converged);
  for (int v = 0; v < d; ++v) EXPECT_NEAR(f->frequencies[v], truth[v], 1e-6);
}

double L1(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] - b[i]);
  return sum;
}

class IbuAtEpsilonOne : public ::testing::Test {
 protected:
  // OUE's channel at ε = 1, N = 1024, n = 10⁵ reports on Zipf(1.1).
  const PureProtocol oue_{.p = 0.5, .q = 1 / (std::exp(1.0) + 1)};
  const int64_t n_ = 100'000;
  const std::vector<int64_t> counts_ =
      testing::ZipfSupportCounts(oue_, 1024, n_, 3);
  const std::vector<double> mle_ =
      *SupportShareMaximumLikelihood(counts_, oue_);

  IbuResult Run(IbuStart start, bool accelerate, int iterations) {
    absl::StatusOr<IbuResult> r =
        IterativeBayesianUpdate(counts_, n_, oue_,
                                {.max_iterations = iterations,
                                 .start = start,
                                 .accelerate = accelerate});
    EXPECT_OK(r);
    return r.ok() ? *r : IbuResult{};
  }
  double LogLikelihood(const std::vector<double>& f) const {
    return SupportShareLogLikelihood(counts_, oue_, f);
  }
};

// By default EM starts at the closed-form maximum and its Frank–Wolfe gap
// certifies it at once: the fixed point, with no iteration.
TEST_F(IbuAtEpsilonOne, TheDefaultIsTheCertifiedMaximum) {
  const IbuResult r = Run(IbuStart::kClosedForm, true, 10'000);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_LE(r.gap, 1e-9);
  EXPECT_EQ(r.frequencies, mle_);
}

// EM itself heads for the same point: from the projection with SQUAREM,
// 10⁴ updates end within 10⁻³ (ℓ1) of it, and never above its likelihood.
// The literature's run (uniform start, plain EM, 10⁴ updates) is still far
// away, and SQUAREM beats plain EM from the same start.
TEST_F(IbuAtEpsilonOne, EmHeadsForTheClosedFormMaximum) {
  const double best = LogLikelihood(mle_);
  const IbuResult fast = Run(IbuStart::kProjection, true, 10'000);
  EXPECT_LT(L1(fast.frequencies, mle_), 1e-3);
  EXPECT_LE(LogLikelihood(fast.frequencies), best);
  EXPECT_GT(fast.gap, 0);
  const IbuResult plain = Run(IbuStart::kProjection, false, 10'000);
  EXPECT_GT(LogLikelihood(fast.frequencies), LogLikelihood(plain.frequencies));
  const IbuResult literature = Run(IbuStart::kUniform, false, 10'000);
  EXPECT_FALSE(literature.converged);
  EXPECT_GT(L1(literature.frequencies, mle_), 0.5);
  EXPECT_LE(LogLikelihood(literature.frequencies), best);
}

TEST(IterativeBayesianUpdate, StopsAtMaxIterationsAndSaysSo) {
  const PureProtocol oue{.p = 0.5, .q = 1 / (std::exp(1.0) + 1)};
  const std::vector<int64_t> counts =
      testing::ZipfSupportCounts(oue, 256, 10'000, 5);
  absl::StatusOr<IbuResult> f =
      IterativeBayesianUpdate(counts, 10'000, oue,
                              {.max_iterations = 3,
                               .tolerance = 0,
                               .start = IbuStart::kUniform,
                               .accelerate = false});
  ASSERT_OK(f);
  EXPECT_EQ(f->iterations, 3);
  EXPECT_FALSE(f->converged);
}

TEST(IterativeBayesianUpdate, RefusesHadamardResponseAndBadInput) {
  auto hr =
      CreateFrequencyOracle({.kind = FrequencyOracleKind::kHadamardResponse,
                             .epsilon = 1,
                             .domain_size = 64});
  ASSERT_OK(hr);
  const auto* pure = dynamic_cast<const PureFrequencyOracle*>(hr->get());
  ASSERT_NE(pure, nullptr);
  EXPECT_THAT(IterativeBayesianUpdate(*pure, std::vector<int64_t>(64, 1), 64),
              StatusIs(absl::StatusCode::kInvalidArgument));
  auto grr = CreateFrequencyOracle(
      {.kind = FrequencyOracleKind::kGeneralizedRandomizedResponse,
       .epsilon = 1,
       .domain_size = 8});
  ASSERT_OK(grr);
  const auto* grr_pure = dynamic_cast<const PureFrequencyOracle*>(grr->get());
  ASSERT_NE(grr_pure, nullptr);
  EXPECT_OK(IterativeBayesianUpdate(*grr_pure, std::vector<int64_t>(8, 1), 8));
  EXPECT_THAT(IterativeBayesianUpdate(*grr_pure, std::vector<int64_t>(7, 1), 7),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const PureProtocol good{.p = 0.6, .q = 0.2};
  EXPECT_THAT(IterativeBayesianUpdate(std::vector<int64_t>{1, 2}, 3,
                                      PureProtocol{.p = 0.2, .q = 0.3}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(IterativeBayesianUpdate(std::vector<int64_t>{}, 1, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(IterativeBayesianUpdate(std::vector<int64_t>{-1, 2}, 1, good),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(IterativeBayesianUpdate(std::vector<int64_t>{1, 2}, 0, good,
                                      {.start = IbuStart::kProjection}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
