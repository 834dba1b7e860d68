// ParseCsv / ReadCsvFile: every RFC 4180 rule the reader keeps, the files R,
// pandas and spreadsheets write (tests/data/csv/, made by make_fixtures.sh),
// and the line and column each error names.
#include "common/csv/csv_reader.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

#ifndef LDP_SOURCE_DIR
#error "LDP_SOURCE_DIR must name the repository (for tests/data/csv/)"
#endif

namespace ldp {
namespace {

using ::ldp::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Rows = std::vector<std::vector<std::string>>;

absl::StatusOr<CsvTable> ParseT(absl::string_view text) {
  return ParseCsv(text, "t.csv");
}

TEST(ParseCsvTest, ReadsHeaderRowsAndTheirLines) {
  const absl::StatusOr<CsvTable> t = ParseT("a,b\n1,2\n3,4\n");
  ASSERT_OK(t);
  EXPECT_THAT(t->header, ElementsAre("a", "b"));
  EXPECT_EQ(t->header_line, 1);
  EXPECT_EQ(t->rows, (Rows{{"1", "2"}, {"3", "4"}}));
  EXPECT_THAT(t->row_lines, ElementsAre(2, 3));
}

TEST(ParseCsvTest, QuotedFieldsHoldEscapedQuotesCommasAndLineEnds) {
  const absl::StatusOr<CsvTable> t = ParseT(
      "\"a\",\"b \"\"x\"\"\"\n"
      "\"1,5\",\"two\nlines\"\n"
      "\"cr\rhere\",\"crlf\r\nhere\"\n"
      "\"\",\"\"\"\"\n"
      "last,row\n");
  ASSERT_OK(t);
  EXPECT_THAT(t->header, ElementsAre("a", "b \"x\""));
  EXPECT_EQ(t->rows, (Rows{{"1,5", "two\nlines"},
                           {"cr\rhere", "crlf\r\nhere"},
                           {"", "\""},
                           {"last", "row"}}));
  // A line end inside quotes still ends a line of the file: CR, LF and
  // CRLF once each.
  EXPECT_THAT(t->row_lines, ElementsAre(2, 4, 7, 8));
}

TEST(ParseCsvTest, LineEndsMayBeLfCrlfOrCr) {
  const Rows want = {{"1", "2"}, {"3", "4"}};
  for (const char* text : {"a,b\n1,2\n3,4\n", "a,b\r\n1,2\r\n3,4\r\n",
                           "a,b\r1,2\r3,4\r", "a,b\r\n1,2\n3,4\r"}) {
    const absl::StatusOr<CsvTable> t = ParseT(text);
    ASSERT_OK(t);
    EXPECT_THAT(t->header, ElementsAre("a", "b")) << text;
    EXPECT_EQ(t->rows, want) << text;
    EXPECT_THAT(t->row_lines, ElementsAre(2, 3)) << text;
  }
}

TEST(ParseCsvTest, TheFinalLineEndIsOptional) {
  const absl::StatusOr<CsvTable> with = ParseT("a,b\n1,\"2\"\n");
  const absl::StatusOr<CsvTable> without = ParseT("a,b\n1,\"2\"");
  ASSERT_OK(with);
  ASSERT_OK(without);
  EXPECT_EQ(with->rows, without->rows);
  EXPECT_EQ(without->rows, (Rows{{"1", "2"}}));
}

TEST(ParseCsvTest, SkipsALeadingByteOrderMarkOnly) {
  const absl::StatusOr<CsvTable> t =
      ParseT("\xEF\xBB\xBF\"a\",b\r\n\xEF\xBB\xBFx,1\r\n");
  ASSERT_OK(t);
  EXPECT_THAT(t->header, ElementsAre("a", "b"));
  EXPECT_EQ(t->rows, (Rows{{"\xEF\xBB\xBFx", "1"}}));
}

TEST(ParseCsvTest, SkipsBlankLinesAndCountsThem) {
  const absl::StatusOr<CsvTable> t = ParseT("\r\n\na,b\n1,2\n\n\r\n3,4\n\n\n");
  ASSERT_OK(t);
  EXPECT_EQ(t->header_line, 3);
  EXPECT_EQ(t->rows, (Rows{{"1", "2"}, {"3", "4"}}));
  EXPECT_THAT(t->row_lines, ElementsAre(4, 7));
}

TEST(ParseCsvTest, KeepsEmptyFieldsAndWhitespace) {
  const absl::StatusOr<CsvTable> t = ParseT("a,b,c\n,,\n x ,\"y \",\n\"\",,");
  ASSERT_OK(t);
  EXPECT_EQ(t->rows, (Rows{{"", "", ""}, {" x ", "y ", ""}, {"", "", ""}}));
  // One empty field is a record only when quoted; a blank line is none.
  const absl::StatusOr<CsvTable> one = ParseT("item\n\"\"\n\n");
  ASSERT_OK(one);
  EXPECT_EQ(one->rows, (Rows{{""}}));
}

TEST(ParseCsvTest, UnterminatedQuoteNamesTheLineItOpensOn) {
  EXPECT_THAT(ParseT("a,b,c\n1,2,3\n4,5,\"six\n7,8,9\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:3: column 3: unterminated quoted "
                                 "field")));
  EXPECT_THAT(ParseT("\"a"), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("t.csv:1: column 1: ")));
}

TEST(ParseCsvTest, RefusesStrayQuotesNamingLineAndColumn) {
  // After a quoted field ends on line 3 (it spans two).
  EXPECT_THAT(ParseT("a,b\n1,\"x\ny\"z\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:3: column 2: 'z' after the closing "
                                 "quote")));
  EXPECT_THAT(ParseT("a,b\r\n1,2\r\n3,4 \"inch\"\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:3: column 2: a quote inside an "
                                 "unquoted field")));
}

TEST(ParseCsvTest, RefusesRowsOfAnotherWidth) {
  EXPECT_THAT(ParseT("a,b,c\n1,2,3\n\n1,2\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:4: 2 fields, the header has 3")));
  EXPECT_THAT(ParseT("a\n1,\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("t.csv:2: 2 fields, the header has 1")));
}

TEST(ParseCsvTest, RefusesATextWithNoRecord) {
  for (const char* text : {"", "\xEF\xBB\xBF", "\n\r\n"}) {
    EXPECT_THAT(ParseT(text), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("t.csv: the file is empty")))
        << text;
  }
  const absl::StatusOr<CsvTable> header_only = ParseT("a,b\r\n");
  ASSERT_OK(header_only);
  EXPECT_TRUE(header_only->rows.empty());
}

TEST(CsvErrorTest, NamesSourceLineColumnAndHeader) {
  EXPECT_THAT(CsvError("f.csv", 12, 3, "bad number \"x\"", "glucose"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "f.csv:12: column 3 (\"glucose\"): bad number \"x\""));
  EXPECT_EQ(CsvError("f.csv", 2, 1, "m").message(), "f.csv:2: column 1: m");
  EXPECT_EQ(CsvError("f.csv", 2, 0, "m").message(), "f.csv:2: m");
}

TEST(ReadCsvFileTest, MissingFileIsNotFoundNamingThePath) {
  EXPECT_THAT(
      ReadCsvFile("/nonexistent/x.csv"),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("/nonexistent/x.csv")));
}

// The three files of tests/data/csv/ (R, pandas quoted, CRLF + BOM) hold
// one table.
TEST(ReadCsvFileTest, ReadsWhatRAndPandasWrite) {
  const std::string dir = LDP_SOURCE_DIR "/tests/data/csv/";
  for (const char* name :
       {"r_write_csv.csv", "pandas_quoted.csv", "crlf_bom.csv"}) {
    const absl::StatusOr<CsvTable> t = ReadCsvFile(dir + name);
    ASSERT_OK(t) << name;
    EXPECT_THAT(t->header, ElementsAre("pregnant", "glucose", "bmi", "label"))
        << name;
    ASSERT_EQ(t->rows.size(), 6u) << name;
    EXPECT_THAT(t->rows[0], ElementsAre("6", "148", "33.6", "1")) << name;
    EXPECT_THAT(t->rows[5], ElementsAre("5", "116", "25.6", "0")) << name;
    EXPECT_THAT(t->row_lines, ElementsAre(2, 3, 4, 5, 6, 7)) << name;
  }
}

}  // namespace
}  // namespace ldp
