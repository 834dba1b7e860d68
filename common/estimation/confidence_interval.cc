// Normal, Hoeffding and empirical-Bernstein intervals; see the header.
#include "common/estimation/confidence_interval.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

// Acklam's rational approximation of Φ⁻¹ (relative error 1.2e-9), which one
// Halley step against erfc then refines to double precision.
double AcklamQuantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p < kLow || p > 1 - kLow) {
    const double q = std::sqrt(-2 * std::log(p < kLow ? p : 1 - p));
    const double x =
        (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < kLow ? x : -x;
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
         q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double LogTwoOverBeta(double confidence) {
  return std::log(2 / (1 - confidence));
}

}  // namespace

double NormalQuantile(double p) {
  if (!(p > 0 && p < 1)) return std::numeric_limits<double>::quiet_NaN();
  double x = AcklamQuantile(p);
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  x = x - u / (1 + x * u / 2);
  return x;
}

absl::Status ValidateConfidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "confidence must be strictly between 0 and 1 (e.g. 0.95), got ",
        confidence));
  }
  return absl::OkStatus();
}

Interval NormalInterval(double value, double standard_error,
                        double confidence) {
  const double z = NormalQuantile((1 + confidence) / 2);
  return {value - z * standard_error, value + z * standard_error};
}

Interval HoeffdingInterval(double mean, double range, int64_t n,
                           double confidence) {
  if (n <= 0) return {-INFINITY, INFINITY};
  const double half = range * std::sqrt(LogTwoOverBeta(confidence) /
                                        (2 * static_cast<double>(n)));
  return {mean - half, mean + half};
}

Interval BernsteinInterval(double mean, double sample_variance, double range,
                           int64_t n, double confidence) {
  if (n <= 1) return {-INFINITY, INFINITY};
  const double log_term = std::log(4 / (1 - confidence));
  const double nd = static_cast<double>(n);
  const double half = std::sqrt(2 * sample_variance * log_term / nd) +
                      7 * range * log_term / (3 * (nd - 1));
  return {mean - half, mean + half};
}

}  // namespace ldp
