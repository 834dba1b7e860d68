// Tabular data for the learning experiments: a CSV of real features and a
// 0/1 label, read without editing it first. Each CSV header is mapped to a
// valid schema field name, public bounds may be declared per feature
// ("--bounds"), and every feature's bounds for one training split are
// resolved and checked before anything is computed from the data, so that
// no figure is ever computed from a NaN.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_TABULAR_DATA_H_
#define LDP_BENCH_STUDIES_LOGISTIC_TABULAR_DATA_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ldp {

// A CSV's rows. Every column but the label is a real feature, in file order.
struct TabularData {
  std::vector<std::string> headers{};   // the feature columns' CSV headers
  std::vector<std::string> features{};  // their field names (FieldNamesFor)
  std::string label_header{};
  std::string label_field{};
  std::vector<std::vector<double>> x{};  // raw values, one per feature
  std::vector<int> y{};                  // 0 or 1
};

// Valid, unique schema field names ([A-Za-z_][A-Za-z0-9_]*, at most
// kMaxFieldNameLength characters; common/queries/record_schema.h) for CSV
// headers, in order. A header that is already a valid name keeps it (its first
// occurrence does). Any other header: every character outside [A-Za-z0-9_]
// becomes '_', "f_" is prefixed when the result is empty or starts with a
// digit, it is cut to the length limit, and "_2", "_3", … is appended
// until the name is unused by any other column.
std::vector<std::string> FieldNamesFor(const std::vector<std::string>& headers);

// One "  header -> name" line per header whose name differs; "" if none.
std::string DescribeRenames(const std::vector<std::string>& headers,
                            const std::vector<std::string>& names);

// A CSV (common/csv/csv_reader.h: RFC 4180, so quoted headers and fields
// as R's write.csv or pandas write them, CRLF line ends and a UTF-8 BOM
// read too; header cells are trimmed of ASCII whitespace) of one header
// line, then rows of numbers; `source` names it in errors ("source:line:
// column C (\"header\"): …"). `label` is the label column's header; its
// cells must be 0 or 1. InvalidArgument on malformed CSV, a missing label
// column, no feature column, no data row, a row of the wrong width, a cell
// that is not a finite number or a label not 0 or 1.
absl::StatusOr<TabularData> ParseTabularCsv(absl::string_view text,
                                            const std::string& source,
                                            const std::string& label);

// The file at `path` (NotFound if there is none; ReadCsvFile), as
// ParseTabularCsv.
absl::StatusOr<TabularData> ReadTabularCsv(const std::string& path,
                                           const std::string& label);

// Inclusive bounds lo < hi, both finite, hi − lo finite.
struct ValueRange {
  double lo = 0;
  double hi = 0;
  friend bool operator==(const ValueRange&, const ValueRange&) = default;
};

// Public bounds declared for each feature column (index as in headers), or
// nullopt where none was declared.
using DeclaredBounds = std::vector<std::optional<ValueRange>>;

// The --bounds flag: "NAME=LO:HI,…", NAME a feature column's CSV header as
// spelled in the file (the value is split at the last '='), or "*" for
// every feature not named; "" declares none. InvalidArgument naming the
// entry for: no '=' or ':', an unknown column, the label column, a column
// or "*" given twice, LO or HI not a finite number, LO >= HI, HI − LO not
// finite.
absl::StatusOr<DeclaredBounds> ParseDeclaredBounds(
    const std::string& text, const std::vector<std::string>& headers,
    const std::string& label_header);

// The features a model trained on some rows uses, and their bounds.
struct FeatureBounds {
  std::vector<size_t> columns{};        // kept feature columns, ascending
  std::vector<ValueRange> bounds{};     // bounds[k] belongs to columns[k]
  std::vector<size_t> dropped{};        // constant, undeclared columns
  std::vector<double> dropped_value{};  // the value each one always has
  int64_t clamped_values = 0;  // training values outside declared bounds
};

// Each feature's bounds for a model trained on `rows` of `data`: the
// declared ones as given (values outside them are clamped, like an
// agent's sanitizer does, and counted), the others the rows' min and max
// (the experiment's public preprocessing assumption). A feature without
// declared bounds that is constant over the rows is dropped (the .cc says
// why). InvalidArgument, naming the columns, when no row is given, when
// every feature is dropped, or when a range hi − lo overflows.
absl::StatusOr<FeatureBounds> ResolveBounds(const TabularData& data,
                                            const std::vector<size_t>& rows,
                                            const DeclaredBounds& declared);

// v clamped into b, then mapped linearly onto [−1, 1] (the program's x̃).
double ScaleValue(double v, const ValueRange& b);

// `rows` of `data` restricted to f.columns and scaled by f.bounds.
// InvalidArgument naming the column and row if a scaled value is not
// finite (it cannot be with bounds from ResolveBounds; this is the check
// that keeps NaN out of every figure).
absl::StatusOr<std::vector<std::vector<double>>> ScaleRows(
    const TabularData& data, const std::vector<size_t>& rows,
    const FeatureBounds& f);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_TABULAR_DATA_H_
