// In-place fast Walsh–Hadamard transform; see walsh_hadamard.h.
#include "common/mechanisms/frequency/walsh_hadamard.h"

#include <bit>
#include <cstddef>

namespace ldp {

void FastWalshHadamardTransform(absl::Span<int64_t> values) {
  const size_t size = values.size();
  if (!std::has_single_bit(size)) return;
  WalshHadamardButterflies(values.data(), size);
}

}  // namespace ldp
