// A shutdown signal reaches the waiting thread even when the kernel hands
// it to a thread started before the signals were blocked, as a library's
// thread pool is; without the hand-over, that thread's default action would
// end this test process.
#include "common/base/shutdown_signals.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace ldp {
namespace {

TEST(ShutdownSignals, ASignalTakenByAnEarlierThreadReachesTheWaiter) {
  std::atomic<bool> stop{false};
  std::thread early([&stop] {
    while (!stop.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  const sigset_t signals = BlockShutdownSignals();
  for (const int sent : {SIGTERM, SIGINT}) {
    // Only `early` does not block it: the kernel hands it the signal.
    ASSERT_EQ(kill(getpid(), sent), 0);
    const timespec timeout = {.tv_sec = 30, .tv_nsec = 0};
    EXPECT_EQ(sigtimedwait(&signals, nullptr, &timeout), sent);
  }
  stop.store(true);
  early.join();
}

}  // namespace
}  // namespace ldp
