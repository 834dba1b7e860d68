#include "proto/convert/schema_convert.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/proto/convert/convert_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::testing::kInvalid;
using ::ldp::testing::kSchemaText;
using ::ldp::testing::ParseText;
using ::ldp::testing::ProtoEquals;
using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

TEST(SchemaConvert, GoldenRoundTrip) {
  const auto proto = ParseText<v1::RecordSchema>(kSchemaText);
  absl::StatusOr<RecordSchema> schema = RecordSchemaFromProto(proto);
  ASSERT_OK(schema);
  v1::RecordSchema back;
  ToProto(*schema, &back);
  EXPECT_TRUE(ProtoEquals(back, proto));
}

TEST(SchemaConvert, ReadsEveryKindAndDefault) {
  absl::StatusOr<RecordSchema> schema =
      RecordSchemaFromProto(ParseText<v1::RecordSchema>(kSchemaText));
  ASSERT_OK(schema);
  FieldSpec smoker = FieldSpec::Bool("smoker");
  smoker.default_value = true;
  FieldSpec age = FieldSpec::Int("age", 0, 120);
  age.default_value = int64_t{30};
  FieldSpec country = FieldSpec::Categorical("country", {"fr", "de", "it"});
  country.default_value = std::string("de");
  FieldSpec income = FieldSpec::Real("income", -10, 100);
  income.default_value = 5.5;
  FieldSpec features = FieldSpec::BitVector("features", 5);
  features.default_value = std::vector<bool>{true, false, true, false, false};
  EXPECT_THAT(schema->fields(),
              ::testing::ElementsAre(smoker, age, country, income, features));
}

TEST(SchemaConvert, DomainRoundTripWithoutDefaults) {
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(
      {FieldSpec::Bool("b"), FieldSpec::Int("i", -5, 5),
       FieldSpec::Categorical("c", {"x"}), FieldSpec::Real("r", 0, 1),
       FieldSpec::BitVector("v", 70)});
  ASSERT_OK(schema);
  v1::RecordSchema proto;
  ToProto(*schema, &proto);
  EXPECT_FALSE(proto.fields(0).bool_field().has_default_value());
  EXPECT_FALSE(proto.fields(1).int_field().has_default_value());
  absl::StatusOr<RecordSchema> back = RecordSchemaFromProto(proto);
  ASSERT_OK(back);
  EXPECT_EQ(*back, *schema);
}

TEST(SchemaConvert, RejectsMalformedSchemas) {
  struct Case {
    const char* name;
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"empty", "", "invalid record schema"},
      {"no kind", R"pb(fields { name: "x" })pb", "no kind set"},
      {"duplicate name",
       R"pb(fields {
              name: "x"
              bool_field {}
            }
            fields {
              name: "x"
              bool_field {}
            })pb",
       "invalid record schema"},
      {"bad name", R"pb(fields {
                          name: "1x"
                          bool_field {}
                        })pb",
       "schema"},
      {"int bounds reversed", R"pb(fields {
                                     name: "x"
                                     int_field { lower: 5 upper: 5 }
                                   })pb",
       "schema"},
      {"int default out of range",
       R"pb(fields {
              name: "x"
              int_field { lower: 0 upper: 5 default_value: 6 }
            })pb",
       "schema"},
      {"unknown default category",
       R"pb(fields {
              name: "x"
              categorical_field { categories: "a" default_category: "b" }
            })pb",
       "schema"},
      {"no categories", R"pb(fields {
                               name: "x"
                               categorical_field {}
                             })pb",
       "schema"},
      {"real NaN bound", R"pb(fields {
                                name: "x"
                                real_field { lower: nan upper: 1 }
                              })pb",
       "schema"},
      {"bit default wrong length",
       R"pb(fields {
              name: "x"
              bit_vector_field {
                bit_length: 9
                default_bits { packed: "\x01" bit_length: 8 }
              }
            })pb",
       "schema"},
      {"bit default badly packed",
       R"pb(fields {
              name: "x"
              bit_vector_field {
                bit_length: 4
                default_bits { packed: "\x10" bit_length: 4 }
              }
            })pb",
       "default_bits"},
      {"zero bits", R"pb(fields {
                           name: "x"
                           bit_vector_field {}
                         })pb",
       "schema"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<RecordSchema> schema =
        RecordSchemaFromProto(ParseText<v1::RecordSchema>(c.text));
    EXPECT_THAT(schema, StatusIs(kInvalid)) << c.name;
    EXPECT_THAT(schema.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(SchemaConvert, RejectsTooManyFieldsBeforeConvertingThem) {
  v1::RecordSchema proto;
  for (int i = 0; i <= kMaxSchemaFields; ++i) {
    auto* f = proto.add_fields();
    f->set_name(absl::StrCat("f", i));
    f->mutable_bool_field();
  }
  absl::StatusOr<RecordSchema> schema = RecordSchemaFromProto(proto);
  EXPECT_THAT(schema, StatusIs(kInvalid));
  EXPECT_THAT(schema.status().message(), HasSubstr("at most 256"));
}

TEST(SchemaConvert, RecordRoundTripKeepsEveryValueKind) {
  Record record;
  record.values["smoker"] = true;
  record.values["age"] = int64_t{-3};
  record.values["country"] = std::string("it");
  record.values["income"] = 12.25;
  record.values["features"] = std::vector<bool>{false, true, true};
  v1::Record proto;
  ToProto(record, &proto);
  EXPECT_EQ(proto.values_size(), 5);
  absl::StatusOr<Record> back = RecordFromProto(proto);
  ASSERT_OK(back);
  EXPECT_EQ(*back, record);
}

TEST(SchemaConvert, RecordRejectsValuesWithoutKindOrBadBits) {
  v1::Record no_kind;
  (*no_kind.mutable_values())["x"];
  EXPECT_THAT(RecordFromProto(no_kind), StatusIs(kInvalid));
  v1::Record bad_bits;
  auto* bits = (*bad_bits.mutable_values())["x"].mutable_bits();
  bits->set_bit_length(3);
  bits->set_packed(std::string("\x08", 1));
  EXPECT_THAT(RecordFromProto(bad_bits), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
