// A strategy as a task carries it, in plain types: what the agent needs to
// build the very same randomizer the server decodes (strategy_factory.h).
#ifndef LDP_COMMON_WORKLOAD_SPECS_STRATEGY_SPEC_H_
#define LDP_COMMON_WORKLOAD_SPECS_STRATEGY_SPEC_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace ldp {

enum class StrategyKind {
  // One group: the item through randomized response or unary encoding,
  // whichever has the lower variance at (ε, N).
  kIdentity,
  // b-ary tree over the padded domain [b^h]; each agent samples one level
  // 1..h uniformly and reports its ancestor there (Cormode–Kulkarni–
  // Srivastava HH_b with user sampling).
  kHierarchical,
  // Haar wavelet over [2^L] (padded): each agent samples a detail level
  // uniformly and a public Hadamard row within it, and sends one randomized
  // sign (HaarHRR).
  kHaar,
  // Fourier basis over {0,1}^d: each agent samples a parity T, 1 ≤ |T| ≤ k,
  // with probability level_weights[|T|−1] / C(d, |T|), and sends its
  // randomized parity bit.
  kFourier,
  // An optimized finite output distribution Q (rows × N, column-
  // stochastic): the agent sends one output index.
  kMatrix,
  // A factorization's strategy A (rows × N) with the ℓ2-ball randomizer of
  // Duchi, Jordan and Wainwright: a public random direction and one sign.
  kFactorization,
  // Random sampling plus fake data over d categorical attributes whose
  // sizes multiply to N (fake_data_randomizer.h): the agent reports one
  // sampled attribute through GRR and a uniform fake value for every
  // other, as one item of [N]. Estimates the attributes' 1-way marginals.
  kRandomSamplingFakeData,
  // Attribute sampling (SMP) over the same d attributes: the agent samples
  // one attribute uniformly and reports it, and which one it is, through
  // GRR or OUE over [k_j] (a grouped strategy, one level per attribute).
  // Estimates the 1-way marginals; RS+FD's report is this one with the
  // attribute hidden behind fake values, so at the same ε this one is at
  // least as accurate.
  kAttributeSampling,
  // RS+FD with unary-encoded fake data (unary_fake_data_randomizer.h): the
  // agent reports every attribute as a block of k_j OUE bits, the sampled
  // one from its value and the others from fake data: a zero vector
  // (kFakeDataUnaryZero, RS+FD[OUE-z]) or a uniform one-hot vector
  // (kFakeDataUnaryRandom, RS+FD[OUE-r]). Same marginals as
  // kRandomSamplingFakeData; which of the three forms is most accurate
  // depends on ε and the sizes.
  kFakeDataUnaryZero,
  kFakeDataUnaryRandom,
};

// The three RS+FD forms.
inline bool IsFakeDataKind(StrategyKind kind) {
  return kind == StrategyKind::kRandomSamplingFakeData ||
         kind == StrategyKind::kFakeDataUnaryZero ||
         kind == StrategyKind::kFakeDataUnaryRandom;
}

// The strategies over d categorical attributes (attribute_sizes).
inline bool IsAttributeKind(StrategyKind kind) {
  return IsFakeDataKind(kind) || kind == StrategyKind::kAttributeSampling;
}

std::string_view StrategyKindName(StrategyKind kind);

// Largest matrix (rows × N entries) a task may carry: 2 MiB of doubles, so a
// task fits gRPC's default 4 MiB message with room to spare.
inline constexpr uint64_t kMaxStrategyMatrixEntries = uint64_t{1} << 18;
// Largest matrix the factory builds in process (servers plan with the wire
// limit above; benchmarks and planning tools go up to N = 1024 with K = 4N
// outputs): 2^23 doubles, 64 MiB.
inline constexpr uint64_t kMaxInProcessStrategyMatrixEntries = uint64_t{1}
                                                               << 23;

// IsAttributeKind: 1 to this many attributes,
// each of 2 or more values (so 2^12 = kMaxWorkloadDomainSize bounds the
// count).
inline constexpr uint32_t kMaxStrategyAttributes = 12;

struct StrategySpec {
  StrategyKind kind = StrategyKind::kIdentity;
  double epsilon = 0;
  uint32_t domain_size = 0;               // N
  uint32_t branching = 0;                 // kHierarchical: b ≥ 2
  uint32_t num_bits = 0;                  // kFourier: d (N = 2^d)
  uint32_t order = 0;                     // kFourier: k
  std::vector<double> level_weights;      // kFourier: k positive weights
  uint32_t rows = 0;                      // kMatrix, kFactorization
  std::vector<double> matrix;             // row-major rows × N
  std::vector<uint32_t> attribute_sizes;  // IsAttributeKind: k_j
  friend bool operator==(const StrategySpec&, const StrategySpec&) = default;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_SPECS_STRATEGY_SPEC_H_
