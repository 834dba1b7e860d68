// The stored form of a report payload.
//
// The store keeps payloads as bytes so that an identical retry can be told
// from a conflicting second report by comparing bytes, and so accumulators
// can be rebuilt from the database after a restart. The encoding is
// canonical: two payloads are equal exactly when their bytes are.
#ifndef LDP_SERVER_PAYLOAD_CODEC_H_
#define LDP_SERVER_PAYLOAD_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/task.h"

namespace ldp {

std::string EncodePayload(const ReportPayload& payload);

// InvalidArgument for anything EncodePayload cannot have produced.
absl::StatusOr<ReportPayload> DecodePayload(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_PAYLOAD_CODEC_H_
