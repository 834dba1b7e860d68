// The RFC 4180 reader; see the header.
#include "common/csv/csv_reader.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

constexpr absl::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool IsLineEnd(char c) { return c == '\r' || c == '\n'; }

// Reads `text` one record at a time, counting lines (CR, LF and CRLF each
// end one, inside quoted fields too).
class CsvScanner {
 public:
  CsvScanner(absl::string_view text, absl::string_view source)
      : text_(text), source_(source) {}

  // The next record into `fields` and the line it starts on; false when
  // only blank lines are left.
  absl::StatusOr<bool> Next(std::vector<std::string>& fields, int& line);

 private:
  bool AtEnd() const { return pos_ == text_.size(); }
  // Steps over the line end at pos_ (CRLF as one).
  void SkipLineEnd();
  absl::Status QuotedField(std::string& field, int column);
  absl::Status UnquotedField(std::string& field, int column);

  absl::string_view text_;
  absl::string_view source_;
  size_t pos_ = 0;
  int line_ = 1;
};

void CsvScanner::SkipLineEnd() {
  if (text_[pos_] == '\r' && pos_ + 1 < text_.size() &&
      text_[pos_ + 1] == '\n') {
    ++pos_;
  }
  ++pos_;
  ++line_;
}

absl::StatusOr<bool> CsvScanner::Next(std::vector<std::string>& fields,
                                      int& line) {
  while (!AtEnd() && IsLineEnd(text_[pos_])) SkipLineEnd();
  if (AtEnd()) return false;
  fields.clear();
  line = line_;
  for (int column = 1;; ++column) {
    std::string field;
    RETURN_IF_ERROR(text_[pos_] == '"' ? QuotedField(field, column)
                                       : UnquotedField(field, column));
    fields.push_back(std::move(field));
    if (AtEnd()) return true;
    if (text_[pos_] != ',') break;
    ++pos_;
    // A ',' at the very end still ends a field: the empty last one.
    if (AtEnd()) {
      fields.emplace_back();
      return true;
    }
  }
  SkipLineEnd();
  return true;
}

absl::Status CsvScanner::QuotedField(std::string& field, int column) {
  const int opened = line_;
  ++pos_;
  while (!AtEnd()) {
    const char c = text_[pos_++];
    if (c != '"') {
      const bool crlf = c == '\r' && !AtEnd() && text_[pos_] == '\n';
      line_ += IsLineEnd(c) && !crlf;
      field += c;
      continue;
    }
    if (!AtEnd() && text_[pos_] == '"') {
      field += '"';
      ++pos_;
      continue;
    }
    if (AtEnd() || text_[pos_] == ',' || IsLineEnd(text_[pos_])) {
      return absl::OkStatus();
    }
    return CsvError(source_, line_, column,
                    absl::StrCat("'", text_.substr(pos_, 1),
                                 "' after the closing quote (a quote inside "
                                 "a quoted field is written \"\")"));
  }
  return CsvError(source_, opened, column,
                  "unterminated quoted field (its opening quote has no "
                  "closing one before the end of the file)");
}

absl::Status CsvScanner::UnquotedField(std::string& field, int column) {
  const size_t end =
      std::min(text_.find_first_of(",\r\n\"", pos_), text_.size());
  if (end < text_.size() && text_[end] == '"') {
    return CsvError(source_, line_, column,
                    "a quote inside an unquoted field (quote the whole field "
                    "and write the quote as \"\")");
  }
  field = std::string(text_.substr(pos_, end - pos_));
  pos_ = end;
  return absl::OkStatus();
}

std::string Fields(size_t n) {
  return absl::StrCat(n, n == 1 ? " field" : " fields");
}

}  // namespace

absl::StatusOr<CsvTable> ParseCsv(absl::string_view text,
                                  absl::string_view source) {
  if (absl::StartsWith(text, kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  CsvScanner scanner(text, source);
  CsvTable table;
  ASSIGN_OR_RETURN(const bool any,
                   scanner.Next(table.header, table.header_line));
  if (!any) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the file is empty (no header line)"));
  }
  std::vector<std::string> fields;
  int line = 0;
  while (true) {
    ASSIGN_OR_RETURN(const bool more, scanner.Next(fields, line));
    if (!more) return table;
    if (fields.size() != table.header.size()) {
      return CsvError(source, line, 0,
                      absl::StrCat(Fields(fields.size()), ", the header has ",
                                   table.header.size()));
    }
    table.rows.push_back(std::move(fields));
    table.row_lines.push_back(line);
  }
}

absl::StatusOr<CsvTable> ReadCsvFile(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileText(path, "CSV file"));
  return ParseCsv(text, path);
}

absl::Status CsvError(absl::string_view source, int line, int column,
                      absl::string_view message, absl::string_view header) {
  std::string where = absl::StrCat(source, ":", line, ": ");
  if (column > 0) absl::StrAppend(&where, "column ", column);
  if (column > 0 && !header.empty()) {
    absl::StrAppend(&where, " (\"", header, "\")");
  }
  if (column > 0) absl::StrAppend(&where, ": ");
  return absl::InvalidArgumentError(absl::StrCat(where, message));
}

}  // namespace ldp
