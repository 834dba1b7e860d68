// Closes rounds whose deadline has passed, from a thread of its own.
//
// Why: a round must end at its deadline even when no analyst or agent calls
// in, or an interactive study would never plan its next round and a
// finished one would never report its final estimates. Reports are refused
// from the deadline on regardless (admission reads the deadline itself);
// this pass is what moves the round's state, writes it and runs what follows
// the close. "Passed" is judged by the aggregator's injected clock; `period`
// only sets how often the thread looks.
#ifndef LDP_SERVER_CORE_ROUND_CLOSER_H_
#define LDP_SERVER_CORE_ROUND_CLOSER_H_

#include <atomic>
#include <cstdint>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "server/core/aggregator.h"

namespace ldp {

class RoundCloser {
 public:
  // Starts the thread, which calls aggregator->CloseExpiredRounds() at once
  // and then every `period` (> 0). `aggregator` must outlive this object.
  RoundCloser(Aggregator* aggregator, absl::Duration period);
  // Stops the thread; a pass in progress finishes first.
  ~RoundCloser();
  RoundCloser(const RoundCloser&) = delete;
  RoundCloser& operator=(const RoundCloser&) = delete;

  // Passes completed so far.
  int64_t passes() const { return passes_.load(); }

 private:
  void Loop();

  Aggregator* const aggregator_;
  const absl::Duration period_;
  absl::Notification stop_;
  std::atomic<int64_t> passes_{0};
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_ROUND_CLOSER_H_
