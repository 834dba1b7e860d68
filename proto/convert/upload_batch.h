// One message of the AgentService.UploadReports stream, decoded from its raw
// bytes: the whole message is refused (INVALID_ARGUMENT, which ends the
// stream) when it is not an UploadReportsRequest or carries no report; each
// report in it is then accepted or refused on its own (its ack).
//
// Kept free of gRPC so that the stream's framing can be fuzzed
// (tests/fuzz/upload_stream_fuzzer.cc) without a server.
#ifndef LDP_PROTO_CONVERT_UPLOAD_BATCH_H_
#define LDP_PROTO_CONVERT_UPLOAD_BATCH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/tasks/task.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {

struct UploadBatch {
  // One per wire report, in the order sent: the report id its ack echoes,
  // and the report to ingest or why it is refused.
  struct Entry {
    std::string report_id;
    absl::StatusOr<TaskReport> report;
  };
  std::vector<Entry> entries;
};

// `agent_id` is the authenticated caller: a report naming another agent is
// refused (PERMISSION_DENIED) without being read further.
absl::StatusOr<UploadBatch> DecodeUploadBatch(std::string_view bytes,
                                              uint64_t agent_id);
// The same for a message already parsed (the server parses straight from
// gRPC's buffer, proto/grpc_convert/byte_buffer.h).
absl::StatusOr<UploadBatch> DecodeUploadBatch(
    const v1::UploadReportsRequest& request, uint64_t agent_id);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_UPLOAD_BATCH_H_
