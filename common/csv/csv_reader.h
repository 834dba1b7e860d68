// Reading CSV as people write it. Data reaches the tools from R's
// write.csv (every header and string quoted), pandas with quoting,
// spreadsheets (CRLF line ends, a UTF-8 byte order mark) and hand-written
// files; one RFC 4180 reader takes them all, so every tool accepts the
// same files and reports a bad one the same way: "source:line: column C:
// reason", line and column 1-based.
#ifndef LDP_COMMON_CSV_CSV_READER_H_
#define LDP_COMMON_CSV_CSV_READER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp {

// A CSV's records, with quotes removed and "" read as one quote. Fields
// are kept as written otherwise (no whitespace is trimmed).
struct CsvTable {
  std::vector<std::string> header{};             // the first record
  std::vector<std::vector<std::string>> rows{};  // each as wide as header
  std::vector<int> row_lines{};  // the line each row starts on (1-based)
  int header_line = 1;           // the line the header is on
};

// Parses `text` (RFC 4180); `source` names it in errors (e.g. its path).
//  - Fields are separated by ',', records by CR, LF or CRLF; the last
//    record's line end is optional.
//  - A field that starts with '"' is quoted: it runs to the next '"' not
//    doubled, and may hold commas, CR and LF; "" in it is one '"'. After
//    its closing quote comes ',', a line end or the end of the text.
//  - A leading UTF-8 byte order mark is skipped. Blank lines (nothing
//    between two line ends) are skipped, as pandas and R do, so trailing
//    ones are harmless; a record of one empty field is written "".
// InvalidArgument "source:L: column C: …" for a quoted field with no
// closing quote (L is the line it opens on), anything but ',' or a line
// end after a closing quote, or a '"' inside an unquoted field;
// "source:L: N fields, the header has M" for a row of another width;
// "source: …" for a text with no record.
absl::StatusOr<CsvTable> ParseCsv(absl::string_view text,
                                  absl::string_view source);

// The file at `path` (ReadFileText's errors: NotFound if there is none,
// PermissionDenied if it may not be read), as ParseCsv with `path` as
// source.
absl::StatusOr<CsvTable> ReadCsvFile(const std::string& path);

// InvalidArgument "source:line: column C (\"header\"): message", for a
// field a caller cannot use (e.g. not a number). Without a header the
// parenthesis is left out; with column 0, the whole "column" part.
absl::Status CsvError(absl::string_view source, int line, int column,
                      absl::string_view message, absl::string_view header = {});

}  // namespace ldp

#endif  // LDP_COMMON_CSV_CSV_READER_H_
