// Progress bar or progress lines; see the header.
#include "tools/loadtest_core/progress_meter.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ldp {
namespace {

constexpr int kBarWidth = 30;

// 0:07, 12:03, 1:02:03.
std::string ClockText(absl::Duration d) {
  const int64_t s = std::max<int64_t>(0, absl::ToInt64Seconds(d));
  if (s >= 3600)
    return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

}  // namespace

ProgressMeter::ProgressMeter(ProgressOptions options, const Clock* clock,
                             std::FILE* out)
    : options_(std::move(options)),
      clock_(clock),
      out_(out),
      start_(clock->Now()),
      last_print_(start_) {}

std::string ProgressMeter::Line(const ProgressOptions& options, int64_t done,
                                absl::Duration elapsed, bool with_bar) {
  const int64_t total = std::max<int64_t>(1, options.total);
  const double fraction =
      std::clamp(static_cast<double>(done) / total, 0.0, 1.0);
  const double seconds = absl::ToDoubleSeconds(elapsed);
  const double rate = seconds > 0 ? done / seconds : 0;
  std::string line;
  if (with_bar) {
    const int filled = static_cast<int>(fraction * kBarWidth);
    absl::StrAppend(&line, "[", std::string(filled, '#'),
                    std::string(kBarWidth - filled, '.'), "] ");
  }
  absl::StrAppendFormat(&line, "%3.0f%% %d/%d %s, %.0f/s, elapsed %s",
                        100 * fraction, done, options.total, options.unit, rate,
                        ClockText(elapsed));
  if (done < options.total) {
    absl::StrAppend(
        &line, ", ETA ",
        rate > 0 ? ClockText(absl::Seconds((options.total - done) / rate))
                 : "?");
  }
  return line;
}

void ProgressMeter::Add(int64_t n) {
  done_.fetch_add(n, std::memory_order_relaxed);
  const absl::Duration interval =
      options_.terminal ? options_.terminal_interval : options_.line_interval;
  {
    absl::MutexLock lock(&mutex_);
    const absl::Time now = clock_->Now();
    if (now - last_print_ < interval) return;
    last_print_ = now;
  }
  Print(false);
}

void ProgressMeter::Finish() { Print(true); }

void ProgressMeter::Print(bool final) {
  const std::string line =
      Line(options_, done(), clock_->Now() - start_, options_.terminal);
  absl::MutexLock lock(&mutex_);
  if (options_.terminal) {
    // \r and clear to the end of the line: the bar redraws in place.
    std::fprintf(out_, "\r%s\033[K%s", line.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(out_, "progress: %s\n", line.c_str());
  }
  std::fflush(out_);
}

}  // namespace ldp
