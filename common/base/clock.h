// An injectable source of the current time.
//
// Round deadlines, report receipt times and enrollment times all read the
// time through a `Clock`, so tests drive them with a `FakeClock`
// (tests/testing/fake_clock.h) instead of sleeping, and a deadline test is
// deterministic. Production code passes `RealClock::Get()`.
#ifndef LDP_COMMON_BASE_CLOCK_H_
#define LDP_COMMON_BASE_CLOCK_H_

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

}  // namespace ldp

#endif  // LDP_COMMON_BASE_CLOCK_H_
