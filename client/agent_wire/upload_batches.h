// The agent's side of UploadReports in bytes, without a transport: pending
// reports cut into UploadReportsRequest batches, and the server's acks read
// back against the reports they answer. ldp_agent_client sends these over
// gRPC; an app that carries the protocol over its own stack uses them as
// they are.
#ifndef LDP_CLIENT_AGENT_WIRE_UPLOAD_BATCHES_H_
#define LDP_CLIENT_AGENT_WIRE_UPLOAD_BATCHES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/tasks/task.h"
#include "proto/ldp/v1/agent_service.pb.h"

namespace ldp {

// The most reports one UploadReportsRequest may carry (the server's limit).
inline constexpr int kMaxWireReportsPerBatch = 1000;

struct UploadBatchLimits {
  int max_reports_per_batch = kMaxWireReportsPerBatch;  // 1 … 1000
  int64_t max_batch_bytes = 64 * 1024;                  // > 0
};

// Every report serialized once, in order; each batch within both limits (a
// single report larger than the byte limit travels alone).
std::vector<v1::UploadReportsRequest> MakeUploadBatches(
    absl::Span<const TaskReport> reports, uint64_t agent_id,
    const UploadBatchLimits& limits);

// The server's verdict on each of `reports`, in order: OK or the refusal
// it sent. Internal if the response does not acknowledge exactly these
// reports in this order (a confused or hostile server: nothing is settled).
absl::StatusOr<std::vector<absl::Status>> AcksToStatuses(
    const v1::UploadReportsResponse& response,
    absl::Span<const TaskReport> reports);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_WIRE_UPLOAD_BATCHES_H_
