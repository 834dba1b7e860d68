// Shared algebra of "pure" frequency protocols (Wang, Blocki, Li, Jha,
// USENIX Security 2017): a report *supports* item v with probability p when
// the input is v and q otherwise. GRR, unary encodings, OLH, subset
// selection and Hadamard response are all pure, so they share the estimator
//   f̂_v = (C_v / n − q) / (p − q)
// and its exact variance
//   Var[f̂_v] = q(1−q) / (n(p−q)²) + f_v(1−p−q) / (n(p−q)).
#ifndef LDP_COMMON_ESTIMATION_PURE_PROTOCOL_H_
#define LDP_COMMON_ESTIMATION_PURE_PROTOCOL_H_

#include <cstdint>

#include "absl/types/span.h"
#include "common/estimation/histogram_estimate.h"

namespace ldp {

struct PureProtocol {
  double p = 0;  // Pr[report supports v | input v]
  double q = 0;  // Pr[report supports v | input ≠ v]
  friend bool operator==(const PureProtocol&, const PureProtocol&) = default;

  // Var[f̂_v] for true frequency f_v and n reports.
  double Variance(double frequency, int64_t num_reports) const;

  // Unbiased frequencies and plug-in variances from support counts C_v.
  HistogramEstimate Estimate(absl::Span<const int64_t> support_counts,
                             int64_t num_reports, double epsilon) const;
};

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_PURE_PROTOCOL_H_
