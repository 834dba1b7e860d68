// The brute-force divergence; see the header. Bin(c, 1/2) comes from
// Pascal's rule row by row, Bin(n − 1, q) from adding one Bernoulli(q) trial
// at a time: sums of positive terms, accurate to a few ulps.
#include "common/amplification/brute_force.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/amplification/shuffle_inputs.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

// Row c + 1 of the Bin(·, 1/2) pmf from row c.
void NextHalfBinomialRow(std::vector<double>& row) {
  row.push_back(0);
  for (size_t a = row.size() - 1; a > 0; --a)
    row[a] = (row[a] + row[a - 1]) / 2;
  row[0] /= 2;
}

// The pmf of Bin(m, q) for q = e^−ε0.
std::vector<double> CloneCountPmf(double epsilon0, int64_t m) {
  const double q = std::exp(-epsilon0);
  const double not_q = -std::expm1(-epsilon0);
  std::vector<double> pmf = {1};
  for (int64_t trial = 0; trial < m; ++trial) {
    pmf.push_back(0);
    for (size_t k = pmf.size() - 1; k > 0; --k) {
      pmf[k] = pmf[k] * not_q + pmf[k - 1] * q;
    }
    pmf[0] *= not_q;
  }
  return pmf;
}

// Both directed divergences of P_c, Q_c built from `row` = b_c.
double DivergenceFromRow(double epsilon0, const std::vector<double>& row,
                         double epsilon) {
  const double alpha = 1 / (1 + std::exp(-epsilon0));
  const double not_alpha = 1 / (1 + std::exp(epsilon0));
  const double e = std::exp(epsilon);
  auto b = [&](int64_t a) {
    return a >= 0 && a < static_cast<int64_t>(row.size())
               ? row[static_cast<size_t>(a)]
               : 0.0;
  };
  double p_over_q = 0;
  double q_over_p = 0;
  for (int64_t a = 0; a <= static_cast<int64_t>(row.size()); ++a) {
    const double p = alpha * b(a) + not_alpha * b(a - 1);
    const double q = alpha * b(a - 1) + not_alpha * b(a);
    p_over_q += std::max(0.0, p - e * q);
    q_over_p += std::max(0.0, q - e * p);
  }
  return std::max(p_over_q, q_over_p);
}

absl::Status ValidateBruteForceEpsilon(double epsilon) {
  if (epsilon >= 0 && std::isfinite(epsilon)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "brute force: epsilon must be finite and >= 0, got ", epsilon));
}

absl::Status ValidateSmallN(int64_t n) {
  RETURN_IF_ERROR(ValidateShuffledReports(n));
  if (n <= kMaxBruteForceReports) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("brute force: n must be <= ", kMaxBruteForceReports,
                   ", got ", n, " (use NumericalShuffledEpsilon)"));
}

// Σ_c pmf[c]·D_c(ε).
double DeltaFromPmf(double epsilon0, const std::vector<double>& pmf,
                    double epsilon) {
  std::vector<double> row = {1};
  double delta = 0;
  for (size_t c = 0; c < pmf.size(); ++c) {
    if (c > 0) NextHalfBinomialRow(row);
    delta += pmf[c] * DivergenceFromRow(epsilon0, row, epsilon);
  }
  return delta;
}

}  // namespace

absl::StatusOr<double> ExactCloneDivergence(double epsilon0, int64_t clones,
                                            double epsilon) {
  RETURN_IF_ERROR(ValidateEpsilon0(epsilon0));
  RETURN_IF_ERROR(ValidateBruteForceEpsilon(epsilon));
  if (clones < 0 || clones >= kMaxBruteForceReports) {
    return absl::InvalidArgumentError(
        absl::StrCat("brute force: clones must be in [0, ",
                     kMaxBruteForceReports, "), got ", clones));
  }
  std::vector<double> row = {1};
  for (int64_t c = 0; c < clones; ++c) NextHalfBinomialRow(row);
  return DivergenceFromRow(epsilon0, row, epsilon);
}

absl::StatusOr<double> ExactShuffledDelta(double epsilon0, int64_t n,
                                          double epsilon) {
  RETURN_IF_ERROR(ValidateEpsilon0(epsilon0));
  RETURN_IF_ERROR(ValidateSmallN(n));
  RETURN_IF_ERROR(ValidateBruteForceEpsilon(epsilon));
  return DeltaFromPmf(epsilon0, CloneCountPmf(epsilon0, n - 1), epsilon);
}

absl::StatusOr<double> ExactShuffledEpsilon(double epsilon0, int64_t n,
                                            double delta, double tolerance) {
  RETURN_IF_ERROR(ValidateShuffleInputs(epsilon0, n, delta));
  RETURN_IF_ERROR(ValidateSmallN(n));
  if (!(tolerance >= 1e-15 && tolerance <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "brute force: tolerance must be in [1e-15, 1], got ", tolerance));
  }
  const std::vector<double> pmf = CloneCountPmf(epsilon0, n - 1);
  double low = 0;
  double high = epsilon0;
  while (high - low > tolerance) {
    const double middle = low + (high - low) / 2;
    (DeltaFromPmf(epsilon0, pmf, middle) <= delta ? high : low) = middle;
  }
  return high;
}

}  // namespace ldp
