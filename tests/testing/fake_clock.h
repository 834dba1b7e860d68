// A Clock that moves only when a test tells it to: round deadlines, rate
// limits, enrollment times and progress meters are driven by SetTime and
// Advance instead of sleeping, so every deadline test is deterministic.
// Test code only: production passes RealClock::Get() (common/base/clock.h).
#ifndef LDP_TESTS_TESTING_FAKE_CLOCK_H_
#define LDP_TESTS_TESTING_FAKE_CLOCK_H_

#include <mutex>

#include "absl/time/time.h"
#include "common/base/clock.h"

namespace ldp {

// Thread-safe, like every Clock.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch() + absl::Hours(24))
      : now_(start) {}

  absl::Time Now() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return now_;
  }
  void SetTime(absl::Time time) {
    std::lock_guard<std::mutex> lock(mutex_);
    now_ = time;
  }
  void Advance(absl::Duration duration) {
    std::lock_guard<std::mutex> lock(mutex_);
    now_ += duration;
  }

 private:
  mutable std::mutex mutex_;
  absl::Time now_;
};

}  // namespace ldp

#endif  // LDP_TESTS_TESTING_FAKE_CLOCK_H_
