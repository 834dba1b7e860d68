// Report payload ↔ one text token; see the header.
#include "client/core/payload_text.h"

#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

std::string HexWords(const std::vector<uint64_t>& words) {
  return absl::StrJoin(words, ".", [](std::string* out, uint64_t word) {
    absl::StrAppendFormat(out, "%016x", word);
  });
}

absl::Status Malformed(absl::string_view text) {
  return absl::DataLossError(
      absl::StrCat("malformed stored report payload '", text, "'"));
}

// Strict: digits only (SimpleAtoi alone would accept spaces and a '+').
template <typename Int>
absl::StatusOr<Int> ParseInt(absl::string_view text, bool hex) {
  const absl::string_view allowed = hex ? "0123456789abcdef" : "-0123456789";
  if (text.empty() || text.find_first_not_of(allowed) != text.npos) {
    return Malformed(text);
  }
  Int value{};
  const bool ok =
      hex ? absl::SimpleHexAtoi(text, &value) : absl::SimpleAtoi(text, &value);
  if (!ok) return Malformed(text);
  return value;
}

absl::StatusOr<std::vector<uint64_t>> ParseWords(absl::string_view text) {
  std::vector<uint64_t> words;
  if (text.empty()) return words;
  for (absl::string_view part : absl::StrSplit(text, '.')) {
    if (part.size() != 16) return Malformed(text);
    ASSIGN_OR_RETURN(const uint64_t word, ParseInt<uint64_t>(part, true));
    words.push_back(word);
  }
  return words;
}

// "<num_bits>:<hex words>", or the legacy "<hex words>" of a state file
// written before lengths were kept (num_bits = 0; frequency_report.h). The
// old form has no ':' after the kind's fields, so the two cannot be confused;
// a length of 0 is only ever written in the old form.
std::string BitsText(const std::vector<uint64_t>& words, uint32_t num_bits) {
  if (num_bits == 0) return HexWords(words);
  return absl::StrCat(num_bits, ":", HexWords(words));
}

absl::StatusOr<BitVectorReport> ParseBits(
    absl::Span<const absl::string_view> parts) {
  BitVectorReport bits;
  if (parts.size() == 2) {
    ASSIGN_OR_RETURN(bits.num_bits, ParseInt<uint32_t>(parts[0], false));
    if (bits.num_bits == 0) return Malformed(parts[0]);
    parts.remove_prefix(1);
  }
  if (parts.size() != 1) return absl::DataLossError("bad bit vector fields");
  ASSIGN_OR_RETURN(bits.words, ParseWords(parts[0]));
  return bits;
}

absl::StatusOr<std::vector<uint32_t>> ParseItems(absl::string_view text) {
  std::vector<uint32_t> items;
  if (text.empty()) return items;
  for (absl::string_view part : absl::StrSplit(text, '.')) {
    ASSIGN_OR_RETURN(const uint32_t item, ParseInt<uint32_t>(part, false));
    items.push_back(item);
  }
  return items;
}

struct Encoder {
  std::string operator()(const ItemReport& r) const {
    return absl::StrCat("item:", r.item);
  }
  std::string operator()(const BitVectorReport& r) const {
    return absl::StrCat("bits:", BitsText(r.words, r.num_bits));
  }
  std::string operator()(const HashedReport& r) const {
    return absl::StrCat("hashed:", r.seed, ":", r.bucket);
  }
  std::string operator()(const SubsetReport& r) const {
    return absl::StrCat("subset:", absl::StrJoin(r.items, "."));
  }
  std::string operator()(const SketchReport& r) const {
    return absl::StrCat("sketch:", r.row, ":", r.column, ":",
                        BitsText(r.bits, r.num_bits));
  }
};

absl::StatusOr<ReportPayload> DecodeFrequency(
    absl::string_view kind, const std::vector<absl::string_view>& parts) {
  if (kind == "item" && parts.size() == 1) {
    ASSIGN_OR_RETURN(const uint32_t item, ParseInt<uint32_t>(parts[0], false));
    return FrequencyReport{ItemReport{item}};
  }
  if (kind == "bits") {
    ASSIGN_OR_RETURN(BitVectorReport bits, ParseBits(parts));
    return FrequencyReport{std::move(bits)};
  }
  if (kind == "hashed" && parts.size() == 2) {
    ASSIGN_OR_RETURN(const uint64_t seed, ParseInt<uint64_t>(parts[0], false));
    ASSIGN_OR_RETURN(const uint32_t bucket,
                     ParseInt<uint32_t>(parts[1], false));
    return FrequencyReport{HashedReport{seed, bucket}};
  }
  if (kind == "subset" && parts.size() == 1) {
    ASSIGN_OR_RETURN(auto items, ParseItems(parts[0]));
    return FrequencyReport{SubsetReport{std::move(items)}};
  }
  if (kind == "sketch" && parts.size() >= 3) {
    ASSIGN_OR_RETURN(const uint32_t row, ParseInt<uint32_t>(parts[0], false));
    ASSIGN_OR_RETURN(const uint32_t column,
                     ParseInt<uint32_t>(parts[1], false));
    ASSIGN_OR_RETURN(BitVectorReport bits,
                     ParseBits(absl::MakeConstSpan(parts).subspan(2)));
    return FrequencyReport{SketchReport{.row = row,
                                        .column = column,
                                        .bits = std::move(bits.words),
                                        .num_bits = bits.num_bits}};
  }
  return absl::DataLossError("unknown payload kind");
}

}  // namespace

std::string PayloadToText(const ReportPayload& payload) {
  if (const auto* scalar = std::get_if<ScalarReport>(&payload)) {
    return absl::StrCat("scalar:", scalar->level);
  }
  if (const auto* workload = std::get_if<WorkloadReport>(&payload)) {
    return absl::StrCat("workload:", workload->group, ":",
                        std::visit(Encoder{}, workload->inner));
  }
  return std::visit(Encoder{}, std::get<FrequencyReport>(payload));
}

absl::StatusOr<ReportPayload> PayloadFromText(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  const absl::string_view kind = parts.front();
  parts.erase(parts.begin());
  if (kind == "scalar" && parts.size() == 1) {
    auto level = ParseInt<int64_t>(parts[0], false);
    if (!level.ok()) return Malformed(text);
    return ReportPayload{ScalarReport{*level}};
  }
  if (kind == "workload" && parts.size() >= 2) {
    auto group = ParseInt<uint32_t>(parts[0], false);
    const absl::string_view inner_kind = parts[1];
    // Strategies' inner reports only (strategy.h); never a nested workload.
    if (!group.ok() || (inner_kind != "item" && inner_kind != "bits" &&
                        inner_kind != "hashed")) {
      return Malformed(text);
    }
    auto inner = DecodeFrequency(
        inner_kind,
        std::vector<absl::string_view>(parts.begin() + 2, parts.end()));
    if (!inner.ok()) return Malformed(text);
    return ReportPayload{
        WorkloadReport{.group = *group,
                       .inner = std::get<FrequencyReport>(*std::move(inner))}};
  }
  auto frequency = DecodeFrequency(kind, parts);
  if (!frequency.ok()) return Malformed(text);
  return *std::move(frequency);
}

}  // namespace ldp
