// Support counts of a pure protocol's reports, drawn without running a
// randomizer: for the estimator tests that need noisy counts of a known
// histogram (frequency_mle_test, iterative_bayesian_update_test).
#ifndef LDP_TESTS_TESTING_ZIPF_SUPPORT_COUNTS_H_
#define LDP_TESTS_TESTING_ZIPF_SUPPORT_COUNTS_H_

#include <cstdint>
#include <random>
#include <vector>

#include "common/estimation/population.h"
#include "common/estimation/pure_protocol.h"

namespace ldp::testing {

// n reports on Zipf(1.1) over d items: C_v ~ Binomial(n, q + (p − q)·f_v),
// seeded.
inline std::vector<int64_t> ZipfSupportCounts(const PureProtocol& channel,
                                              int d, int64_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  const std::vector<double> zipf =
      *ZipfDistribution(static_cast<uint32_t>(d), 1.1);  // d ≥ 1 here
  std::vector<int64_t> counts(d);
  for (int v = 0; v < d; ++v) {
    counts[v] = std::binomial_distribution<int64_t>(
        n, channel.q + (channel.p - channel.q) * zipf[v])(gen);
  }
  return counts;
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_ZIPF_SUPPORT_COUNTS_H_
