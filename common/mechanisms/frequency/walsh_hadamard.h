// The Sylvester–Hadamard matrix and its fast (Walsh–Hadamard) transform.
//
// Hadamard response (Acharya, Sun, Zhang, AISTATS 2019) and Apple's Hadamard
// count-mean sketch (Apple Differential Privacy Team, 2017) both decode by
// multiplying a count vector by H_K, where H_K[r][c] = (−1)^popcount(r & c)
// for K a power of two. The fast transform does that in O(K log K) instead of
// O(K²), which is what makes decoding a million reports cheap.
#ifndef LDP_COMMON_MECHANISMS_FREQUENCY_WALSH_HADAMARD_H_
#define LDP_COMMON_MECHANISMS_FREQUENCY_WALSH_HADAMARD_H_

#include <bit>
#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace ldp {

// True iff H[row][column] = −1, i.e. popcount(row & column) is odd.
inline bool HadamardEntryIsNegative(uint64_t row, uint64_t column) {
  return (std::popcount(row & column) & 1) != 0;
}

// The transform's butterfly stages on `data` (length `size`, which must be a
// power of two), in place and unnormalized, for any arithmetic type: stage
// h combines entries that differ only in bit log2(h), which is H_2 ⊗ I
// applied along that bit. The integer transform below and the workload
// products (common/workload/) both run it.
template <typename T>
void WalshHadamardButterflies(T* data, size_t size) {
  for (size_t half = 1; half < size; half *= 2) {
    for (size_t block = 0; block < size; block += 2 * half) {
      for (size_t i = block; i < block + half; ++i) {
        const T a = data[i];
        const T b = data[i + half];
        data[i] = a + b;
        data[i + half] = a - b;
      }
    }
  }
}

// Replaces `values` (length K, a power of two; other lengths are left
// unchanged) by H_K · values, unnormalized: applying it twice multiplies by K.
// Integer arithmetic keeps counts exact; the caller keeps K · max|value|
// within int64.
void FastWalshHadamardTransform(absl::Span<int64_t> values);

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_FREQUENCY_WALSH_HADAMARD_H_
