// A released scalar answer: never a bare number, always with its uncertainty
// (DESIGN invariant 6).
#ifndef LDP_COMMON_ESTIMATION_ESTIMATE_H_
#define LDP_COMMON_ESTIMATION_ESTIMATE_H_

#include <cstdint>

namespace ldp {

struct Interval {
  double lower = 0;
  double upper = 0;
  bool Contains(double x) const { return lower <= x && x <= upper; }
};

struct ScalarEstimate {
  double value = 0;
  double standard_error = 0;
  // Covers the true value with probability ≥ `confidence` (= 1 − β).
  Interval interval;
  double confidence = 0;
  int64_t num_reports = 0;
  double epsilon = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_ESTIMATE_H_
