// ThreadSanitizer annotations for Debian's uninstrumented abseil.
//
// absl::Mutex, Notification and BlockingCounter live in Debian's shared
// libabsl_synchronization (and Status's reference count in libabsl_status),
// built without -fsanitize=thread, so TSan never sees their atomics and would
// report every mutex-guarded field as a race. The TSan build
// (cmake/Sanitizers.cmake) links this file and passes -Wl,--wrap for each entry
// point below: our calls reach __wrap_X, which calls the real function
// (__real_X) and tells TSan about the happens-before edge it creates
// (__tsan_release before letting go,
// __tsan_acquire after taking). Calls made inside the library are not
// wrapped, and need not be: they do not touch our memory.
//
// Symbol names are those of bookworm's abseil (inline namespace "debian3");
// a different abseil fails the link loudly (undefined __real_ symbol).
#include <sanitizer/tsan_interface.h>

#include <cstdint>
#include <mutex>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace {

// Await/LockWhen evaluate their condition inside the library, with the
// mutex held, possibly on the thread that unlocks, and may then let the
// mutex go to wait: acquire before so the condition's reads are ordered
// after the last writer, release after so the next writer is ordered after
// them.
struct GuardedCondition {
  void* mutex;
  const absl::Condition* condition;
};

bool EvalAfterAcquire(GuardedCondition* guarded) {
  __tsan_acquire(guarded->mutex);
  const bool holds = guarded->condition->Eval();
  __tsan_release(guarded->mutex);
  return holds;
}

}  // namespace

#define LDP_WRAP(mangled) __wrap_##mangled
#define LDP_REAL(mangled) __real_##mangled

using absl::BlockingCounter;
using absl::Condition;
using absl::CondVar;
using absl::Mutex;
using absl::Notification;

extern "C" {

// Mutex::Lock / Unlock / ReaderLock / ReaderUnlock / TryLock / ReaderTryLock.
void LDP_REAL(_ZN4absl7debian35Mutex4LockEv)(Mutex*);
void LDP_WRAP(_ZN4absl7debian35Mutex4LockEv)(Mutex* mu) {
  LDP_REAL(_ZN4absl7debian35Mutex4LockEv)(mu);
  __tsan_acquire(mu);
}
void LDP_REAL(_ZN4absl7debian35Mutex6UnlockEv)(Mutex*);
void LDP_WRAP(_ZN4absl7debian35Mutex6UnlockEv)(Mutex* mu) {
  __tsan_release(mu);
  LDP_REAL(_ZN4absl7debian35Mutex6UnlockEv)(mu);
}
void LDP_REAL(_ZN4absl7debian35Mutex10ReaderLockEv)(Mutex*);
void LDP_WRAP(_ZN4absl7debian35Mutex10ReaderLockEv)(Mutex* mu) {
  LDP_REAL(_ZN4absl7debian35Mutex10ReaderLockEv)(mu);
  __tsan_acquire(mu);
}
void LDP_REAL(_ZN4absl7debian35Mutex12ReaderUnlockEv)(Mutex*);
void LDP_WRAP(_ZN4absl7debian35Mutex12ReaderUnlockEv)(Mutex* mu) {
  // Readers release too: a later writer must be ordered after their reads.
  __tsan_release(mu);
  LDP_REAL(_ZN4absl7debian35Mutex12ReaderUnlockEv)(mu);
}
bool LDP_REAL(_ZN4absl7debian35Mutex7TryLockEv)(Mutex*);
bool LDP_WRAP(_ZN4absl7debian35Mutex7TryLockEv)(Mutex* mu) {
  const bool locked = LDP_REAL(_ZN4absl7debian35Mutex7TryLockEv)(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}
bool LDP_REAL(_ZN4absl7debian35Mutex13ReaderTryLockEv)(Mutex*);
bool LDP_WRAP(_ZN4absl7debian35Mutex13ReaderTryLockEv)(Mutex* mu) {
  const bool locked = LDP_REAL(_ZN4absl7debian35Mutex13ReaderTryLockEv)(mu);
  if (locked) __tsan_acquire(mu);
  return locked;
}

// Mutex::Await / LockWhen (conditions), CondVar::Wait.
void LDP_REAL(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)(Mutex*,
                                                              const Condition&);
void LDP_WRAP(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)(
    Mutex* mu, const Condition& cond) {
  GuardedCondition guarded{mu, &cond};
  __tsan_release(mu);  // Await may let the mutex go while it waits
  LDP_REAL(_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE)
  (mu, Condition(&EvalAfterAcquire, &guarded));
  __tsan_acquire(mu);
}
void LDP_REAL(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)(
    Mutex*, const Condition&);
void LDP_WRAP(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)(
    Mutex* mu, const Condition& cond) {
  GuardedCondition guarded{mu, &cond};
  LDP_REAL(_ZN4absl7debian35Mutex8LockWhenERKNS0_9ConditionE)
  (mu, Condition(&EvalAfterAcquire, &guarded));
  __tsan_acquire(mu);
}
void LDP_REAL(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(CondVar*, Mutex*);
void LDP_WRAP(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(CondVar* cv,
                                                          Mutex* mu) {
  __tsan_release(mu);
  LDP_REAL(_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE)(cv, mu);
  __tsan_acquire(mu);
}

// Notification::Notify / WaitForNotification.
void LDP_REAL(_ZN4absl7debian312Notification6NotifyEv)(Notification*);
void LDP_WRAP(_ZN4absl7debian312Notification6NotifyEv)(Notification* n) {
  __tsan_release(n);
  LDP_REAL(_ZN4absl7debian312Notification6NotifyEv)(n);
}
void LDP_REAL(_ZNK4absl7debian312Notification19WaitForNotificationEv)(
    const Notification*);
void LDP_WRAP(_ZNK4absl7debian312Notification19WaitForNotificationEv)(
    const Notification* n) {
  LDP_REAL(_ZNK4absl7debian312Notification19WaitForNotificationEv)(n);
  __tsan_acquire(const_cast<Notification*>(n));
}

// BlockingCounter::DecrementCount / Wait.
bool LDP_REAL(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(
    BlockingCounter*);
bool LDP_WRAP(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(
    BlockingCounter* c) {
  __tsan_release(c);
  return LDP_REAL(_ZN4absl7debian315BlockingCounter14DecrementCountEv)(c);
}
void LDP_REAL(_ZN4absl7debian315BlockingCounter4WaitEv)(BlockingCounter*);
void LDP_WRAP(_ZN4absl7debian315BlockingCounter4WaitEv)(BlockingCounter* c) {
  LDP_REAL(_ZN4absl7debian315BlockingCounter4WaitEv)(c);
  __tsan_acquire(c);
}

// Status::UnrefNonInlined (static): a heap Status is shared by reference
// count, decremented inside the library. The thread that drops the last
// reference deletes the rep, so every other holder's reads must be ordered
// before that delete. One std::mutex (pthread, which TSan sees) around each
// decrement orders them all: the last decrement comes after every earlier
// one, and each holder's reads came before its own decrement. Found when a
// test thread read a refusal that the commit thread then let go
// (SharedStoreTest.TwoReplicasTogetherAdmitATokensQuotaOnce).
void LDP_REAL(_ZN4absl7debian36Status15UnrefNonInlinedEm)(uintptr_t);
void LDP_WRAP(_ZN4absl7debian36Status15UnrefNonInlinedEm)(uintptr_t rep) {
  static std::mutex order;
  std::lock_guard<std::mutex> lock(order);
  LDP_REAL(_ZN4absl7debian36Status15UnrefNonInlinedEm)(rep);
}

}  // extern "C"
