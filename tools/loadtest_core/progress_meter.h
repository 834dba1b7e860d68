// ldp-loadtest's progress: on a terminal, one line redrawn in place (a bar,
// the count, the rate and the time left); otherwise (a log file, CI) a plain
// line every few seconds, so logs stay readable. Thread-safe: workers call
// Add from many threads; printing happens on whichever call finds the
// interval elapsed, so no extra thread is needed.
#ifndef LDP_TOOLS_LOADTEST_CORE_PROGRESS_METER_H_
#define LDP_TOOLS_LOADTEST_CORE_PROGRESS_METER_H_

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/base/clock.h"

namespace ldp {

struct ProgressOptions {
  int64_t total = 0;  // units expected (> 0)
  std::string unit = "agents";
  bool terminal = false;  // redraw in place (isatty) or print lines
  // Between redraws on a terminal / plain lines otherwise.
  absl::Duration terminal_interval = absl::Milliseconds(200);
  absl::Duration line_interval = absl::Seconds(5);
};

class ProgressMeter {
 public:
  ProgressMeter(ProgressOptions options, const Clock* clock, std::FILE* out);

  // `n` more units done.
  void Add(int64_t n);
  // Prints the final state (and ends the terminal line).
  void Finish();

  int64_t done() const { return done_.load(std::memory_order_relaxed); }

  // The text of one progress line at `done` units after `elapsed`.
  static std::string Line(const ProgressOptions& options, int64_t done,
                          absl::Duration elapsed, bool with_bar);

 private:
  void Print(bool final);

  const ProgressOptions options_;
  const Clock* const clock_;
  std::FILE* const out_;
  const absl::Time start_;
  std::atomic<int64_t> done_{0};
  absl::Mutex mutex_;
  absl::Time last_print_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_CORE_PROGRESS_METER_H_
