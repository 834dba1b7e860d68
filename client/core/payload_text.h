// A compact, exact text form of a report payload, for the agent's state file.
//
// The agent stores every report it has created (to resend identical bytes
// on retry, even after a restart) and every memoized answer (to repeat it
// at no budget cost). Those must survive byte for byte, so the payload is
// written as integers only — payloads never contain floating point — in a
// single whitespace-free token:
//   item:5   bits:<num_bits>:<hex words>   hashed:<seed>:<bucket>
//   subset:1.4.9   sketch:<row>:<column>:<num_bits>:<hex words>   scalar:-17
//   workload:<group>:<inner item, bits or hashed token>, e.g. workload:2:item:5
// e.g. bits:66:00000000000000a1.0000000000000003. Bit-vector words are 16
// lowercase hex digits each, separated by '.'; num_bits is the length in
// bits. Files written before lengths were kept have no "<num_bits>:" (e.g.
// bits:00000000000000a1); those read back with num_bits = 0, the legacy
// marker of frequency_report.h, and are written back the same way.
// This is a storage format, not a wire format (the wire is protobuf).
#ifndef LDP_CLIENT_CORE_PAYLOAD_TEXT_H_
#define LDP_CLIENT_CORE_PAYLOAD_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/tasks/task.h"

namespace ldp {

std::string PayloadToText(const ReportPayload& payload);

// Exact inverse of PayloadToText; DataLoss for anything it cannot parse.
absl::StatusOr<ReportPayload> PayloadFromText(absl::string_view text);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_PAYLOAD_TEXT_H_
