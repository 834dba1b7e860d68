// Record schema validation and record sanitization.
#include "common/queries/record_schema.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

absl::Status ValidateFieldName(const std::string& name) {
  const bool valid_chars = !name.empty() && !absl::ascii_isdigit(name[0]) &&
                           std::all_of(name.begin(), name.end(), [](char c) {
                             return absl::ascii_isalnum(c) || c == '_';
                           });
  if (!valid_chars || name.size() > kMaxFieldNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("field name \"", name,
                     "\" must match [A-Za-z_][A-Za-z0-9_]* and be at "
                     "most ",
                     kMaxFieldNameLength, " characters"));
  }
  return absl::OkStatus();
}

absl::Status ValidateIntBounds(const FieldSpec& f) {
  if (f.int_lower >= f.int_upper || f.int_lower < -kMaxIntMagnitude ||
      f.int_upper > kMaxIntMagnitude) {
    return absl::InvalidArgumentError(absl::StrCat(
        "int field \"", f.name, "\" needs lower < upper within ±2^53, got [",
        f.int_lower, ", ", f.int_upper, "]"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRealBounds(const FieldSpec& f) {
  if (!std::isfinite(f.real_lower) || !std::isfinite(f.real_upper) ||
      !(f.real_lower < f.real_upper) ||
      !std::isfinite(f.real_upper - f.real_lower)) {
    return absl::InvalidArgumentError(
        absl::StrCat("real field \"", f.name,
                     "\" needs finite bounds with lower < upper "
                     "and a finite width, got [",
                     f.real_lower, ", ", f.real_upper, "]"));
  }
  return absl::OkStatus();
}

absl::Status ValidateCategories(const FieldSpec& f) {
  if (f.categories.empty() || f.categories.size() > kMaxCategories) {
    return absl::InvalidArgumentError(
        absl::StrCat("categorical field \"", f.name, "\" needs 1 to ",
                     kMaxCategories, " categories, got ", f.categories.size()));
  }
  absl::flat_hash_set<absl::string_view> seen;
  for (const std::string& c : f.categories) {
    if (c.empty() || c.size() > kMaxCategoryLength) {
      return absl::InvalidArgumentError(
          absl::StrCat("categories of field \"", f.name, "\" must be 1 to ",
                       kMaxCategoryLength, " bytes long"));
    }
    if (!seen.insert(c).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "field \"", f.name, "\" lists category \"", c, "\" twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateBitLength(const FieldSpec& f) {
  if (f.bit_length < 1 || f.bit_length > kMaxBitLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("bit-vector field \"", f.name,
                     "\" needs a bit length of "
                     "1 to ",
                     kMaxBitLength, ", got ", f.bit_length));
  }
  return absl::OkStatus();
}

absl::Status ValidateBounds(const FieldSpec& f) {
  switch (f.kind) {
    case FieldKind::kBool:
      return absl::OkStatus();
    case FieldKind::kInt:
      return ValidateIntBounds(f);
    case FieldKind::kCategorical:
      return ValidateCategories(f);
    case FieldKind::kReal:
      return ValidateRealBounds(f);
    case FieldKind::kBitVector:
      return ValidateBitLength(f);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("field \"", f.name, "\" has an unknown kind"));
}

// A declared default must already be a valid value: sanitizing it must be a
// no-op.
absl::Status ValidateDefault(const FieldSpec& f) {
  if (!f.default_value.has_value()) return absl::OkStatus();
  FieldSpec without_default = f;
  without_default.default_value.reset();
  const FieldValue sanitized =
      SanitizeValue(without_default, &*f.default_value);
  if (sanitized != *f.default_value) {
    return absl::InvalidArgumentError(absl::StrCat(
        "default value of field \"", f.name,
        "\" must have the field's type and lie within its bounds"));
  }
  return absl::OkStatus();
}

int64_t ClampToInt(const FieldSpec& f, double x) {
  const double clamped = std::clamp(x, static_cast<double>(f.int_lower),
                                    static_cast<double>(f.int_upper));
  return static_cast<int64_t>(std::round(clamped));
}

FieldValue SanitizeNumber(const FieldSpec& f, const FieldValue& v) {
  const bool is_int = f.kind == FieldKind::kInt;
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    if (is_int) return std::clamp(*i, f.int_lower, f.int_upper);
    return std::clamp(static_cast<double>(*i), f.real_lower, f.real_upper);
  }
  const double* d = std::get_if<double>(&v);
  if (d == nullptr || std::isnan(*d)) return DefaultValue(f);
  if (is_int) return ClampToInt(f, *d);
  return std::clamp(*d, f.real_lower, f.real_upper);
}

// Where the default category sits; the schema is public, so this search
// may stop early.
uint32_t DefaultCategoryIndex(const FieldSpec& f) {
  const auto* name = f.default_value.has_value()
                         ? std::get_if<std::string>(&*f.default_value)
                         : nullptr;
  if (name == nullptr) return 0;
  const auto it = std::find(f.categories.begin(), f.categories.end(), *name);
  return it == f.categories.end()
             ? 0
             : static_cast<uint32_t>(it - f.categories.begin());
}

// A sanitized categorical value: always one lookup, also for a value of the
// wrong type (looked up as "", which is never a category).
FieldValue SanitizeCategory(const FieldSpec& f, const FieldValue& v) {
  if (f.categories.empty()) return DefaultValue(f);  // unvalidated specs only
  static const std::string* const kNoCategory = new std::string();
  const auto* name = std::get_if<std::string>(&v);
  return f.categories[CategoryIndex(f, name != nullptr ? *name : *kNoCategory)];
}

FieldValue SanitizeBits(const FieldSpec& f, const FieldValue& v) {
  const auto* bits = std::get_if<std::vector<bool>>(&v);
  if (bits == nullptr) return DefaultValue(f);
  std::vector<bool> result = *bits;
  result.resize(f.bit_length, false);
  return result;
}

}  // namespace

FieldSpec FieldSpec::Bool(std::string name) {
  return {.name = std::move(name), .kind = FieldKind::kBool};
}
FieldSpec FieldSpec::Int(std::string name, int64_t lower, int64_t upper) {
  return {.name = std::move(name),
          .kind = FieldKind::kInt,
          .int_lower = lower,
          .int_upper = upper};
}
FieldSpec FieldSpec::Categorical(std::string name,
                                 std::vector<std::string> categories) {
  return {.name = std::move(name),
          .kind = FieldKind::kCategorical,
          .categories = std::move(categories)};
}
FieldSpec FieldSpec::Real(std::string name, double lower, double upper) {
  return {.name = std::move(name),
          .kind = FieldKind::kReal,
          .real_lower = lower,
          .real_upper = upper};
}
FieldSpec FieldSpec::BitVector(std::string name, uint32_t bit_length) {
  return {.name = std::move(name),
          .kind = FieldKind::kBitVector,
          .bit_length = bit_length};
}

absl::StatusOr<RecordSchema> RecordSchema::Create(
    std::vector<FieldSpec> fields) {
  if (fields.empty() || fields.size() > kMaxSchemaFields) {
    return absl::InvalidArgumentError(
        absl::StrCat("a record schema needs 1 to ", kMaxSchemaFields,
                     " fields, got ", fields.size()));
  }
  absl::flat_hash_set<absl::string_view> names;
  for (const FieldSpec& f : fields) {
    RETURN_IF_ERROR(ValidateFieldName(f.name));
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("field name \"", f.name, "\" is used twice"));
    }
    RETURN_IF_ERROR(ValidateBounds(f));
    RETURN_IF_ERROR(ValidateDefault(f));
  }
  return RecordSchema(std::move(fields));
}

RecordSchema::RecordSchema(std::vector<FieldSpec> fields) {
  Parts parts{.fields = std::move(fields)};
  for (int i = 0; i < static_cast<int>(parts.fields.size()); ++i) {
    parts.index[parts.fields[i].name] = i;
  }
  parts_ = std::make_shared<const Parts>(std::move(parts));
}

const FieldSpec* RecordSchema::Find(std::string_view name) const {
  const auto it =
      parts_->index.find(absl::string_view(name.data(), name.size()));
  return it == parts_->index.end() ? nullptr : &parts_->fields[it->second];
}

FieldValue DefaultValue(const FieldSpec& spec) {
  if (spec.default_value.has_value()) return *spec.default_value;
  switch (spec.kind) {
    case FieldKind::kBool:
      return false;
    case FieldKind::kInt:
      return spec.int_lower;
    case FieldKind::kCategorical:
      return spec.categories.empty() ? std::string() : spec.categories[0];
    case FieldKind::kReal:
      return spec.real_lower;
    case FieldKind::kBitVector:
      return std::vector<bool>(spec.bit_length, false);
  }
  return false;
}

FieldValue SanitizeValue(const FieldSpec& spec, const FieldValue* value) {
  if (value == nullptr) {
    // A missing category takes the lookup a present one takes (as a value
    // of the wrong type, which yields the default), so the work does not
    // tell whether the record has the field (DESIGN invariant 8).
    if (spec.kind != FieldKind::kCategorical) return DefaultValue(spec);
    static const FieldValue* const kAbsent = new FieldValue(0.0);
    value = kAbsent;
  }
  switch (spec.kind) {
    case FieldKind::kBool:
      if (const bool* b = std::get_if<bool>(value)) return *b;
      return DefaultValue(spec);
    case FieldKind::kInt:
    case FieldKind::kReal:
      return SanitizeNumber(spec, *value);
    case FieldKind::kCategorical:
      return SanitizeCategory(spec, *value);
    case FieldKind::kBitVector:
      return SanitizeBits(spec, *value);
  }
  return DefaultValue(spec);
}

uint32_t CategoryIndex(const FieldSpec& spec, const std::string& value) {
  const uint32_t fallback = DefaultCategoryIndex(spec);  // always computed
  const size_t size = value.size();
  uint32_t index = 0;
  bool found = false;
  for (size_t i = 0; i < spec.categories.size(); ++i) {
    const std::string& category = spec.categories[i];
    // Nonzero iff they differ. Past its end `value` reads as its
    // terminating NUL; the length test has already told them apart then.
    uint32_t diff = category.size() != size ? 1 : 0;
    for (size_t j = 0; j < category.size(); ++j) {
      diff |= static_cast<uint8_t>(category[j]) ^
              static_cast<uint8_t>(value.data()[std::min(j, size)]);
    }
    const uint32_t match = 0 - static_cast<uint32_t>(diff == 0);
    index |= match & static_cast<uint32_t>(i);
    found |= diff == 0;
  }
  return found ? index : fallback;
}

std::string BitString(const std::vector<bool>& bits) {
  std::string s;
  s.reserve(bits.size());
  for (bool b : bits) s.push_back(b ? '1' : '0');
  return s;
}

Record Sanitize(const Record& record, const RecordSchema& schema) {
  Record result;
  for (const FieldSpec& f : schema.fields()) {
    const auto it = record.values.find(f.name);
    result.values[f.name] =
        SanitizeValue(f, it == record.values.end() ? nullptr : &it->second);
  }
  return result;
}

}  // namespace ldp
