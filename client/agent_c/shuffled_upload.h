// The C library's shuffled-study calls (ldp_agent_next_shuffled_upload,
// ldp_agent_record_shuffled_upload) in C++: the app's shuffler gets the
// sealed reports the Agent saved, exactly as saved, and its acks settle
// them. Kept apart from ldp_agent.cc, which turns these statuses into C.
#ifndef LDP_CLIENT_AGENT_C_SHUFFLED_UPLOAD_H_
#define LDP_CLIENT_AGENT_C_SHUFFLED_UPLOAD_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "client/core/agent.h"

namespace ldp {

// The serialized SubmitRequest with the oldest pending sealed reports (at
// most 1000 and about 64 KiB); empty when there are none.
absl::StatusOr<std::string> NextShuffledUpload(const Agent& agent);

// Settles the submissions of a sent SubmitRequest from the shuffler's
// SubmitResponse: OK and ALREADY_EXISTS (an earlier try got through) and
// other final refusals settle, transient failures stay pending. *accepted
// and *rejected (either may be null) count them, and are 0 whenever the
// call fails. Nothing is settled unless both byte strings parse (else
// InvalidArgument), every submission is byte for byte one of the agent's
// pending sealed reports, each once, and the request holds nothing else
// (else NotFound, naming the submission), and the acks answer the request
// one for one (else Internal).
absl::Status RecordShuffledUpload(Agent& agent, const uint8_t* request,
                                  size_t request_size, const uint8_t* response,
                                  size_t response_size, int* accepted,
                                  int* rejected);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_SHUFFLED_UPLOAD_H_
