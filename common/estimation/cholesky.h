// The Cholesky factor of a small dense symmetric positive-definite matrix,
// for the least-squares decodes of ldp_mechanisms (RAPPOR's regression).
//
// Why not Eigen: the agent links ldp_mechanisms, and that layer stays free of
// Eigen and BLAS (common/CMakeLists.txt); the decodes it needs are a few
// thousand unknowns at most, where plain loops are fast enough.
#ifndef LDP_COMMON_ESTIMATION_CHOLESKY_H_
#define LDP_COMMON_ESTIMATION_CHOLESKY_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp {

class CholeskyFactor {
 public:
  // Factors the n×n row-major symmetric `matrix` (only its lower triangle is
  // read) as L·Lᵀ. FailedPrecondition if a pivot is not positive, i.e. the
  // matrix is not positive definite to working precision.
  static absl::StatusOr<CholeskyFactor> Factor(std::vector<double> matrix,
                                               size_t n);

  size_t size() const { return n_; }
  // x with A·x = b (b has size() entries).
  std::vector<double> Solve(absl::Span<const double> b) const;
  // A⁻¹, row-major.
  std::vector<double> Inverse() const;

 private:
  CholeskyFactor(std::vector<double> lower, size_t n)
      : lower_(std::move(lower)), n_(n) {}

  std::vector<double> lower_;  // L row-major; the upper triangle is garbage
  size_t n_;
};

}  // namespace ldp

#endif  // LDP_COMMON_ESTIMATION_CHOLESKY_H_
