// Record schemas and records: what one agent's data looks like.
//
// A schema fixes each field's kind and bounds so that every later step
// (queries, domain encodings, randomizers) works on a complete, in-range
// record. Agents' real data is messy; DESIGN invariant 8 says a missing or
// odd value must still yield exactly one well-formed report, so `Sanitize`
// never fails: it clamps out-of-range numbers and replaces missing, NaN or
// wrongly typed values by the field's default.
//
// Plain C++ types (no protobuf): server/ and client/ convert at their edges.
#ifndef LDP_COMMON_QUERIES_RECORD_SCHEMA_H_
#define LDP_COMMON_QUERIES_RECORD_SCHEMA_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp {

enum class FieldKind { kBool, kInt, kCategorical, kReal, kBitVector };

// A field's value: bool (kBool), int64_t (kInt), category name (kCategorical),
// double (kReal), bits (kBitVector).
using FieldValue =
    std::variant<bool, int64_t, std::string, double, std::vector<bool>>;

// One field's declaration. Use the factories; `RecordSchema::Create`
// validates. Bounds are inclusive. Without an explicit `default_value` a
// missing value becomes the lower bound, the first category, false or all
// zeros (see `DefaultValue`).
struct FieldSpec {
  std::string name{};
  FieldKind kind = FieldKind::kBool;
  int64_t int_lower = 0;  // kInt
  int64_t int_upper = 0;
  double real_lower = 0;  // kReal
  double real_upper = 0;
  std::vector<std::string> categories{};  // kCategorical
  uint32_t bit_length = 0;                // kBitVector
  std::optional<FieldValue> default_value{};

  static FieldSpec Bool(std::string name);
  static FieldSpec Int(std::string name, int64_t lower, int64_t upper);
  static FieldSpec Categorical(std::string name,
                               std::vector<std::string> categories);
  static FieldSpec Real(std::string name, double lower, double upper);
  static FieldSpec BitVector(std::string name, uint32_t bit_length);

  friend bool operator==(const FieldSpec&, const FieldSpec&) = default;
};

// Limits that keep schemas, and everything derived from them, small.
inline constexpr int kMaxSchemaFields = 256;
inline constexpr int kMaxFieldNameLength = 64;
inline constexpr int kMaxCategories = 1 << 16;
inline constexpr int kMaxCategoryLength = 256;
inline constexpr uint32_t kMaxBitLength = 4096;
// Int bounds stay within ±2^53 so every value is exact as a double.
inline constexpr int64_t kMaxIntMagnitude = int64_t{1} << 53;

// One agent's record: field name → value. May be incomplete or out of range
// until sanitized.
struct Record {
  absl::flat_hash_map<std::string, FieldValue> values{};
  friend bool operator==(const Record&, const Record&) = default;
};

// A validated list of fields. Immutable, copyable, thread-safe.
class RecordSchema {
 public:
  // InvalidArgument unless: 1 to kMaxSchemaFields fields; names are unique
  // identifiers ([A-Za-z_][A-Za-z0-9_]*, ≤ kMaxFieldNameLength); int bounds
  // lower < upper within ±kMaxIntMagnitude; real bounds finite, lower <
  // upper, upper − lower finite; categories 1 to kMaxCategories, unique,
  // non-empty, ≤ kMaxCategoryLength; bit length 1 to kMaxBitLength; a
  // default value of the field's type and in range.
  static absl::StatusOr<RecordSchema> Create(std::vector<FieldSpec> fields);

  absl::Span<const FieldSpec> fields() const { return parts_->fields; }
  // The field called `name`, or nullptr.
  const FieldSpec* Find(std::string_view name) const;

  friend bool operator==(const RecordSchema& a, const RecordSchema& b) {
    return a.parts_ == b.parts_ || a.parts_->fields == b.parts_->fields;
  }

  // Copies share the immutable fields and index: a schema travels with
  // every task, query and agent task. No move operations: a move is this
  // copy, so a moved-from schema stays usable.
  RecordSchema(const RecordSchema&) = default;
  RecordSchema& operator=(const RecordSchema&) = default;

 private:
  struct Parts {
    std::vector<FieldSpec> fields;
    absl::flat_hash_map<std::string, int> index;
  };

  explicit RecordSchema(std::vector<FieldSpec> fields);

  std::shared_ptr<const Parts> parts_;
};

// The value a missing field takes: the declared default, else the lower
// bound / first category / false / all-zero bits.
FieldValue DefaultValue(const FieldSpec& spec);

// The index of `value` in spec.categories, or of the field's default
// category (see `DefaultValue`) when it is none of them. `value` is
// compared with every byte of every category, with no early exit, so the
// time depends on the schema alone, not on which category a record holds
// or whether it holds one (DESIGN invariant 8).
uint32_t CategoryIndex(const FieldSpec& spec, const std::string& value);

// `value` made valid for `spec` (nullptr = missing). Ints and reals are
// clamped into bounds and converted into each other (reals round to the
// nearest integer); NaN, an unknown category or any other type mismatch
// becomes the default; bit vectors are truncated or zero-padded.
FieldValue SanitizeValue(const FieldSpec& spec, const FieldValue* value);

// A bit vector as '0'/'1' characters, first bit first (labels, summaries).
std::string BitString(const std::vector<bool>& bits);

// A complete, in-range record with exactly the schema's fields; values of
// fields the schema does not know are dropped. Never fails.
Record Sanitize(const Record& record, const RecordSchema& schema);

}  // namespace ldp

#endif  // LDP_COMMON_QUERIES_RECORD_SCHEMA_H_
