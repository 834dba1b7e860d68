#include "common/mechanisms/rappor/rappor_decoder.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "common/mechanisms/rappor/rappor.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<Rappor> MakeDictionaryRappor() {
  auto oracle = Rappor::Create({.epsilon_permanent = 4,
                                .epsilon_report = 3,
                                .domain_size = 512,
                                .num_bits = 64,
                                .num_hashes = 2,
                                .num_cohorts = 16,
                                .hash_seed = 21});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

// Eight strings hold the whole population; the analyst's dictionary lists
// them among 92 decoys. At q = 0.05 the significance cut keeps the strings
// the data can show (f ≥ 5σ) and admits at most a couple of decoys.
TEST(RapporDecoder, FindsTheTrueCandidatesWithFewFalseDiscoveries) {
  const auto oracle = MakeDictionaryRappor();
  const std::vector<uint32_t> strings = {7, 40, 99, 130, 222, 301, 388, 450};
  const std::vector<double> shares = {0.25, 0.2,  0.15, 0.12,
                                      0.1,  0.08, 0.06, 0.04};
  const int64_t n = 20000;
  SeededGenerator gen(4);
  auto accumulator = oracle->NewAccumulator();
  for (size_t s = 0; s < strings.size(); ++s) {
    for (int64_t i = 0; i < static_cast<int64_t>(shares[s] * n); ++i) {
      ASSERT_OK(accumulator->Add(oracle->Randomize(strings[s], gen)));
    }
  }
  std::vector<uint32_t> candidates = strings;
  for (uint32_t v = 0; candidates.size() < 100; v += 5) {
    if (std::find(strings.begin(), strings.end(), v) == strings.end()) {
      candidates.push_back(v);
    }
  }
  const auto& rappor = dynamic_cast<const RapporAccumulator&>(*accumulator);
  auto fit = rappor.FitCandidates(candidates);
  ASSERT_OK(fit);
  int found = 0, false_found = 0;
  for (size_t j : RapporDiscoveries(*fit, 0.05)) {
    (j < strings.size() ? found : false_found) += 1;
  }
  for (size_t s = 0; s < strings.size(); ++s) {
    const double sigma = std::sqrt(fit->variances[s]);
    EXPECT_LE(std::abs(fit->frequencies[s] - shares[s]), 5 * sigma)
        << "string " << strings[s];
    if (shares[s] >= 5 * sigma) {
      EXPECT_LT(fit->p_values[s], 1e-4) << "string " << strings[s];
    }
  }
  EXPECT_GE(found, 7);
  EXPECT_LE(false_found, 2);
}

TEST(RapporDecoder, RefusesBadCandidatesAndUndecidableDesigns) {
  const auto oracle = MakeDictionaryRappor();
  auto accumulator = oracle->NewAccumulator();
  const auto& rappor = dynamic_cast<const RapporAccumulator&>(*accumulator);
  EXPECT_THAT(rappor.FitCandidates({1, 2}),
              StatusIs(absl::StatusCode::kFailedPrecondition));  // no reports
  SeededGenerator gen(1);
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(accumulator->Add(oracle->Randomize(3, gen)));
  }
  EXPECT_THAT(rappor.FitCandidates({1, 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(rappor.FitCandidates({}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(rappor.FitCandidates({512}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // 50 reports fill at most 16 cohorts of 64 bits: 512 items stay tangled
  // only if a cohort is empty; the whole-domain estimate then says so.
  const RapporDecoder decoder(oracle->bloom(), oracle->layers().composed());
  RapporCounts one_cohort{.reports = std::vector<int64_t>(16, 0),
                          .ones = std::vector<int64_t>(16 * 64, 0)};
  one_cohort.reports[0] = 10;
  std::vector<uint32_t> items(512);
  std::iota(items.begin(), items.end(), 0);
  EXPECT_THAT(decoder.Fit(one_cohort, items),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(decoder.Fit({.reports = {1}, .ones = {}}, {1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RapporDecoder, EstimateWithoutEnoughReportsHasInfiniteVariances) {
  const auto oracle = MakeDictionaryRappor();
  const HistogramEstimate estimate = oracle->NewAccumulator()->Estimate();
  ASSERT_EQ(estimate.frequencies.size(), 512u);
  EXPECT_EQ(estimate.frequencies[0], 0.0);
  EXPECT_TRUE(std::isinf(estimate.variances[0]));
}

// The scalar Variance() assumes equal cohorts and background bits at h/k;
// for a spread population it stays within 15% of the exact variance.
TEST(RapporDecoder, ScalarVarianceApproximatesTheExactOne) {
  auto oracle = Rappor::Create({.epsilon_permanent = 4,
                                .epsilon_report = 2,
                                .domain_size = 64,
                                .num_bits = 32,
                                .num_hashes = 2,
                                .num_cohorts = 8,
                                .hash_seed = 5});
  ASSERT_OK(oracle);
  std::vector<uint32_t> items(64);
  std::iota(items.begin(), items.end(), 0);
  const std::vector<double> uniform(64, 1.0 / 64);
  const RapporDecoder decoder((*oracle)->bloom(),
                              (*oracle)->layers().composed());
  const auto exact =
      decoder.Variances(std::vector<int64_t>(8, 1000), items, uniform);
  ASSERT_OK(exact);
  const double mean =
      std::accumulate(exact->begin(), exact->end(), 0.0) / exact->size();
  EXPECT_NEAR((*oracle)->Variance(1.0 / 64, 8000) / mean, 1.0, 0.15);
}

}  // namespace
}  // namespace ldp
