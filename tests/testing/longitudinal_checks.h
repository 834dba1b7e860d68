// Checks every longitudinal oracle
// (common/mechanisms/longitudinal/longitudinal_oracle.h) must pass, on an
// enumerated small case: the memo alone is exactly ε∞-private, the two layers
// compose to Probability(), and any number of reports drawn from one memo
// together stay within ε∞. `memos` and `reports` must be every memo and every
// report sharing one set of public components (e.g. one hash seed).
#ifndef LDP_TESTS_TESTING_LONGITUDINAL_CHECKS_H_
#define LDP_TESTS_TESTING_LONGITUDINAL_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/mechanisms/longitudinal/longitudinal_oracle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// Create rejects, with InvalidArgument naming the field: ε∞ not finite in
// (0, Oracle::kMaxEpsilon], ε1 not finite in (0, ε∞), and N outside
// [2, Oracle::kMaxDomainSize].
template <typename Oracle>
void ExpectCreateRejectsBadEpsilonsAndDomain() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double permanent : {0.0, -1.0, nan, Oracle::kMaxEpsilon + 1}) {
    auto oracle = Oracle::Create({.epsilon_permanent = permanent,
                                  .epsilon_report = 0.5,
                                  .domain_size = 8});
    EXPECT_THAT(oracle, StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_THAT(std::string(oracle.status().message()),
                ::testing::HasSubstr("epsilon_permanent"));
  }
  for (double report : {0.0, -1.0, nan, 2.0, 3.0}) {
    auto oracle = Oracle::Create(
        {.epsilon_permanent = 2, .epsilon_report = report, .domain_size = 8});
    EXPECT_THAT(oracle, StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_THAT(std::string(oracle.status().message()),
                ::testing::HasSubstr("epsilon_report"));
  }
  for (uint32_t n : {0u, 1u, Oracle::kMaxDomainSize + 1}) {
    EXPECT_THAT(
        Oracle::Create(
            {.epsilon_permanent = 2, .epsilon_report = 1, .domain_size = n}),
        StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

inline std::vector<uint32_t> AllItems(const FrequencyOracle& oracle) {
  std::vector<uint32_t> items;
  for (uint32_t v = 0; v < oracle.domain_size(); ++v) items.push_back(v);
  return items;
}

// Max over items of MemoProbability ratios is e^{ε∞} exactly, at most
// e^{requested}, and each item's memo probabilities sum to 1.
inline void ExpectMemoIsEpsilonInfinityPrivate(
    const FrequencyOracle& oracle, const LongitudinalOracle& longitudinal,
    const std::vector<FrequencyReport>& memos, double requested) {
  const std::vector<uint32_t> items = AllItems(oracle);
  const double ratio = MaxProbabilityRatio<uint32_t, FrequencyReport>(
      items, memos, [&](const uint32_t& v, const FrequencyReport& m) {
        return longitudinal.MemoProbability(v, m);
      });
  EXPECT_LE(ratio, std::exp(requested) * (1 + 1e-9));
  EXPECT_NEAR(std::log(ratio), longitudinal.epsilon_infinity(), 1e-9);
  EXPECT_LE(longitudinal.epsilon_infinity(), requested);
  EXPECT_GT(longitudinal.epsilon_infinity(), requested - 1e-6);
  for (uint32_t v : items) {
    double total = 0;
    for (const FrequencyReport& m : memos) {
      ASSERT_OK(longitudinal.ValidateMemo(m));
      total += longitudinal.MemoProbability(v, m);
    }
    EXPECT_NEAR(total, 1.0, 1e-12) << "item " << v;
  }
}

// Σ_memo Pr[memo | v] · Pr[w | memo] = Pr[w | v] for every item and report,
// and each memo's report probabilities sum to 1.
inline void ExpectLayersComposeToProbability(
    const FrequencyOracle& oracle, const LongitudinalOracle& longitudinal,
    const std::vector<FrequencyReport>& memos,
    const std::vector<FrequencyReport>& reports) {
  for (uint32_t v : AllItems(oracle)) {
    for (const FrequencyReport& w : reports) {
      double total = 0;
      for (const FrequencyReport& m : memos) {
        total += longitudinal.MemoProbability(v, m) *
                 longitudinal.ProbabilityFromMemo(m, w);
      }
      EXPECT_NEAR(total, oracle.Probability(v, w), 1e-12) << "item " << v;
    }
  }
  for (const FrequencyReport& m : memos) {
    double total = 0;
    for (const FrequencyReport& w : reports) {
      total += longitudinal.ProbabilityFromMemo(m, w);
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
  }
}

// T reports from one memo: Pr[w_1..w_T | v] = Σ_m Pr[m | v] Π_t Pr[w_t | m].
// The joint ratio never passes e^{ε∞}; with `exact_first` (outputs that
// separate two items) it is e^{ε1} at T = 1 and grows with T.
inline void ExpectRepeatedReportsStayWithinEpsilonInfinity(
    const FrequencyOracle& oracle, const LongitudinalOracle& longitudinal,
    const std::vector<FrequencyReport>& memos,
    const std::vector<FrequencyReport>& reports, int max_reports,
    bool exact_first = true) {
  const std::vector<uint32_t> items = AllItems(oracle);
  const auto size = static_cast<int64_t>(reports.size());
  double previous = 1;
  for (int t = 1; t <= max_reports; ++t) {
    SCOPED_TRACE(::testing::Message() << "T " << t);
    const auto count =
        static_cast<int64_t>(std::pow(static_cast<double>(size), t));
    std::vector<int64_t> sequences(count);
    for (int64_t s = 0; s < count; ++s) sequences[s] = s;
    const double ratio = MaxProbabilityRatio<uint32_t, int64_t>(
        items, sequences, [&](const uint32_t& v, const int64_t& s) {
          double total = 0;
          for (const FrequencyReport& m : memos) {
            double joint = longitudinal.MemoProbability(v, m);
            for (int64_t rest = s, i = 0; i < t; ++i, rest /= size) {
              joint *=
                  longitudinal.ProbabilityFromMemo(m, reports[rest % size]);
            }
            total += joint;
          }
          return total;
        });
    EXPECT_LE(ratio, std::exp(longitudinal.epsilon_infinity()) * (1 + 1e-9));
    if (!exact_first) continue;
    if (t == 1) {
      EXPECT_NEAR(std::log(ratio), oracle.epsilon(), 1e-9);
    } else {
      EXPECT_GT(ratio, previous);
    }
    previous = ratio;
  }
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_LONGITUDINAL_CHECKS_H_
