// The C library's ldp_agent_record_upload in C++: the server's acks settle
// a sent UploadReportsRequest only if the library produced it. Kept apart
// from ldp_agent.cc, which turns these statuses into C.
//
// Why the check: the app carries the bytes, and a request it built or
// altered itself (or one already settled) would otherwise settle the
// agent's reports on acks for reports the library never made, and the
// real ones would never be sent.
#ifndef LDP_CLIENT_AGENT_C_SERVER_UPLOAD_H_
#define LDP_CLIENT_AGENT_C_SERVER_UPLOAD_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "client/core/agent.h"

namespace ldp {

// Settles the reports of a sent UploadReportsRequest from the server's
// UploadReportsResponse: OK and final refusals settle, transient failures
// stay pending; *accepted and *rejected (either may be null) count them,
// and are 0 whenever the call fails. Nothing is settled unless:
//   - both byte strings parse (else InvalidArgument);
//   - every report in the request is, byte for byte, the one the agent
//     holds pending for its task, each task once, and the request holds
//     nothing else (else NotFound, naming the report);
//   - the acks answer exactly the request's reports in order (else
//     Internal).
absl::Status RecordUpload(Agent& agent, const uint8_t* request,
                          size_t request_size, const uint8_t* response,
                          size_t response_size, int* accepted, int* rejected);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_C_SERVER_UPLOAD_H_
