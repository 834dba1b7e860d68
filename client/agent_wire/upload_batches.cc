// Upload batches and their acks, in bytes; see the header.
#include "client/agent_wire/upload_batches.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/convert/report_convert.h"

namespace ldp {
namespace {

// Per-report framing inside an UploadReportsRequest (tag + length varint).
constexpr int64_t kFramingBytes = 8;

absl::Status AckToStatus(const v1::ReportAck& ack) {
  if (ack.code() == 0) return absl::OkStatus();
  const bool canonical = ack.code() > 0 && ack.code() <= 16;
  return absl::Status(canonical ? static_cast<absl::StatusCode>(ack.code())
                                : absl::StatusCode::kUnknown,
                      ack.message());
}

}  // namespace

std::vector<v1::UploadReportsRequest> MakeUploadBatches(
    absl::Span<const TaskReport> reports, uint64_t agent_id,
    const UploadBatchLimits& limits) {
  std::vector<v1::UploadReportsRequest> batches;
  int64_t batch_bytes = 0;
  for (const TaskReport& report : reports) {
    v1::Report proto;
    ReportToProto(report, agent_id, &proto);
    const int64_t bytes =
        static_cast<int64_t>(proto.ByteSizeLong()) + kFramingBytes;
    if (batches.empty() ||
        batches.back().reports_size() >= limits.max_reports_per_batch ||
        (batches.back().reports_size() > 0 &&
         batch_bytes + bytes > limits.max_batch_bytes)) {
      batches.emplace_back();
      batch_bytes = 0;
    }
    *batches.back().add_reports() = std::move(proto);
    batch_bytes += bytes;
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
    statuses.push_back(AckToStatus(response.acks(static_cast<int>(i))));
  }
  return statuses;
}

}  // namespace ldp
