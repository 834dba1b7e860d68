// The agent's state kept by the embedding app through the C ABI's storage
// callbacks (ldp_agent.h, ldp_storage): one blob, loaded once, replaced and
// synced on every save. The blob is the text the file store writes
// (agent_state.h) sealed with a SHA-256 (state_blob.h), so damage the text
// parser would miss is refused too.
#ifndef LDP_CLIENT_AGENT_C_CALLBACK_STATE_STORE_H_
#define LDP_CLIENT_AGENT_C_CALLBACK_STATE_STORE_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/agent_c/ldp_agent.h"
#include "client/core/agent_state.h"
#include "client/core/agent_state_store.h"

namespace ldp {

class CallbackStateStore : public AgentStateStore {
 public:
  // `storage`'s callbacks must be set; its context outlives the store.
  explicit CallbackStateStore(const ldp_storage& storage) : storage_(storage) {}

  // Unavailable if `load` fails; DataLoss if the blob is damaged (any
  // changed bit of a sealed blob).
  absl::StatusOr<AgentState> Load() override;
  // Unavailable if `write` or `sync` fails: the save did not happen.
  absl::Status Save(const AgentState& state) override;

 private:
  ldp_storage storage_;
};

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_CALLBACK_STATE_STORE_H_
