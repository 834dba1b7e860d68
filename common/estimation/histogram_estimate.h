// The server's answer to a frequency question: per-item unbiased frequencies
// with their closed-form variances.
#ifndef LDP_COMMON_ESTIMATION_HISTOGRAM_ESTIMATE_H_
#define LDP_COMMON_ESTIMATION_HISTOGRAM_ESTIMATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ldp {

// A candidate list tested against the reports (RAPPOR questions): the
// histogram's items are the candidates, in order.
struct CandidateTest {
  std::vector<std::string> labels;  // the candidate strings
  // One-sided p-value of H0 "nobody holds it" (1 where not selected).
  std::vector<double> p_values;
  // Benjamini–Hochberg at false_discovery_rate over every candidate.
  std::vector<bool> discovered;
  double false_discovery_rate = 0;
};

struct HistogramEstimate {
  int64_t num_reports = 0;
  // The ε the randomizer implemented (≤ the ε charged).
  double epsilon = 0;
  // Unbiased estimates of f_v = count(v) / n. They may be negative or exceed
  // one; consistency post-processing (consistency.h) works on a copy.
  std::vector<double> frequencies;
  // Closed-form Var[f̂_v], evaluated at the plug-in f̂_v clamped to [0, 1].
  // +∞ (with f̂_v = 0) where the reports cannot identify f_v: before any
  // report, or for RAPPOR when the cohorts that have reports cannot tell the
  // items apart (rappor_decoder.h). Never NaN, never negative.
  std::vector<double> variances;
  // Set for a candidate decode only.
  std::optional<CandidateTest> candidates{};
};

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_HISTOGRAM_ESTIMATE_H_
