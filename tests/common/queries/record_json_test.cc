#include "common/queries/record_json.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/queries/string_digest.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kInvalid;

RecordSchema Schema() {
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(
      {FieldSpec::Bool("smoker"), FieldSpec::Int("age", 0, 120),
       FieldSpec::Categorical("country", {"fr", "de"}),
       FieldSpec::Real("income", 0, 1e6), FieldSpec::BitVector("bits", 4)});
  EXPECT_OK(schema);
  return *schema;
}

TEST(ParseRecordJson, ReadsEveryFieldKind) {
  const absl::StatusOr<Record> record = ParseRecordJson(
      R"({"smoker": true, "age": 37, "country": "de", "income": 52000.5,
          "bits": [1, 0, true, false]})",
      Schema());
  ASSERT_OK(record);
  EXPECT_EQ(record->values.at("smoker"), FieldValue(true));
  EXPECT_EQ(record->values.at("age"), FieldValue(int64_t{37}));
  EXPECT_EQ(record->values.at("country"), FieldValue(std::string("de")));
  EXPECT_EQ(record->values.at("income"), FieldValue(52000.5));
  EXPECT_EQ(record->values.at("bits"),
            FieldValue(std::vector<bool>{true, false, true, false}));
}

TEST(ParseRecordJson, ReadsBitStringsAndIntegerReals) {
  const absl::StatusOr<Record> record =
      ParseRecordJson(R"({"bits": "0110", "income": 7})", Schema());
  ASSERT_OK(record);
  EXPECT_EQ(record->values.at("bits"),
            FieldValue(std::vector<bool>{false, true, true, false}));
  // Kept as an int; Sanitize converts it for the real field.
  EXPECT_EQ(Sanitize(*record, Schema()).values.at("income"), FieldValue(7.0));
}

TEST(ParseRecordJson, ReadsTextIntoABitVectorField) {
  const RecordSchema schema =
      *RecordSchema::Create({FieldSpec::BitVector("text", 24)});
  const absl::StatusOr<Record> record =
      ParseRecordJson(R"({"text": {"utf8": "hi"}})", schema);
  ASSERT_OK(record);
  EXPECT_EQ(record->values.at("text"), FieldValue(*StringBits("hi", 24)));
  for (const char* text :
       {R"({"text": {"utf8": "four"}})", R"({"text": {"utf8": 7}})",
        R"({"text": {"utf8": "a", "more": 1}})",
        R"({"text": {"text": "a"}})"}) {
    EXPECT_THAT(ParseRecordJson(text, schema),
                StatusIs(kInvalid, HasSubstr("utf8")))
        << text;
  }
}

// Missing and out-of-range values are data, not errors (invariant 8):
// they parse, and Sanitize defaults or clamps them.
TEST(ParseRecordJson, PassesMissingAndOutOfRangeValuesToSanitize) {
  const RecordSchema schema = Schema();
  const absl::StatusOr<Record> record = ParseRecordJson(
      R"({"smoker": null, "age": 1e30, "country": "zz", "income": -5,
          "bits": [1]})",
      schema);
  ASSERT_OK(record);
  EXPECT_FALSE(record->values.contains("smoker"));
  const Record s = Sanitize(*record, schema);
  EXPECT_EQ(s.values.at("smoker"), FieldValue(false));
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{120}));
  EXPECT_EQ(s.values.at("country"), FieldValue(std::string("fr")));
  EXPECT_EQ(s.values.at("income"), FieldValue(0.0));
  EXPECT_EQ(s.values.at("bits"),
            FieldValue(std::vector<bool>{true, false, false, false}));
  ASSERT_OK(ParseRecordJson("{}", schema));
  EXPECT_EQ(Sanitize(*ParseRecordJson("{}", schema), schema).values.size(), 5u);
}

TEST(ParseRecordJson, KeepsLargeIntegersExactOrAsDoubles) {
  const RecordSchema schema = Schema();
  absl::StatusOr<Record> r =
      ParseRecordJson(R"({"age": 9007199254740993})", schema);
  ASSERT_OK(r);
  EXPECT_EQ(r->values.at("age"), FieldValue(int64_t{9007199254740993}));
  r = ParseRecordJson(R"({"age": 18446744073709551615})", schema);
  ASSERT_OK(r);
  EXPECT_TRUE(std::holds_alternative<double>(r->values.at("age")));
  EXPECT_EQ(Sanitize(*r, schema).values.at("age"), FieldValue(int64_t{120}));
}

TEST(ParseRecordJson, RejectsMalformedJson) {
  for (const char* text :
       {"", "{", "[1, 2]", "42", "{\"age\": }", "{'age': 3}"}) {
    EXPECT_THAT(ParseRecordJson(text, Schema()), StatusIs(kInvalid)) << text;
  }
}

TEST(ParseRecordJson, RejectsUnknownFieldsAndWrongJsonTypes) {
  const RecordSchema schema = Schema();
  const absl::StatusOr<Record> unknown =
      ParseRecordJson(R"({"agee": 3})", schema);
  EXPECT_THAT(unknown, StatusIs(kInvalid));
  EXPECT_THAT(unknown.status().message(), HasSubstr("agee"));
  for (const char* text :
       {R"({"smoker": 1})", R"({"age": "37"})", R"({"income": [1]})",
        R"({"country": 3})", R"({"bits": [2]})", R"({"bits": "01x0"})",
        R"({"bits": 5})"}) {
    const absl::StatusOr<Record> r = ParseRecordJson(text, schema);
    EXPECT_THAT(r, StatusIs(kInvalid)) << text;
    EXPECT_THAT(r.status().message(), HasSubstr("expects")) << text;
  }
}

TEST(ParseRecordJson, RejectsOversizedInput) {
  const std::string big = absl::StrCat(
      "{\"country\": \"", std::string(kMaxRecordJsonBytes, 'a'), "\"}");
  EXPECT_THAT(ParseRecordJson(big, Schema()), StatusIs(kInvalid));
}

// The agent's parser never fails: unknown fields are ignored, wrong types
// become missing (and are noted locally), and an unreadable file yields an
// empty record that Sanitize fills with defaults.
TEST(ParseRecordJsonLenient, DefaultsWhatDoesNotFit) {
  const LenientRecord parsed = ParseRecordJsonLenient(
      R"({"smoker": "sometimes", "income": 7, "elsewhere": 1})", Schema());
  EXPECT_EQ(parsed.record.values.size(), 1u);
  EXPECT_TRUE(parsed.record.values.contains("income"));
  ASSERT_EQ(parsed.dropped.size(), 1u);
  EXPECT_NE(parsed.dropped[0].find("smoker"), std::string::npos);
  const LenientRecord broken = ParseRecordJsonLenient("{oops", Schema());
  EXPECT_TRUE(broken.record.values.empty());
  EXPECT_EQ(broken.dropped.size(), 1u);
}

TEST(ValidateRecordJsonSyntax, AcceptsObjectsOnly) {
  EXPECT_OK(ValidateRecordJsonSyntax(R"({"anything": [1, 2]})"));
  EXPECT_THAT(ValidateRecordJsonSyntax("[1]"), StatusIs(kInvalid));
  EXPECT_THAT(ValidateRecordJsonSyntax("{"), StatusIs(kInvalid));
}

}  // namespace
}  // namespace ldp
