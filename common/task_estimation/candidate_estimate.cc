// Candidate decoding for RAPPOR questions; see the header.
#include "common/task_estimation/candidate_estimate.h"

#include <limits>
#include <utility>

#include "common/base/status_macros.h"
#include "common/mechanisms/rappor/rappor_accumulator.h"
#include "common/mechanisms/rappor/rappor_sparse_decoder.h"
#include "common/queries/string_digest.h"

namespace ldp {

absl::StatusOr<std::shared_ptr<const CandidateDecoding>> MakeCandidateDecoding(
    const HistogramQuestion& question, uint32_t bit_length) {
  if (!question.candidates.has_value() || !question.oracle.has_value()) {
    return absl::InvalidArgumentError("the question lists no candidates");
  }
  auto decoding = std::make_shared<CandidateDecoding>();
  ASSIGN_OR_RETURN(decoding->items,
                   CandidateDigests(question.candidates->strings, bit_length,
                                    question.oracle->hash_seed));
  decoding->labels = question.candidates->strings;
  decoding->false_discovery_rate = question.candidates->false_discovery_rate;
  return decoding;
}

HistogramEstimate EstimateCandidates(const FrequencyAccumulator& accumulator,
                                     const CandidateDecoding& candidates) {
  const size_t m = candidates.items.size();
  const auto* rappor = dynamic_cast<const RapporAccumulator*>(&accumulator);
  // A RAPPOR accumulator of an open domain gives n and ε only.
  HistogramEstimate estimate =
      rappor != nullptr
          ? rappor->Estimate()
          : HistogramEstimate{.num_reports = accumulator.num_reports()};
  estimate.frequencies.assign(m, 0.0);
  estimate.variances.assign(m, std::numeric_limits<double>::infinity());
  estimate.candidates =
      CandidateTest{.labels = candidates.labels,
                    .p_values = std::vector<double>(m, 1.0),
                    .discovered = std::vector<bool>(m, false),
                    .false_discovery_rate = candidates.false_discovery_rate};
  if (rappor == nullptr) return estimate;
  absl::StatusOr<RapporCandidateDecode> decode =
      DecodeCandidates(rappor->decoder(), rappor->counts(), candidates.items,
                       candidates.false_discovery_rate);
  if (!decode.ok()) return estimate;
  estimate.frequencies = std::move(decode->frequencies);
  estimate.variances = std::move(decode->variances);
  estimate.candidates->p_values = std::move(decode->p_values);
  estimate.candidates->discovered = std::move(decode->discovered);
  return estimate;
}

}  // namespace ldp
