// The three RS+FD forms as the server's linear strategy (the agent's
// randomizers are fake_data_randomizer.h, GRR, and
// unary_fake_data_randomizer.h, OUE-z and OUE-r). A stacks the attributes'
// 1-way marginal indicators: row (j, v) of A is 1[x_j = v], K = Σ_j k_j
// rows. A report gives each cell an indicator u_{jv} (y_j = v, or bit v of
// block j), which decodes to z_{jv} = (d·u_{jv} − q_j − (d − 1)·κ_{jv})/
// (p_j − q_j), unbiased for A·e_x because attribute j is real with
// probability 1/d and fake otherwise; κ is a fake's chance to set the
// cell: 1/k_j (GRR), q (OUE-z) or (p + (k_j − 1)q)/k_j (OUE-r).
//
// The covariance depends on the data only through the marginals m = A·h:
// given the sampled attribute the blocks are independent, so
//   E[u_{jv}·u_{iw}] = (1/d)·[g_{jv}·κ_{iw} + κ_{jv}·g_{iw}] + (d − 2)/d·κκ
// for i ≠ j, with g_{jv} = q_j + (p_j − q_j)·m_{jv}; within a block two GRR
// cells are never both set, and two unary bits are set together with
// probability (1/d)·[q² + q(p − q)(m_v + m_w)] + (d − 1)/d·φ, φ = q²
// (OUE-z) or q² + 2q(p − q)/k_j (OUE-r). So the variance of any r·ŷ is an
// O(K) sum (fake_data_strategy.cc). One cell's variance at frequency f
// over agents drawn i.i.d. is the paper's d²·π(1 − π)/(n(p − q)²) with
// π = (q + f(p − q))/d + (d − 1)κ/d; for a fixed population, as the
// frequency oracles state theirs, the spread of the agents' own π_i takes
// f(1 − f)/n off it.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "common/workload/strategies/strategy.h"
#include "common/workload/strategy_randomizers/fake_data_randomizer.h"
#include "common/workload/strategy_randomizers/unary_fake_data_randomizer.h"

namespace ldp {

// The linear structure around an agent's randomizer (shared, not copied).
std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const FakeDataRandomizer> randomizer);
std::unique_ptr<StrategyMechanism> FakeDataStrategyFor(
    std::shared_ptr<const UnaryFakeDataRandomizer> randomizer);

// Closed-form Var[f̂] of one marginal cell of attribute j at true frequency
// f with n reports, for a fixed population of n agents (FrequencyOracle's
// convention): [d²·π(1 − π)/(p − q)² − f(1 − f)]/n. nullopt unless
// `randomizer` is one of the RS+FD forms.
std::optional<double> FakeDataCellVariance(const StrategyRandomizer& randomizer,
                                           uint32_t j, double frequency,
                                           int64_t num_reports);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_FAKE_DATA_STRATEGY_H_
