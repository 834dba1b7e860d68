// Tabular data for the learning experiments; see the header.
#include "bench/studies/logistic/tabular_data.h"

#include <algorithm>
#include <cmath>
#include <fstream>
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

std::vector<std::string> SplitCells(absl::string_view line) {
  std::vector<std::string> cells = absl::StrSplit(line, ',');
  for (std::string& cell : cells) absl::StripAsciiWhitespace(&cell);
  return cells;
}

// The header line: the label's column index, and the features' headers.
absl::StatusOr<size_t> ParseHeader(const std::string& line,
                                   const std::string& source,
                                   const std::string& label,
                                   std::vector<std::string>& headers) {
  headers = SplitCells(line);
  const auto it = std::find(headers.begin(), headers.end(), label);
  if (it == headers.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the header has no label column \"", label, "\""));
  }
  if (headers.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no feature column besides the label"));
  }
  const size_t label_col = it - headers.begin();
  headers.erase(headers.begin() + label_col);
  return label_col;
}

// One data row (`row` = its line number) appended to `data`.
absl::Status ParseRow(const std::string& line, int row,
                      const std::string& source, size_t label_col,
                      TabularData& data) {
  const std::vector<std::string> cells = SplitCells(line);
  const size_t width = data.headers.size() + 1;
  const std::string where = absl::StrCat(source, ":", row, ": ");
  if (cells.size() != width) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, cells.size(), " cells, want ", width, " (no quoting is read)"));
  }
  std::vector<double> x;
  for (size_t c = 0; c < cells.size(); ++c) {
    const std::string& column = c == label_col
                                    ? data.label_header
                                    : data.headers[c < label_col ? c : c - 1];
    double v = 0;
    if (!absl::SimpleAtod(cells[c], &v) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, "column \"", column, "\": bad number \"", cells[c], "\""));
    }
    if (c != label_col) {
      x.push_back(v);
    } else if (v == 0 || v == 1) {
      data.y.push_back(static_cast<int>(v));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(where, "label column \"",
                                                     column, "\" is ", cells[c],
                                                     "; it must be 0 or 1"));
    }
  }
  data.x.push_back(std::move(x));
  return absl::OkStatus();
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

// Up to five of `columns`' headers, quoted, then "…" if there are more.
std::string SomeHeaders(const TabularData& data,
                        const std::vector<size_t>& columns) {
  std::vector<std::string> quoted;
  for (size_t k = 0; k < columns.size() && k < 5; ++k) {
    quoted.push_back(absl::StrCat("\"", data.headers[columns[k]], "\""));
  }
  if (columns.size() > 5) quoted.push_back("…");
  return absl::StrJoin(quoted, ", ");
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

absl::StatusOr<TabularData> ParseTabularCsv(std::istream& in,
                                            const std::string& source,
                                            const std::string& label) {
  std::string line;
  if (!std::getline(in, line)) {
    return absl::InvalidArgumentError(absl::StrCat(source, " is empty"));
  }
  TabularData data{.label_header = label};
  absl::StatusOr<size_t> label_col =
      ParseHeader(line, source, label, data.headers);
  if (!label_col.ok()) return label_col.status();
  for (int row = 2; std::getline(in, line); ++row) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    const absl::Status status = ParseRow(line, row, source, *label_col, data);
    if (!status.ok()) return status;
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

absl::StatusOr<TabularData> ReadTabularCsv(const std::string& path,
                                           const std::string& label) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return ParseTabularCsv(in, path, label);
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
