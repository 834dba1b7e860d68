// ldp.v1.Report <-> TaskReport (task.h): the only thing that leaves an
// agent.
//
// ReportFromProto checks every shape that does not need the task (version,
// 16-byte report id, a payload, consistent bit packing with zero padding,
// strictly ascending subsets, size limits); TaskMechanism::Validate then
// checks the payload against the task's mechanism. The agent_id on the wire
// is not part of TaskReport: the server adapter compares it with the
// authenticated caller.
#ifndef LDP_PROTO_CONVERT_REPORT_CONVERT_H_
#define LDP_PROTO_CONVERT_REPORT_CONVERT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/tasks/task.h"
#include "proto/ldp/v1/types.pb.h"

namespace ldp {

// Report.protocol_version for ldp.v1.
inline constexpr uint32_t kWireProtocolVersion = 1;
// Most items a subset payload may carry (far above any useful subset size).
inline constexpr int kMaxSubsetItems = 1 << 20;

// InvalidArgument unless protocol_version is 1, report_id has exactly 16
// bytes, a payload is set (a workload payload with its inner report), bit
// vectors are well packed (1 to 2^25 bits; a bit_length of 0 is refused)
// and subset items are strictly ascending (≤ kMaxSubsetItems). A bit
// vector's bit_length becomes the report's num_bits, which the task's
// mechanism then requires to be exactly its own.
absl::StatusOr<TaskReport> ReportFromProto(const v1::Report& proto);

// Overwrites `proto` (protocol_version 1). Bit vectors are written with
// exactly num_bits bits (64 · words for a legacy num_bits of 0; see
// WordsToProto).
void ReportToProto(const TaskReport& report, uint64_t agent_id,
                   v1::Report* proto);

// The payload alone, for callers that already split the report.
absl::StatusOr<ReportPayload> PayloadFromProto(const v1::Report& proto);
void PayloadToProto(const ReportPayload& payload, v1::Report* proto);

// Deterministic bytes of ReportToProto (for stores and for "same bytes on
// retry" comparisons), and their inverse.
std::string ReportToBytes(const TaskReport& report, uint64_t agent_id);
absl::StatusOr<TaskReport> ReportFromBytes(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_PROTO_CONVERT_REPORT_CONVERT_H_
