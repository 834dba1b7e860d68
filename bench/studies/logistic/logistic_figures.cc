// Printed figures of the logistic regression experiment; see the header.
#include "bench/studies/logistic/logistic_figures.h"

#include <cmath>
#include <numeric>

#include "absl/strings/str_format.h"

namespace ldp {

std::string Figure(double v, int digits) {
  return std::isfinite(v) ? absl::StrFormat("%.*f", digits, v) : "n/a";
}

std::string MeanSd(const std::vector<double>& v) {
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(ss / (v.size() - 1)) : 0;
  if (v.empty() || !std::isfinite(mean) || !std::isfinite(sd)) return "n/a";
  return absl::StrFormat("%.3f ± %.3f", mean, sd);
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

}  // namespace ldp
