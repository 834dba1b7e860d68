// One ε in the ledger's nanos under the short name the task and program
// tests use, declared once for the files that share a unity batch
// (tests/testing/test_values.h says why); apart from test_values.h because
// it needs common/tasks/task.h, which the base layer's tests must not include.
#ifndef LDP_TESTS_TESTING_EPSILON_NANOS_H_
#define LDP_TESTS_TESTING_EPSILON_NANOS_H_

#include <cstdint>

#include "common/tasks/task.h"

namespace ldp::testing {

inline constexpr int64_t kEps = kNanosPerEpsilon;

}  // namespace ldp::testing

#endif  // LDP_TESTS_TESTING_EPSILON_NANOS_H_
