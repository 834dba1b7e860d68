// Checks every workload strategy's randomizer must pass (the
// StrategyRandomizer contract,
// common/workload/strategy_randomizers/strategy_randomizer.h), in plain types
// so that the randomizer library's own test needs no Eigen: the exact e^ε ratio
// by enumeration, samples that follow Probability(), draws that do not depend
// on the item, clamping. strategy_checks.h adds the server's linear structure;
// a StrategyMechanism passes for its randomizer. Thresholds follow statistics.h
// (5 standard errors, χ² at 1 − 1e-6).
//
// Reports with a continuous public part (the vector randomizer's direction
// seed) cannot be enumerated: for them use ReportsDrawnFromRandomize for the
// ratio check, and ExpectConditionalSamplesFollowProbability /
// ExpectLikelihoodRatiosAverageToOne instead of the χ² check.
#ifndef LDP_TESTS_TESTING_RANDOMIZER_CHECKS_H_
#define LDP_TESTS_TESTING_RANDOMIZER_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/workload/strategy_randomizers/strategy_randomizer.h"
#include "gtest/gtest.h"
#include "tests/testing/frequency_oracle_checks.h"  // CountingGenerator
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// A total key for a report (group, alternative and payload), for maps and
// de-duplication: WorkloadReport has only operator==.
inline std::string StrategyReportKey(const WorkloadReport& report) {
  std::string key = absl::StrCat(report.group, "|", report.inner.index(), "|");
  std::visit(
      [&key](const auto& inner) {
        using T = std::decay_t<decltype(inner)>;
        if constexpr (std::is_same_v<T, ItemReport>) {
          absl::StrAppend(&key, inner.item);
        } else if constexpr (std::is_same_v<T, BitVectorReport>) {
          absl::StrAppend(&key, absl::StrJoin(inner.words, ","));
        } else if constexpr (std::is_same_v<T, HashedReport>) {
          absl::StrAppend(&key, inner.seed, ",", inner.bucket);
        } else if constexpr (std::is_same_v<T, SubsetReport>) {
          absl::StrAppend(&key, absl::StrJoin(inner.items, ","));
        } else {
          absl::StrAppend(&key, inner.row, ",", inner.column, ",",
                          absl::StrJoin(inner.bits, ","));
        }
      },
      report.inner);
  return key;
}

// The distinct reports seen in `draws_per_item` calls of Randomize for every
// item, in first-seen order: the report set for strategies whose outputs
// cannot be listed (the ratio check over them is then necessary, not
// sufficient).
inline std::vector<WorkloadReport> ReportsDrawnFromRandomize(
    const StrategyRandomizer& strategy, int draws_per_item, uint64_t seed) {
  SeededGenerator gen(seed);
  std::map<std::string, bool> seen;
  std::vector<WorkloadReport> reports;
  for (uint32_t x = 0; x < strategy.domain_size(); ++x) {
    for (int i = 0; i < draws_per_item; ++i) {
      WorkloadReport report = strategy.Randomize(x, gen);
      if (seen.emplace(StrategyReportKey(report), true).second) {
        reports.push_back(std::move(report));
      }
    }
  }
  return reports;
}

// (a) Over every item and every report in `reports`: each is valid, the max
// likelihood ratio is ≤ e^{epsilon()}(1 + 1e-9), and epsilon() ≤ the
// requested ε. With `complete` (the caller listed every report the strategy
// can output): the ratio is attained (ln ratio = epsilon() within 1e-9),
// epsilon() is within `max_rounding_loss` of the request, and each item's
// probabilities sum to 1.
inline void ExpectStrategyPrivacy(const StrategyRandomizer& strategy,
                                  const std::vector<WorkloadReport>& reports,
                                  double requested_epsilon, bool complete,
                                  double max_rounding_loss = 1e-6) {
  ASSERT_FALSE(reports.empty());
  std::vector<uint32_t> items;
  for (uint32_t x = 0; x < strategy.domain_size(); ++x) items.push_back(x);
  for (const WorkloadReport& report : reports) {
    ASSERT_OK(strategy.Validate(report)) << StrategyReportKey(report);
  }
  const double ratio = MaxProbabilityRatio<uint32_t, WorkloadReport>(
      items, reports, [&](const uint32_t& x, const WorkloadReport& r) {
        return strategy.Probability(x, r);
      });
  EXPECT_LE(ratio, std::exp(strategy.epsilon()) * (1 + 1e-9))
      << strategy.Describe();
  EXPECT_LE(strategy.epsilon(), requested_epsilon) << strategy.Describe();
  EXPECT_GT(strategy.epsilon(), 0) << strategy.Describe();
  if (!complete) return;
  EXPECT_NEAR(std::log(ratio), strategy.epsilon(), 1e-9) << strategy.Describe();
  EXPECT_LE(requested_epsilon - strategy.epsilon(), max_rounding_loss);
  for (uint32_t x : items) {
    double total = 0;
    for (const WorkloadReport& r : reports) total += strategy.Probability(x, r);
    EXPECT_NEAR(total, 1.0, 1e-9) << strategy.Describe() << " item " << x;
  }
}

// (b) For each item in `items`: Pearson χ² of `draws_per_item` Randomize
// calls against Probability over `reports`, which must list every report
// (a sample outside it fails the check).
inline void ExpectStrategySamplesFollowProbability(
    const StrategyRandomizer& strategy,
    const std::vector<WorkloadReport>& reports,
    const std::vector<uint32_t>& items, int draws_per_item, uint64_t seed) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < reports.size(); ++i) {
    index.emplace(StrategyReportKey(reports[i]), i);
  }
  SeededGenerator gen(seed);
  for (uint32_t x : items) {
    std::vector<double> observed(reports.size(), 0), expected;
    for (const WorkloadReport& r : reports) {
      expected.push_back(draws_per_item * strategy.Probability(x, r));
    }
    int impossible = 0;
    for (int i = 0; i < draws_per_item; ++i) {
      const auto it = index.find(StrategyReportKey(strategy.Randomize(x, gen)));
      if (it == index.end()) {
        ++impossible;
      } else {
        observed[it->second] += 1;
      }
    }
    EXPECT_EQ(impossible, 0) << strategy.Describe() << " item " << x;
    const ChiSquareResult result = ChiSquare(observed, expected);
    EXPECT_TRUE(result.Passes())
        << strategy.Describe() << " item " << x << ": chi2 " << result.statistic
        << " df " << result.degrees_of_freedom;
  }
}

// (b') For reports with a public part: `siblings(r)` lists every report
// sharing r's public part (r included), whose probabilities given that part
// sum to 1. Over `draws` samples for each item: those sums are 1, and the
// probability of the chosen sibling averages what it should,
// E[P(chosen)] = Σ_k p_k² (5σ, variance Σ p_k³ − (Σ p_k²)² per draw), and
// so does the indicator of the first sibling (E = p_0): a randomizer that
// ignores or inverts its conditional distribution fails one of them.
inline void ExpectConditionalSamplesFollowProbability(
    const StrategyRandomizer& strategy, const std::vector<uint32_t>& items,
    int draws, uint64_t seed,
    const std::function<std::vector<WorkloadReport>(const WorkloadReport&)>&
        siblings) {
  SeededGenerator gen(seed);
  for (uint32_t x : items) {
    double chosen_sum = 0, chosen_var = 0, first_sum = 0, first_var = 0;
    for (int i = 0; i < draws; ++i) {
      const WorkloadReport report = strategy.Randomize(x, gen);
      const std::vector<WorkloadReport> family = siblings(report);
      ASSERT_FALSE(family.empty());
      double total = 0, sq = 0, cube = 0, chosen = -1;
      for (const WorkloadReport& s : family) {
        const double p = strategy.Probability(x, s);
        total += p;
        sq += p * p;
        cube += p * p * p;
        if (s == report) chosen = p;
      }
      ASSERT_NEAR(total, 1.0, 1e-9) << "item " << x;
      ASSERT_GE(chosen, 0) << "sample not among its siblings";
      chosen_sum += chosen - sq;
      chosen_var += cube - sq * sq;
      const double p0 = strategy.Probability(x, family[0]);
      first_sum += (report == family[0] ? 1.0 : 0.0) - p0;
      first_var += p0 * (1 - p0);
    }
    EXPECT_LE(std::abs(chosen_sum), 5 * std::sqrt(chosen_var) + 1e-9)
        << strategy.Describe() << " item " << x;
    EXPECT_LE(std::abs(first_sum), 5 * std::sqrt(first_var) + 1e-9)
        << strategy.Describe() << " item " << x;
  }
}

// (b'') For every pair (x, x') of `items`: over `draws` reports r ~ R(x),
// the mean of P(x', r)/P(x, r) is 1 (5σ; the ratio lies in
// [e^{−ε}, e^{ε}]). Holds whenever the public part is drawn independently
// of the item, so it also checks that.
inline void ExpectLikelihoodRatiosAverageToOne(
    const StrategyRandomizer& strategy, const std::vector<uint32_t>& items,
    int draws, uint64_t seed) {
  SeededGenerator gen(seed);
  const double half_range =
      (std::exp(strategy.epsilon()) - std::exp(-strategy.epsilon())) / 2;
  for (uint32_t x : items) {
    std::vector<RunningMoments> moments(items.size());
    for (int i = 0; i < draws; ++i) {
      const WorkloadReport report = strategy.Randomize(x, gen);
      const double p = strategy.Probability(x, report);
      ASSERT_GT(p, 0) << "a sample has probability zero";
      for (size_t j = 0; j < items.size(); ++j) {
        moments[j].Add(strategy.Probability(items[j], report) / p);
      }
    }
    for (size_t j = 0; j < items.size(); ++j) {
      EXPECT_LE(std::abs(moments[j].mean() - 1),
                5 * half_range / std::sqrt(static_cast<double>(draws)))
          << strategy.Describe() << " x " << x << " x' " << items[j];
    }
  }
}

// With the same seed, every item uses exactly as many draws (the group is
// sampled without looking at the item; DESIGN invariant 8).
inline void ExpectStrategyDrawCountIndependentOfItem(
    const StrategyRandomizer& strategy, int calls_per_item = 50) {
  std::vector<int64_t> draws;
  for (uint32_t x = 0; x < strategy.domain_size(); ++x) {
    CountingGenerator gen(1234);
    for (int i = 0; i < calls_per_item; ++i) strategy.Randomize(x, gen);
    draws.push_back(gen.draws());
  }
  for (uint32_t x = 1; x < strategy.domain_size(); ++x) {
    EXPECT_EQ(draws[x], draws[0]) << strategy.Describe() << " item " << x;
  }
}

// Items past the domain behave exactly like the last item.
inline void ExpectStrategyClampsOutOfRangeItems(
    const StrategyRandomizer& strategy) {
  const uint32_t last = strategy.domain_size() - 1;
  SeededGenerator a(99), b(99);
  for (int i = 0; i < 100; ++i) {
    const WorkloadReport clamped =
        strategy.Randomize(last + 1 + static_cast<uint32_t>(i), a);
    EXPECT_EQ(clamped, strategy.Randomize(last, b));
    EXPECT_EQ(strategy.Probability(~uint32_t{0}, clamped),
              strategy.Probability(last, clamped));
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_RANDOMIZER_CHECKS_H_
