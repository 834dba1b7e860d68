// Deterministic per-agent sampling of synthetic populations; see the header.
#include "client/population_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/confidence_interval.h"
#include "common/population.h"
#include "common/status_macros.h"

namespace ldp {
namespace {

constexpr uint32_t kMaxDomainSize = uint32_t{1} << 20;

// SplitMix64 of (seed, index): an independent-looking stream per agent
// without shared generator state.
uint64_t Mix(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in (0, 1), never 0 or 1 (NormalQuantile needs the open interval).
double UnitOpen(uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

absl::StatusOr<std::vector<uint32_t>> ParseCsv(absl::string_view text,
                                               uint32_t domain_size) {
  std::vector<uint32_t> rows;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || (line_number == 1 && line == "item")) continue;
    uint32_t item = 0;
    if (!absl::SimpleAtoi(line, &item) || item >= domain_size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CSV line ", line_number, ": expected an item in [0, ", domain_size,
          "), got '", line, "'"));
    }
    rows.push_back(item);
  }
  if (rows.empty()) {
    return absl::InvalidArgumentError("the CSV population has no rows");
  }
  return rows;
}

absl::Status ValidateOptions(PopulationOptions& options) {
  if (options.num_agents < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_agents must be >= 1, got ", options.num_agents));
  }
  if (options.domain_size < 2 || options.domain_size > kMaxDomainSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "domain_size must be in [2, ", kMaxDomainSize, "], got ",
        options.domain_size));
  }
  if (std::isnan(options.gaussian_mean)) {
    options.gaussian_mean = (options.domain_size - 1) / 2.0;
  }
  if (std::isnan(options.gaussian_stddev)) {
    options.gaussian_stddev = options.domain_size / 6.0;
  }
  if (!std::isfinite(options.gaussian_mean) ||
      !(options.gaussian_stddev > 0) || !std::isfinite(options.gaussian_stddev)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gaussian_mean must be finite and gaussian_stddev finite and > 0, got ",
        options.gaussian_mean, " and ", options.gaussian_stddev));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PopulationKind> ParsePopulationKind(absl::string_view name) {
  if (name == "uniform") return PopulationKind::kUniform;
  if (name == "zipf") return PopulationKind::kZipf;
  if (name == "gaussian") return PopulationKind::kGaussian;
  if (name == "csv") return PopulationKind::kCsv;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown population '", name, "'; use uniform, zipf, gaussian or csv"));
}

void PopulationTruth::Add(uint32_t item, double value) {
  ++item_counts[item];
  value_sum += value;
  ++num_agents;
}

void PopulationTruth::Merge(const PopulationTruth& other) {
  for (size_t i = 0; i < item_counts.size() && i < other.item_counts.size(); ++i) {
    item_counts[i] += other.item_counts[i];
  }
  value_sum += other.value_sum;
  num_agents += other.num_agents;
}

std::vector<double> PopulationTruth::Frequencies() const {
  std::vector<double> frequencies(item_counts.size());
  if (num_agents == 0) return frequencies;
  for (size_t i = 0; i < item_counts.size(); ++i) {
    frequencies[i] = static_cast<double>(item_counts[i]) / num_agents;
  }
  return frequencies;
}

double PopulationTruth::MeanValue() const {
  return num_agents == 0 ? 0 : value_sum / num_agents;
}

absl::StatusOr<std::unique_ptr<PopulationSource>> PopulationSource::Create(
    const PopulationOptions& options) {
  PopulationOptions checked = options;
  RETURN_IF_ERROR(ValidateOptions(checked));
  ASSIGN_OR_RETURN(
      RecordSchema schema,
      RecordSchema::Create({FieldSpec::Int("item", 0, checked.domain_size - 1),
                            FieldSpec::Real("value", 0, 1)}));
  std::unique_ptr<PopulationSource> source(
      new PopulationSource(checked, std::move(schema)));
  if (checked.kind == PopulationKind::kZipf) {
    ASSIGN_OR_RETURN(std::vector<double> p,
                     ZipfDistribution(checked.domain_size, checked.zipf_exponent));
    source->cumulative_.resize(p.size());
    std::partial_sum(p.begin(), p.end(), source->cumulative_.begin());
  } else if (checked.kind == PopulationKind::kCsv) {
    ASSIGN_OR_RETURN(source->rows_, ParseCsv(checked.csv_text, checked.domain_size));
  }
  return source;
}

uint32_t PopulationSource::ItemOf(int64_t index) const {
  const uint32_t n = options_.domain_size;
  const double u = UnitOpen(Mix(options_.seed, static_cast<uint64_t>(index)));
  switch (options_.kind) {
    case PopulationKind::kUniform:
      return std::min(n - 1, static_cast<uint32_t>(u * n));
    case PopulationKind::kZipf: {
      const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(),
                                       u * cumulative_.back());
      return static_cast<uint32_t>(
          std::min<ptrdiff_t>(it - cumulative_.begin(), n - 1));
    }
    case PopulationKind::kGaussian: {
      const double x = std::round(options_.gaussian_mean +
                                  options_.gaussian_stddev * NormalQuantile(u));
      return static_cast<uint32_t>(std::clamp(x, 0.0, n - 1.0));
    }
    case PopulationKind::kCsv:
      return rows_[static_cast<size_t>(index) % rows_.size()];
  }
  return 0;
}

double PopulationSource::ValueOf(uint32_t item) const {
  return static_cast<double>(item) / (options_.domain_size - 1);
}

Record PopulationSource::RecordOf(int64_t index) const {
  const uint32_t item = ItemOf(index);
  Record record;
  record.values["item"] = static_cast<int64_t>(item);
  record.values["value"] = ValueOf(item);
  return record;
}

PopulationTruth PopulationSource::Truth() const {
  PopulationTruth truth(options_.domain_size);
  for (int64_t i = 0; i < options_.num_agents; ++i) {
    const uint32_t item = ItemOf(i);
    truth.Add(item, ValueOf(item));
  }
  return truth;
}

}  // namespace ldp
