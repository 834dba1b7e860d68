// RS+FD[GRR] as the server's linear strategy (the agent's randomizer is
// fake_data_randomizer.h). A stacks the attributes' 1-way marginal
// indicators: row (j, v) of A is 1[x_j = v], K = Σ_j k_j rows. A report's
// tuple y decodes to z_{jv} = (d·1[y_j = v] − q_j − (d − 1)/k_j)/(p_j − q_j),
// unbiased for A·e_x because attribute j is real with probability 1/d and
// uniform otherwise.
//
// Its covariance depends on the data only through the marginals m = A·h:
// given the sampled attribute the reported values are independent, so
//   Pr[y_j = v, y_i = w] = (1/d)·[g_{jv}/k_i + g_{iw}/k_j + (d − 2)/(k_j k_i)]
// for i ≠ j, with g_{jv} = q_j + (p_j − q_j)·m_{jv}, and the variance of any
// r·ŷ is an O(K) sum (fake_data_strategy.cc). One cell's variance at
// frequency f over agents drawn i.i.d. is the paper's
// d²·π(1 − π)/(n(p − q)²) with π = (q + f(p − q))/d + (d − 1)/(d·k); for a
// fixed population, as the frequency oracles state theirs, the spread of
// the agents' own π_i takes f(1 − f)/n off it.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_

#include <cstdint>
#include <memory>

#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/fake_data_randomizer.h"

namespace ldp {

// The linear structure around an agent's randomizer (shared, not copied).
std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const FakeDataRandomizer> randomizer);

// Closed-form Var[f̂] of one marginal cell of attribute j at true frequency
// f with n reports, for a fixed population of n agents (FrequencyOracle's
// convention): [d²·π(1 − π)/(p − q)² − f(1 − f)]/n.
double FakeDataCellVariance(const FakeDataRandomizer& randomizer, uint32_t j,
                            double frequency, int64_t num_reports);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_
