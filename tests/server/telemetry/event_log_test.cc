// Structured event lines: logfmt quoting that keeps one event on one line
// and parses back, level names, and filtering by the minimum level.
#include "server/telemetry/event_log.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kTime = absl::FromUnixMillis(1'795'000'000'123);

TEST(EventLog, FormatsOneLogfmtLine) {
  EXPECT_EQ(
      FormatEvent(kTime, LogLevel::kInfo, "round_closed",
                  {{"study", "3"}, {"round", "7"}, {"state", "deadline"}}),
      "ts=2026-11-18T11:06:40.123Z level=info event=round_closed study=3 "
      "round=7 state=deadline");
}

TEST(EventLog, QuotesValuesThatWouldBreakTheLine) {
  const std::string line =
      FormatEvent(kTime, LogLevel::kWarning, "store_commit_failed",
                  {{"error", "disk I/O error\nsecond line"},
                   {"name", "a \"quoted\" = name"},
                   {"empty", ""},
                   {"path", "C:\\db"}});
  EXPECT_THAT(line, Not(HasSubstr("\n")));
  EXPECT_THAT(line, HasSubstr("error=\"disk I/O error\\nsecond line\""));
  EXPECT_THAT(line, HasSubstr("name=\"a \\\"quoted\\\" = name\""));
  EXPECT_THAT(line, HasSubstr("empty=\"\""));
  EXPECT_THAT(line, HasSubstr("path=\"C:\\\\db\""));
  EXPECT_THAT(line, HasSubstr(" level=warning "));
}

TEST(EventLog, ParsesLevels) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarning,
                         LogLevel::kError}) {
    absl::StatusOr<LogLevel> parsed = ParseLogLevel(LogLevelName(level));
    ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, level);
  }
  absl::StatusOr<LogLevel> bad = ParseLogLevel("verbose");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("debug, info, warning or error"));
}

TEST(EventLog, DropsEventsBelowTheMinimumLevel) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  ASSERT_NE(out, nullptr);
  FakeClock clock(kTime);
  {
    LineEventLog log(LogLevel::kInfo, &clock, out);
    log.Write(LogLevel::kDebug, "noise", {});
    log.Write(LogLevel::kInfo, "kept", {{"n", "1"}});
    log.Write(LogLevel::kError, "also_kept", {});
  }
  std::fclose(out);
  const std::string text(buffer, size);
  std::free(buffer);
  EXPECT_EQ(text,
            "ts=2026-11-18T11:06:40.123Z level=info event=kept n=1\n"
            "ts=2026-11-18T11:06:40.123Z level=error event=also_kept\n");
}

}  // namespace
}  // namespace ldp
