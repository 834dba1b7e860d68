// The piecewise mechanism of Wang, Xiao, Yang, Zhao, Hui, Shin, Shin and Yu,
// "Collecting and Analyzing Multidimensional Data with Local Differential
// Privacy" (ICDE 2019, arXiv 1907.00782), on a grid of output cells.
//
// Why: for ε ≳ 1 it beats Duchi's one-bit mechanism (its variance at x = 0
// falls like 1/ε² instead of staying near 1), and it is the high-ε half of
// the hybrid mechanism.
//
// The paper outputs a real in [−C, C], C = (e^{ε/2}+1)/(e^{ε/2}−1): inside
// a band of length C − 1 that slides with t = x/b the density is e^ε times
// the density outside it. Here [−C, C] becomes L cells, the band m ≈
// L/(e^{ε/2}+1) consecutive cells starting at cell j, and the input grid is
// j ∈ {0, …, J = L − m}: t is randomized-rounded onto the point
// (t + 1)/2 · J (pre-processing, real_input.h). The agent flips one coin,
// Pr[inside] = K/2^32, and draws a uniform cell of the chosen region, so
//   Pr[cell c | j] = q_in = K/(2^32 m) inside, q_out = (2^32 − K)/(2^32 J)
// outside, and the implemented ε = ln(q_in / q_out), with K rounded down
// from the paper's e^ε m/(e^ε m + J).
//
// Decoding: E[c + ½ | j] = s·j + c₀ is exactly affine in j (s = m(q_in −
// q_out)), so Decode(c) = b(2(c + ½ − c₀)/(sJ) − 1) is exactly unbiased for
// every x. Variance follows from the first two moments of the cell centre
// under the two-point rounding mixture, and the worst case is its maximum
// over x (piecewise_quadratic.h); with L = 2048 both are within a fraction
// of a percent of the paper's continuous formulas.
#ifndef LDP_COMMON_MECHANISMS_REAL_PIECEWISE_MECHANISM_H_
#define LDP_COMMON_MECHANISMS_REAL_PIECEWISE_MECHANISM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/base/coin.h"
#include "common/mechanisms/real/real_mechanism.h"

namespace ldp {

struct PiecewiseOptions {
  double epsilon = 1.0;
  double bound = 1.0;
  // L, the number of output cells: more cells follow the continuous
  // mechanism more closely; every report is still one integer in [0, L).
  int64_t num_cells = 2048;
};

class PiecewiseMechanism final : public RealMechanism {
 public:
  static constexpr int64_t kMinCells = 2;
  static constexpr int64_t kMaxCells = int64_t{1} << 20;

  static absl::StatusOr<std::unique_ptr<PiecewiseMechanism>> Create(
      const PiecewiseOptions& options);

  RealMechanismKind kind() const override {
    return RealMechanismKind::kPiecewise;
  }
  double epsilon() const override { return epsilon_; }
  double bound() const override { return bound_; }

  // Report levels are cell indices in [0, num_cells()).
  ScalarReport Randomize(double x, absl::BitGenRef gen) const override;
  double Probability(double x, const ScalarReport& report) const override;
  absl::Status Validate(const ScalarReport& report) const override;
  double Decode(const ScalarReport& report) const override;
  double DecodeBound() const override;
  double Variance(double x) const override;
  // Exact (O(grid) evaluations), computed on first use: agents build a
  // mechanism per task and never ask. Remembered across objects with the
  // same parameters (worst_case_memo.h).
  double WorstCaseVariance() const override;
  // Everything Variance depends on, exactly: the memo's key.
  std::string VarianceKey() const;

  int64_t num_cells() const { return num_cells_; }
  // m, the cells in the high-probability band.
  int64_t band_cells() const { return band_cells_; }
  // Pr[report inside the band] = K / 2^32.
  CoinProbability inside_probability() const { return inside_; }
  // The inputs that round to one band position exactly: b(2j/J − 1) for
  // j = 0..J. Var(x) is a quadratic in x between consecutive points.
  std::vector<double> InputGrid() const;

 private:
  PiecewiseMechanism(double bound, int64_t num_cells, int64_t band_cells,
                     CoinProbability inside, double epsilon);

  int64_t num_positions() const { return num_cells_ - band_cells_; }
  // E[c + ½ | j] and E[(c + ½)² | j] for band start j.
  double FirstMoment(int64_t j) const;
  double SecondMoment(int64_t j) const;

  double bound_;
  int64_t num_cells_;
  int64_t band_cells_;
  CoinProbability inside_;
  double epsilon_;
  double inside_cell_probability_;   // q_in
  double outside_cell_probability_;  // q_out
  double decode_scale_;              // Decode(c) = scale·c + offset
  double decode_offset_;
  mutable absl::once_flag worst_case_once_;
  mutable double worst_case_variance_ = 0;
};

}  // namespace ldp

#endif  // LDP_COMMON_MECHANISMS_REAL_PIECEWISE_MECHANISM_H_
