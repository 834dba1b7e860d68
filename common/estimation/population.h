// Synthetic populations for simulations, benchmarks and statistical tests.
//
// Nothing here is privacy-critical (it stands in for the agents' true
// records), so it may use floating-point sampling freely.
#ifndef LDP_COMMON_ESTIMATION_POPULATION_H_
#define LDP_COMMON_ESTIMATION_POPULATION_H_

#include <cstdint>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp {

// Bounded Zipf: P(i) ∝ (i + 1)^(−exponent) for i in [0, N).
absl::StatusOr<std::vector<double>> ZipfDistribution(uint32_t domain_size,
                                                     double exponent);

// n independent items drawn from `probabilities` (which must sum to ~1).
std::vector<uint32_t> SampleItems(absl::Span<const double> probabilities,
                                  int64_t n, absl::BitGenRef gen);

// True frequencies count(v) / n of a sample.
std::vector<double> EmpiricalFrequencies(absl::Span<const uint32_t> items,
                                         uint32_t domain_size);

// Mean squared error over items: (1/N) Σ_v (estimate_v − truth_v)².
double MeanSquaredError(absl::Span<const double> estimate,
                        absl::Span<const double> truth);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_POPULATION_H_
