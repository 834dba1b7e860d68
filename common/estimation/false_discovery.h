// The Benjamini–Hochberg step-up procedure: which of m hypotheses to reject
// so that the expected share of false discoveries among the rejections is
// at most q (Benjamini & Hochberg, JRSS B 1995).
//
// Why: a decoder that tests hundreds of candidate strings at a fixed 5%
// level reports a dozen ghosts; bounding the false-discovery rate instead
// keeps the list an analyst reads mostly true. The bound is proven for
// independent or positively dependent p-values; RAPPOR's regression
// estimates are mildly correlated, so its benchmark measures the realized
// rate (bench/reports/RAPPOR.md).
#ifndef LDP_COMMON_ESTIMATION_FALSE_DISCOVERY_H_
#define LDP_COMMON_ESTIMATION_FALSE_DISCOVERY_H_

#include <vector>

#include "absl/types/span.h"

namespace ldp {

// rejected[i] is true iff p_values[i] ≤ p_(k*), where p_(1) ≤ … ≤ p_(m) are
// the sorted p-values and k* the largest k with p_(k) ≤ k·q/m (none if no k
// qualifies). NaN p-values are never rejected.
std::vector<bool> BenjaminiHochberg(absl::Span<const double> p_values,
                                    double q);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_FALSE_DISCOVERY_H_
