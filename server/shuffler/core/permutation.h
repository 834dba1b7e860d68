// The shuffle itself: a uniformly random permutation of a batch.
//
// Why Fisher–Yates with absl::Uniform: each of the n! orders is equally
// likely given uniform draws in [0, i], which absl::Uniform gives without
// modulo bias; std::shuffle's distribution is implementation-defined.
// Production passes SecureRandom, so the order is unpredictable to anyone
// who saw the arrivals; tests pass a seeded generator.
#ifndef LDP_SERVER_SHUFFLER_CORE_PERMUTATION_H_
#define LDP_SERVER_SHUFFLER_CORE_PERMUTATION_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/random/distributions.h"

namespace ldp {

template <typename T>
void ShuffleInPlace(std::vector<T>& items, absl::BitGenRef gen) {
  for (size_t i = items.size(); i > 1; --i) {
    const size_t j = absl::Uniform(absl::IntervalClosedOpen, gen, size_t{0}, i);
    if (j != i - 1) std::swap(items[i - 1], items[j]);
  }
}

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_PERMUTATION_H_
