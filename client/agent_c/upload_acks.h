// What the C library's two ack calls (ldp_agent_record_upload for the
// server's reports, ldp_agent_record_shuffled_upload for sealed ones)
// share beyond reading the app's bytes (quiet_parse.h): counting for the
// app what the acks settled.
//
// Why shared: both calls must count a transient failure the same way, or
// an app would see the two paths disagree.
#ifndef LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_
#define LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_

#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace ldp {

// Counts the verdicts of (task, ack) pairs for the app: OK as accepted, a
// final refusal as rejected, a transient failure (the report stays
// pending) as neither. Either pointer may be null; no pairs sets both to 0.
void CountSettled(absl::Span<const std::pair<uint64_t, absl::Status>> settled,
                  int* accepted, int* rejected);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_UPLOAD_ACKS_H_
