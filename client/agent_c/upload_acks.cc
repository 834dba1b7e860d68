// The ack calls' shared counting; see the header.
#include "client/agent_c/upload_acks.h"

#include "client/core/retry.h"

namespace ldp {

void CountSettled(absl::Span<const std::pair<uint64_t, absl::Status>> settled,
                  int* accepted, int* rejected) {
  int yes = 0, no = 0;
  for (const auto& [task_id, verdict] : settled) {
    if (verdict.ok()) {
      ++yes;
    } else if (!IsTransient(verdict.code())) {
      ++no;
    }
  }
  if (accepted != nullptr) *accepted = yes;
  if (rejected != nullptr) *rejected = no;
}

}  // namespace ldp
