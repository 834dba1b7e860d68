// The report count of one group of a grouped strategy (or one query of
// naive split answering): each of n agents joins it with probability π, so
// N ~ Binomial(n, π). The server divides the group's reports by N and
// estimates an empty group as zeros; the finite-n variances need
// E[1/N; N > 0] and Pr[N = 0].
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_REPORT_COUNT_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_REPORT_COUNT_H_

#include <cstdint>

namespace ldp {

struct ReportCountMoments {
  double inverse_mean = 0;  // E[1/N; N > 0]
  double empty = 0;         // Pr[N = 0]
};

// n ≥ 1, 0 < π ≤ 1. Exact (summed around the mean) while n·π < 4096; an
// expansion with relative error below 10⁻⁹ beyond.
ReportCountMoments MomentsOfReportCount(int64_t n, double pi);

}  // namespace ldp

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_REPORT_COUNT_H_
