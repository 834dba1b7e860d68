// The data side of the logistic regression experiment; see the header.
#include "bench/studies/logistic/logistic_input.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "planning/programs/logistic_regression.h"

namespace ldp {

absl::StatusOr<LogisticInput> ReadInput(const InputOptions& options) {
  absl::StatusOr<TabularData> data = ReadTabularCsv(options.csv, options.label);
  if (absl::IsNotFound(data.status())) {
    return absl::NotFoundError(
        absl::StrCat(std::string(data.status().message()),
                     " (pass --csv=FILE: any CSV with a header "
                     "line, real features and a 0/1 --label column; "
                     "bench/studies/logistic/data/export_sklearn_datasets.py "
                     "writes bench/data/"
                     "breast_cancer.csv, wine.csv and digits.csv)"));
  }
  if (!data.ok()) return data.status();
  absl::StatusOr<DeclaredBounds> declared =
      ParseDeclaredBounds(options.bounds, data->headers, data->label_header);
  if (!declared.ok()) return declared.status();
  std::vector<std::string> headers = data->headers, names = data->features;
  headers.push_back(data->label_header);
  names.push_back(data->label_field);
  const std::string renames = DescribeRenames(headers, names);
  if (!renames.empty()) {
    std::printf("CSV headers renamed to valid field names:\n%s\n",
                renames.c_str());
  }
  return LogisticInput{.data = *std::move(data),
                       .declared = *std::move(declared)};
}

RowSplit ShuffleRows(size_t rows, const SplitOptions& options) {
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 gen(options.seed);
  std::shuffle(order.begin(), order.end(), gen);
  const size_t n_test = std::llround(options.test_fraction * order.size());
  const size_t n_val =
      std::llround(options.validation_fraction * (order.size() - n_test));
  return RowSplit{
      .test = std::vector<size_t>(order.begin(), order.begin() + n_test),
      .validation = std::vector<size_t>(order.begin() + n_test,
                                        order.begin() + n_test + n_val),
      .fit = std::vector<size_t>(order.begin() + n_test + n_val, order.end()),
      .train = std::vector<size_t>(order.begin() + n_test, order.end())};
}

absl::StatusOr<PhaseSplits> MakeSplits(const LogisticInput& in,
                                       const RowSplit& rows, bool select,
                                       const SplitOptions& options) {
  if (rows.test.empty() || rows.fit.empty() ||
      (select && rows.validation.empty())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%zu rows are too few for --test_fraction=%g and "
        "--validation_fraction=%g: the test, validation and training splits "
        "each need at least one row",
        in.data.y.size(), options.test_fraction, options.validation_fraction));
  }
  PhaseSplits splits;
  const auto too_many = [](const Split& s) {
    return s.features.size() > static_cast<size_t>(kMaxLogisticFeatures);
  };
  if (select) {
    absl::StatusOr<Split> sel =
        MakeSplit(in.data, rows.fit, rows.validation, in.declared);
    if (!sel.ok()) return sel.status();
    splits.selection = *std::move(sel);
  }
  absl::StatusOr<Split> report =
      MakeSplit(in.data, rows.train, rows.test, in.declared);
  if (!report.ok()) return report.status();
  splits.report = *std::move(report);
  if (too_many(splits.report) || (select && too_many(*splits.selection))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model would use more than ", kMaxLogisticFeatures,
        " features, the logistic_regression program's limit; use fewer "
        "columns"));
  }
  return splits;
}

void PrintDataLine(const std::string& csv, const LogisticInput& in,
                   const RowSplit& rows, const RunOptions& run_options) {
  const size_t declared = std::count_if(
      in.declared.begin(), in.declared.end(),
      [](const std::optional<ValueRange>& b) { return b.has_value(); });
  std::printf(
      "data %s: %zu rows, %zu features (%zu with declared bounds, the rest "
      "bounded by the training rows' min and max); test %zu, train %zu "
      "(validation %zu of them); n = %lld agents; average_tail = %g, R = %g, "
      "λ = %g\n\n",
      csv.c_str(), in.data.y.size(), in.data.headers.size(), declared,
      rows.test.size(), rows.train.size(), rows.validation.size(),
      static_cast<long long>(run_options.agents), run_options.average_tail,
      run_options.radius, run_options.l2);
}

void PrintBoundsNotes(const char* phase, const TabularData& data,
                      const Split& s) {
  const FeatureBounds& f = s.bounds;
  if (!f.dropped.empty()) {
    std::vector<std::string> left_out;
    for (size_t k = 0; k < f.dropped.size(); ++k) {
      left_out.push_back(absl::StrFormat(
          "\"%s\" (= %g)", data.headers[f.dropped[k]], f.dropped_value[k]));
    }
    std::printf(
        "%s: %zu of %zu features are constant on its %zu training "
        "rows and have no declared bounds, so its model leaves them "
        "out: %s\n\n",
        phase, f.dropped.size(), data.headers.size(), s.train_y.size(),
        absl::StrJoin(left_out, ", ").c_str());
  }
  if (f.clamped_values > 0) {
    std::printf(
        "%s: %lld training values lie outside their declared bounds "
        "and are clamped into them\n\n",
        phase, static_cast<long long>(f.clamped_values));
  }
}

}  // namespace ldp
