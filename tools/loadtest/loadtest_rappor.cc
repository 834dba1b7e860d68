// The RAPPOR run of ldp-loadtest; see the header.
#include "tools/loadtest/loadtest_rappor.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/status_macros.h"
#include "common/queries/string_digest.h"

namespace ldp {
namespace {

constexpr char kTextField[] = "text";
constexpr uint32_t kTextBits = 128;

std::string DecoyString(uint32_t index) {
  return absl::StrFormat("decoy-%06u", index);
}

}  // namespace

absl::StatusOr<RapporRun> MakeRapporRun(uint32_t candidates, uint32_t domain,
                                        double q) {
  if (candidates < domain || candidates > kMaxRapporCandidates) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rappor_candidates must be at least --domain (", domain,
                     ": every string agents hold is a candidate) and at most ",
                     kMaxRapporCandidates, ", got ", candidates));
  }
  if (!(q > 0 && q < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rappor_fdr must be in (0, 1), got ", q));
  }
  return RapporRun{.num_candidates = candidates,
                   .num_strings = domain,
                   .false_discovery_rate = q};
}

std::string RapporString(uint32_t item) {
  return absl::StrFormat("string-%05u", item);
}

RecordSchema RapporSchema() {
  return *RecordSchema::Create({FieldSpec::BitVector(kTextField, kTextBits)});
}

Record RapporRecord(uint32_t item) {
  Record record;
  // At most 12 bytes: always fits the 16-byte field.
  record.values[kTextField] = *StringBits(RapporString(item), kTextBits);
  return record;
}

absl::StatusOr<StudySpec> MakeRapporStudySpec(const RapporRun& run,
                                              std::string display_name,
                                              int64_t cap_nanos,
                                              double confidence,
                                              absl::Duration round_duration) {
  const RecordSchema schema = RapporSchema();
  CandidateStrings candidates{.false_discovery_rate = run.false_discovery_rate};
  for (uint32_t v = 0; v < run.num_candidates; ++v) {
    candidates.strings.push_back(v < run.num_strings
                                     ? RapporString(v)
                                     : DecoyString(v - run.num_strings));
  }
  ASSIGN_OR_RETURN(
      DomainEncoding encoding,
      DomainEncoding::Create(DigestEncoding{.field = kTextField}, schema));
  HistogramQuestion question{
      .encoding = std::move(encoding),
      .oracle = FrequencyOracleSpec{.kind = FrequencyOracleKind::kRappor},
      .candidates = std::move(candidates)};
  return StudySpec{.display_name = std::move(display_name),
                   .schema = schema,
                   .epsilon_cap_nanos = cap_nanos,
                   .mode = StudyMode::kNoninteractive,
                   .questions = {Question{.id = kLoadtestRapporId,
                                          .kind = std::move(question)}},
                   .confidence = confidence,
                   .round_duration = round_duration};
}

RapporOutcome CompareRappor(const HistogramRelease& release,
                            const std::vector<double>& truth) {
  RapporOutcome out;
  const HistogramEstimate& e = release.estimate;
  if (!e.candidates.has_value()) return out;
  std::vector<double> finite;
  for (const double v : e.variances) {
    if (std::isfinite(v)) finite.push_back(std::sqrt(v));
  }
  if (!finite.empty()) {
    std::nth_element(finite.begin(), finite.begin() + finite.size() / 2,
                     finite.end());
    out.sigma = finite[finite.size() / 2];
  }
  for (size_t c = 0; c < e.candidates->discovered.size(); ++c) {
    const double share = c < truth.size() ? truth[c] : 0.0;
    const bool found = e.candidates->discovered[c];
    out.discoveries += found;
    if (share <= 0) {
      out.false_discoveries += found;
      continue;
    }
    ++out.held;
    out.found += found;
    if (out.sigma > 0 && share >= 5 * out.sigma) {
      ++out.strong;
      out.strong_found += found;
    }
  }
  return out;
}

std::string FormatRapporOutcome(const RapporOutcome& o, double q) {
  const double fdp =
      o.discoveries == 0
          ? 0.0
          : static_cast<double>(o.false_discoveries) / o.discoveries;
  return absl::StrFormat(
      "  rappor: %d discoveries at q = %g, %d false (realized FDP %.4f); "
      "recall %d/%d held strings; %d/%d at >= 5 sigma (sigma %.3g, the "
      "median finite standard error)\n",
      o.discoveries, q, o.false_discoveries, fdp, o.found, o.held,
      o.strong_found, o.strong, o.sigma);
}

}  // namespace ldp
