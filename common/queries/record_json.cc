// Schema-directed JSON record parsing with nlohmann/json, used only through
// its non-throwing calls (the project builds no code that relies on
// exceptions).
#include "common/queries/record_json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/queries/string_digest.h"
#include "nlohmann/json.hpp"

namespace ldp {
namespace {

using Json = nlohmann::json;

std::optional<FieldValue> NumberValue(const Json& j) {
  if (j.is_number_integer() && !j.is_number_unsigned()) {
    return j.get<int64_t>();
  }
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(u);
    return static_cast<double>(u);
  }
  if (j.is_number_float()) return j.get<double>();
  return std::nullopt;
}

std::optional<FieldValue> BitsFromString(const std::string& s) {
  std::vector<bool> bits;
  bits.reserve(s.size());
  for (char c : s) {
    if (c != '0' && c != '1') return std::nullopt;
    bits.push_back(c == '1');
  }
  return bits;
}

// {"utf8": S}: the field holding the string S (string_digest.h), or
// nothing if S is longer than the field.
std::optional<FieldValue> BitsFromText(const Json& j, uint32_t bit_length) {
  const auto text = j.find("utf8");
  if (j.size() != 1 || text == j.end() || !text->is_string()) {
    return std::nullopt;
  }
  absl::StatusOr<std::vector<bool>> bits =
      StringBits(text->get_ref<const std::string&>(), bit_length);
  if (!bits.ok()) return std::nullopt;
  return *std::move(bits);
}

std::optional<FieldValue> BitsValue(const Json& j, uint32_t bit_length) {
  if (j.is_string()) return BitsFromString(j.get_ref<const std::string&>());
  if (j.is_object()) return BitsFromText(j, bit_length);
  if (!j.is_array()) return std::nullopt;
  std::vector<bool> bits;
  bits.reserve(j.size());
  for (const Json& e : j) {
    if (e.is_boolean()) {
      bits.push_back(e.get<bool>());
    } else if (e.is_number_integer() && (e == 0 || e == 1)) {
      bits.push_back(e == 1);
    } else {
      return std::nullopt;
    }
  }
  return bits;
}

std::optional<FieldValue> ConvertValue(const FieldSpec& spec, const Json& j) {
  switch (spec.kind) {
    case FieldKind::kBool:
      if (j.is_boolean()) return j.get<bool>();
      return std::nullopt;
    case FieldKind::kInt:
    case FieldKind::kReal:
      return NumberValue(j);
    case FieldKind::kCategorical:
      if (j.is_string()) return j.get<std::string>();
      return std::nullopt;
    case FieldKind::kBitVector:
      return BitsValue(j, spec.bit_length);
  }
  return std::nullopt;
}

const char* Expectation(FieldKind kind) {
  switch (kind) {
    case FieldKind::kBool:
      return "true or false";
    case FieldKind::kInt:
    case FieldKind::kReal:
      return "a number";
    case FieldKind::kCategorical:
      return "a category name (string)";
    case FieldKind::kBitVector:
      return "an array of 0/1 or booleans, a string of '0'/'1', or "
             "{\"utf8\": text} with text no longer than the field's bytes";
  }
  return "a value";
}

// At most 64 characters of `j`, for error messages.
std::string Excerpt(const Json& j) {
  std::string text = j.dump(/*indent=*/-1, ' ', /*ensure_ascii=*/false,
                            Json::error_handler_t::replace);
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

absl::StatusOr<Json> ParseObject(std::string_view json) {
  if (json.size() > kMaxRecordJsonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("record JSON is ", json.size(), " bytes; the limit is ",
                     kMaxRecordJsonBytes));
  }
  Json parsed = Json::parse(json, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError("record is not valid JSON");
  }
  if (!parsed.is_object()) {
    return absl::InvalidArgumentError("record JSON must be an object");
  }
  return parsed;
}

// Converts every field; a field that does not fit is an error, or (when
// `dropped` is set) a note and is skipped.
absl::StatusOr<Record> ConvertFields(const Json& parsed,
                                     const RecordSchema& schema,
                                     std::vector<std::string>* dropped) {
  Record record;
  for (const auto& [name, value] : parsed.items()) {
    const FieldSpec* spec = schema.Find(name);
    if (spec == nullptr) {
      if (dropped == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("record has field \"", name,
                         "\", which the schema does not declare"));
      }
      continue;  // another study's field: not a problem worth noting
    }
    if (value.is_null()) continue;  // missing: Sanitize supplies the default
    std::optional<FieldValue> converted = ConvertValue(*spec, value);
    if (!converted.has_value()) {
      std::string problem =
          absl::StrCat("field \"", name, "\" expects ", Expectation(spec->kind),
                       ", got ", Excerpt(value));
      if (dropped == nullptr) return absl::InvalidArgumentError(problem);
      dropped->push_back(absl::StrCat(problem, "; using the default"));
      continue;
    }
    record.values[name] = *std::move(converted);
  }
  return record;
}

}  // namespace

absl::StatusOr<Record> ParseRecordJson(std::string_view json,
                                       const RecordSchema& schema) {
  absl::StatusOr<Json> parsed = ParseObject(json);
  if (!parsed.ok()) return parsed.status();
  return ConvertFields(*parsed, schema, nullptr);
}

absl::Status ValidateRecordJsonSyntax(std::string_view json) {
  return ParseObject(json).status();
}

LenientRecord ParseRecordJsonLenient(std::string_view json,
                                     const RecordSchema& schema) {
  LenientRecord result;
  absl::StatusOr<Json> parsed = ParseObject(json);
  if (!parsed.ok()) {
    result.dropped.push_back(
        absl::StrCat(parsed.status().message(), "; every field defaulted"));
    return result;
  }
  absl::StatusOr<Record> record =
      ConvertFields(*parsed, schema, &result.dropped);
  if (record.ok()) result.record = *std::move(record);
  return result;
}

}  // namespace ldp
