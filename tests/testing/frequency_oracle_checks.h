// Checks every frequency oracle must pass (frequency_oracle.h contract):
// exact ε by enumeration, samples that follow Probability(), an unbiased
// estimator with its closed-form variance, rejection of malformed reports,
// and mergeable accumulators and stored states. Thresholds follow
// statistics.h (5 standard errors, χ² at 1 − 1e-6).
#ifndef LDP_TESTS_TESTING_FREQUENCY_ORACLE_CHECKS_H_
#define LDP_TESTS_TESTING_FREQUENCY_ORACLE_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "common/estimation/accumulator_state.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "gtest/gtest.h"
#include "tests/testing/accumulator_state_checks.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// A seeded generator that counts its draws, to show that the number of
// coins a randomizer uses does not depend on its input.
class CountingGenerator {
 public:
  using result_type = SeededGenerator::result_type;
  static constexpr result_type min() { return SeededGenerator::min(); }
  static constexpr result_type max() { return SeededGenerator::max(); }
  explicit CountingGenerator(uint64_t seed) : gen_(seed) {}
  result_type operator()() {
    ++draws_;
    return gen_();
  }
  int64_t draws() const { return draws_; }

 private:
  SeededGenerator gen_;
  int64_t draws_ = 0;
};

// Create rejects ε that is not finite and > 0 or so small that its coins
// cannot tell items apart, and domains of fewer than 2 or more than
// Oracle::kMaxDomainSize items, with InvalidArgument.
template <typename Oracle>
void ExpectCreateRejectsBadEpsilonAndDomain() {
  for (double epsilon : {0.0, -1.0, std::nan(""),
                         std::numeric_limits<double>::infinity(), 1e-12}) {
    EXPECT_THAT(Oracle::Create({.epsilon = epsilon, .domain_size = 8}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << epsilon;
  }
  for (uint32_t n : {0u, 1u, Oracle::kMaxDomainSize + 1}) {
    EXPECT_THAT(Oracle::Create({.epsilon = 1, .domain_size = n}),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << n;
  }
}

// With the same seed, every input uses exactly as many draws.
inline void ExpectDrawCountIndependentOfInput(const FrequencyOracle& oracle,
                                              int calls_per_input = 50) {
  std::vector<int64_t> draws;
  for (uint32_t v = 0; v < oracle.domain_size(); ++v) {
    CountingGenerator gen(1234);
    for (int i = 0; i < calls_per_input; ++i) oracle.Randomize(v, gen);
    draws.push_back(gen.draws());
  }
  for (uint32_t v = 1; v < oracle.domain_size(); ++v) {
    EXPECT_EQ(draws[v], draws[0]) << "input " << v;
  }
}

// Items past the domain behave exactly like the last item.
inline void ExpectOutOfRangeItemsClampToLast(const FrequencyOracle& oracle) {
  const uint32_t last = oracle.domain_size() - 1;
  SeededGenerator a(99), b(99);
  for (int i = 0; i < 100; ++i) {
    const FrequencyReport clamped = oracle.Randomize(last + 1 + i, a);
    EXPECT_EQ(clamped, oracle.Randomize(last, b));
    EXPECT_EQ(oracle.Probability(~uint32_t{0}, clamped),
              oracle.Probability(last, clamped));
  }
}

// Over every input and every output in `outputs` (which must be all of
// them): the max likelihood ratio is e^epsilon() (so epsilon() is the
// implemented ε, not just a bound), at most e^requested, within
// `max_rounding_loss` of the requested ε, and each input's probabilities sum
// to 1. (2^-32 coins lose about 2^-32/min(p, 1 − p) of ε, which exceeds the
// default 1e-6 only when a coin probability is below ~4e-4.)
inline void ExpectExactPrivacy(const FrequencyOracle& oracle,
                               const std::vector<FrequencyReport>& outputs,
                               double requested_epsilon,
                               double max_rounding_loss = 1e-6) {
  std::vector<uint32_t> inputs;
  for (uint32_t v = 0; v < oracle.domain_size(); ++v) inputs.push_back(v);
  const double ratio = MaxProbabilityRatio<uint32_t, FrequencyReport>(
      inputs, outputs, [&](const uint32_t& v, const FrequencyReport& w) {
        return oracle.Probability(v, w);
      });
  EXPECT_LE(ratio, std::exp(requested_epsilon) * (1 + 1e-9));
  EXPECT_NEAR(std::log(ratio), oracle.epsilon(), 1e-9);
  EXPECT_LE(oracle.epsilon(), requested_epsilon);
  EXPECT_LE(requested_epsilon - oracle.epsilon(), max_rounding_loss);
  for (uint32_t v : inputs) {
    double total = 0;
    for (const FrequencyReport& w : outputs) {
      ASSERT_OK(oracle.Validate(w));
      total += oracle.Probability(v, w);
    }
    EXPECT_NEAR(total, 1.0, 1e-9) << "input " << v;
  }
}

// Pearson χ² of `draws` samples of `sample` against `probability` over the
// outputs; `index_of` maps a sample to its position in `outputs` (or −1 for
// an output that should be impossible, which fails the check).
template <typename Report>
ChiSquareResult ChiSquareOfSamples(
    const std::vector<Report>& outputs, int draws,
    const std::function<Report()>& sample,
    const std::function<double(const Report&)>& probability,
    const std::function<int64_t(const Report&)>& index_of) {
  std::vector<double> observed(outputs.size(), 0), expected;
  for (const Report& w : outputs) expected.push_back(draws * probability(w));
  int impossible = 0;
  for (int i = 0; i < draws; ++i) {
    const int64_t index = index_of(sample());
    if (index < 0) {
      ++impossible;
    } else {
      observed[index] += 1;
    }
  }
  EXPECT_EQ(impossible, 0);
  return ChiSquare(observed, expected);
}

// Randomize(item) for each item in `items` against Probability(item, ·).
inline void ExpectSamplesFollowProbability(
    const FrequencyOracle& oracle, const std::vector<FrequencyReport>& outputs,
    const std::vector<uint32_t>& items, int draws_per_item,
    const std::function<int64_t(const FrequencyReport&)>& index_of,
    uint64_t seed) {
  SeededGenerator gen(seed);
  for (uint32_t item : items) {
    const ChiSquareResult result = ChiSquareOfSamples<FrequencyReport>(
        outputs, draws_per_item, [&] { return oracle.Randomize(item, gen); },
        [&](const FrequencyReport& w) { return oracle.Probability(item, w); },
        index_of);
    EXPECT_TRUE(result.Passes())
        << "item " << item << ": chi2 " << result.statistic << " df "
        << result.degrees_of_freedom;
  }
}

// A fixed population (counts[v] agents hold item v) randomized and estimated
// `repetitions` times. Per item: the mean is within 5 standard errors of the
// truth and the empirical variance within 10% of `variance(f_v, n)` (by
// default oracle.Variance; needs repetitions ≳ 5000: the sample variance's
// relative SD is √(2/(R − 1))).
inline void ExpectUnbiasedWithClosedFormVariance(
    const FrequencyOracle& oracle, const std::vector<int64_t>& counts,
    int repetitions, uint64_t seed,
    std::function<double(double, int64_t)> variance = nullptr) {
  ASSERT_GE(repetitions, 5000);
  if (!variance) {
    variance = [&oracle](double f, int64_t n) { return oracle.Variance(f, n); };
  }
  SeededGenerator gen(seed);
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  std::vector<RunningMoments> moments(counts.size());
  for (int r = 0; r < repetitions; ++r) {
    const std::unique_ptr<FrequencyAccumulator> accumulator =
        oracle.NewAccumulator();
    for (uint32_t v = 0; v < counts.size(); ++v) {
      for (int64_t i = 0; i < counts[v]; ++i) {
        ASSERT_OK(accumulator->Add(oracle.Randomize(v, gen)));
      }
    }
    const HistogramEstimate estimate = accumulator->Estimate();
    ASSERT_EQ(estimate.num_reports, n);
    for (size_t v = 0; v < counts.size(); ++v) {
      moments[v].Add(estimate.frequencies[v]);
    }
  }
  for (size_t v = 0; v < counts.size(); ++v) {
    const double f = static_cast<double>(counts[v]) / n;
    const double expected = variance(f, n);
    EXPECT_LE(std::abs(moments[v].mean() - f),
              5 * std::sqrt(expected / repetitions))
        << "item " << v << " mean " << moments[v].mean() << " truth " << f;
    EXPECT_NEAR(moments[v].variance() / expected, 1.0, 0.1)
        << "item " << v << " empirical variance " << moments[v].variance()
        << " closed form " << expected;
  }
}

inline void ExpectSameEstimate(const HistogramEstimate& a,
                               const HistogramEstimate& b) {
  EXPECT_EQ(a.num_reports, b.num_reports);
  EXPECT_EQ(a.epsilon, b.epsilon);
  EXPECT_EQ(a.frequencies, b.frequencies);
  EXPECT_EQ(a.variances, b.variances);
}

// Each malformed report: Validate says InvalidArgument, Probability is 0, and
// Add to `accumulator` (of `oracle`, holding any reports) fails without
// changing its estimate.
inline void ExpectMalformedReportsRejectedBy(
    const FrequencyOracle& oracle, FrequencyAccumulator& accumulator,
    const std::vector<FrequencyReport>& malformed) {
  const HistogramEstimate before = accumulator.Estimate();
  for (size_t i = 0; i < malformed.size(); ++i) {
    SCOPED_TRACE("malformed report #" + std::to_string(i));
    EXPECT_THAT(oracle.Validate(malformed[i]),
                StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_EQ(oracle.Probability(0, malformed[i]), 0.0);
    EXPECT_THAT(accumulator.Add(malformed[i]),
                StatusIs(absl::StatusCode::kInvalidArgument));
    ExpectSameEstimate(accumulator.Estimate(), before);
  }
}

// The same, for an accumulator holding one report of every item.
inline void ExpectMalformedReportsRejected(
    const FrequencyOracle& oracle,
    const std::vector<FrequencyReport>& malformed) {
  SeededGenerator gen(17);
  const std::unique_ptr<FrequencyAccumulator> accumulator =
      oracle.NewAccumulator();
  for (uint32_t v = 0; v < oracle.domain_size(); ++v) {
    ASSERT_OK(accumulator->Add(oracle.Randomize(v, gen)));
  }
  ExpectMalformedReportsRejectedBy(oracle, *accumulator, malformed);
}

// ExpectStatesMergeLikeAccumulatorsOf (accumulator_state_checks.h) for
// accumulators of `oracle`.
inline void ExpectStatesMergeLikeAccumulators(
    const FrequencyOracle& oracle, const FrequencyAccumulator& all,
    const FrequencyAccumulator& left, const FrequencyAccumulator& right,
    FrequencyAccumulator& via_states) {
  ExpectStatesMergeLikeAccumulatorsOf(
      [&oracle] { return oracle.NewAccumulator(); }, all, left, right,
      via_states,
      [](const HistogramEstimate& a, const HistogramEstimate& b) {
        ExpectSameEstimate(a, b);
      });
}

// `num_reports` reports of items i mod `num_items`, added to `all` and split
// 1:2 over `left` and `right` (empty accumulators of `oracle`): merging
// `right` into `left` estimates exactly what `all` does, and merging their
// states (ExpectStatesMergeLikeAccumulators) leaves exactly what the merge
// does.
inline void ExpectMergedSplitEqualsAll(const FrequencyOracle& oracle,
                                       FrequencyAccumulator& all,
                                       FrequencyAccumulator& left,
                                       FrequencyAccumulator& right,
                                       uint32_t num_items, int num_reports,
                                       absl::BitGenRef gen) {
  for (int i = 0; i < num_reports; ++i) {
    const FrequencyReport report =
        oracle.Randomize(static_cast<uint32_t>(i) % num_items, gen);
    ASSERT_OK(all.Add(report));
    ASSERT_OK((i % 3 == 0 ? left : right).Add(report));
  }
  const std::unique_ptr<FrequencyAccumulator> via_states =
      oracle.NewAccumulator();
  ExpectStatesMergeLikeAccumulators(oracle, all, left, right, *via_states);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_OK(left.Merge(right));
  EXPECT_EQ(left.num_reports(), num_reports);
  ExpectSameEstimate(left.Estimate(), all.Estimate());
  // a.MergeState(b.State()) is a.Merge(b).
  EXPECT_TRUE(via_states->State() == left.State());
  ExpectSameEstimate(via_states->Estimate(), left.Estimate());
}

// Reports split over two accumulators and merged estimate exactly what one
// accumulator of all of them does; merging an accumulator of any oracle in
// `others` (different kind or parameters) is InvalidArgument and changes
// nothing.
inline void ExpectMergeEqualsSingleAccumulator(
    const FrequencyOracle& oracle,
    const std::vector<const FrequencyOracle*>& others, int num_reports) {
  SeededGenerator gen(23);
  const std::unique_ptr<FrequencyAccumulator> all = oracle.NewAccumulator();
  const std::unique_ptr<FrequencyAccumulator> left = oracle.NewAccumulator();
  const std::unique_ptr<FrequencyAccumulator> right = oracle.NewAccumulator();
  ExpectMergedSplitEqualsAll(oracle, *all, *left, *right, oracle.domain_size(),
                             num_reports, gen);
  if (::testing::Test::HasFatalFailure()) return;
  for (const FrequencyOracle* other : others) {
    const std::unique_ptr<FrequencyAccumulator> foreign =
        other->NewAccumulator();
    ASSERT_OK(foreign->Add(other->Randomize(0, gen)));
    EXPECT_THAT(left->Merge(*foreign),
                StatusIs(absl::StatusCode::kInvalidArgument));
    ExpectSameEstimate(left->Estimate(), all->Estimate());
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_FREQUENCY_ORACLE_CHECKS_H_
