// The app's side of the C ABI's storage callbacks (ldp_storage), for the C
// library's tests: `blob` is what is durable; a write lands in `written`
// and becomes durable on sync. Each callback can be made to fail, and the
// write can be held until the test lets it go.
//
// Why a header: the plain and the shuffled-study tests both reopen agents
// from this storage, and must judge durability by the same rules.
#ifndef LDP_TESTS_CLIENT_AGENT_C_APP_STORAGE_H_
#define LDP_TESTS_CLIENT_AGENT_C_APP_STORAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/synchronization/notification.h"
#include "client/agent_c/ldp_agent.h"

namespace ldp::testing {

struct AppStorage {
  std::string blob, written;
  bool fail_load = false, fail_write = false, fail_sync = false;
  absl::Notification* in_write = nullptr;
  absl::Notification* release_write = nullptr;

  static int Load(void* c, const uint8_t** data, size_t* size) {
    auto* s = static_cast<AppStorage*>(c);
    if (s->fail_load) return 1;
    *data = reinterpret_cast<const uint8_t*>(s->blob.data());
    *size = s->blob.size();
    return 0;
  }
  static int Write(void* c, const uint8_t* data, size_t size) {
    auto* s = static_cast<AppStorage*>(c);
    if (s->in_write != nullptr) {
      s->in_write->Notify();
      s->release_write->WaitForNotification();
    }
    if (s->fail_write) return 1;
    s->written.assign(reinterpret_cast<const char*>(data), size);
    return 0;
  }
  static int Sync(void* c) {
    auto* s = static_cast<AppStorage*>(c);
    if (s->fail_sync) return 1;
    s->blob = s->written;
    return 0;
  }
  ldp_storage callbacks() {
    return {.context = this, .load = &Load, .write = &Write, .sync = &Sync};
  }
};

// A string's bytes as the C ABI takes them.
inline const uint8_t* AppBytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_CLIENT_AGENT_C_APP_STORAGE_H_
