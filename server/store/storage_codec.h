// The stored forms of report payloads and round plans: protobuf messages of
// proto/ldp/storage/v1/storage.proto (the on-disk format, not the wire
// contract), serialized deterministically. The core's callers see only the
// domain types; the generated types stay inside storage_codec.cc.
//
// Payloads: the store keeps them as bytes so that an identical retry can be
// told from a conflicting second report by comparing bytes, and so
// accumulators can be rebuilt from the database after a restart. The
// encoding is canonical: two payloads are equal exactly when their bytes
// are, and a decoder accepts only bytes EncodePayload can have written.
//
// Plans (planner.h): a round's assignments and randomizers must not change
// after agents have seen them, even if a later server version would plan
// differently, so the server stores what it decided rather than re-planning
// after a restart.
//
// Databases written before this format (the hand-written byte formats,
// payload versions 1 and 2, plan versions 1 and 2) are rewritten into it by
// a store schema migration at open (legacy_codec.h says why).
#ifndef LDP_SERVER_STORE_STORAGE_CODEC_H_
#define LDP_SERVER_STORE_STORAGE_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/tasks/task.h"
#include "planning/planner.h"

namespace ldp {

std::string EncodePayload(const ReportPayload& payload);

// InvalidArgument for anything EncodePayload cannot have produced.
absl::StatusOr<ReportPayload> DecodePayload(std::string_view bytes);

std::string EncodePlan(const PlanDecisions& plan);

// InvalidArgument for anything EncodePlan cannot have produced (out of
// range kinds, over-long lists and strings, a slice outside [0, 1)).
absl::StatusOr<PlanDecisions> DecodePlan(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_STORAGE_CODEC_H_
