// Confidence intervals for released estimates.
//
// Normal intervals are the default (estimates average many independent
// reports, and their variances are known in closed form). Hoeffding and
// empirical-Bernstein intervals hold for any n with bounded per-report
// outputs, and are what a user should ask for when n is small or the answer
// must be guaranteed rather than asymptotic.
#ifndef LDP_COMMON_ESTIMATION_CONFIDENCE_INTERVAL_H_
#define LDP_COMMON_ESTIMATION_CONFIDENCE_INTERVAL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "common/estimation/estimate.h"

namespace ldp {

// Standard normal quantile Φ⁻¹(p), p in (0, 1); relative error < 1e-9.
double NormalQuantile(double p);

// InvalidArgument unless 0 < confidence < 1.
absl::Status ValidateConfidence(double confidence);

// value ± z·se with z = Φ⁻¹((1 + confidence) / 2).
Interval NormalInterval(double value, double standard_error, double confidence);

// Two-sided Hoeffding interval for the mean of n independent values, each in
// an interval of width `range`: mean ± range·√(ln(2/β) / (2n)).
Interval HoeffdingInterval(double mean, double range, int64_t n,
                           double confidence);

// Empirical Bernstein interval (Maurer & Pontil 2009, Thm. 4, two-sided):
// mean ± (√(2 V ln(4/β) / n) + 7 range ln(4/β) / (3(n − 1))), V the sample
// variance.
Interval BernsteinInterval(double mean, double sample_variance, double range,
                           int64_t n, double confidence);

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_CONFIDENCE_INTERVAL_H_
