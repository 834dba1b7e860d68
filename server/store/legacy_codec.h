// Readers of the hand-written byte formats the server stored before
// storage.proto (payload versions 1 and 2, plan versions 1 and 2), kept only
// for the store schema migration that rewrites such rows at open
// (sqlite_schema.cc, postgres_schema.cc). Nothing else reads them.
//
// Why a migration that rewrites the rows, rather than a decoder that keeps
// reading both formats: the store tells an identical retry from a
// conflicting second report by comparing payload bytes. A report stored in
// the old bytes and retried after the upgrade would be encoded in the new
// format and compare unequal, so the retry would be refused as a conflict.
// Rewriting every stored row once keeps one format in the database (bytes
// compare like with like), the runtime decoders single-format and strict,
// and lets this file go once no database of the old format remains. A
// legacy row's first byte (1 or 2) is never the first byte of a protobuf
// message (field number 0 is invalid), so the two formats cannot be
// confused.
#ifndef LDP_SERVER_STORE_LEGACY_CODEC_H_
#define LDP_SERVER_STORE_LEGACY_CODEC_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/tasks/task.h"
#include "planning/planner.h"

namespace ldp {

// InvalidArgument for anything the old EncodePayload cannot have produced.
absl::StatusOr<ReportPayload> DecodeLegacyPayload(std::string_view bytes);

// InvalidArgument for anything the old EncodePlan (either version) cannot
// have produced.
absl::StatusOr<PlanDecisions> DecodeLegacyPlan(std::string_view bytes);

// A legacy blob in the current format (storage_codec.h), or nullopt when it
// is not a legacy blob the old code could read back: the migration leaves
// such a row as it is, and restore refuses it as the old code did.
std::optional<std::string> UpgradeLegacyPayload(std::string_view bytes);
std::optional<std::string> UpgradeLegacyPlan(std::string_view bytes);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_LEGACY_CODEC_H_
