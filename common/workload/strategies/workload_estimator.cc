// The workload estimator (workload_estimator.h): the weighted least-squares
// inverse B of the strategy, exactness of R·A = W, predicted variances and
// the answers with standard errors and a simultaneous band.
//
// B = (AᵀΣA)⁺AᵀΣ with Σ = diag(ReconstructionWeights()). When AᵀΣA is
// positive definite (every strategy whose rows span R^N) a Cholesky
// factorization inverts it; otherwise (Fourier: A spans only the parities
// of weight ≤ k) a symmetric eigendecomposition gives the pseudo-inverse,
// dropping eigenvalues below 1e-10·λ_max. Either way B·A is the orthogonal
// projector onto A's row space, so W·B·A = W exactly when W's rows lie in
// it. Create checks that: for full-rank A, from max|B·A − I| alone; else
// block by block through the workload's own products (never an m×N
// matrix: all ranges at N = 1024 has 524,800 rows).
#include "common/workload/strategies/workload_estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/estimation/confidence_interval.h"
#include "common/estimation/consistency.h"

namespace ldp {
namespace {

// Rows of W·B visited at once: b×N point-mass variances of 8 MiB at N = 1024.
constexpr int kBlockRows = 1024;
// Relative tolerance of the exactness check (workload_estimator.h).
constexpr double kExactnessTolerance = 1e-6;
// Eigenvalues below this fraction of the largest count as zero.
constexpr double kPseudoInverseCutoff = 1e-10;

// B = (AᵀΣA)⁺·AᵀΣ. The Gram matrix is one symmetric rank-k update; a
// Cholesky solve avoids forming the inverse.
Eigen::MatrixXd WeightedLeastSquaresInverse(const Eigen::MatrixXd& a,
                                            const Eigen::VectorXd& weights) {
  const Eigen::Index n = a.cols();
  const Eigen::MatrixXd scaled = weights.cwiseSqrt().asDiagonal() * a;
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(n, n);
  gram.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose());
  gram.triangularView<Eigen::StrictlyUpper>() = gram.transpose();
  const Eigen::MatrixXd rhs = a.transpose() * weights.asDiagonal();
  Eigen::LLT<Eigen::MatrixXd> llt(gram);
  if (llt.info() == Eigen::Success) {
    // Trust Cholesky only when AᵀΣA is well conditioned: the spread of L's
    // diagonal bounds the spread of the eigenvalues from below.
    const Eigen::VectorXd diagonal = llt.matrixLLT().diagonal();
    const double spread = diagonal.minCoeff() / diagonal.maxCoeff();
    if (spread * spread > 1e3 * kPseudoInverseCutoff) return llt.solve(rhs);
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(gram);
  const Eigen::VectorXd& lambda = eigen.eigenvalues();
  const double cutoff = kPseudoInverseCutoff * lambda.cwiseAbs().maxCoeff();
  Eigen::VectorXd inverse(lambda.size());
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    inverse[i] = lambda[i] > cutoff ? 1 / lambda[i] : 0;
  }
  const Eigen::MatrixXd& v = eigen.eigenvectors();
  return v * (inverse.asDiagonal() * (v.transpose() * rhs));
}

// B·A − I (N×N): zero up to rounding when A has full column rank.
Eigen::MatrixXd ProjectionDefect(const Eigen::MatrixXd& b,
                                 const Eigen::MatrixXd& a) {
  Eigen::MatrixXd defect = b * a;
  defect.diagonal().array() -= 1;
  return defect;
}

// max |W·E| and max |W|, from one pass over the blocks of W·[E I].
std::pair<double, double> WorkloadTimesDefectMax(const Workload& workload,
                                                 const Eigen::MatrixXd& e) {
  const Eigen::Index n = e.rows();
  Eigen::MatrixXd stacked(n, 2 * n);
  stacked.leftCols(n) = e;
  stacked.rightCols(n).setIdentity();
  double error = 0, scale = 0;
  workload.ForEachProjectedBlock(
      stacked, kBlockRows, [&](uint64_t, const Eigen::MatrixXd& rows) {
        error = std::max(error, rows.leftCols(n).cwiseAbs().maxCoeff());
        scale = std::max(scale, rows.rightCols(n).cwiseAbs().maxCoeff());
      });
  return {error, scale};
}

}  // namespace

absl::StatusOr<std::shared_ptr<const WorkloadEstimator>>
WorkloadEstimator::Create(Workload workload,
                          std::shared_ptr<const StrategyMechanism> strategy) {
  if (strategy == nullptr) {
    return absl::InvalidArgumentError("workload estimator: no strategy");
  }
  if (strategy->domain_size() != workload.domain_size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload estimator: the strategy's domain_size ",
                     strategy->domain_size(), " differs from the workload's ",
                     workload.domain_size(), " (", workload.Describe(), ")"));
  }
  const Eigen::MatrixXd a = strategy->StrategyMatrix();
  const Eigen::VectorXd weights = strategy->ReconstructionWeights();
  Eigen::MatrixXd b = WeightedLeastSquaresInverse(a, weights);
  // |W·E| ≤ N·max|W|·max|E| entrywise: when A spans R^N that bound alone
  // proves exactness and the pass over W's m rows is skipped.
  const Eigen::MatrixXd defect = ProjectionDefect(b, a);
  const double defect_max = defect.cwiseAbs().maxCoeff();
  if (!(defect_max * static_cast<double>(a.cols()) <= kExactnessTolerance)) {
    const auto [error, scale] = WorkloadTimesDefectMax(workload, defect);
    if (!(error <= kExactnessTolerance * scale)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "workload estimator: strategy ", strategy->Describe(),
          " cannot answer ", workload.Describe(),
          " exactly (max |R·A − W| = ", error, " with max |W| = ", scale,
          "): the workload's queries are outside the strategy's row space; "
          "pick a strategy built for this workload"));
    }
  }
  return std::shared_ptr<const WorkloadEstimator>(new WorkloadEstimator(
      std::move(workload), std::move(strategy), std::move(b)));
}

double WorkloadEstimator::ReconstructionError() const {
  // Recomputed on demand (the class keeps no cache): O(N²·k + m·N).
  return WorkloadTimesDefectMax(
             workload_,
             ProjectionDefect(reconstruction_, strategy_->StrategyMatrix()))
      .first;
}

VarianceSummary WorkloadEstimator::Variance() const {
  VarianceSummary summary;
  summary.v_max = -1;
  const uint32_t n = workload_.domain_size();
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(n, 1.0 / n);
  double total = 0;
  workload_.ForEachProjectedBlock(
      reconstruction_, kBlockRows,
      [&](uint64_t first, const Eigen::MatrixXd& rows) {
        const Eigen::MatrixXd point = strategy_->PointMassVariances(rows);
        Eigen::Index row = 0, item = 0;
        const double worst = point.maxCoeff(&row, &item);
        if (worst > summary.v_max) {
          summary.v_max = worst;
          summary.worst_query = first + static_cast<uint64_t>(row);
          summary.worst_item = static_cast<uint32_t>(item);
        }
        const Eigen::VectorXd spread = strategy_->Variances(rows, uniform);
        total += spread.sum();
        summary.v_max_uniform =
            std::max(summary.v_max_uniform, spread.maxCoeff());
      });
  summary.v_max = std::max(summary.v_max, 0.0);
  summary.v_avg = total / static_cast<double>(workload_.num_queries());
  return summary;
}

Eigen::VectorXd WorkloadEstimator::Variances(const Eigen::VectorXd& h,
                                             int64_t n) const {
  Eigen::VectorXd v(workload_.num_queries());
  workload_.ForEachProjectedBlock(
      reconstruction_, kBlockRows,
      [&](uint64_t first, const Eigen::MatrixXd& rows) {
        v.segment(static_cast<Eigen::Index>(first), rows.rows()) =
            n > 0 ? strategy_->FiniteSampleVariances(rows, h, n)
                  : strategy_->Variances(rows, h);
      });
  return v;
}

Eigen::VectorXd WorkloadEstimator::Answers(const Eigen::VectorXd& y_hat) const {
  // R·ŷ = W·(B·ŷ): the workload applies W without materializing R.
  return workload_.Answer(reconstruction_ * y_hat);
}

WorkloadAnswer WorkloadEstimator::Estimate(const Eigen::VectorXd& y_hat,
                                           int64_t n, double confidence,
                                           bool consistency) const {
  WorkloadAnswer answer;
  answer.num_reports = n;
  answer.epsilon = strategy_->epsilon();
  answer.confidence = confidence;
  if (y_hat.size() != reconstruction_.cols()) return answer;  // misuse
  const Eigen::VectorXd h = reconstruction_ * y_hat;
  const Eigen::VectorXd values = workload_.Answer(h);
  answer.answers.assign(values.data(), values.data() + values.size());
  // Plug-in variances at the least-squares histogram projected onto the
  // simplex, so they are never negative.
  const std::vector<double> projected =
      ProjectOntoSimplex(absl::MakeConstSpan(h.data(), h.size()));
  const Eigen::VectorXd h_plus = Eigen::Map<const Eigen::VectorXd>(
      projected.data(), static_cast<Eigen::Index>(projected.size()));
  // At the actual n: a grouped strategy with groups of few reports (Haar's
  // finest level at small n) varies more than its limit says.
  const Eigen::VectorXd v = Variances(h_plus, std::max<int64_t>(n, 0));
  answer.standard_errors.resize(v.size());
  for (Eigen::Index j = 0; j < v.size(); ++j) {
    answer.standard_errors[j] =
        n > 0
            ? std::max(std::sqrt(std::max(v[j], 0.0) / static_cast<double>(n)),
                       kAnswerRoundingError)
            : std::numeric_limits<double>::infinity();
  }
  // Bonferroni over the m queries; an invalid confidence claims nothing.
  const double beta = 1 - confidence;
  const double m = static_cast<double>(workload_.num_queries());
  answer.band_z = ValidateConfidence(confidence).ok()
                      ? NormalQuantile(1 - beta / (2 * m))
                      : std::numeric_limits<double>::infinity();
  if (consistency) {
    const Eigen::VectorXd consistent = workload_.Answer(h_plus);
    answer.consistent_answers.emplace(consistent.data(),
                                      consistent.data() + consistent.size());
  }
  return answer;
}

}  // namespace ldp
