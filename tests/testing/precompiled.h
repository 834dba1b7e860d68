// The headers nearly every test includes, precompiled once per build
// (tests/CMakeLists.txt, ldp_test_pch) instead of parsed again for each of
// the ~140 test files: GoogleTest and gMock, absl's status and string
// types, protobuf's message and text format, gRPC, and the standard
// library. A test still includes what it uses; this only makes it cheap.
#ifndef LDP_TESTS_TESTING_PRECOMPILED_H_
#define LDP_TESTS_TESTING_PRECOMPILED_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

#endif  // LDP_TESTS_TESTING_PRECOMPILED_H_
