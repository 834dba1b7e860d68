// What the workload estimator (workload_estimator.h) reports: predicted
// per-user variances and the answers with their error bars. Plain data, so
// the task, planner and wire headers need no Eigen.
#ifndef LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_ANSWER_H_
#define LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_ANSWER_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace ldp {

// Per-user variance v_j = n·Var(answer_j), answers as fractions.
struct VarianceSummary {
  // max_j max_x v_j(e_x): worst query, worst point-mass data.
  double v_max = 0;
  uint64_t worst_query = 0;
  uint32_t worst_item = 0;
  // mean_j v_j(uniform h).
  double v_avg = 0;
  // max_j v_j(uniform h). Strategies whose noise grows with spread data
  // (Haar and Fourier parities, trees at large ε) can be worse there than
  // at any point mass: Haar on a histogram at ε = 4 has v_max 0.20 but
  // 2.9 on average at uniform data, OUE 1.07 and 0.08.
  double v_max_uniform = 0;
  // The worst of both: what the planner minimizes and what analysts are
  // shown as the strategy's v_max.
  double worst() const { return v_max > v_max_uniform ? v_max : v_max_uniform; }
};

// Answers are sums over O(N·k) double-precision products; this bounds their
// rounding error. Standard errors never go below it, so a query with no
// sampling variance (one every agent satisfies, like the CDF's last) still
// gets a band that covers its truth.
inline constexpr double kAnswerRoundingError = 1e-10;

struct WorkloadAnswer {
  int64_t num_reports = 0;
  double epsilon = 0;
  double confidence = 0;  // 1 − β of the band
  // Unbiased W·h estimates and their plug-in standard errors (m values).
  std::vector<double> answers;
  std::vector<double> standard_errors;
  // The band: answer_j ± band_z·se_j holds for all j at once with
  // probability ≥ confidence (Bonferroni: z_{1−β/(2m)}).
  double band_z = 0;
  // With consistency: W·ĥ⁺, ĥ⁺ the least-squares histogram projected onto
  // the simplex (non-negative, sums to one). Biased; never replaces answers.
  std::optional<std::vector<double>> consistent_answers;
};

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_SPECS_WORKLOAD_ANSWER_H_
