// Internals of Workload (workload.h) shared by its implementation files:
// the data behind a Workload and the index arithmetic every product uses
// (record bits, range rows, marginal cells, the Walsh–Hadamard transform).
// Include only from common/workload/workload*.cc.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_INTERNAL_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "Eigen/Core"
#include "common/mechanisms/frequency/walsh_hadamard.h"
#include "common/workload/specs/workload_spec.h"
#include "common/workload/strategies/workload.h"

namespace ldp {

struct Workload::Data {
  WorkloadSpec spec;
  uint32_t n = 0;  // N
  uint64_t m = 0;
  uint32_t d = 0;  // bit workloads
  uint32_t k = 0;
  // Marginals: one entry per k-subset S; parities: one per parity T. The
  // record bit indices (lexicographic) and the same set as a mask over x.
  std::vector<std::vector<uint32_t>> subsets;
  std::vector<uint32_t> masks;
  Eigen::MatrixXd custom;  // m×N: custom and attribute marginals
};

namespace workload_internal {

// Record bit i is bit d−1−i of x (workload.h).
inline uint32_t XBit(uint32_t d, uint32_t record_bit) {
  return uint32_t{1} << (d - 1 - record_bit);
}

// First row index of ranges starting at a: Σ_{a'<a} (N − a').
inline uint64_t RangeOffset(uint64_t n, uint64_t a) {
  return a * n - a * (a - 1) / 2;
}

inline std::pair<uint32_t, uint32_t> RangeAt(uint32_t n, uint64_t j) {
  uint32_t lo = 0, hi = n - 1;  // largest a with offset(a) ≤ j
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (RangeOffset(n, mid) <= j) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return {lo, static_cast<uint32_t>(lo + (j - RangeOffset(n, lo)))};
}

// Walks ranges in workload order.
struct RangeCursor {
  uint32_t n, a, b;
  void Next() {
    if (++b == n) b = ++a;
  }
};

// Unnormalized in-place Walsh–Hadamard transform, (H·v)[r] = Σ_c
// (−1)^popcount(r&c) v[c]; length a power of two.
inline void Hadamard(double* v, uint32_t len) {
  WalshHadamardButterflies(v, len);
}

// The marginal cell of x for subset S: S's first bit most significant.
inline uint32_t CellOf(const std::vector<uint32_t>& subset, uint32_t d,
                       uint32_t x) {
  uint32_t v = 0;
  for (uint32_t bit : subset) v = (v << 1) | ((x & XBit(d, bit)) != 0);
  return v;
}

// Calls f(y) for every y with (y & mask) == (x & mask), i.e. the cell of x.
template <typename F>
inline void ForEachInCell(uint32_t x, uint32_t mask, uint32_t all, F&& f) {
  const uint32_t base = x & mask, free = all & ~mask;
  uint32_t sub = free;
  while (true) {
    f(base | sub);
    if (sub == 0) break;
    sub = (sub - 1) & free;
  }
}

}  // namespace workload_internal
}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_WORKLOAD_INTERNAL_H_
