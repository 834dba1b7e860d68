#include "common/queries/record_schema.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_values.h"

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::HasSubstr;

using ::ldp::testing::kInf;
using ::ldp::testing::kInvalid;

std::vector<FieldSpec> AllKinds() {
  return {FieldSpec::Bool("smoker"), FieldSpec::Int("age", 0, 120),
          FieldSpec::Categorical("country", {"fr", "de", "it"}),
          FieldSpec::Real("income", -10.0, 100.0),
          FieldSpec::BitVector("features", 5)};
}

RecordSchema MakeSchema(std::vector<FieldSpec> fields) {
  absl::StatusOr<RecordSchema> schema = RecordSchema::Create(std::move(fields));
  EXPECT_OK(schema);
  return *schema;
}

absl::Status CreateOne(FieldSpec spec) {
  return RecordSchema::Create({std::move(spec)}).status();
}

TEST(RecordSchema, AcceptsEveryFieldKindAndFindsFieldsByName) {
  const RecordSchema schema = MakeSchema(AllKinds());
  ASSERT_EQ(schema.fields().size(), 5u);
  ASSERT_NE(schema.Find("income"), nullptr);
  EXPECT_EQ(schema.Find("income")->kind, FieldKind::kReal);
  EXPECT_EQ(schema.Find("country")->categories.size(), 3u);
  EXPECT_EQ(schema.Find("missing"), nullptr);
}

TEST(RecordSchema, RejectsEmptyAndOversizedSchemas) {
  EXPECT_THAT(RecordSchema::Create({}), StatusIs(kInvalid));
  std::vector<FieldSpec> many;
  for (int i = 0; i <= kMaxSchemaFields; ++i) {
    many.push_back(FieldSpec::Bool(absl::StrCat("f", i)));
  }
  EXPECT_THAT(RecordSchema::Create(many), StatusIs(kInvalid));
  many.pop_back();
  EXPECT_OK(RecordSchema::Create(many));
}

TEST(RecordSchema, RejectsBadAndDuplicateNames) {
  for (const std::string& name :
       std::vector<std::string>{"", "1abc", "a-b", "a b", "\xc3\xa9",
                                std::string(kMaxFieldNameLength + 1, 'x')}) {
    EXPECT_THAT(CreateOne(FieldSpec::Bool(name)), StatusIs(kInvalid)) << name;
  }
  EXPECT_OK(CreateOne(FieldSpec::Bool("_ok_Name9")));
  const absl::Status dup =
      RecordSchema::Create({FieldSpec::Bool("x"), FieldSpec::Int("x", 0, 1)})
          .status();
  EXPECT_THAT(dup, StatusIs(kInvalid));
  EXPECT_THAT(dup.message(), HasSubstr("used twice"));
}

TEST(RecordSchema, RejectsBadIntBounds) {
  EXPECT_THAT(CreateOne(FieldSpec::Int("a", 3, 3)), StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Int("a", 4, 3)), StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Int("a", 0, kMaxIntMagnitude + 1)),
              StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Int("a", -kMaxIntMagnitude - 1, 0)),
              StatusIs(kInvalid));
  EXPECT_OK(
      CreateOne(FieldSpec::Int("a", -kMaxIntMagnitude, kMaxIntMagnitude)));
}

TEST(RecordSchema, RejectsBadRealBounds) {
  const double nan = std::nan("");
  for (const auto& [lo, hi] :
       std::vector<std::pair<double, double>>{{nan, 1},
                                              {0, nan},
                                              {-kInf, 0},
                                              {0, kInf},
                                              {1, 1},
                                              {2, 1},
                                              {-1e308, 1e308}}) {
    const absl::Status status = CreateOne(FieldSpec::Real("r", lo, hi));
    EXPECT_THAT(status, StatusIs(kInvalid)) << lo << " " << hi;
    EXPECT_THAT(status.message(), HasSubstr("\"r\""));
  }
}

TEST(RecordSchema, RejectsBadCategories) {
  EXPECT_THAT(CreateOne(FieldSpec::Categorical("c", {})), StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Categorical("c", {"a", "b", "a"})),
              StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Categorical("c", {"a", ""})),
              StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::Categorical(
                  "c", {std::string(kMaxCategoryLength + 1, 'a')})),
              StatusIs(kInvalid));
  std::vector<std::string> too_many(kMaxCategories + 1);
  for (size_t i = 0; i < too_many.size(); ++i) too_many[i] = std::to_string(i);
  EXPECT_THAT(CreateOne(FieldSpec::Categorical("c", too_many)),
              StatusIs(kInvalid));
}

TEST(RecordSchema, RejectsBadBitLengths) {
  EXPECT_THAT(CreateOne(FieldSpec::BitVector("b", 0)), StatusIs(kInvalid));
  EXPECT_THAT(CreateOne(FieldSpec::BitVector("b", kMaxBitLength + 1)),
              StatusIs(kInvalid));
  EXPECT_OK(CreateOne(FieldSpec::BitVector("b", kMaxBitLength)));
}

TEST(RecordSchema, ValidatesDeclaredDefaults) {
  auto with_default = [](FieldSpec spec, FieldValue value) {
    spec.default_value = std::move(value);
    return CreateOne(std::move(spec));
  };
  EXPECT_OK(with_default(FieldSpec::Int("a", 0, 9), int64_t{4}));
  EXPECT_OK(with_default(FieldSpec::Real("r", 0, 1), 0.5));
  EXPECT_OK(
      with_default(FieldSpec::Categorical("c", {"x", "y"}), std::string("y")));
  EXPECT_OK(with_default(FieldSpec::BitVector("b", 2),
                         std::vector<bool>{true, false}));
  EXPECT_OK(with_default(FieldSpec::Bool("t"), true));

  EXPECT_THAT(with_default(FieldSpec::Int("a", 0, 9), int64_t{10}),
              StatusIs(kInvalid));
  EXPECT_THAT(with_default(FieldSpec::Int("a", 0, 9), 4.0), StatusIs(kInvalid));
  EXPECT_THAT(with_default(FieldSpec::Real("r", 0, 1), std::nan("")),
              StatusIs(kInvalid));
  EXPECT_THAT(with_default(FieldSpec::Real("r", 0, 1), 2.0),
              StatusIs(kInvalid));
  EXPECT_THAT(
      with_default(FieldSpec::Categorical("c", {"x"}), std::string("z")),
      StatusIs(kInvalid));
  EXPECT_THAT(
      with_default(FieldSpec::BitVector("b", 2), std::vector<bool>{true}),
      StatusIs(kInvalid));
  EXPECT_THAT(with_default(FieldSpec::Bool("t"), int64_t{1}),
              StatusIs(kInvalid));
}

TEST(DefaultValue, IsLowerBoundFirstCategoryFalseOrZeros) {
  const RecordSchema schema = MakeSchema(AllKinds());
  EXPECT_EQ(DefaultValue(*schema.Find("smoker")), FieldValue(false));
  EXPECT_EQ(DefaultValue(*schema.Find("age")), FieldValue(int64_t{0}));
  EXPECT_EQ(DefaultValue(*schema.Find("country")),
            FieldValue(std::string("fr")));
  EXPECT_EQ(DefaultValue(*schema.Find("income")), FieldValue(-10.0));
  EXPECT_EQ(DefaultValue(*schema.Find("features")),
            FieldValue(std::vector<bool>(5, false)));
  FieldSpec age = FieldSpec::Int("age", 0, 120);
  age.default_value = int64_t{40};
  EXPECT_EQ(DefaultValue(age), FieldValue(int64_t{40}));
}

TEST(Sanitize, FillsMissingFieldsWithDefaults) {
  std::vector<FieldSpec> fields = AllKinds();
  fields[1].default_value = int64_t{35};
  const RecordSchema schema = MakeSchema(fields);
  const Record sanitized = Sanitize(Record{}, schema);
  ASSERT_EQ(sanitized.values.size(), 5u);
  EXPECT_EQ(sanitized.values.at("age"), FieldValue(int64_t{35}));
  EXPECT_EQ(sanitized.values.at("smoker"), FieldValue(false));
  EXPECT_EQ(sanitized.values.at("income"), FieldValue(-10.0));
}

TEST(Sanitize, ClampsOutOfRangeNumbers) {
  const RecordSchema schema = MakeSchema(AllKinds());
  Record r;
  r.values["age"] = int64_t{500};
  r.values["income"] = -kInf;
  Record s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{120}));
  EXPECT_EQ(s.values.at("income"), FieldValue(-10.0));
  r.values["age"] = int64_t{-3};
  r.values["income"] = 1e300;
  s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{0}));
  EXPECT_EQ(s.values.at("income"), FieldValue(100.0));
}

TEST(Sanitize, MapsNaNToTheDefault) {
  std::vector<FieldSpec> fields = AllKinds();
  fields[3].default_value = 42.0;
  const RecordSchema schema = MakeSchema(fields);
  Record r;
  r.values["income"] = std::nan("");
  r.values["age"] = std::nan("");
  const Record s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("income"), FieldValue(42.0));
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{0}));
}

TEST(Sanitize, ConvertsBetweenIntAndReal) {
  const RecordSchema schema = MakeSchema(AllKinds());
  Record r;
  r.values["age"] = 36.6;
  r.values["income"] = int64_t{7};
  Record s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{37}));
  EXPECT_EQ(s.values.at("income"), FieldValue(7.0));
  r.values["age"] = 1e30;  // beyond int64: clamped before conversion
  s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("age"), FieldValue(int64_t{120}));
}

TEST(Sanitize, ReplacesTypeMismatchesAndUnknownCategories) {
  const RecordSchema schema = MakeSchema(AllKinds());
  Record r;
  r.values["smoker"] = int64_t{1};
  r.values["country"] = std::string("xx");
  r.values["income"] = std::string("lots");
  r.values["features"] = true;
  const Record s = Sanitize(r, schema);
  EXPECT_EQ(s.values.at("smoker"), FieldValue(false));
  EXPECT_EQ(s.values.at("country"), FieldValue(std::string("fr")));
  EXPECT_EQ(s.values.at("income"), FieldValue(-10.0));
  EXPECT_EQ(s.values.at("features"), FieldValue(std::vector<bool>(5, false)));
}

TEST(Sanitize, TruncatesOrPadsBitVectors) {
  const RecordSchema schema = MakeSchema(AllKinds());
  Record r;
  r.values["features"] = std::vector<bool>{true, true, false, true, true, true};
  EXPECT_EQ(Sanitize(r, schema).values.at("features"),
            FieldValue(std::vector<bool>{true, true, false, true, true}));
  r.values["features"] = std::vector<bool>{true};
  EXPECT_EQ(Sanitize(r, schema).values.at("features"),
            FieldValue(std::vector<bool>{true, false, false, false, false}));
}

TEST(Sanitize, KeepsValidValuesDropsUnknownFieldsAndIsIdempotent) {
  const RecordSchema schema = MakeSchema(AllKinds());
  Record r;
  r.values["smoker"] = true;
  r.values["age"] = int64_t{44};
  r.values["country"] = std::string("it");
  r.values["income"] = 12.5;
  r.values["features"] = std::vector<bool>{false, true, false, true, true};
  r.values["unknown"] = 1.0;
  const Record s = Sanitize(r, schema);
  Record expected = r;
  expected.values.erase("unknown");
  EXPECT_EQ(s, expected);
  EXPECT_EQ(Sanitize(s, schema), s);
}

}  // namespace
}  // namespace ldp
