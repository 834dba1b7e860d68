// The agent's state through the app's storage callbacks; see the header.
#include "client/agent_c/callback_state_store.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "client/agent_c/state_blob.h"
#include "client/core/state_lines.h"

namespace ldp {

absl::StatusOr<AgentState> CallbackStateStore::Load() {
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (storage_.load(storage_.context, &data, &size) != 0) {
    return absl::UnavailableError(
        "the storage callback could not load the agent's state");
  }
  if (size == 0) return AgentState{};
  if (data == nullptr) {
    return absl::DataLossError("the storage callback loaded a null blob");
  }
  const absl::StatusOr<absl::string_view> text = OpenStateBlob(
      absl::string_view(reinterpret_cast<const char*>(data), size));
  if (!text.ok()) return text.status();
  absl::StatusOr<AgentState> state = ParseAgentState(*text);
  if (!state.ok()) {
    return absl::DataLossError(absl::StrCat(
        "the agent's saved state is damaged: ", state.status().message()));
  }
  return state;
}

absl::Status CallbackStateStore::Save(const AgentState& state) {
  const absl::StatusOr<std::string> blob =
      SealStateBlob(SerializeAgentState(state));
  if (!blob.ok()) return blob.status();
  if (storage_.write(storage_.context,
                     reinterpret_cast<const uint8_t*>(blob->data()),
                     blob->size()) != 0) {
    return absl::UnavailableError(
        "the storage callback could not write the agent's state");
  }
  if (storage_.sync(storage_.context) != 0) {
    return absl::UnavailableError(
        "the storage callback could not make the agent's state durable");
  }
  return absl::OkStatus();
}

}  // namespace ldp
