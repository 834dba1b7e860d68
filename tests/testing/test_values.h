// Values, and one seeded hash, that many test files use alike. Test files
// compile together in unity batches (tests/CMakeLists.txt), where two files
// each defining their own kInf or SplitMix64 would collide; a file takes
// these with a using-declaration instead, which may repeat. (One ε in
// nanos, kEps, is in tests/testing/epsilon_nanos.h, above the tasks.)
#ifndef LDP_TESTS_TESTING_TEST_VALUES_H_
#define LDP_TESTS_TESTING_TEST_VALUES_H_

#include <cstdint>
#include <limits>

#include "absl/status/status.h"

namespace ldp::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// The status every parser and converter returns for malformed input.
inline constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// SplitMix64's finalizer: a population drawn as a pure function of
// (seed, agent), so a simulated agent needs no table.
inline uint64_t SplitMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_TEST_VALUES_H_
