// The pieces the heavy-hitter programs share; see the header.
#include "planning/programs/bit_candidates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/estimation/confidence_interval.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/record_schema.h"

namespace ldp {
namespace {

double BitsAsNumber(const std::vector<bool>& bits) {
  double value = 0;
  for (bool b : bits) value = value * 2 + (b ? 1 : 0);
  return value;
}

}  // namespace

absl::StatusOr<SearchedBits> ReadSearchedBits(ProgramParameters& params,
                                              const RecordSchema& schema,
                                              absl::string_view program) {
  SearchedBits searched;
  ASSIGN_OR_RETURN(searched.field, params.String("field", "value"));
  const FieldSpec* field = schema.Find(searched.field);
  if (field == nullptr || field->kind != FieldKind::kBitVector) {
    return absl::InvalidArgumentError(
        absl::StrCat(program, " needs a bit-vector field \"", searched.field,
                     "\" in the schema (set the parameter \"field\")"));
  }
  searched.field_length = static_cast<int>(field->bit_length);
  ASSIGN_OR_RETURN(const int64_t bits, params.Int("bits", searched.field_length,
                                                  1, searched.field_length));
  searched.bits = static_cast<int>(bits);
  ASSIGN_OR_RETURN(const int64_t k, params.Int("k", 10, 1, kMaxSearchK));
  searched.k = static_cast<int>(k);
  return searched;
}

std::vector<int> SplitBits(int bits, int s) {
  const int parts = (bits + s - 1) / s;
  std::vector<int> widths(parts, bits / parts);
  for (int t = 0; t < bits % parts; ++t) ++widths[t];
  return widths;
}

std::string FormatBits(const std::vector<bool>& bits) {
  if (bits.size() % 4 != 0) return "0b" + BitString(bits);
  std::string out = "0x";
  for (size_t i = 0; i < bits.size(); i += 4) {
    const int nibble =
        bits[i] * 8 + bits[i + 1] * 4 + bits[i + 2] * 2 + bits[i + 3];
    out.push_back("0123456789abcdef"[nibble]);
  }
  return out;
}

absl::StatusOr<Question> ExtensionQuestion(
    std::string id, const std::string& field,
    absl::Span<const BitCandidate> candidates, int width, int64_t epsilon_nanos,
    const RecordSchema& schema) {
  const size_t old_bits = candidates.empty() ? 0 : candidates[0].bits.size();
  PrefixEncoding prefix{.field = field,
                        .prefix_bits = static_cast<uint32_t>(old_bits + width),
                        .extension_bits = static_cast<uint32_t>(width)};
  for (const BitCandidate& c : candidates) prefix.candidates.push_back(c.bits);
  ASSIGN_OR_RETURN(DomainEncoding encoding,
                   DomainEncoding::Create(std::move(prefix), schema));
  return Question{.id = std::move(id),
                  .kind = HistogramQuestion{.encoding = std::move(encoding)},
                  .epsilon_nanos = epsilon_nanos};
}

absl::StatusOr<const HistogramEstimate*> HistogramAnswer(
    const RoundAnswers& round, size_t index, size_t items,
    absl::string_view program, size_t round_number) {
  const HistogramEstimate* h =
      index < round.answers.size()
          ? std::get_if<HistogramEstimate>(&round.answers[index].estimate)
          : nullptr;
  if (h == nullptr || h->frequencies.size() != items ||
      h->variances.size() != items) {
    return absl::InternalError(
        absl::StrCat(program, ": round ", round_number, " has no histogram of ",
                     items, " items as its answer ", index + 1));
  }
  return h;
}

std::vector<uint32_t> TopItems(const HistogramEstimate& h, uint32_t first,
                               size_t keep, double min_sigmas) {
  // −∞ · 0 would be NaN: "any estimate" skips the test.
  const bool any = min_sigmas == -std::numeric_limits<double>::infinity();
  std::vector<uint32_t> order;
  for (uint32_t v = first; v < h.frequencies.size(); ++v) {
    if (any || h.frequencies[v] >=
                   min_sigmas * std::sqrt(std::max(h.variances[v], 0.0))) {
      order.push_back(v);
    }
  }
  keep = std::min(keep, order.size());
  std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                    [&](uint32_t a, uint32_t b) {
                      const double fa = h.frequencies[a];
                      const double fb = h.frequencies[b];
                      return fa > fb || (fa == fb && a < b);
                    });
  order.resize(keep);
  return order;
}

BitCandidate ExtendedCandidate(absl::Span<const BitCandidate> candidates,
                               int width, const HistogramEstimate& h,
                               uint32_t item) {
  const uint32_t index = item - 1;
  BitCandidate c{.bits = candidates[index >> width].bits,
                 .frequency = h.frequencies[item],
                 .variance = h.variances[item]};
  for (int j = width; j-- > 0;) c.bits.push_back((index >> j) & 1);
  return c;
}

std::vector<BitCandidate> Recounted(absl::Span<const BitCandidate> candidates,
                                    const HistogramEstimate& h) {
  std::vector<BitCandidate> found;
  for (uint32_t item : TopItems(h, 1, candidates.size(),
                                -std::numeric_limits<double>::infinity())) {
    found.push_back(ExtendedCandidate(candidates, 0, h, item));
  }
  return found;
}

ProgramResult RankedResult(absl::Span<const BitCandidate> found, int k,
                           const std::string& field, int bits,
                           double confidence) {
  ProgramResult result;
  result.summary =
      absl::StrCat("top ", k, " of ", bits, " bits of \"", field, "\" (share, ",
                   confidence * 100, "% interval):");
  const size_t shown = std::min<size_t>(k, found.size());
  if (shown == 0) result.summary += " none found;";
  for (size_t i = 0; i < shown; ++i) {
    const BitCandidate& c = found[i];
    const Interval interval = NormalInterval(
        c.frequency, std::sqrt(std::max(c.variance, 0.0)), confidence);
    absl::StrAppendFormat(&result.summary, " %s %.5f [%.5f, %.5f];",
                          FormatBits(c.bits), c.frequency, interval.lower,
                          interval.upper);
    const std::string name = absl::StrCat("top[", i, "]");
    result.values.push_back({.name = absl::StrCat(name, ".count_fraction"),
                             .value = c.frequency,
                             .interval = interval});
    if (bits <= 53) {
      result.values.push_back({.name = absl::StrCat(name, ".value"),
                               .value = BitsAsNumber(c.bits)});
    }
  }
  result.summary.pop_back();  // the last ';'
  return result;
}

}  // namespace ldp
