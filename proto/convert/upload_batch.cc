// Upload stream messages from raw bytes; see the header.
#include "proto/convert/upload_batch.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "proto/convert/report_convert.h"
#include "proto/convert/wire_message.h"

namespace ldp {

absl::StatusOr<UploadBatch> DecodeUploadBatch(std::string_view bytes,
                                              uint64_t agent_id) {
  v1::UploadReportsRequest request;
  if (absl::Status parsed = ParseWireMessage(bytes, request); !parsed.ok()) {
    return parsed;
  }
  return DecodeUploadBatch(request, agent_id);
}

absl::StatusOr<UploadBatch> DecodeUploadBatch(
    const v1::UploadReportsRequest& request, uint64_t agent_id) {
  // An empty message is also what stray bytes that happen to parse (as
  // unknown fields only) look like; no client has a reason to send one.
  if (request.reports_size() == 0) {
    return absl::InvalidArgumentError(
        "an UploadReportsRequest must carry at least one report");
  }
  UploadBatch batch;
  batch.entries.reserve(request.reports_size());
  for (const v1::Report& wire : request.reports()) {
    UploadBatch::Entry& entry = batch.entries.emplace_back(UploadBatch::Entry{
        .report_id = wire.report_id(), .report = absl::UnknownError("unset")});
    if (wire.agent_id() != agent_id) {
      entry.report = absl::PermissionDeniedError(
          absl::StrCat("report names agent ", wire.agent_id(),
                       " but the caller is agent ", agent_id));
      continue;
    }
    entry.report = ReportFromProto(wire);
  }
  return batch;
}

}  // namespace ldp
