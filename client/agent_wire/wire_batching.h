// What the agent's two outgoing paths share, the server's UploadReports
// batches (upload_batches.h) and the shuffler's Submit batches
// (shuffled_reports.h): where one batch ends and the next begins, and how
// a numeric ack code reads as a status.
//
// Why shared: both hops take the same limits and answer in the same codes;
// one rule each keeps a batch the server takes from being one the shuffler
// refuses, or an ack read two ways.
#ifndef LDP_CLIENT_AGENT_WIRE_WIRE_BATCHING_H_
#define LDP_CLIENT_AGENT_WIRE_WIRE_BATCHING_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "client/agent_wire/upload_batches.h"

namespace ldp {

// Per-item framing inside a request (tag + length varint), counted
// toward the byte limit.
inline constexpr int64_t kWireItemFramingBytes = 8;

// Cuts items, in order, into batches within `limits`: at most
// max_reports_per_batch items, and at most max_batch_bytes bytes unless a
// single item is larger (it then travels alone).
class BatchCutter {
 public:
  explicit BatchCutter(const UploadBatchLimits& limits) : limits_(limits) {}

  // Counts the next item, of `bytes` with its framing; true if it opens a
  // new batch (the first item always does).
  bool Add(int64_t bytes);

 private:
  const UploadBatchLimits limits_;
  bool started_ = false;
  int count_ = 0;
  int64_t bytes_ = 0;
};

// An ack's code as a status: 0 is OK, a canonical code (1..16) is itself
// with `message`, anything else UNKNOWN.
absl::Status AckCodeToStatus(int32_t code, const std::string& message);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_WIRE_WIRE_BATCHING_H_
