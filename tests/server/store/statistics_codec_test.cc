// The stored form of round statistics: what it writes reads back equal,
// and bytes it cannot have written are refused.
#include "server/store/statistics_codec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::IsOkAndHolds;
using testing::StatusIs;

std::vector<AccumulatorState> Sample() {
  AccumulatorState grouped{.num_reports = 5};
  grouped.parts.push_back({.num_reports = 2, .counts = {1, 1}});
  grouped.parts.push_back({.num_reports = 3, .counts = {0, 3, 0}});
  return {{.num_reports = 4, .counts = {3, 0, -2, 1 << 30}},
          {.num_reports = 7, .reals = {0.25, -1e-300, 3.5, 0}},
          grouped,
          {}};
}

TEST(StatisticsCodecTest, WhatItWritesReadsBackEqual) {
  const std::vector<AccumulatorState> states = Sample();
  const std::string bytes = EncodeRoundStatistics(states);
  EXPECT_EQ(EncodeRoundStatistics(states), bytes);
  EXPECT_THAT(DecodeRoundStatistics(bytes), IsOkAndHolds(states));
  EXPECT_THAT(DecodeRoundStatistics(EncodeRoundStatistics({})),
              IsOkAndHolds(std::vector<AccumulatorState>{}));
}

TEST(StatisticsCodecTest, BytesItCannotHaveWrittenAreRefused) {
  const std::string bytes = EncodeRoundStatistics(Sample());
  EXPECT_THAT(DecodeRoundStatistics(bytes.substr(0, bytes.size() - 3)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // A field this version does not know (number 9, a varint).
  EXPECT_THAT(DecodeRoundStatistics(bytes + std::string("\x48\x01", 2)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(DecodeRoundStatistics("\xff\xff"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
