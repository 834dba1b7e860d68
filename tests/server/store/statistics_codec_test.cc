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

TEST(StatisticsCodecTest, ADeltasTaskIdsReadBackWithItsStates) {
  const std::vector<AccumulatorState> states = Sample();
  const std::vector<uint64_t> tasks = {3, 17, uint64_t{1} << 63};
  const std::string bytes = EncodeRoundStatistics(states, tasks);
  absl::StatusOr<StoredStatistics> stored = DecodeStoredStatistics(bytes);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->states, states);
  EXPECT_EQ(stored->task_ids, tasks);
  EXPECT_THAT(DecodeRoundStatistics(bytes), IsOkAndHolds(states));
  // Statistics without tasks (a closed round's, an older delta's) name
  // none.
  absl::StatusOr<StoredStatistics> plain =
      DecodeStoredStatistics(EncodeRoundStatistics(states));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(plain->task_ids.empty());
}

TEST(StatisticsCodecTest, TaskIdsOutOfOrderOrRepeatedAreRefused) {
  for (const std::vector<uint64_t>& tasks :
       {std::vector<uint64_t>{5, 4}, std::vector<uint64_t>{4, 4}}) {
    EXPECT_THAT(DecodeStoredStatistics(EncodeRoundStatistics(Sample(), tasks)),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
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
