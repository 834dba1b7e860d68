// libFuzzer target: the AgentService.UploadReports stream as the server's
// reactor reads it, garbage included.
//
// The input is a byte stream cut into messages the way gRPC frames them (a
// compressed-flag byte, a 4-byte big-endian length, the message); a frame
// that runs past the end, and the input as a whole, are also decoded as one
// message, so plain garbage reaches the decoder too. Each message goes
// through DecodeUploadBatch, the reactor's only parsing step. Properties:
// nothing crashes; a refused message is INVALID_ARGUMENT with a reason; an
// accepted message has one entry per wire report, each accepted or refused
// with INVALID_ARGUMENT / PERMISSION_DENIED and a reason; accepted reports
// round-trip through the wire form; decoding is deterministic.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "proto/convert/report_convert.h"
#include "proto/convert/upload_batch.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

constexpr uint64_t kAgentId = 7;  // the authenticated caller

bool Refusal(const absl::Status& status) {
  return !status.message().empty() &&
         (status.code() == absl::StatusCode::kInvalidArgument ||
          status.code() == absl::StatusCode::kPermissionDenied);
}

void CheckEntry(const UploadBatch::Entry& entry) {
  if (!entry.report.ok()) {
    Check(Refusal(entry.report.status()), "report refused without a reason");
    return;
  }
  const TaskReport& report = *entry.report;
  absl::StatusOr<TaskReport> again =
      ReportFromBytes(ReportToBytes(report, kAgentId));
  Check(again.ok() && again->payload == report.payload &&
            again->report_id == report.report_id &&
            again->task_id == report.task_id,
        "accepted report does not round-trip");
}

void FuzzMessage(std::string_view bytes) {
  absl::StatusOr<UploadBatch> batch = DecodeUploadBatch(bytes, kAgentId);
  absl::StatusOr<UploadBatch> twice = DecodeUploadBatch(bytes, kAgentId);
  Check(batch.ok() == twice.ok(), "decoding is not deterministic");
  if (!batch.ok()) {
    Check(batch.status().code() == absl::StatusCode::kInvalidArgument &&
              !batch.status().message().empty(),
          "a refused message is not INVALID_ARGUMENT with a reason");
    return;
  }
  Check(!batch->entries.empty(), "an accepted message carries no report");
  Check(batch->entries.size() == twice->entries.size(),
        "decoding is not deterministic");
  for (const UploadBatch::Entry& entry : batch->entries) CheckEntry(entry);
}

void FuzzStream(std::string_view stream) {
  while (stream.size() >= 5) {
    const auto* p = reinterpret_cast<const uint8_t*>(stream.data());
    const uint64_t length = (uint64_t{p[1]} << 24) | (uint64_t{p[2]} << 16) |
                            (uint64_t{p[3]} << 8) | uint64_t{p[4]};
    stream.remove_prefix(5);
    if (length > stream.size()) break;  // a truncated frame: garbage below
    FuzzMessage(stream.substr(0, length));
    stream.remove_prefix(length);
  }
  if (!stream.empty()) FuzzMessage(stream);
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ldp::fuzz::FuzzMessage(bytes);
  ldp::fuzz::FuzzStream(bytes);
  return 0;
}
