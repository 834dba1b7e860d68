// The shutdown signals (SIGINT, SIGTERM) of a program whose main thread
// waits for them with sigwait.
//
// Why more than pthread_sigmask: blocking them in main covers only the
// threads main starts afterwards. Libraries start threads before main runs
// (OpenBLAS starts its pool while it loads), and those do not block them:
// a SIGTERM that arrives while main is not inside sigwait is then taken by
// one of them, whose default action ends the process at once, with no
// drain and exit status 143. So the signals also get a handler, which only
// such a thread can run, and which passes the signal on to the main thread,
// where it waits, blocked, for sigwait.
#ifndef LDP_COMMON_BASE_SHUTDOWN_SIGNALS_H_
#define LDP_COMMON_BASE_SHUTDOWN_SIGNALS_H_

#include <signal.h>

namespace ldp {

// Call once, from the thread that will wait (main), before it starts any
// thread. Blocks SIGINT and SIGTERM there, routes those that reach other
// threads to it, and returns the set to wait on.
sigset_t BlockShutdownSignals();

}  // namespace ldp

#endif  // LDP_COMMON_BASE_SHUTDOWN_SIGNALS_H_
