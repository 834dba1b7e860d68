// Budget schedules: slices, agent placement and the cap check.
#include "planning/programs/program_schedule.h"

#include <cmath>
#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/epsilon_nanos.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using ::ldp::testing::kEps;

TEST(ProgramScheduleTest, DisjointRoundsAtTheFullCapFit) {
  EXPECT_OK(CheckSchedule(
      {{.name = "a", .slice = EqualSlice(0, 2), .epsilon_nanos = 2 * kEps},
       {.name = "b", .slice = EqualSlice(1, 2), .epsilon_nanos = 2 * kEps}},
      2 * kEps));
}

TEST(ProgramScheduleTest, OverlapNamesTheRoundsAndTheShortfall) {
  const absl::Status status =
      CheckSchedule({{.name = "learn r",
                      .slice = {.begin = 0, .end = 0.5},
                      .epsilon_nanos = 2 * kEps},
                     {.name = "learn a",
                      .slice = {.begin = 0.25, .end = 1},
                      .epsilon_nanos = kEps}},
                    2 * kEps);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("1 (\"learn r\", ε=2)"),
                    HasSubstr("2 (\"learn a\", ε=1)"), HasSubstr("[0.25, 0.5)"),
                    HasSubstr("need ε=3"), HasSubstr("cap is ε=2"),
                    HasSubstr("short by 1")));
}

TEST(ProgramScheduleTest, OneRoundOverTheCapIsRefused) {
  const absl::Status status = CheckSchedule(
      {{.name = "greedy", .slice = {}, .epsilon_nanos = 3 * kEps}}, 2 * kEps);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("round 1 (\"greedy\""), HasSubstr("short by 1")));
}

TEST(ProgramScheduleTest, RefusesEmptyBadSlicesAndNonPositiveEpsilon) {
  EXPECT_FALSE(CheckSchedule({}, kEps).ok());
  EXPECT_FALSE(
      CheckSchedule({{.slice = {.begin = 0.5, .end = 0.5}, .epsilon_nanos = 1}},
                    kEps)
          .ok());
  EXPECT_FALSE(
      CheckSchedule(
          {{.slice = {.begin = -0.1, .end = 0.5}, .epsilon_nanos = 1}}, kEps)
          .ok());
  EXPECT_FALSE(
      CheckSchedule({{.slice = {.begin = 0, .end = 1.5}, .epsilon_nanos = 1}},
                    kEps)
          .ok());
  EXPECT_FALSE(CheckSchedule({{.slice = {}, .epsilon_nanos = 0}}, kEps).ok());
}

TEST(ProgramScheduleTest, MaxScheduledSpendAddsOverlaps) {
  EXPECT_EQ(MaxScheduledSpend(
                {{.slice = {.begin = 0, .end = 0.6}, .epsilon_nanos = 2},
                 {.slice = {.begin = 0.5, .end = 1}, .epsilon_nanos = 3},
                 {.slice = {.begin = 0.9, .end = 1}, .epsilon_nanos = 1}}),
            5);  // [0.5, 0.6): 2 + 3
}

// Every position lies in exactly one of k equal slices, and consecutive ids
// fill each slice in proportion to its width: the golden-ratio sequence has
// discrepancy O(log n), far below the ±50 allowed here at n = 10^5.
TEST(ProgramScheduleTest, EqualSlicesPartitionTheAgentsEvenly) {
  constexpr int kSlices = 7;
  constexpr int kAgents = 100'000;
  int counts[kSlices] = {};
  for (uint64_t id = 1; id <= kAgents; ++id) {
    int hits = 0;
    for (int s = 0; s < kSlices; ++s) {
      if (EqualSlice(s, kSlices).Contains(AgentPosition(id))) {
        ++counts[s];
        ++hits;
      }
    }
    ASSERT_EQ(hits, 1) << id;
  }
  for (int s = 0; s < kSlices; ++s) {
    EXPECT_NEAR(counts[s], static_cast<double>(kAgents) / kSlices, 50) << s;
  }
}

TEST(ProgramScheduleTest, RelativeMapsTheSliceOntoTheFullRange) {
  const AgentSlice slice{.begin = 0.25, .end = 0.75};
  const uint64_t begin = slice.fixed_begin();
  EXPECT_EQ(slice.Relative(begin), 0u);
  EXPECT_NEAR(
      std::ldexp(static_cast<double>(slice.Relative(uint64_t{1} << 63)), -64),
      0.5, 1e-12);
  const AgentSlice full{};
  EXPECT_EQ(full.Relative(12345), 12345u);
  EXPECT_TRUE(full.Contains(~uint64_t{0}));
}

}  // namespace
}  // namespace ldp
