// Batch cutting and ack codes; see the header.
#include "client/agent_wire/wire_batching.h"

namespace ldp {

bool BatchCutter::Add(int64_t bytes) {
  const bool opens = !started_ || count_ >= limits_.max_reports_per_batch ||
                     bytes_ + bytes > limits_.max_batch_bytes;
  if (opens) {
    started_ = true;
    count_ = 0;
    bytes_ = 0;
  }
  ++count_;
  bytes_ += bytes;
  return opens;
}

absl::Status AckCodeToStatus(int32_t code, const std::string& message) {
  if (code == 0) return absl::OkStatus();
  const bool canonical = code > 0 && code <= 16;
  return absl::Status(canonical ? static_cast<absl::StatusCode>(code)
                                : absl::StatusCode::kUnknown,
                      message);
}

}  // namespace ldp
