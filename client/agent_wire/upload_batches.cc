// Upload batches and their acks, in bytes; see the header.
#include "client/agent_wire/upload_batches.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "client/agent_wire/wire_batching.h"
#include "proto/convert/report_convert.h"

namespace ldp {

std::vector<v1::UploadReportsRequest> MakeUploadBatches(
    absl::Span<const TaskReport> reports, uint64_t agent_id,
    const UploadBatchLimits& limits) {
  std::vector<v1::UploadReportsRequest> batches;
  BatchCutter cutter(limits);
  for (const TaskReport& report : reports) {
    v1::Report proto;
    ReportToProto(report, agent_id, &proto);
    if (cutter.Add(static_cast<int64_t>(proto.ByteSizeLong()) +
                   kWireItemFramingBytes)) {
      batches.emplace_back();
    }
    *batches.back().add_reports() = std::move(proto);
  }
  return batches;
}

absl::StatusOr<std::vector<absl::Status>> AcksToStatuses(
    const v1::UploadReportsResponse& response,
    absl::Span<const TaskReport> reports) {
  if (response.acks_size() != static_cast<int>(reports.size())) {
    return absl::InternalError(
        absl::StrCat("server acknowledged ", response.acks_size(),
                     " reports of ", reports.size(), " uploaded"));
  }
  std::vector<absl::Status> statuses;
  for (size_t i = 0; i < reports.size(); ++i) {
    const auto& id = reports[i].report_id;
    const std::string expected(reinterpret_cast<const char*>(id.data()),
                               id.size());
    if (response.acks(static_cast<int>(i)).report_id() != expected) {
      return absl::InternalError(
          absl::StrCat("server acknowledged another report at position ", i));
    }
    const v1::ReportAck& ack = response.acks(static_cast<int>(i));
    statuses.push_back(AckCodeToStatus(ack.code(), ack.message()));
  }
  return statuses;
}

}  // namespace ldp
