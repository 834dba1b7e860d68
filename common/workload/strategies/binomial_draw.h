// An exact binomial draw for the strategies' sufficient-statistic samplers
// (grouped_strategy.cc, matrix_strategy.cc), which simulate many agents'
// reports at once in benchmarks and the planner's simulations. Never a
// privacy coin: agents draw through coin.h.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_BINOMIAL_DRAW_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_BINOMIAL_DRAW_H_

#include <cstdint>
#include <random>

#include "absl/random/bit_gen_ref.h"

namespace ldp {

// Binomial(trials, probability); 0 for no trials or p ≤ 0, all for p ≥ 1.
inline int64_t DrawBinomial(int64_t trials, double probability,
                            absl::BitGenRef gen) {
  if (trials <= 0 || probability <= 0) return 0;
  if (probability >= 1) return trials;
  return std::binomial_distribution<int64_t>(trials, probability)(gen);
}

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_BINOMIAL_DRAW_H_
