// Maximum-likelihood histograms from the support counts C_v of a pure
// protocol (pure_protocol.h: a report supports v with probability p when
// the input is v, q otherwise), in closed form or by one scalar search.
//
// Two likelihoods, both concave in f on the simplex, so each maximum is
// unique up to ties and these functions compute it directly:
//  - the support-share likelihood Σ_v C_v·log(q + (p − q)·f_v). It is the
//    exact likelihood of GRR's reports (each names one item), and it is the
//    model iterative Bayesian update runs EM on for every pure protocol,
//    so its maximum is IBU's fixed point (iterative_bayesian_update.h);
//  - the bitwise likelihood Σ_v C_v·log π_v + (n − C_v)·log(1 − π_v),
//    π_v = q + (p − q)·f_v: the unary encodings' bits, each a Bernoulli(π_v)
//    over the n reports. It treats the bits of one report as independent,
//    which they are given the input but not across inputs, so it is the
//    composite likelihood of the counts; the exact one needs each report's
//    whole bit vector, which the server does not keep.
#ifndef LDP_COMMON_ESTIMATION_FREQUENCY_MLE_H_
#define LDP_COMMON_ESTIMATION_FREQUENCY_MLE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/estimation/pure_protocol.h"

namespace ldp {

// OK, or InvalidArgument for an empty histogram, a negative count, or a
// channel without 0 ≤ q < p ≤ 1: what every estimator here refuses.
absl::Status CheckSupportCounts(absl::Span<const int64_t> support_counts,
                                const PureProtocol& channel);

// argmax of the support-share likelihood: f_v = max(0, C_v/λ − q/(p − q)),
// λ > 0 the one value that makes Σf = 1 (water filling, O(N log N)). All
// counts zero: uniform. InvalidArgument on an empty histogram, negative
// counts, or not 0 ≤ q < p ≤ 1.
absl::StatusOr<std::vector<double>> SupportShareMaximumLikelihood(
    absl::Span<const int64_t> support_counts, const PureProtocol& channel);

// Σ_v C_v·log(q + (p − q)·f_v) / Σ_v C_v, the support-share log-likelihood
// per supported item (−∞ if an item with C_v > 0 gets probability 0).
double SupportShareLogLikelihood(absl::Span<const int64_t> support_counts,
                                 const PureProtocol& channel,
                                 absl::Span<const double> frequencies);

// argmax of the bitwise likelihood over the simplex. For each Lagrange
// multiplier the maximizing π_v is a root of a quadratic; the multiplier
// that makes Σf = 1 is found by bisection to double precision. Also
// InvalidArgument if some C_v exceeds n or n < 1.
absl::StatusOr<std::vector<double>> BitwiseMaximumLikelihood(
    absl::Span<const int64_t> support_counts, int64_t num_reports,
    const PureProtocol& channel);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_FREQUENCY_MLE_H_
