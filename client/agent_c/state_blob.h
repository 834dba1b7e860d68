// The saved-state blob the C library hands the app's storage callbacks:
// the agent's state text (agent_state.h) between a version line and a
// SHA-256 line over everything before it,
//   ldp-agent-blob 1\n
//   <the state text, "ldp-agent-state 2" ... "end">
//   sha256 <64 lowercase hex digits>\n
// Why: the app keeps the blob wherever it likes (flash, a synced folder),
// and the text parser alone let some damaged blobs open as a different
// budget. With the digest, any change to any bit is DataLoss.
//
// Blobs written before the digest (the first libldp_agent) are the bare
// state text and are still read, as that text, only when they start with
// "ldp-agent-state ": 15 bits away from "ldp-agent-blob 1", so no single
// flipped bit turns a new blob into an accepted old one. The next save
// writes the new form.
#ifndef LDP_CLIENT_AGENT_C_STATE_BLOB_H_
#define LDP_CLIENT_AGENT_C_STATE_BLOB_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp {

// The blob holding `state_text`. Internal only if SHA-256 fails.
absl::StatusOr<std::string> SealStateBlob(absl::string_view state_text);

// The state text `blob` holds (a view into it): DataLoss, saying what is
// wrong, unless it is a sealed blob whose digest and version line check,
// or an old bare state text.
absl::StatusOr<absl::string_view> OpenStateBlob(absl::string_view blob);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_STATE_BLOB_H_
