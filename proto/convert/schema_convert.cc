// Record schemas and records between ldp.v1 and record_schema.h; see the
// header.
#include "proto/convert/schema_convert.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "proto/convert/bit_vector_convert.h"

namespace ldp {
namespace {

absl::StatusOr<FieldSpec> FieldFromProto(const v1::FieldSpec& proto) {
  const std::string& name = proto.name();
  FieldSpec field;
  switch (proto.kind_case()) {
    case v1::FieldSpec::kBoolField:
      field = FieldSpec::Bool(name);
      if (proto.bool_field().has_default_value()) {
        field.default_value = proto.bool_field().default_value();
      }
      return field;
    case v1::FieldSpec::kIntField: {
      const v1::IntField& f = proto.int_field();
      field = FieldSpec::Int(name, f.lower(), f.upper());
      if (f.has_default_value()) field.default_value = f.default_value();
      return field;
    }
    case v1::FieldSpec::kCategoricalField: {
      const v1::CategoricalField& f = proto.categorical_field();
      field = FieldSpec::Categorical(
          name, std::vector<std::string>(f.categories().begin(),
                                         f.categories().end()));
      if (f.has_default_category()) field.default_value = f.default_category();
      return field;
    }
    case v1::FieldSpec::kRealField: {
      const v1::RealField& f = proto.real_field();
      field = FieldSpec::Real(name, f.lower(), f.upper());
      if (f.has_default_value()) field.default_value = f.default_value();
      return field;
    }
    case v1::FieldSpec::kBitVectorField: {
      const v1::BitVectorField& f = proto.bit_vector_field();
      field = FieldSpec::BitVector(name, f.bit_length());
      if (f.has_default_bits()) {
        ASSIGN_OR_RETURN(std::vector<bool> bits,
                         BitsFromProto(f.default_bits(), "default_bits"));
        field.default_value = std::move(bits);
      }
      return field;
    }
    case v1::FieldSpec::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "no kind set (one of bool_field, int_field, categorical_field, "
      "real_field, bit_vector_field)");
}

void FieldToProto(const FieldSpec& field, v1::FieldSpec* proto) {
  proto->set_name(field.name);
  const FieldValue* d =
      field.default_value.has_value() ? &*field.default_value : nullptr;
  switch (field.kind) {
    case FieldKind::kBool: {
      v1::BoolField* f = proto->mutable_bool_field();
      if (d != nullptr) f->set_default_value(std::get<bool>(*d));
      return;
    }
    case FieldKind::kInt: {
      v1::IntField* f = proto->mutable_int_field();
      f->set_lower(field.int_lower);
      f->set_upper(field.int_upper);
      if (d != nullptr) f->set_default_value(std::get<int64_t>(*d));
      return;
    }
    case FieldKind::kCategorical: {
      v1::CategoricalField* f = proto->mutable_categorical_field();
      for (const std::string& c : field.categories) f->add_categories(c);
      if (d != nullptr) f->set_default_category(std::get<std::string>(*d));
      return;
    }
    case FieldKind::kReal: {
      v1::RealField* f = proto->mutable_real_field();
      f->set_lower(field.real_lower);
      f->set_upper(field.real_upper);
      if (d != nullptr) f->set_default_value(std::get<double>(*d));
      return;
    }
    case FieldKind::kBitVector: {
      v1::BitVectorField* f = proto->mutable_bit_vector_field();
      f->set_bit_length(field.bit_length);
      if (d != nullptr) {
        BitsToProto(std::get<std::vector<bool>>(*d), f->mutable_default_bits());
      }
      return;
    }
  }
}

absl::StatusOr<FieldValue> ValueFromProto(const v1::Value& proto) {
  switch (proto.kind_case()) {
    case v1::Value::kBoolValue:
      return FieldValue(proto.bool_value());
    case v1::Value::kIntValue:
      return FieldValue(int64_t{proto.int_value()});
    case v1::Value::kCategory:
      return FieldValue(proto.category());
    case v1::Value::kRealValue:
      return FieldValue(proto.real_value());
    case v1::Value::kBits: {
      ASSIGN_OR_RETURN(std::vector<bool> bits,
                       BitsFromProto(proto.bits(), "bits"));
      return FieldValue(std::move(bits));
    }
    case v1::Value::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("value has no kind set");
}

void ValueToProto(const FieldValue& value, v1::Value* proto) {
  if (const auto* b = std::get_if<bool>(&value)) {
    proto->set_bool_value(*b);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    proto->set_int_value(*i);
  } else if (const auto* s = std::get_if<std::string>(&value)) {
    proto->set_category(*s);
  } else if (const auto* r = std::get_if<double>(&value)) {
    proto->set_real_value(*r);
  } else {
    BitsToProto(std::get<std::vector<bool>>(value), proto->mutable_bits());
  }
}

}  // namespace

absl::StatusOr<RecordSchema> RecordSchemaFromProto(
    const v1::RecordSchema& proto) {
  // Checked before converting so an oversized schema costs nothing.
  if (proto.fields_size() > kMaxSchemaFields) {
    return absl::InvalidArgumentError(
        absl::StrCat("schema has ", proto.fields_size(), " fields; at most ",
                     kMaxSchemaFields, " are allowed"));
  }
  std::vector<FieldSpec> fields;
  fields.reserve(proto.fields_size());
  for (int i = 0; i < proto.fields_size(); ++i) {
    absl::StatusOr<FieldSpec> field = FieldFromProto(proto.fields(i));
    if (!field.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("schema field ", i, " (\"", proto.fields(i).name(),
                       "\"): ", field.status().message()));
    }
    fields.push_back(*std::move(field));
  }
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(std::move(fields));
  if (!schema.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid record schema: ", schema.status().message()));
  }
  return schema;
}

void ToProto(const RecordSchema& schema, v1::RecordSchema* proto) {
  proto->Clear();
  for (const FieldSpec& field : schema.fields()) {
    FieldToProto(field, proto->add_fields());
  }
}

absl::StatusOr<Record> RecordFromProto(const v1::Record& proto) {
  Record record;
  for (const auto& [name, value] : proto.values()) {
    absl::StatusOr<FieldValue> v = ValueFromProto(value);
    if (!v.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("record value \"", name, "\": ", v.status().message()));
    }
    record.values.emplace(name, *std::move(v));
  }
  return record;
}

void ToProto(const Record& record, v1::Record* proto) {
  proto->Clear();
  for (const auto& [name, value] : record.values) {
    ValueToProto(value, &(*proto->mutable_values())[name]);
  }
}

}  // namespace ldp
