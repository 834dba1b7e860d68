// Tabular data for the learning experiments; see the header.
#include "bench/studies/logistic/tabular_data.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/base/status_macros.h"
#include "common/csv/csv_reader.h"
#include "common/queries/record_schema.h"

namespace ldp {
namespace {

bool IsNameChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// RecordSchema's rule for field names (common/queries/record_schema.h).
bool IsValidFieldName(const std::string& name) {
  return !name.empty() && !absl::ascii_isdigit(name[0]) &&
         name.size() <= static_cast<size_t>(kMaxFieldNameLength) &&
         std::all_of(name.begin(), name.end(), IsNameChar);
}

// `header` with invalid characters replaced, a prefix if it must not start
// as it does, cut to the length limit; not yet unique.
std::string SanitizedName(const std::string& header) {
  std::string name = header;
  for (char& c : name) {
    if (!IsNameChar(c)) c = '_';
  }
  if (name.empty() || absl::ascii_isdigit(name[0])) name = "f_" + name;
  name.resize(std::min<size_t>(name.size(), kMaxFieldNameLength));
  return name;
}

// `base`, or `base` cut and suffixed "_2", "_3", … until not in `taken`.
std::string UnusedName(const std::string& base,
                       const absl::flat_hash_set<std::string>& taken) {
  std::string name = base;
  for (int k = 2; taken.contains(name); ++k) {
    const std::string suffix = absl::StrCat("_", k);
    name = base.substr(0, kMaxFieldNameLength - suffix.size()) + suffix;
  }
  return name;
}

// Up to five headers, quoted, then "…" if there are more.
std::string FirstHeaders(const std::vector<std::string>& headers) {
  std::vector<std::string> quoted;
  for (size_t k = 0; k < headers.size() && k < 5; ++k) {
    quoted.push_back(absl::StrCat("\"", headers[k], "\""));
  }
  if (headers.size() > 5) quoted.push_back("…");
  return absl::StrJoin(quoted, ", ");
}

// The header line: the label's column index, and the features' headers.
absl::StatusOr<size_t> ParseHeader(const CsvTable& csv,
                                   const std::string& source,
                                   const std::string& label,
                                   std::vector<std::string>& headers) {
  headers = csv.header;
  for (std::string& h : headers) absl::StripAsciiWhitespace(&h);
  const auto it = std::find(headers.begin(), headers.end(), label);
  if (it == headers.end()) {
    return CsvError(source, csv.header_line, 0,
                    absl::StrCat("the header has no label column \"", label,
                                 "\" (it has ", FirstHeaders(headers), ")"));
  }
  if (headers.size() < 2) {
    return CsvError(source, csv.header_line, 0,
                    "no feature column besides the label");
  }
  const size_t label_col = it - headers.begin();
  headers.erase(headers.begin() + label_col);
  return label_col;
}

// One data row (`line` = the line it starts on) appended to `data`; the
// reader has checked its width.
absl::Status ParseRow(const std::vector<std::string>& cells, int line,
                      const std::string& source, size_t label_col,
                      TabularData& data) {
  std::vector<double> x;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string& column = c == label_col
                                    ? data.label_header
                                    : data.headers[c < label_col ? c : c - 1];
    const int number = static_cast<int>(c) + 1;
    double v = 0;
    if (!absl::SimpleAtod(cells[c], &v) || !std::isfinite(v)) {
      return CsvError(source, line, number,
                      absl::StrCat("bad number \"", cells[c], "\""), column);
    }
    if (c != label_col) {
      x.push_back(v);
    } else if (v == 0 || v == 1) {
      data.y.push_back(static_cast<int>(v));
    } else {
      return CsvError(
          source, line, number,
          absl::StrCat("the label is ", cells[c], "; it must be 0 or 1"),
          column);
    }
  }
  data.x.push_back(std::move(x));
  return absl::OkStatus();
}

// The table read from `source` as TabularData.
absl::StatusOr<TabularData> FromCsvTable(const CsvTable& csv,
                                         const std::string& source,
                                         const std::string& label) {
  TabularData data{.label_header = label};
  ASSIGN_OR_RETURN(const size_t label_col,
                   ParseHeader(csv, source, label, data.headers));
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    RETURN_IF_ERROR(
        ParseRow(csv.rows[r], csv.row_lines[r], source, label_col, data));
  }
  if (data.y.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, " has no data rows"));
  }
  std::vector<std::string> all = data.headers;
  all.push_back(label);
  all = FieldNamesFor(all);
  data.label_field = all.back();
  all.pop_back();
  data.features = std::move(all);
  return data;
}

// "LO:HI" of a --bounds entry.
absl::StatusOr<ValueRange> ParseInterval(const std::string& entry,
                                         absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  ValueRange b;
  if (parts.size() != 2 || !absl::SimpleAtod(parts[0], &b.lo) ||
      !absl::SimpleAtod(parts[1], &b.hi) || !std::isfinite(b.lo) ||
      !std::isfinite(b.hi)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--bounds entry \"", entry,
                     "\": want NAME=LO:HI with LO and HI finite numbers"));
  }
  if (!(b.lo < b.hi) || !std::isfinite(b.hi - b.lo)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bounds entry \"", entry, "\": want LO < HI (and HI - LO finite)"));
  }
  return b;
}

// Declares b for every feature column called `name` (error context `where`).
absl::Status DeclareNamed(const std::string& where, const std::string& name,
                          const ValueRange& b,
                          const std::vector<std::string>& headers,
                          DeclaredBounds& named) {
  bool found = false;
  for (size_t j = 0; j < headers.size(); ++j) {
    if (headers[j] != name) continue;
    if (named[j].has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "\"", name, "\" is given twice"));
    }
    named[j] = b, found = true;
  }
  if (found) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(where, "no feature column \"", name,
                   "\" (name a column as the CSV header spells it, or *)"));
}

// Applies one "NAME=LO:HI" entry to `named` (by column) or `all` ("*").
absl::Status ApplyBoundsEntry(const std::string& entry,
                              const std::vector<std::string>& headers,
                              const std::string& label_header,
                              DeclaredBounds& named,
                              std::optional<ValueRange>& all) {
  const size_t eq = entry.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bounds entry \"", entry, "\": want NAME=LO:HI or *=LO:HI"));
  }
  const std::string name = entry.substr(0, eq);
  absl::StatusOr<ValueRange> b = ParseInterval(entry, entry.substr(eq + 1));
  if (!b.ok()) return b.status();
  const std::string where = absl::StrCat("--bounds entry \"", entry, "\": ");
  if (name == label_header) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, "\"", name, "\" is the label column, not a feature"));
  }
  if (name != "*") return DeclareNamed(where, name, *b, headers, named);
  if (all.has_value()) {
    return absl::InvalidArgumentError(where + "\"*\" is given twice");
  }
  all = *b;
  return absl::OkStatus();
}

// Up to five of `columns`' headers, as FirstHeaders.
std::string SomeHeaders(const TabularData& data,
                        const std::vector<size_t>& columns) {
  std::vector<std::string> headers;
  for (size_t j : columns) headers.push_back(data.headers[j]);
  return FirstHeaders(headers);
}

// min and max of column j over rows.
ValueRange RowRange(const TabularData& data, const std::vector<size_t>& rows,
                    size_t j) {
  ValueRange range{.lo = std::numeric_limits<double>::infinity(),
                   .hi = -std::numeric_limits<double>::infinity()};
  for (size_t i : rows) {
    range.lo = std::min(range.lo, data.x[i][j]);
    range.hi = std::max(range.hi, data.x[i][j]);
  }
  return range;
}

// Values of column j over rows outside b.
int64_t CountOutside(const TabularData& data, const std::vector<size_t>& rows,
                     size_t j, const ValueRange& b) {
  int64_t n = 0;
  for (size_t i : rows) n += data.x[i][j] < b.lo || data.x[i][j] > b.hi;
  return n;
}

}  // namespace

std::vector<std::string> FieldNamesFor(
    const std::vector<std::string>& headers) {
  // Valid headers are reserved first, so that a renamed column never takes
  // the name of a later column that needs no renaming.
  absl::flat_hash_set<std::string> taken;
  std::vector<bool> keeps(headers.size());
  for (size_t c = 0; c < headers.size(); ++c) {
    keeps[c] = IsValidFieldName(headers[c]) && taken.insert(headers[c]).second;
  }
  std::vector<std::string> names;
  for (size_t c = 0; c < headers.size(); ++c) {
    if (keeps[c]) {
      names.push_back(headers[c]);
      continue;
    }
    names.push_back(UnusedName(SanitizedName(headers[c]), taken));
    taken.insert(names.back());
  }
  return names;
}

std::string DescribeRenames(const std::vector<std::string>& headers,
                            const std::vector<std::string>& names) {
  std::string out;
  for (size_t c = 0; c < headers.size() && c < names.size(); ++c) {
    if (headers[c] != names[c]) {
      absl::StrAppend(&out, "  ", headers[c], " -> ", names[c], "\n");
    }
  }
  return out;
}

absl::StatusOr<TabularData> ParseTabularCsv(absl::string_view text,
                                            const std::string& source,
                                            const std::string& label) {
  ASSIGN_OR_RETURN(const CsvTable csv, ParseCsv(text, source));
  return FromCsvTable(csv, source, label);
}

absl::StatusOr<TabularData> ReadTabularCsv(const std::string& path,
                                           const std::string& label) {
  ASSIGN_OR_RETURN(const CsvTable csv, ReadCsvFile(path));
  return FromCsvTable(csv, path, label);
}

absl::StatusOr<DeclaredBounds> ParseDeclaredBounds(
    const std::string& text, const std::vector<std::string>& headers,
    const std::string& label_header) {
  DeclaredBounds named(headers.size());
  std::optional<ValueRange> all;
  for (absl::string_view e :
       absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    const absl::Status status =
        ApplyBoundsEntry(std::string(absl::StripAsciiWhitespace(e)), headers,
                         label_header, named, all);
    if (!status.ok()) return status;
  }
  for (std::optional<ValueRange>& b : named) {
    if (!b.has_value()) b = all;
  }
  return named;
}

// Why a constant feature is dropped rather than kept with widened bounds:
// it carries no information about the label on the rows the model learns
// from, and the program splits each round's agents among the d + 1
// gradient coordinates, so a dead coordinate takes reports away from every
// live one and adds a pure-noise weight that moves the predictions of
// held-out rows whose value differs. Features with declared bounds are
// kept even when constant: declared bounds stand for public knowledge, and
// whether a feature varies is a fact about the private data the analyst
// would not know.
absl::StatusOr<FeatureBounds> ResolveBounds(const TabularData& data,
                                            const std::vector<size_t>& rows,
                                            const DeclaredBounds& declared) {
  if (rows.empty()) return absl::InvalidArgumentError("no training rows");
  FeatureBounds f;
  for (size_t j = 0; j < data.headers.size(); ++j) {
    if (j < declared.size() && declared[j].has_value()) {
      f.columns.push_back(j), f.bounds.push_back(*declared[j]);
      f.clamped_values += CountOutside(data, rows, j, *declared[j]);
      continue;
    }
    const ValueRange range = RowRange(data, rows, j);
    if (range.lo == range.hi) {
      f.dropped.push_back(j), f.dropped_value.push_back(range.lo);
      continue;
    }
    if (!std::isfinite(range.hi - range.lo)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "column \"", data.headers[j], "\": the range [", range.lo, ", ",
          range.hi, "] of the training rows overflows; declare bounds"));
    }
    f.columns.push_back(j), f.bounds.push_back(range);
  }
  if (f.columns.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "every feature is constant over the ", rows.size(),
        " training rows and none has declared bounds (",
        SomeHeaders(data, f.dropped),
        "): nothing to learn; declare public bounds with "
        "--bounds=NAME=LO:HI or --bounds='*=LO:HI', or use other data"));
  }
  return f;
}

double ScaleValue(double v, const ValueRange& b) {
  return 2 * (std::clamp(v, b.lo, b.hi) - b.lo) / (b.hi - b.lo) - 1;
}

absl::StatusOr<std::vector<std::vector<double>>> ScaleRows(
    const TabularData& data, const std::vector<size_t>& rows,
    const FeatureBounds& f) {
  std::vector<std::vector<double>> scaled;
  for (size_t i : rows) {
    std::vector<double> x(f.columns.size());
    for (size_t k = 0; k < f.columns.size(); ++k) {
      x[k] = ScaleValue(data.x[i][f.columns[k]], f.bounds[k]);
      if (!std::isfinite(x[k])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "column \"", data.headers[f.columns[k]], "\", data row ", i + 1,
            ": the scaled value is not finite (bounds [", f.bounds[k].lo, ", ",
            f.bounds[k].hi, "])"));
      }
    }
    scaled.push_back(std::move(x));
  }
  return scaled;
}

}  // namespace ldp
