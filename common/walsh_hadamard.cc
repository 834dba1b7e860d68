// In-place fast Walsh–Hadamard transform; see walsh_hadamard.h.
#include "common/walsh_hadamard.h"

#include <bit>
#include <cstddef>

namespace ldp {

void FastWalshHadamardTransform(absl::Span<int64_t> values) {
  const size_t size = values.size();
  if (!std::has_single_bit(size)) return;
  int64_t* data = values.data();
  // Butterfly stages of width 1, 2, 4, ...: stage h combines entries that
  // differ only in bit log2(h), which is H_2 ⊗ I applied along that bit.
  for (size_t half = 1; half < size; half *= 2) {
    for (size_t block = 0; block < size; block += 2 * half) {
      for (size_t i = block; i < block + half; ++i) {
        const int64_t a = data[i];
        const int64_t b = data[i + half];
        data[i] = a + b;
        data[i + half] = a - b;
      }
    }
  }
}

}  // namespace ldp
