#include "bench/studies/logistic/tabular_data.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "common/queries/record_schema.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

#ifndef LDP_SOURCE_DIR
#error "LDP_SOURCE_DIR must name the repository (for tests/data/csv/)"
#endif

namespace ldp {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::StatusIs;

// Whether RecordSchema accepts `names` as the real fields of one schema.
bool SchemaAccepts(const std::vector<std::string>& names) {
  std::vector<FieldSpec> fields;
  for (const std::string& name : names) {
    fields.push_back(FieldSpec::Real(name, 0, 1));
  }
  return RecordSchema::Create(std::move(fields)).ok();
}

absl::StatusOr<TabularData> Parse(const std::string& csv,
                                  const std::string& label = "label") {
  return ParseTabularCsv(csv, "t.csv", label);
}

std::vector<size_t> AllRows(const TabularData& data) {
  std::vector<size_t> rows(data.y.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  return rows;
}

TEST(FieldNamesForTest, KeepsValidNamesAndReplacesPunctuation) {
  const std::vector<std::string> headers = {
      "alcohol", "od280/od315_of_diluted_wines", "mean radius", "a-b.c"};
  const std::vector<std::string> names = FieldNamesFor(headers);
  EXPECT_THAT(names, ElementsAre("alcohol", "od280_od315_of_diluted_wines",
                                 "mean_radius", "a_b_c"));
  EXPECT_TRUE(SchemaAccepts(names));
  EXPECT_FALSE(SchemaAccepts(headers));  // the renaming was needed
}

TEST(FieldNamesForTest, PrefixesLeadingDigitsAndEmptyNames) {
  const std::vector<std::string> names = FieldNamesFor({"2nd", "", "_x"});
  EXPECT_THAT(names, ElementsAre("f_2nd", "f_", "_x"));
  EXPECT_TRUE(SchemaAccepts(names));
}

TEST(FieldNamesForTest, MakesNamesUniqueAfterMapping) {
  // "a/b" maps onto "a_b", a later valid header, which keeps its name;
  // "a_b_2" is taken by a valid header too, and the repeated "x" is
  // renamed, its first occurrence not.
  const std::vector<std::string> headers = {"a/b", "x",     "a_b",
                                            "x",   "a_b_2", "a.b"};
  const std::vector<std::string> names = FieldNamesFor(headers);
  EXPECT_THAT(names, ElementsAre("a_b_3", "x", "a_b", "x_2", "a_b_2", "a_b_4"));
  EXPECT_TRUE(SchemaAccepts(names));
}

TEST(FieldNamesForTest, CutsLongNamesAndKeepsThemUnique) {
  const std::string long_name(100, 'q');
  const std::vector<std::string> names = FieldNamesFor({long_name, long_name});
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], std::string(kMaxFieldNameLength, 'q'));
  EXPECT_EQ(names[1], std::string(kMaxFieldNameLength - 2, 'q') + "_2");
  EXPECT_TRUE(SchemaAccepts(names));
}

TEST(DescribeRenamesTest, ListsOnlyChangedNames) {
  EXPECT_EQ(DescribeRenames({"a", "b/c"}, {"a", "b_c"}), "  b/c -> b_c\n");
  EXPECT_EQ(DescribeRenames({"a", "b"}, {"a", "b"}), "");
}

TEST(ParseTabularCsvTest, ReadsFeaturesLabelAndFieldNames) {
  const absl::StatusOr<TabularData> data =
      Parse("x 1,label,od280/od315\r\n1.5,1,2\r\n-3,0,4e1\r\n\n");
  ASSERT_OK(data);
  EXPECT_THAT(data->headers, ElementsAre("x 1", "od280/od315"));
  EXPECT_THAT(data->features, ElementsAre("x_1", "od280_od315"));
  EXPECT_EQ(data->label_field, "label");
  EXPECT_THAT(data->y, ElementsAre(1, 0));
  ASSERT_EQ(data->x.size(), 2u);
  EXPECT_THAT(data->x[0], ElementsAre(1.5, 2));
  EXPECT_THAT(data->x[1], ElementsAre(-3, 40));
}

TEST(ParseTabularCsvTest, MapsTheLabelsNameToo) {
  const absl::StatusOr<TabularData> data =
      Parse("a,is malignant\n1,0\n", "is malignant");
  ASSERT_OK(data);
  EXPECT_EQ(data->label_field, "is_malignant");
}

TEST(ParseTabularCsvTest, RefusesBadNumbersNamingTheColumn) {
  EXPECT_THAT(
      Parse("a,b,label\n1,2,0\n1,x,1\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("t.csv:3: column 2 (\"b\"): bad number \"x\"")));
  EXPECT_THAT(Parse("a,label\nnan,0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("column 1 (\"a\"): bad number \"nan\"")));
  EXPECT_THAT(
      Parse("a,label\n1e999,0\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad number")));
}

TEST(ParseTabularCsvTest, RefusesLabelsOtherThanZeroOrOne) {
  EXPECT_THAT(
      Parse("a,label\n1,2\n"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(
                   "column 2 (\"label\"): the label is 2; it must be 0 or 1")));
  EXPECT_THAT(Parse("a,label\n1,0.5\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be 0 or 1")));
  EXPECT_THAT(Parse("a,label\n1,yes\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("column 2 (\"label\"): bad number \"yes\"")));
}

TEST(ParseTabularCsvTest, RefusesMalformedFiles) {
  EXPECT_THAT(Parse("a,b\n1,0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:1: the header has no label column "
                                 "\"label\" (it has \"a\", \"b\")")));
  EXPECT_THAT(Parse("label\n1\n"), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("no feature column")));
  EXPECT_THAT(Parse("a,label\n"), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("no data rows")));
  EXPECT_THAT(Parse(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  EXPECT_THAT(Parse("a,label\n1,0,3\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:2: 3 fields, the header has 2")));
}

TEST(ReadTabularCsvTest, MissingFileIsNotFound) {
  EXPECT_THAT(
      ReadTabularCsv("/nonexistent/x.csv", "label"),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/x.csv")));
}

TEST(ParseTabularCsvTest, ReadsQuotedHeadersAndFields) {
  const absl::StatusOr<TabularData> data = Parse(
      "\xEF\xBB\xBF\"mean, radius\",\"a \"\"b\"\"\",\"label\"\r\n"
      "\"1.5\",2,\"1\"\r\n-3,4,0\r\n\r\n");
  ASSERT_OK(data);
  EXPECT_THAT(data->headers, ElementsAre("mean, radius", "a \"b\""));
  EXPECT_THAT(data->features, ElementsAre("mean__radius", "a__b_"));
  EXPECT_THAT(data->y, ElementsAre(1, 0));
  EXPECT_THAT(data->x, ElementsAre(ElementsAre(1.5, 2), ElementsAre(-3, 4)));
}

TEST(ParseTabularCsvTest, MalformedCsvErrorNamesItsLineAndColumn) {
  EXPECT_THAT(Parse("a,label\n1,0\n\"2,1\n3,0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:3: column 1: unterminated quoted "
                                 "field")));
  EXPECT_THAT(Parse("a,b,label\r\n1,2,0\r\n1,\"2\"x,1\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:3: column 2: 'x' after the closing "
                                 "quote")));
}

// tests/data/csv/: the same six rows as R's write.csv, pandas with
// QUOTE_NONNUMERIC and a spreadsheet (CRLF, BOM) write them
// (make_fixtures.sh), read unmodified into one table.
TEST(ReadTabularCsvTest, ReadsWhatRAndPandasWriteIntoOneTable) {
  const std::string dir = LDP_SOURCE_DIR "/tests/data/csv/";
  for (const char* name :
       {"r_write_csv.csv", "pandas_quoted.csv", "crlf_bom.csv"}) {
    const absl::StatusOr<TabularData> data =
        ReadTabularCsv(dir + name, "label");
    ASSERT_OK(data) << name;
    EXPECT_THAT(data->headers, ElementsAre("pregnant", "glucose", "bmi"))
        << name;
    EXPECT_THAT(data->features, ElementsAre("pregnant", "glucose", "bmi"))
        << name;
    EXPECT_EQ(data->label_field, "label") << name;
    EXPECT_THAT(data->y, ElementsAre(1, 0, 1, 0, 1, 0)) << name;
    EXPECT_EQ(data->x, (std::vector<std::vector<double>>{{6, 148, 33.6},
                                                         {1, 85, 26.6},
                                                         {8, 183, 23.3},
                                                         {1, 89, 28.1},
                                                         {0, 137, 43.1},
                                                         {5, 116, 25.6}}))
        << name;
  }
}

const std::vector<std::string> kHeaders = {"a", "od280/od315", "c"};

TEST(ParseDeclaredBoundsTest, NamedEntriesOverrideTheStar) {
  const absl::StatusOr<DeclaredBounds> b =
      ParseDeclaredBounds("*=0:16, od280/od315=-1.5:2", kHeaders, "label");
  ASSERT_OK(b);
  ASSERT_EQ(b->size(), 3u);
  for (size_t j : {0, 2}) {
    ASSERT_TRUE((*b)[j].has_value());
    EXPECT_EQ((*b)[j]->lo, 0);
    EXPECT_EQ((*b)[j]->hi, 16);
  }
  ASSERT_TRUE((*b)[1].has_value());
  EXPECT_EQ((*b)[1]->lo, -1.5);
  EXPECT_EQ((*b)[1]->hi, 2);
}

TEST(ParseDeclaredBoundsTest, EmptyDeclaresNoneAndNamedOnlyItsColumn) {
  const absl::StatusOr<DeclaredBounds> none =
      ParseDeclaredBounds("", kHeaders, "label");
  ASSERT_OK(none);
  EXPECT_THAT(*none, ElementsAre(std::nullopt, std::nullopt, std::nullopt));
  const absl::StatusOr<DeclaredBounds> one =
      ParseDeclaredBounds("c=1:2", kHeaders, "label");
  ASSERT_OK(one);
  EXPECT_FALSE((*one)[0].has_value());
  EXPECT_TRUE((*one)[2].has_value());
}

TEST(ParseDeclaredBoundsTest, RefusesEveryBadEntry) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"nosuch=0:1", "no feature column \"nosuch\""},
      {"od280_od315=0:1", "no feature column"},  // the mapped name
      {"label=0:1", "is the label column"},
      {"a=2:1", "want LO < HI"},
      {"a=1:1", "want LO < HI"},
      {"a=-1e308:1e308", "HI - LO finite"},
      {"a=0:x", "finite numbers"},
      {"a=0:inf", "finite numbers"},
      {"a=nan:1", "finite numbers"},
      {"a=0", "finite numbers"},
      {"a=0:1:2", "finite numbers"},
      {"a", "want NAME=LO:HI"},
      {"=0:1", "want NAME=LO:HI"},
      {"a=0:1,a=0:2", "\"a\" is given twice"},
      {"*=0:1,*=0:2", "\"*\" is given twice"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(
        ParseDeclaredBounds(c.text, kHeaders, "label"),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)))
        << c.text;
  }
}

TEST(ResolveBoundsTest, TrainingRangeForUndeclaredFeatures) {
  const absl::StatusOr<TabularData> data =
      Parse("a,b,label\n1,10,0\n3,-10,1\n2,0,1\n");
  ASSERT_OK(data);
  // Only rows 0 and 2 train: a's range is [1, 2], not [1, 3].
  const absl::StatusOr<FeatureBounds> f =
      ResolveBounds(*data, {0, 2}, DeclaredBounds(2));
  ASSERT_OK(f);
  EXPECT_THAT(f->columns, ElementsAre(0u, 1u));
  EXPECT_EQ(f->bounds[0].lo, 1);
  EXPECT_EQ(f->bounds[0].hi, 2);
  EXPECT_EQ(f->bounds[1].lo, 0);
  EXPECT_EQ(f->bounds[1].hi, 10);
  EXPECT_TRUE(f->dropped.empty());
}

TEST(ResolveBoundsTest, DropsUndeclaredConstantFeatures) {
  const absl::StatusOr<TabularData> data =
      Parse("a,const,label\n1,7,0\n3,7,1\n");
  ASSERT_OK(data);
  const absl::StatusOr<FeatureBounds> f =
      ResolveBounds(*data, AllRows(*data), DeclaredBounds(2));
  ASSERT_OK(f);
  EXPECT_THAT(f->columns, ElementsAre(0u));
  EXPECT_THAT(f->dropped, ElementsAre(1u));
  EXPECT_THAT(f->dropped_value, ElementsAre(7));
}

TEST(ResolveBoundsTest, KeepsConstantFeaturesWithDeclaredBounds) {
  const absl::StatusOr<TabularData> data =
      Parse("a,const,label\n1,7,0\n3,7,1\n");
  ASSERT_OK(data);
  const absl::StatusOr<DeclaredBounds> declared =
      ParseDeclaredBounds("*=0:2", data->headers, "label");
  ASSERT_OK(declared);
  const absl::StatusOr<FeatureBounds> f =
      ResolveBounds(*data, AllRows(*data), *declared);
  ASSERT_OK(f);
  EXPECT_THAT(f->columns, ElementsAre(0u, 1u));
  EXPECT_EQ(f->bounds[1].lo, 0);
  EXPECT_EQ(f->bounds[1].hi, 2);
  // a = 3, const = 7 and 7 lie outside [0, 2].
  EXPECT_EQ(f->clamped_values, 3);
}

TEST(ResolveBoundsTest, RefusesWhenEveryFeatureIsConstant) {
  const absl::StatusOr<TabularData> data = Parse("a,b c,label\n1,7,0\n1,7,1\n");
  ASSERT_OK(data);
  EXPECT_THAT(
      ResolveBounds(*data, AllRows(*data), DeclaredBounds(2)),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("every feature is constant"),
                     HasSubstr("\"a\", \"b c\""), HasSubstr("--bounds"))));
  EXPECT_THAT(ResolveBounds(*data, {}, DeclaredBounds(2)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no training rows")));
}

TEST(ResolveBoundsTest, RefusesARangeThatOverflows) {
  const absl::StatusOr<TabularData> data =
      Parse("a,b,label\n-1e308,0,0\n1e308,1,1\n");
  ASSERT_OK(data);
  EXPECT_THAT(
      ResolveBounds(*data, AllRows(*data), DeclaredBounds(2)),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("column \"a\"")));
}

TEST(ScaleRowsTest, ScalesIntoMinusOneOneAndClamps) {
  const absl::StatusOr<TabularData> data =
      Parse("a,const,b,label\n0,7,5,0\n16,7,10,1\n32,7,-5,1\n");
  ASSERT_OK(data);
  const absl::StatusOr<DeclaredBounds> declared =
      ParseDeclaredBounds("a=0:16", data->headers, "label");
  ASSERT_OK(declared);
  // Trained on rows 0 and 1: b's range is [5, 10], const is dropped.
  const absl::StatusOr<FeatureBounds> f =
      ResolveBounds(*data, {0, 1}, *declared);
  ASSERT_OK(f);
  EXPECT_THAT(f->columns, ElementsAre(0u, 2u));
  const absl::StatusOr<std::vector<std::vector<double>>> x =
      ScaleRows(*data, {0, 1, 2}, *f);
  ASSERT_OK(x);
  EXPECT_THAT(*x, ElementsAre(ElementsAre(-1, -1), ElementsAre(1, 1),
                              ElementsAre(1, -1)));
  EXPECT_EQ(ScaleValue(8, {.lo = 0, .hi = 16}), 0);
}

}  // namespace
}  // namespace ldp
