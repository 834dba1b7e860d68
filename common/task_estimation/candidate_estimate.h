// A RAPPOR question's estimate: its reports' per-cohort bit counts decoded
// against the question's candidate strings (rappor_sparse_decoder.h), each
// with its frequency, variance, p-value and Benjamini–Hochberg decision.
// The candidates live only on the server; agents report digests.
#ifndef LDP_COMMON_TASK_ESTIMATION_CANDIDATE_ESTIMATE_H_
#define LDP_COMMON_TASK_ESTIMATION_CANDIDATE_ESTIMATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/estimation/histogram_estimate.h"
#include "common/mechanisms/frequency/frequency_oracle.h"
#include "common/tasks/study_spec.h"

namespace ldp {

// The candidates as the decoder takes them, built once per question.
struct CandidateDecoding {
  std::vector<uint32_t> items;      // digests (DigestEncoding)
  std::vector<std::string> labels;  // the strings
  double false_discovery_rate = 0.05;
};

// For a RAPPOR question (`question.candidates` set) over a schema field of
// `bit_length` bits; InvalidArgument as CandidateDigests.
absl::StatusOr<std::shared_ptr<const CandidateDecoding>> MakeCandidateDecoding(
    const HistogramQuestion& question, uint32_t bit_length);

// The decode of a RAPPOR accumulator's counts over the candidates. An
// accumulator of another oracle, or counts the decoder refuses, give every
// candidate frequency 0 and an infinite variance (unidentified).
HistogramEstimate EstimateCandidates(const FrequencyAccumulator& accumulator,
                                     const CandidateDecoding& candidates);

}  // namespace ldp

#endif  // LDP_COMMON_TASK_ESTIMATION_CANDIDATE_ESTIMATE_H_
