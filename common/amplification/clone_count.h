// The law of the clone count C ~ Bin(n − 1, e^−ε0) (clone_divergence.h),
// cut into blocks of consecutive values for the numerical bound.
//
// Why blocks: δ(ε) = Σ_c Pr[C = c]·D_c(ε) has n terms, but C lives within a
// few standard deviations of its mean and D_c changes slowly there, so the
// bound charges each block its mass times the larger D at its two ends
// (numerical_bound.h). Only C's range that carries probability is covered:
// the rest, bounded by Chernoff, is charged in full.
#ifndef LDP_COMMON_AMPLIFICATION_CLONE_COUNT_H_
#define LDP_COMMON_AMPLIFICATION_CLONE_COUNT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ldp {

struct CloneCountBlocks {
  // Block i holds the clone counts in [edges[i], edges[i + 1]).
  std::vector<int64_t> edges;
  // masses[i] ≥ Pr[C in block i].
  std::vector<double> masses;
  // ≥ Pr[C < edges.front() or C ≥ edges.back()].
  double outside_mass = 0;
  // The block with the largest mass.
  size_t peak = 0;
  // The values of C per block (the last block may be shorter).
  int64_t step = 1;
};

// The step chosen when none is given: max(1, ⌊sd(C)/32⌋), 32 blocks per
// standard deviation of C, about 500 blocks in all. D_c's relative change
// over one block is then small where C has its mass (prototype: the bound
// moves by < 1e-4 relative against step 1 at n = 10^5 and 10^6).
int64_t AdaptiveCloneStep(double epsilon0, int64_t n);

// Blocks over C ~ Bin(n − 1, e^−ε0) covering all but `outside_mass` of its
// probability (0 < outside_mass < 1); step ≥ 1, or 0 for AdaptiveCloneStep.
// Guarantee: the masses and outside_mass are upper bounds (the masses are
// normalized to the covered range, which holds at most 1 − Pr[outside], and
// inflated for the rounding of the ratio recurrence). Inputs are validated
// by the caller (shuffle_inputs.h).
CloneCountBlocks MakeCloneCountBlocks(double epsilon0, int64_t n, int64_t step,
                                      double outside_mass);

}  // namespace ldp

#endif  // LDP_COMMON_AMPLIFICATION_CLONE_COUNT_H_
