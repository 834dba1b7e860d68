// An injectable source of the current time.
//
// Round deadlines, report receipt times and enrollment times all read the
// time through a `Clock`, so tests drive them with a `FakeClock` instead of
// sleeping, and a deadline test is deterministic. Production code passes
// `RealClock::Get()`.
#ifndef LDP_COMMON_CLOCK_H_
#define LDP_COMMON_CLOCK_H_

#include <mutex>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ldp {

// Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// The system's wall clock.
class RealClock final : public Clock {
 public:
  // A process-wide instance that is never destroyed.
  static const RealClock* Get() {
    static const RealClock* const clock = new RealClock();
    return clock;
  }
  absl::Time Now() const override { return absl::Now(); }
};

// A clock that moves only when told to.
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

#endif  // LDP_COMMON_CLOCK_H_
