// Blocks over the clone count C ~ Bin(n − 1, q), q = e^−ε0; see the header.
// The covered range comes from Chernoff's bound, the masses from the ratio
// recurrence outward from the mode (no lgamma: they are normalized to their
// sum), accumulated block by block without storing one value per c.
#include "common/amplification/clone_count.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace ldp {
namespace {

// Chernoff: Pr[Bin(m, q) ≤ k] for k ≤ mq, or Pr[Bin(m, q) ≥ k] for k ≥ mq,
// is at most exp(−m·KL(k/m ‖ q)), KL(x‖q) = x·ln(x/q) + (1 − x)·ln((1 −
// x)/(1 − q)), with ln q = −ε0 and ln(1 − q) = ln(−expm1(−ε0)).
double ChernoffTail(int64_t m, double epsilon0, int64_t k) {
  const double x = static_cast<double>(k) / static_cast<double>(m);
  double kl = 0;
  if (x > 0) kl += x * (std::log(x) + epsilon0);
  if (x < 1) {
    kl += (1 - x) * (std::log1p(-x) - std::log(-std::expm1(-epsilon0)));
  }
  return std::exp(-static_cast<double>(m) * std::max(0.0, kl));
}

struct CloneRange {
  int64_t low = 0;  // inclusive
  int64_t high = 0;
};

// The narrowest [low, high] around the mean whose outside has Chernoff
// probability ≤ outside_mass/4 on each side: half the allowance, the other
// half spare for the rounding of the exponent.
CloneRange CoveredRange(double epsilon0, int64_t m, double outside_mass) {
  if (m == 0) return {};
  const double mean = static_cast<double>(m) * std::exp(-epsilon0);
  const double side = outside_mass / 4;
  // low: the largest L ≤ ⌊mean⌋ with Pr[C ≤ L − 1] ≤ side (true at L = 0).
  int64_t lo = 0;
  int64_t hi = static_cast<int64_t>(std::floor(mean));
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (ChernoffTail(m, epsilon0, mid - 1) <= side) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  CloneRange range{.low = lo};
  // high: the smallest H ≥ ⌈mean⌉ with Pr[C ≥ H + 1] ≤ side (true at H = m).
  lo = std::min(m, static_cast<int64_t>(std::ceil(mean)));
  hi = m;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (ChernoffTail(m, epsilon0, mid + 1) <= side) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  range.high = lo;
  return range;
}

// Adds w(c) = Pr[C = c]/Pr[C = mode] to each c's block, from the mode out:
// Pr[c + 1]/Pr[c] = (m − c)/((c + 1)·(e^ε0 − 1)).
void AccumulateRelativeMasses(double epsilon0, int64_t m, CloneRange range,
                              CloneCountBlocks& blocks) {
  const double odds = std::expm1(epsilon0);  // (1 − q)/q
  const double q = std::exp(-epsilon0);
  const int64_t mode = std::clamp<int64_t>(
      static_cast<int64_t>(std::floor(static_cast<double>(m + 1) * q)),
      range.low, range.high);
  auto add = [&](int64_t c, double w) {
    blocks.masses[static_cast<size_t>((c - range.low) / blocks.step)] += w;
  };
  double w = 1;
  for (int64_t c = mode; c <= range.high; ++c) {
    add(c, w);
    w *= static_cast<double>(m - c) / (static_cast<double>(c + 1) * odds);
  }
  w = 1;
  for (int64_t c = mode - 1; c >= range.low; --c) {
    w *= static_cast<double>(c + 1) * odds / static_cast<double>(m - c);
    add(c, w);
  }
}

}  // namespace

int64_t AdaptiveCloneStep(double epsilon0, int64_t n) {
  const double q = std::exp(-epsilon0);
  const double sd =
      std::sqrt(static_cast<double>(n - 1) * q * -std::expm1(-epsilon0));
  return std::max<int64_t>(1, static_cast<int64_t>(sd / 32));
}

CloneCountBlocks MakeCloneCountBlocks(double epsilon0, int64_t n, int64_t step,
                                      double outside_mass) {
  const int64_t m = n - 1;
  const CloneRange range = CoveredRange(epsilon0, m, outside_mass);
  CloneCountBlocks blocks;
  blocks.step = step > 0 ? step : AdaptiveCloneStep(epsilon0, n);
  blocks.outside_mass = outside_mass;
  const int64_t count = range.high - range.low + 1;
  const int64_t num_blocks = (count + blocks.step - 1) / blocks.step;
  for (int64_t i = 0; i < num_blocks; ++i) {
    blocks.edges.push_back(range.low + i * blocks.step);
  }
  blocks.edges.push_back(range.high + 1);
  blocks.masses.assign(static_cast<size_t>(num_blocks), 0.0);
  AccumulateRelativeMasses(epsilon0, m, range, blocks);
  // Pr[C = mode]·Σw = Pr[covered] ≤ 1, so w/Σw ≥ Pr[C = c]; the recurrence
  // and the sum each round by a few ulps per value.
  double total = 0;
  for (double mass : blocks.masses) total += mass;
  const double scale =
      (1 + 8 * DBL_EPSILON * static_cast<double>(count)) / total;
  for (double& mass : blocks.masses) mass *= scale;
  blocks.peak = static_cast<size_t>(
      std::max_element(blocks.masses.begin(), blocks.masses.end()) -
      blocks.masses.begin());
  return blocks;
}

}  // namespace ldp
