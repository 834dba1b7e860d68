// Integer-only coin flipping; see coin.h for why.
#include "common/base/coin.h"

#include <cmath>
#include <limits>

namespace ldp {

CoinProbability CoinProbability::RoundDown(double p) {
  if (!(p > 0.0)) return FromNumerator(0);  // also maps NaN to 0
  if (p >= 1.0) return FromNumerator(kDenominator);
  return FromNumerator(static_cast<uint64_t>(std::floor(std::ldexp(p, kBits))));
}

CoinProbability CoinProbability::RoundUp(double p) {
  if (!(p > 0.0)) return FromNumerator(0);
  if (p >= 1.0) return FromNumerator(kDenominator);
  return FromNumerator(static_cast<uint64_t>(std::ceil(std::ldexp(p, kBits))));
}

bool FlipCoin(CoinProbability p, absl::BitGenRef gen) {
  const uint64_t u =
      static_cast<uint64_t>(gen()) >> (64 - CoinProbability::kBits);
  return u < p.numerator();
}

uint64_t FlipCoins64(CoinProbability p, absl::BitGenRef gen) {
  const uint64_t k = p.numerator();
  if (k == 0) return 0;
  if (k >= CoinProbability::kDenominator) return ~uint64_t{0};
  // Lane i holds a 32-bit uniform U_i revealed one bit per draw, MSB first.
  // U_i < k is decided at the first bit where U_i and k differ.
  uint64_t result = 0;
  uint64_t undecided = ~uint64_t{0};
  for (int bit = CoinProbability::kBits - 1;
       bit >= 0 && undecided != 0 && (k & ((uint64_t{2} << bit) - 1)) != 0;
       --bit) {
    const uint64_t r = gen();
    if ((k >> bit) & 1) {
      result |= undecided & ~r;  // U bit 0 < k bit 1: U < k
      undecided &= r;
    } else {
      undecided &= ~r;  // U bit 1 > k bit 0: U > k
    }
  }
  return result;  // undecided lanes match k's prefix and k's rest is 0: U ≥ k
}

uint64_t UniformBelow(uint64_t n, absl::BitGenRef gen) {
  // Lemire's multiply-shift with rejection of the biased low region.
  uint64_t x = gen();
  __uint128_t m = static_cast<__uint128_t>(x) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      x = gen();
      m = static_cast<__uint128_t>(x) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

}  // namespace ldp
