// How the logistic regression experiment prints its figures: every number
// in its tables goes through these, so that none is ever printed as NaN.
#ifndef LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_FIGURES_H_
#define LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_FIGURES_H_

#include <string>
#include <vector>

namespace ldp {

// v with `digits` decimals, or "n/a" when it is not finite (the splits and
// models are checked before anything is computed, so this is the last
// guard: no NaN is ever printed as a result).
std::string Figure(double v, int digits = 3);

// "mean ± sd" (sample sd, 0 for one value) with 3 decimals; "n/a" when v
// is empty or either is not finite.
std::string MeanSd(const std::vector<double>& v);

// The mean of v (NaN when v is empty).
double Mean(const std::vector<double>& v);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_LOGISTIC_LOGISTIC_FIGURES_H_
