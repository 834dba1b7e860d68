// The load test's progress: the line's figures (percent, rate, ETA), a bar
// redrawn in place on a terminal, plain lines at most every interval
// otherwise, and a final line either way.
#include "tools/loadtest_core/progress_meter.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;

TEST(ProgressMeter, LineShowsRateAndTimeLeft) {
  const ProgressOptions options{.total = 1000, .unit = "agents"};
  EXPECT_EQ(ProgressMeter::Line(options, 250, absl::Seconds(5), false),
            " 25% 250/1000 agents, 50/s, elapsed 0:05, ETA 0:15");
  EXPECT_EQ(ProgressMeter::Line(options, 1000, absl::Seconds(3725), false),
            "100% 1000/1000 agents, 0/s, elapsed 1:02:05");
  EXPECT_EQ(ProgressMeter::Line(options, 0, absl::ZeroDuration(), true),
            "[..............................]   0% 0/1000 agents, 0/s, elapsed "
            "0:00, ETA ?");
  EXPECT_THAT(ProgressMeter::Line(options, 500, absl::Seconds(1), true),
              HasSubstr("[###############...............]  50%"));
}

std::string Capture(bool terminal, int steps) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  FakeClock clock;
  {
    ProgressMeter meter({.total = 100,
                         .terminal = terminal,
                         .terminal_interval = absl::Seconds(1),
                         .line_interval = absl::Seconds(5)},
                        &clock, out);
    for (int i = 0; i < steps; ++i) {
      clock.Advance(absl::Seconds(1));
      meter.Add(1);
    }
    meter.Finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(ProgressMeter, PlainLinesAtMostEveryInterval) {
  const std::string text = Capture(false, 12);  // prints at 5 s and 10 s
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_THAT(text, HasSubstr("progress:   5% 5/100 agents"));
  EXPECT_THAT(text, HasSubstr("progress:  12% 12/100 agents"));
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(ProgressMeter, TerminalRedrawsInPlace) {
  const std::string text = Capture(true, 10);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\r'),
            11);  // 10 updates + final
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);  // only at the end
  EXPECT_THAT(text, HasSubstr("[###......"));
}

}  // namespace
}  // namespace ldp
