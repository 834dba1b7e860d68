// Dense Cholesky factorization and solves; see cholesky.h.
#include "common/estimation/cholesky.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ldp {

absl::StatusOr<CholeskyFactor> CholeskyFactor::Factor(
    std::vector<double> matrix, size_t n) {
  if (matrix.size() != n * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cholesky: expected ", n * n, " entries, got ", matrix.size()));
  }
  // Row-oriented Cholesky–Banachiewicz: L[i][j] from rows i and j of L.
  for (size_t i = 0; i < n; ++i) {
    double* row_i = &matrix[i * n];
    for (size_t j = 0; j <= i; ++j) {
      const double* row_j = &matrix[j * n];
      double sum = row_i[j];
      for (size_t k = 0; k < j; ++k) sum -= row_i[k] * row_j[k];
      if (j < i) {
        row_i[j] = sum / row_j[j];
      } else if (!(sum > 0) || !std::isfinite(sum)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cholesky: the matrix is not positive definite (pivot ", i, " is ",
            sum, ")"));
      } else {
        row_i[i] = std::sqrt(sum);
      }
    }
  }
  return CholeskyFactor(std::move(matrix), n);
}

std::vector<double> CholeskyFactor::Solve(absl::Span<const double> b) const {
  std::vector<double> x(b.begin(), b.end());
  x.resize(n_, 0.0);
  for (size_t i = 0; i < n_; ++i) {  // L·y = b
    const double* row = &lower_[i * n_];
    for (size_t k = 0; k < i; ++k) x[i] -= row[k] * x[k];
    x[i] /= row[i];
  }
  for (size_t i = n_; i-- > 0;) {  // Lᵀ·x = y
    for (size_t k = i + 1; k < n_; ++k) x[i] -= lower_[k * n_ + i] * x[k];
    x[i] /= lower_[i * n_ + i];
  }
  return x;
}

std::vector<double> CholeskyFactor::Inverse() const {
  // A⁻¹ = L⁻ᵀ·L⁻¹. Both loops run along rows, so they stream memory.
  std::vector<double> inv(n_ * n_, 0.0);  // L⁻¹, lower triangular
  for (size_t i = 0; i < n_; ++i) {
    // Row i of L·L⁻¹ = I: L[i][i]·X[i][j] = −Σ_{j≤k<i} L[i][k]·X[k][j].
    double* out = &inv[i * n_];
    for (size_t k = 0; k < i; ++k) {
      const double a = lower_[i * n_ + k];
      const double* row = &inv[k * n_];
      for (size_t j = 0; j <= k; ++j) out[j] -= a * row[j];
    }
    const double pivot = lower_[i * n_ + i];
    for (size_t j = 0; j < i; ++j) out[j] /= pivot;
    out[i] = 1 / pivot;
  }
  std::vector<double> result(n_ * n_, 0.0);
  for (size_t k = 0; k < n_; ++k) {  // Σ_k row k of L⁻¹, outer product
    const double* row = &inv[k * n_];
    for (size_t i = 0; i <= k; ++i) {
      double* out = &result[i * n_];
      for (size_t j = 0; j <= i; ++j) out[j] += row[i] * row[j];
    }
  }
  for (size_t i = 0; i < n_; ++i) {
    for (size_t j = 0; j < i; ++j) result[j * n_ + i] = result[i * n_ + j];
  }
  return result;
}

}  // namespace ldp
