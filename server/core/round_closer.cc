// The deadline pass's thread; see the header.
#include "server/core/round_closer.h"

namespace ldp {

RoundCloser::RoundCloser(Aggregator* aggregator, absl::Duration period)
    : aggregator_(aggregator), period_(period), thread_([this] { Loop(); }) {}

RoundCloser::~RoundCloser() {
  stop_.Notify();
  thread_.join();
}

void RoundCloser::Loop() {
  do {
    aggregator_->CloseExpiredRounds();
    passes_.fetch_add(1);
  } while (!stop_.WaitForNotificationWithTimeout(period_));
}

}  // namespace ldp
