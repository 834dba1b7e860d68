#include "common/mechanisms/frequency/local_hashing.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::ChiSquare;
using testing::MaxProbabilityRatio;
using testing::SeededGenerator;
using testing::StatusIs;

std::unique_ptr<OptimizedLocalHashing> MakeOlh(double epsilon,
                                               uint32_t domain_size,
                                               uint32_t num_buckets = 0) {
  auto oracle = OptimizedLocalHashing::Create({.epsilon = epsilon,
                                               .domain_size = domain_size,
                                               .num_buckets = num_buckets});
  EXPECT_OK(oracle);
  return *std::move(oracle);
}

TEST(OptimizedLocalHashing, RejectsBadOptions) {
  testing::ExpectCreateRejectsBadEpsilonAndDomain<OptimizedLocalHashing>();
  for (uint32_t g : {1u, OptimizedLocalHashing::kMaxBuckets + 1}) {
    EXPECT_THAT(OptimizedLocalHashing::Create(
                    {.epsilon = 1, .domain_size = 8, .num_buckets = g}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << g;
  }
  // The default g = round(e^40) + 1 does not fit.
  EXPECT_THAT(OptimizedLocalHashing::Create({.epsilon = 40, .domain_size = 8}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(OptimizedLocalHashing, DefaultBucketsAreRoundedExpEpsilonPlusOne) {
  EXPECT_EQ(MakeOlh(1.0, 100)->num_buckets(), 4u);
  EXPECT_EQ(MakeOlh(2.0, 100)->num_buckets(), 8u);
  EXPECT_EQ(MakeOlh(0.1, 100)->num_buckets(), 2u);
  EXPECT_EQ(MakeOlh(1.0, 100, 7)->num_buckets(), 7u);
}

// The seed is public: enumerate all buckets for many seeds, conditioning on
// each. Ratio ≤ e^ε, implemented ε close to requested, sums to one.
TEST(OptimizedLocalHashing, EnumeratedPrivacyLossIsAtMostEpsilon) {
  SeededGenerator gen(3);
  for (double epsilon : {0.1, 1.0, 2.5}) {
    for (uint32_t g : {0u, 2u, 5u}) {
      const auto oracle = MakeOlh(epsilon, 6, g);
      EXPECT_LE(oracle->epsilon(), epsilon);
      EXPECT_LE(epsilon - oracle->epsilon(), 1e-6);
      const std::vector<uint32_t> inputs = {0, 1, 2, 3, 4, 5};
      std::vector<FrequencyReport> outputs;
      for (int s = 0; s < 200; ++s) {
        const uint64_t seed = gen();
        double total_for_item0 = 0;
        for (uint32_t b = 0; b <= oracle->num_buckets(); ++b) {
          outputs.push_back(HashedReport{.seed = seed, .bucket = b});
          total_for_item0 += oracle->Probability(0, outputs.back());
        }
        EXPECT_NEAR(total_for_item0, 1.0, 1e-12);
      }
      const double ratio = MaxProbabilityRatio<uint32_t, FrequencyReport>(
          inputs, outputs, [&](const uint32_t& v, const FrequencyReport& w) {
            return oracle->Probability(v, w);
          });
      EXPECT_LE(ratio, std::exp(epsilon) * (1 + 1e-9));
      EXPECT_NEAR(ratio, std::exp(oracle->epsilon()), 1e-9);
    }
  }
}

// Given the seed, the bucket is GRR around H_seed(v): the offset
// (bucket − H) mod g is 0 w.p. p and each other value w.p. (1 − p)/(g − 1).
TEST(OptimizedLocalHashing, SamplesFollowProbability) {
  SeededGenerator gen(8);
  const auto oracle = MakeOlh(1.0, 50, 5);
  const uint32_t g = oracle->num_buckets();
  constexpr int kDraws = 300'000;
  for (uint32_t v : {0u, 17u, 49u}) {
    std::vector<double> observed(g, 0), expected(g, 0);
    for (int i = 0; i < kDraws; ++i) {
      const FrequencyReport r = oracle->Randomize(v, gen);
      ASSERT_OK(oracle->Validate(r));
      const auto& h = std::get<HashedReport>(r);
      const uint32_t y = OptimizedLocalHashing::HashBucket(h.seed, v, g);
      observed[(h.bucket + g - y) % g] += 1;
      for (uint32_t offset = 0; offset < g; ++offset) {
        expected[offset] += oracle->Probability(
            v, HashedReport{.seed = h.seed, .bucket = (y + offset) % g});
      }
    }
    const auto chi = ChiSquare(observed, expected);
    EXPECT_TRUE(chi.Passes()) << "item " << v << " chi2 " << chi.statistic;
  }
}

// The estimator's q = 1/g needs Pr_seed[H(u) = H(v)] = 1/g for u ≠ v, and
// the bucket itself uniform. Check pairs at many distances, including the
// powers of two that break weak multiplicative hashes.
TEST(OptimizedLocalHashing, HashIsUniformAndPairwiseCollidesAtOneOverG) {
  SeededGenerator gen(9);
  constexpr int kSeeds = 400'000;
  for (uint32_t g : {2u, 4u, 7u}) {
    const std::vector<std::pair<uint32_t, uint32_t>> pairs = {
        {0, 1},
        {1, 2},
        {5, 1000},
        {0, 1u << 23},
        {3, 3 + (1u << 16)},
        {100, 228},
        {(1u << 24) - 1, 0}};
    for (const auto& [u, v] : pairs) {
      double collisions = 0;
      std::vector<double> buckets(g, 0);
      for (int i = 0; i < kSeeds; ++i) {
        const uint64_t seed = gen();
        const uint32_t hu = OptimizedLocalHashing::HashBucket(seed, u, g);
        collisions += hu == OptimizedLocalHashing::HashBucket(seed, v, g);
        buckets[hu] += 1;
      }
      const auto pair_chi =
          ChiSquare({collisions, kSeeds - collisions},
                    {kSeeds / double(g), kSeeds * (g - 1) / double(g)});
      EXPECT_TRUE(pair_chi.Passes())
          << g << ": " << u << "," << v << " chi2 " << pair_chi.statistic;
      const auto uniform =
          ChiSquare(buckets, std::vector<double>(g, kSeeds / double(g)));
      EXPECT_TRUE(uniform.Passes())
          << g << ": " << u << " " << uniform.statistic;
    }
  }
}

// The vectorized server decode must agree exactly with the client's hash:
// one report supports exactly the items whose bucket it names.
TEST(OptimizedLocalHashing, ServerSupportMatchesTheClientHash) {
  SeededGenerator gen(10);
  for (uint32_t g : {2u, 3u, 4u, 1000u, OptimizedLocalHashing::kMaxBuckets}) {
    const auto oracle = MakeOlh(1.0, 1037, g);
    const PureProtocol protocol = oracle->protocol();
    for (int rep = 0; rep < 20; ++rep) {
      const HashedReport report{.seed = gen(),
                                .bucket = static_cast<uint32_t>(gen() % g)};
      auto acc = oracle->NewAccumulator();
      ASSERT_OK(acc->Add(report));
      const HistogramEstimate est = acc->Estimate();
      for (uint32_t v = 0; v < oracle->domain_size(); ++v) {
        const double support =
            est.frequencies[v] * (protocol.p - protocol.q) + protocol.q;
        const bool expected = OptimizedLocalHashing::HashBucket(
                                  report.seed, v, g) == report.bucket;
        ASSERT_NEAR(support, expected ? 1.0 : 0.0, 1e-9)
            << "g " << g << " item " << v;
      }
    }
  }
}

// 5000 repetitions of n = 1000 reports (fresh seeds each): per item the mean
// is within 5 SE and the sample variance within 10% of the closed form (its
// relative SD is 2%).
TEST(OptimizedLocalHashing, EstimatorIsUnbiasedWithTheClosedFormVariance) {
  const auto oracle = MakeOlh(1.0, 6);
  testing::ExpectUnbiasedWithClosedFormVariance(
      *oracle, {400, 250, 150, 100, 100, 0}, /*repetitions=*/5000,
      /*seed=*/12);
}

TEST(OptimizedLocalHashing, VarianceMatchesWangEtAl) {
  // At g = 4, ε = 1: (e^ε + g − 1)² / (n (e^ε − 1)² (g − 1)) at f = 0.
  const auto oracle = MakeOlh(1.0, 1024);
  const double e = std::exp(1.0);
  EXPECT_NEAR(oracle->Variance(0.0, 1),
              (e + 3) * (e + 3) / ((e - 1) * (e - 1) * 3), 1e-6);
}

TEST(OptimizedLocalHashing, ValidateRejectsMalformedReports) {
  const auto oracle = MakeOlh(1.0, 6);  // g = 4
  const std::vector<FrequencyReport> bad = {
      HashedReport{.seed = 7, .bucket = 4},
      HashedReport{.seed = 7, .bucket = 0xFFFFFFFF},
      ItemReport{.item = 1},
      BitVectorReport{.words = {1}},
      SubsetReport{.items = {1}},
      SketchReport{.row = 0, .column = 0, .bits = {0}},
  };
  SeededGenerator gen(5);
  auto acc = oracle->NewAccumulator();
  for (int i = 0; i < 100; ++i) ASSERT_OK(acc->Add(oracle->Randomize(2, gen)));
  testing::ExpectMalformedReportsRejectedBy(*oracle, *acc, bad);
  EXPECT_EQ(acc->num_reports(), 100);
}

TEST(OptimizedLocalHashing, ItemsPastTheDomainAreClamped) {
  const auto oracle = MakeOlh(1.0, 6);
  SeededGenerator a(4), b(4);
  EXPECT_EQ(oracle->Randomize(1000, a), oracle->Randomize(5, b));
  const HashedReport r{.seed = 99, .bucket = 1};
  EXPECT_EQ(oracle->Probability(1000, r), oracle->Probability(5, r));
}

TEST(OptimizedLocalHashing, MergeEqualsAddingEverythingToOne) {
  const auto oracle = MakeOlh(1.0, 100);
  SeededGenerator gen(6);
  testing::ExpectMergedSplitEqualsAll(
      *oracle, *oracle->NewAccumulator(), *oracle->NewAccumulator(),
      *oracle->NewAccumulator(), /*num_items=*/7, /*num_reports=*/300, gen);
}

TEST(OptimizedLocalHashing, MergeRejectsADifferentOracle) {
  auto acc = MakeOlh(1.0, 10)->NewAccumulator();
  EXPECT_THAT(acc->Merge(*MakeOlh(1.0, 10, 3)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(acc->Merge(*MakeOlh(1.0, 11)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(acc->Merge(*MakeOlh(1.1, 10)->NewAccumulator()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(acc->num_reports(), 0);
}

}  // namespace
}  // namespace ldp
