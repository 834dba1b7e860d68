// Reading an agent's record from JSON (the agent's local data file).
//
// The agent keeps its record locally as a JSON object such as
//   {"age": 37, "smoker": false, "country": "fr", "income": 5.2e4,
//    "features": "0110"}
// Parsing is directed by the schema so that each value gets its field's
// type. The strict parser treats unknown field names and wrong types as
// errors (for tools that check a file against one schema); agents answer
// tasks with the lenient one, which defaults what does not fit, and reject
// only a file that is not JSON at all, once at start-up. Values that are
// merely missing (absent or null) or out of range are never errors: they
// pass through and `Sanitize` (record_schema.h) defaults or clamps them
// (DESIGN invariant 8).
#ifndef LDP_COMMON_QUERIES_RECORD_JSON_H_
#define LDP_COMMON_QUERIES_RECORD_JSON_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"

namespace ldp {

inline constexpr size_t kMaxRecordJsonBytes = size_t{1} << 20;

// Accepted per field kind: bool — true/false; int and real — any JSON
// number (ints keep 64-bit precision; reals in an int field and ints beyond
// 64 bits are kept as doubles for `Sanitize` to round and clamp);
// categorical — a string; bit vector — an array of booleans or 0/1, a
// string of '0'/'1' characters (element 0 first), or {"utf8": text}: the
// field holding that text (its bytes, then zeros; string_digest.h), as a
// RAPPOR question reads it.
absl::StatusOr<Record> ParseRecordJson(std::string_view json,
                                       const RecordSchema& schema);

// InvalidArgument unless `json` is a JSON object within kMaxRecordJsonBytes:
// the only check an agent makes of its record file, once, at start-up,
// before any task (so it cannot depend on what a task asks).
absl::Status ValidateRecordJsonSyntax(std::string_view json);

// What an agent answers a task from. Never fails: fields the schema does not
// declare are ignored (a device's record may serve many studies, each
// declaring only the fields it needs), and a value of the wrong type counts
// as missing, so Sanitize defaults it — an odd value must not open an error
// path the server could see (DESIGN invariant 8). `dropped` says what was
// ignored, for the device's own log; it never leaves the device.
struct LenientRecord {
  Record record;
  std::vector<std::string> dropped;
};
LenientRecord ParseRecordJsonLenient(std::string_view json,
                                     const RecordSchema& schema);

}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_RECORD_JSON_H_
