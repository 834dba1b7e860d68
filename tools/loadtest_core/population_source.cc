// Deterministic per-agent sampling of synthetic populations; see the header.
#include "tools/loadtest_core/population_source.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/base/status_macros.h"
#include "common/csv/csv_reader.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/population.h"

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

// A second draw for the same agent, independent of the first for sampling
// purposes (rehashing is a bijection, so no two agents share it either).
constexpr uint64_t kSecondDraw = 0x5eed2d2a11ce5eedULL;
uint64_t SecondDraw(uint64_t first) { return Mix(first, kSecondDraw); }

bool IsMixable(PopulationKind kind) {
  return kind == PopulationKind::kUniform || kind == PopulationKind::kZipf ||
         kind == PopulationKind::kGaussian;
}

// The component's weight and those parameters its kind uses. NaN parameters
// pass when `allow_unset` (the parser's "not given"); after Create has filled
// them in from PopulationOptions they must be real numbers.
absl::Status ValidateComponent(const MixtureComponent& c, bool allow_unset) {
  if (!IsMixable(c.kind)) {
    return absl::InvalidArgumentError(
        absl::StrCat("only uniform, zipf and gaussian can be mixed, not ",
                     PopulationKindName(c.kind)));
  }
  if (!std::isfinite(c.weight) || !(c.weight > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the weight must be finite and > 0, got ", c.weight));
  }
  auto unset = [&](double x) { return allow_unset && std::isnan(x); };
  if (c.kind == PopulationKind::kZipf && !unset(c.zipf_exponent) &&
      !(std::isfinite(c.zipf_exponent) && c.zipf_exponent >= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the zipf exponent s must be finite and >= 0, got ", c.zipf_exponent));
  }
  if (c.kind == PopulationKind::kGaussian) {
    if (!unset(c.gaussian_mean) && !std::isfinite(c.gaussian_mean)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the gaussian mean must be finite, got ", c.gaussian_mean));
    }
    if (!unset(c.gaussian_stddev) &&
        !(std::isfinite(c.gaussian_stddev) && c.gaussian_stddev > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the gaussian sd must be finite and > 0, got ", c.gaussian_stddev));
    }
  }
  return absl::OkStatus();
}

// Splits at the commas outside parentheses, so "zipf(s=1,x=2):1,uniform:1"
// yields two components; unbalanced parentheses are left for the component
// parser to report.
std::vector<absl::string_view> SplitTopLevel(absl::string_view text) {
  std::vector<absl::string_view> pieces;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == ',' && depth == 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

absl::StatusOr<double> ParseNumber(absl::string_view text,
                                   absl::string_view what) {
  double x = 0;
  if (!absl::SimpleAtod(text, &x) || !std::isfinite(x)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a finite number, got '", text, "'"));
  }
  return x;
}

absl::Status ParseParameter(absl::string_view text, MixtureComponent& c) {
  const std::vector<absl::string_view> name_value =
      absl::StrSplit(text, absl::MaxSplits('=', 1));
  if (name_value.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected name=value, got '", text, "'"));
  }
  const absl::string_view name = absl::StripAsciiWhitespace(name_value[0]);
  const absl::string_view value = absl::StripAsciiWhitespace(name_value[1]);
  double* target = nullptr;
  if (c.kind == PopulationKind::kZipf && name == "s") {
    target = &c.zipf_exponent;
  } else if (c.kind == PopulationKind::kGaussian && name == "mean") {
    target = &c.gaussian_mean;
  } else if (c.kind == PopulationKind::kGaussian && name == "sd") {
    target = &c.gaussian_stddev;
  } else {
    const char* allowed = c.kind == PopulationKind::kZipf       ? "s"
                          : c.kind == PopulationKind::kGaussian ? "mean and sd"
                                                                : "none";
    return absl::InvalidArgumentError(
        absl::StrCat("unknown parameter '", name, "' for ",
                     PopulationKindName(c.kind), " (takes ", allowed, ")"));
  }
  if (!std::isnan(*target)) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter '", name, "' given twice"));
  }
  ASSIGN_OR_RETURN(*target,
                   ParseNumber(value, absl::StrCat("parameter '", name, "'")));
  return absl::OkStatus();
}

absl::StatusOr<MixtureComponent> ParseComponent(absl::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError("expected kind[(params)]:weight");
  }
  absl::string_view head = absl::StripAsciiWhitespace(text.substr(0, colon));
  const size_t open = head.find('(');
  if (open == absl::string_view::npos &&
      head.find(')') != absl::string_view::npos) {
    return absl::InvalidArgumentError("')' without '('");
  }
  const absl::string_view kind_name =
      absl::StripAsciiWhitespace(head.substr(0, open));
  absl::StatusOr<PopulationKind> kind = ParsePopulationKind(kind_name);
  if (!kind.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown kind '", kind_name, "'; use uniform, zipf or gaussian"));
  }
  MixtureComponent c{.kind = *kind};
  // Before the parameters, whose names depend on a mixable kind.
  RETURN_IF_ERROR(ValidateComponent(c, /*allow_unset=*/true));
  if (open != absl::string_view::npos) {
    if (head.back() != ')' ||
        head.find_first_of("()", open + 1) != head.size() - 1) {
      return absl::InvalidArgumentError(
          "parameters must be one parenthesized list before the ':'");
    }
    const absl::string_view params =
        head.substr(open + 1, head.size() - open - 2);
    for (absl::string_view param : absl::StrSplit(params, ',')) {
      RETURN_IF_ERROR(ParseParameter(param, c));
    }
  }
  ASSIGN_OR_RETURN(
      c.weight, ParseNumber(absl::StripAsciiWhitespace(text.substr(colon + 1)),
                            "the weight"));
  RETURN_IF_ERROR(ValidateComponent(c, /*allow_unset=*/true));
  return c;
}

// The items of a CSV population (common/csv/csv_reader.h): one field per
// record, the first record "item" or already an item.
absl::StatusOr<std::vector<uint32_t>> ParseItems(absl::string_view text,
                                                 absl::string_view source,
                                                 uint32_t domain_size) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the CSV population has no rows"));
  }
  ASSIGN_OR_RETURN(CsvTable csv, ParseCsv(text, source));
  if (csv.header.size() != 1) {
    return CsvError(source, csv.header_line, 0,
                    absl::StrCat(csv.header.size(),
                                 " fields; a CSV population has one item (and "
                                 "no comma) per line"));
  }
  if (absl::StripAsciiWhitespace(csv.header[0]) != "item") {
    csv.rows.insert(csv.rows.begin(), csv.header);
    csv.row_lines.insert(csv.row_lines.begin(), csv.header_line);
  }
  std::vector<uint32_t> rows;
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    uint32_t item = 0;
    if (!absl::SimpleAtoi(csv.rows[r][0], &item) || item >= domain_size) {
      return CsvError(source, csv.row_lines[r], 1,
                      absl::StrCat("expected an item in [0, ", domain_size,
                                   "), got '", csv.rows[r][0], "'"));
    }
    rows.push_back(item);
  }
  if (rows.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the CSV population has no rows"));
  }
  return rows;
}

absl::Status ValidateOptions(PopulationOptions& options) {
  if (options.num_agents < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_agents must be >= 1, got ", options.num_agents));
  }
  if (options.domain_size < 2 || options.domain_size > kMaxDomainSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("domain_size must be in [2, ", kMaxDomainSize, "], got ",
                     options.domain_size));
  }
  if (std::isnan(options.gaussian_mean)) {
    options.gaussian_mean = (options.domain_size - 1) / 2.0;
  }
  if (std::isnan(options.gaussian_stddev)) {
    options.gaussian_stddev = options.domain_size / 6.0;
  }
  if (!std::isfinite(options.gaussian_mean) || !(options.gaussian_stddev > 0) ||
      !std::isfinite(options.gaussian_stddev)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gaussian_mean must be finite and gaussian_stddev finite and > 0, got ",
        options.gaussian_mean, " and ", options.gaussian_stddev));
  }
  if (options.kind == PopulationKind::kMixture) {
    if (options.components.empty()) {
      return absl::InvalidArgumentError(
          "a mixture needs at least one component");
    }
    double total_weight = 0;
    for (size_t k = 0; k < options.components.size(); ++k) {
      MixtureComponent& c = options.components[k];
      if (std::isnan(c.zipf_exponent)) c.zipf_exponent = options.zipf_exponent;
      if (std::isnan(c.gaussian_mean)) c.gaussian_mean = options.gaussian_mean;
      if (std::isnan(c.gaussian_stddev))
        c.gaussian_stddev = options.gaussian_stddev;
      if (absl::Status status = ValidateComponent(c, /*allow_unset=*/false);
          !status.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("mixture component ", k, " (",
                         PopulationKindName(c.kind), "): ", status.message()));
      }
      total_weight += c.weight;
    }
    if (!std::isfinite(total_weight)) {
      return absl::InvalidArgumentError("the mixture weights sum to infinity");
    }
  }
  if (options.kind == PopulationKind::kMaskedParity) {
    const uint32_t n = options.domain_size;
    if (n < 4 || !std::has_single_bit(n)) {
      return absl::InvalidArgumentError(
          absl::StrCat("masked_parity needs domain_size a power of two 2^d "
                       "with d >= 2, got ",
                       n));
    }
    const uint32_t feature_bits = std::countr_zero(n) - 1;
    if (options.parity_mask >= (uint32_t{1} << feature_bits)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parity_mask ", options.parity_mask, " does not fit the d - 1 = ",
          feature_bits, " feature bits of domain_size ", n, " (must be < ",
          uint32_t{1} << feature_bits, "; 0 = from the seed)"));
    }
    if (!(options.parity_noise >= 0 && options.parity_noise < 0.5)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "parity_noise must be in [0, 0.5), got ", options.parity_noise));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PopulationKind> ParsePopulationKind(absl::string_view name) {
  if (name == "uniform") return PopulationKind::kUniform;
  if (name == "zipf") return PopulationKind::kZipf;
  if (name == "gaussian") return PopulationKind::kGaussian;
  if (name == "csv") return PopulationKind::kCsv;
  if (name == "mixture") return PopulationKind::kMixture;
  if (name == "masked_parity") return PopulationKind::kMaskedParity;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown population '", name,
      "'; use uniform, zipf, gaussian, csv, mixture or masked_parity"));
}

absl::string_view PopulationKindName(PopulationKind kind) {
  switch (kind) {
    case PopulationKind::kUniform:
      return "uniform";
    case PopulationKind::kZipf:
      return "zipf";
    case PopulationKind::kGaussian:
      return "gaussian";
    case PopulationKind::kCsv:
      return "csv";
    case PopulationKind::kMixture:
      return "mixture";
    case PopulationKind::kMaskedParity:
      return "masked_parity";
  }
  return "unknown";
}

absl::StatusOr<std::vector<MixtureComponent>> ParseMixture(
    absl::string_view text) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(
        "the mixture is empty; e.g. zipf:0.7,uniform:0.3");
  }
  std::vector<MixtureComponent> components;
  for (absl::string_view piece : SplitTopLevel(text)) {
    piece = absl::StripAsciiWhitespace(piece);
    if (piece.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mixture '", text, "' has an empty component (a stray comma?)"));
    }
    absl::StatusOr<MixtureComponent> component = ParseComponent(piece);
    if (!component.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mixture component '", piece, "': ", component.status().message()));
    }
    components.push_back(*component);
  }
  return components;
}

void PopulationTruth::Add(uint32_t item, double value) {
  ++item_counts[item];
  value_sum += value;
  ++num_agents;
}

void PopulationTruth::Merge(const PopulationTruth& other) {
  for (size_t i = 0; i < item_counts.size() && i < other.item_counts.size();
       ++i) {
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
  auto add_sampler = [&](const MixtureComponent& c) -> absl::Status {
    Sampler sampler{.kind = c.kind,
                    .gaussian_mean = c.gaussian_mean,
                    .gaussian_stddev = c.gaussian_stddev};
    if (c.kind == PopulationKind::kZipf) {
      ASSIGN_OR_RETURN(std::vector<double> p,
                       ZipfDistribution(checked.domain_size, c.zipf_exponent));
      sampler.cumulative.resize(p.size());
      std::partial_sum(p.begin(), p.end(), sampler.cumulative.begin());
    }
    source->samplers_.push_back(std::move(sampler));
    return absl::OkStatus();
  };
  switch (checked.kind) {
    case PopulationKind::kUniform:
    case PopulationKind::kZipf:
    case PopulationKind::kGaussian:
      RETURN_IF_ERROR(
          add_sampler({.kind = checked.kind,
                       .zipf_exponent = checked.zipf_exponent,
                       .gaussian_mean = checked.gaussian_mean,
                       .gaussian_stddev = checked.gaussian_stddev}));
      break;
    case PopulationKind::kMixture: {
      double total = 0;
      for (const MixtureComponent& c : checked.components) {
        RETURN_IF_ERROR(add_sampler(c));
        total += c.weight;
        source->mixture_cumulative_.push_back(total);
      }
      for (double& c : source->mixture_cumulative_) c /= total;
      break;
    }
    case PopulationKind::kMaskedParity: {
      source->parity_bits_ = std::countr_zero(checked.domain_size) - 1;
      if (source->options_.parity_mask == 0) {
        // Uniform over the 2^(d−1) − 1 nonzero masks; the modulo bias is
        // below 2^−40, irrelevant for a test population.
        const uint64_t nonzero_masks =
            (uint64_t{1} << source->parity_bits_) - 1;
        source->options_.parity_mask = static_cast<uint32_t>(
            1 + Mix(~checked.seed, kSecondDraw) % nonzero_masks);
      }
      break;
    }
    case PopulationKind::kCsv:
      ASSIGN_OR_RETURN(source->rows_,
                       ParseItems(checked.csv_text, checked.csv_source,
                                  checked.domain_size));
      break;
  }
  if (checked.kind != PopulationKind::kMaskedParity)
    source->options_.parity_mask = 0;
  return source;
}

uint32_t PopulationSource::Sample(const Sampler& sampler, double u) const {
  const uint32_t n = options_.domain_size;
  switch (sampler.kind) {
    case PopulationKind::kZipf: {
      const std::vector<double>& cdf = sampler.cumulative;
      const auto it = std::upper_bound(cdf.begin(), cdf.end(), u * cdf.back());
      return static_cast<uint32_t>(
          std::min<ptrdiff_t>(it - cdf.begin(), n - 1));
    }
    case PopulationKind::kGaussian: {
      const double x = std::round(sampler.gaussian_mean +
                                  sampler.gaussian_stddev * NormalQuantile(u));
      return static_cast<uint32_t>(std::clamp(x, 0.0, n - 1.0));
    }
    default:
      return std::min(n - 1, static_cast<uint32_t>(u * n));
  }
}

uint32_t PopulationSource::ItemOf(int64_t index) const {
  const uint64_t bits = Mix(options_.seed, static_cast<uint64_t>(index));
  const double u = UnitOpen(bits);
  switch (options_.kind) {
    case PopulationKind::kUniform:
    case PopulationKind::kZipf:
    case PopulationKind::kGaussian:
      return Sample(samplers_[0], u);
    case PopulationKind::kMixture: {
      // The component comes from a second draw: reusing u would tie each
      // component to a slice of its own distribution.
      const double v = UnitOpen(SecondDraw(bits)) * mixture_cumulative_.back();
      const auto it = std::upper_bound(mixture_cumulative_.begin(),
                                       mixture_cumulative_.end(), v);
      const size_t k = std::min<size_t>(it - mixture_cumulative_.begin(),
                                        samplers_.size() - 1);
      return Sample(samplers_[k], u);
    }
    case PopulationKind::kMaskedParity: {
      const uint32_t x =
          static_cast<uint32_t>(SecondDraw(bits) >> (64 - parity_bits_));
      const uint32_t noise = u < options_.parity_noise ? 1 : 0;
      const uint32_t label =
          static_cast<uint32_t>(std::popcount(x & options_.parity_mask) & 1) ^
          noise;
      return (x << 1) | label;
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
