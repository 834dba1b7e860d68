#include "common/mechanisms/frequency/subset_selection.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/mechanisms/frequency/generalized_randomized_response.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

std::unique_ptr<SubsetSelection> MakeSs(double epsilon, uint32_t domain_size,
                                        uint32_t subset_size = 0) {
  auto ss = SubsetSelection::Create({.epsilon = epsilon,
                                     .domain_size = domain_size,
                                     .subset_size = subset_size});
  EXPECT_OK(ss);
  return *std::move(ss);
}

// Every k-subset of [n], sorted, in lexicographic order.
std::vector<FrequencyReport> AllSubsets(uint32_t n, uint32_t k) {
  std::vector<FrequencyReport> outputs;
  std::vector<uint32_t> items(k);
  for (uint32_t i = 0; i < k; ++i) items[i] = i;
  while (true) {
    outputs.push_back(SubsetReport{.items = items});
    int i = static_cast<int>(k) - 1;
    while (i >= 0 && items[i] == n - k + i) --i;
    if (i < 0) return outputs;
    ++items[i];
    for (uint32_t j = i + 1; j < k; ++j) items[j] = items[j - 1] + 1;
  }
}

// Index of a subset in AllSubsets(n, k), or −1 if it is not one of them.
std::function<int64_t(const FrequencyReport&)> SubsetIndex(
    const std::vector<FrequencyReport>& outputs) {
  auto index = std::make_shared<std::map<std::vector<uint32_t>, int64_t>>();
  for (size_t i = 0; i < outputs.size(); ++i) {
    (*index)[std::get<SubsetReport>(outputs[i]).items] = i;
  }
  return [index](const FrequencyReport& report) -> int64_t {
    const auto it = index->find(std::get<SubsetReport>(report).items);
    return it == index->end() ? -1 : it->second;
  };
}

TEST(SubsetSelection, RejectsInvalidOptions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double epsilon : {0.0, -2.0, nan, 25.0}) {
    auto ss = SubsetSelection::Create({.epsilon = epsilon, .domain_size = 8});
    EXPECT_THAT(ss, StatusIs(absl::StatusCode::kInvalidArgument)) << epsilon;
    EXPECT_THAT(std::string(ss.status().message()), HasSubstr("epsilon"));
  }
  for (uint32_t n : {0u, 1u, (1u << 24) + 1}) {
    EXPECT_THAT(SubsetSelection::Create({.epsilon = 1, .domain_size = n}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << n;
  }
  for (uint32_t k : {8u, 9u}) {
    auto ss = SubsetSelection::Create(
        {.epsilon = 1, .domain_size = 8, .subset_size = k});
    EXPECT_THAT(ss, StatusIs(absl::StatusCode::kInvalidArgument)) << k;
    EXPECT_THAT(std::string(ss.status().message()), HasSubstr("subset_size"));
  }
  EXPECT_THAT(SubsetSelection::Create({.epsilon = 1e-12, .domain_size = 8}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SubsetSelection, DefaultSubsetSizeIsRoundedNOverEPlusOne) {
  EXPECT_EQ(MakeSs(1.0, 1024)->subset_size(), 275u);  // 1024/(e + 1) = 275.4
  EXPECT_EQ(MakeSs(1.0, 2)->subset_size(), 1u);
  EXPECT_EQ(MakeSs(8.0, 100)->subset_size(), 1u);  // never 0
  EXPECT_EQ(MakeSs(0.1, 100)->subset_size(), 48u);
  EXPECT_EQ(MakeSs(1.0, 100, 60)->subset_size(), 60u);
}

// Ye–Barg's q (as in the reference notes) and the pure-protocol variance at
// N = 1024, ε = 1, k = 275: n·Var = 3.6736.
TEST(SubsetSelection, ProtocolMatchesThePublishedFormulas) {
  const double e = std::exp(1.0);
  const double d = 1024, k = 275;
  const auto ss = MakeSs(1.0, 1024);
  const double p = k * e / (k * e + d - k);
  EXPECT_NEAR(ss->inclusion_probability(), p, std::ldexp(1.0, -32));
  const double q =
      (k * (k - 1) * e + k * (d - k)) / ((d - 1) * (k * e + d - k));
  EXPECT_NEAR(ss->Variance(0, 1), q * (1 - q) / ((p - q) * (p - q)), 1e-6);
  EXPECT_NEAR(ss->Variance(0, 1), 3.6736, 1e-4);
}

TEST(SubsetSelection, EpsilonIsExactByEnumeration) {
  for (uint32_t n : {2u, 3u, 5u, 8u}) {
    for (uint32_t k = 1; k < n; ++k) {
      for (double epsilon : {0.1, 1.0, 3.0}) {
        SCOPED_TRACE(::testing::Message()
                     << "N " << n << " k " << k << " eps " << epsilon);
        testing::ExpectExactPrivacy(*MakeSs(epsilon, n, k), AllSubsets(n, k),
                                    epsilon);
      }
    }
  }
}

// k = 2 and 3 sample the subset directly; k = 4 of 6 samples the complement.
TEST(SubsetSelection, SamplesFollowProbability) {
  for (const auto& [n, k] : {std::pair{6u, 2u}, {7u, 3u}, {6u, 4u}}) {
    SCOPED_TRACE(::testing::Message() << "N " << n << " k " << k);
    const auto ss = MakeSs(1.0, n, k);
    const std::vector<FrequencyReport> outputs = AllSubsets(n, k);
    testing::ExpectSamplesFollowProbability(*ss, outputs, {0, 2, n - 1},
                                            300'000, SubsetIndex(outputs),
                                            /*seed=*/10 + k);
  }
}

// Beyond one bitset word: reports are sorted k-subsets and each item is in
// the report with probability p (the input) or q (any other item).
TEST(SubsetSelection, MultiWordDomainsHaveTheRightMarginals) {
  constexpr int kDraws = 100'000;
  for (uint32_t k : {40u, 100u}) {  // direct and complement sampling
    const auto ss = MakeSs(1.0, 130, k);
    testing::SeededGenerator gen(12);
    std::vector<double> hits(130, 0);
    for (int i = 0; i < kDraws; ++i) {
      const FrequencyReport report = ss->Randomize(64, gen);
      ASSERT_OK(ss->Validate(report));
      for (uint32_t item : std::get<SubsetReport>(report).items) hits[item]++;
    }
    const double p = ss->inclusion_probability();
    // q = p(k − 1)/(N − 1) + (1 − p)k/(N − 1) = (k − p)/(N − 1).
    const double q = (k - p) / 129;
    for (uint32_t item : {0u, 63u, 64u, 65u, 129u}) {
      const double expected = item == 64 ? p : q;
      const auto result =
          testing::ChiSquare({hits[item], kDraws - hits[item]},
                             {kDraws * expected, kDraws * (1 - expected)});
      EXPECT_TRUE(result.Passes())
          << "k " << k << " item " << item << " chi2 " << result.statistic;
    }
  }
}

// N − 1 a multiple of 64: the others fill whole words and the bitset has a
// spare word that must stay empty.
TEST(SubsetSelection, OthersFillingWholeWordsGiveValidReports) {
  for (uint32_t n : {65u, 129u}) {
    const auto ss = MakeSs(1.0, n, 0);
    testing::SeededGenerator gen(n);
    for (uint32_t item : {0u, 63u, 64u, n - 1}) {
      for (int i = 0; i < 5'000; ++i) {
        ASSERT_OK(ss->Validate(ss->Randomize(item, gen))) << n << " " << item;
      }
    }
  }
}

TEST(SubsetSelection, DrawsAndClampingDoNotDependOnTheInput) {
  for (uint32_t k : {3u, 9u}) {
    const auto ss = MakeSs(1.0, 12, k);
    testing::ExpectDrawCountIndependentOfInput(*ss);
    testing::ExpectOutOfRangeItemsClampToLast(*ss);
  }
}

TEST(SubsetSelection, EstimatorIsUnbiasedWithClosedFormVariance) {
  const std::vector<int64_t> counts = {0, 10, 20, 40, 80, 150, 100, 50, 30, 20};
  for (uint32_t k : {0u, 7u}) {  // default k = 3, and a complement-sampled k
    SCOPED_TRACE(::testing::Message() << "k " << k);
    const auto ss = MakeSs(1.0, 10, k);
    testing::ExpectUnbiasedWithClosedFormVariance(
        *ss, counts, /*repetitions=*/5000, /*seed=*/13,
        [&](double f, int64_t n) { return ss->Variance(f, n); });
  }
}

TEST(SubsetSelection, RejectsMalformedReports) {
  const auto ss = MakeSs(1.0, 10, 3);
  testing::ExpectMalformedReportsRejected(
      *ss, {SubsetReport{}, SubsetReport{.items = {1, 2}},
            SubsetReport{.items = {1, 2, 3, 4}},
            SubsetReport{.items = {3, 2, 5}},   // unsorted
            SubsetReport{.items = {2, 2, 5}},   // duplicate
            SubsetReport{.items = {1, 2, 10}},  // out of range
            SubsetReport{.items = {1, 2, ~uint32_t{0}}}, ItemReport{1},
            BitVectorReport{.words = {7}}, HashedReport{}, SketchReport{}});
}

TEST(SubsetSelection, MergeEqualsOneAccumulator) {
  const auto ss = MakeSs(1.0, 10, 3);
  const auto other_k = MakeSs(1.0, 10, 4);
  const auto other_epsilon = MakeSs(2.0, 10, 3);
  const auto other_domain = MakeSs(1.0, 11, 3);
  const auto grr =
      *GeneralizedRandomizedResponse::Create({.epsilon = 1, .domain_size = 10});
  testing::ExpectMergeEqualsSingleAccumulator(
      *ss, {other_k.get(), other_epsilon.get(), other_domain.get(), grr.get()},
      1000);
}

}  // namespace
}  // namespace ldp
