// Reading an agent's record from JSON (the agent's local data file).
//
// The agent keeps its record locally as a JSON object such as
//   {"age": 37, "smoker": false, "country": "fr", "income": 5.2e4,
//    "features": "0110"}
// Parsing is directed by the schema so that each value gets its field's
// type. Typos in the file (unknown field names, a string where a number is
// expected, broken JSON) are errors, reported once when the file is loaded
// and before any task, so they cannot depend on what a task asks. Values
// that are merely missing (absent or null) or out of range are NOT errors:
// they pass through unchanged and `Sanitize` (record_schema.h) defaults or
// clamps them (DESIGN invariant 8).
#ifndef LDP_COMMON_RECORD_JSON_H_
#define LDP_COMMON_RECORD_JSON_H_

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/record_schema.h"

namespace ldp {

inline constexpr size_t kMaxRecordJsonBytes = size_t{1} << 20;

// Accepted per field kind: bool — true/false; int and real — any JSON
// number (ints keep 64-bit precision; reals in an int field and ints beyond
// 64 bits are kept as doubles for `Sanitize` to round and clamp);
// categorical — a string; bit vector — an array of booleans or 0/1, or a
// string of '0'/'1' characters (element 0 first).
absl::StatusOr<Record> ParseRecordJson(std::string_view json,
                                       const RecordSchema& schema);

}  // namespace ldp

#endif  // LDP_COMMON_RECORD_JSON_H_
