// Shutdown signals routed to the waiting thread; see the header.
#include "common/base/shutdown_signals.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace ldp {
namespace {

std::atomic<pid_t> waiting_thread{0};

// Runs only in a thread that does not block the signal, never in the
// waiting one. tgkill is async-signal-safe: the signal becomes pending on
// the waiting thread, where sigwait takes it.
void PassOn(int signal) {
  const int saved_errno = errno;
  syscall(SYS_tgkill, getpid(), waiting_thread.load(), signal);
  errno = saved_errno;
}

}  // namespace

sigset_t BlockShutdownSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  waiting_thread.store(static_cast<pid_t>(syscall(SYS_gettid)));
  struct sigaction action = {};
  action.sa_handler = &PassOn;
  // While it runs, a second signal waits rather than nests.
  action.sa_mask = signals;
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  return signals;
}

}  // namespace ldp
