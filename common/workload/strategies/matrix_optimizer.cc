// Projected gradient descent for an optimized finite strategy Q (McKenna,
// Maity, Mazumdar, Miklau, PVLDB 2020; factorization-and-sq.md §2).
//
// Objective f(Q) = ⟨M⁻¹, G⟩/N with M = Qᵀ·D⁻¹·Q, D = diag(Q·1), G = WᵀW:
// the mean over items x of Σ_j v_j(e_x), plus tr(G)/N. With G = F·Fᵀ
// factored once (Cholesky) and M = L·Lᵀ, f = ‖L⁻¹F‖²_F, and the gradient is
//   ∂f/∂Q = −(2·D⁻¹·Q·X − diag(D⁻¹·Q·X·Qᵀ·D⁻¹)·1ᵀ)/N,  X = M⁻¹·G·M⁻¹,
// all BLAS-3: one rank-K update, one Cholesky, two triangular solves, one
// rank-N update and one K×N×N product per iteration.
//
// The feasible set is the ε-LDP box of every row, z_o ≤ Q[o,x] ≤ e^ε·z_o,
// with column sums of one. Steps are an active-set projected gradient (see
// Optimizer::Step): entries on a bound move with their row's z, the others
// step along the gradient reduced by the column's multiplier, and each
// column is projected exactly onto its box. McKenna's code moves z by the
// raw sum of the tied entries' gradients and projects whole columns; that
// direction ignores the column-sum multiplier and can be an ascent
// direction at any step size, so it needs a blind halving schedule. Here
// every step is a descent direction, and the step size is found by
// backtracking (grow 1.5× after a success, halve after a failure), so the
// objective decreases monotonically. On prefix N = 128 this reaches a worst
// summed variance of 1636 where McKenna's README reports 1911.
//
// The start is McKenna's random feasible point (K = 4N outputs by default),
// drawn from options.seed; the result is deterministic given the seed (the
// per-column loops split work into fixed parts whatever the thread count).
#include "common/workload/strategies/matrix_optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/workload/strategies/matrix_strategy.h"
#include "common/workload/strategies/workload.h"

namespace ldp {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

// SplitMix64 (Steele, Lea, Flood 2014). Starting point only, never privacy
// noise: it picks the optimizer's public, data-independent initial Q, so
// the result is a deterministic function of options.seed.
class StartingPointSequence {
 public:
  explicit StartingPointSequence(uint64_t seed) : state_(seed) {}
  double NextUnit() {  // uniform in [0, 1), 53 bits
    return static_cast<double>(Next() >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// The per-column loops cost as much as the BLAS calls (which already use
// every core), so they run on up to kParts threads. Columns are split into
// kParts fixed contiguous parts whatever the core count, and callers
// combine per-part results in part order, so the result does not depend on
// the machine's thread count or on scheduling.
constexpr int kParts = 4;

void ParallelFor(int64_t n,
                 const std::function<void(int64_t, int64_t, int)>& body) {
  const int threads = static_cast<int>(std::clamp(
      std::thread::hardware_concurrency(), 1u, static_cast<unsigned>(kParts)));
  auto run = [&](int first_part, int step) {
    for (int p = first_part; p < kParts; p += step) {
      body(n * p / kParts, n * (p + 1) / kParts, p);
    }
  };
  if (threads <= 1 || n < 64) {
    run(0, 1);
    return;
  }
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t, threads);
  run(0, threads);
  for (std::thread& w : workers) w.join();
}

// Σ_o clip(r_o + λ, lb_o, ub_o) and the number of unclipped entries.
struct ClippedSum {
  double sum = 0;
  int64_t free = 0;
};

ClippedSum EvaluateClipped(const double* r, const double* lb, const double* ub,
                           int64_t k, double lambda) {
  ClippedSum out;
  for (int64_t o = 0; o < k; ++o) {
    const double v = r[o] + lambda;
    if (v <= lb[o]) {
      out.sum += lb[o];
    } else if (v >= ub[o]) {
      out.sum += ub[o];
    } else {
      out.sum += v;
      ++out.free;
    }
  }
  return out;
}

// Projects r (k values, in place) onto {lb ≤ q ≤ ub, Σq = target}: finds
// the shift λ with Σ clip(r + λ) = target by safeguarded Newton steps on
// the piecewise-linear, non-decreasing clipped sum (exact once the active
// set is right; bisection whenever Newton leaves the bracket), starting
// from this column's previous λ. Requires Σlb ≤ target ≤ Σub.
void ProjectColumnTo(double* r, const double* lb, const double* ub, int64_t k,
                     double target, double& lambda) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (int64_t o = 0; o < k; ++o) {
    lo = std::min(lo, lb[o] - r[o]);
    hi = std::max(hi, ub[o] - r[o]);
  }
  double x = std::clamp(lambda, lo, hi);
  for (int it = 0; it < 200; ++it) {
    const ClippedSum s = EvaluateClipped(r, lb, ub, k, x);
    const double gap = target - s.sum;
    if (std::abs(gap) <= 1e-15) break;
    if (gap > 0) {
      lo = x;
    } else {
      hi = x;
    }
    if (hi - lo <= 1e-17 * std::max(1.0, std::abs(x))) break;
    double next = s.free > 0 ? x + gap / static_cast<double>(s.free) : lo;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    x = next;
  }
  lambda = x;
  for (int64_t o = 0; o < k; ++o) r[o] = std::clamp(r[o] + x, lb[o], ub[o]);
}

// The descent state: Q (K×N, columns contiguous), the row floors z, and
// each column's last projection shift (a warm start).
struct Iterate {
  MatrixXd q;
  VectorXd z;
  VectorXd shifts;
};

// f at Q, with what the gradient reuses: M = L·Lᵀ and T = L⁻¹·F.
struct Evaluation {
  double f = std::numeric_limits<double>::infinity();
  Eigen::LLT<MatrixXd> llt;
  MatrixXd t;
};

class Optimizer {
 public:
  Optimizer(double box_epsilon, absl::Time deadline)
      : exp_epsilon_(std::exp(box_epsilon)), deadline_(deadline) {}

  // G = WᵀW (N×N) as F·Fᵀ: its Cholesky factor when G is positive
  // definite (prefix, ranges, histograms), else F = V·Λ^½ over the
  // non-negligible eigenvalues (a rank-deficient custom workload).
  void SetGram(const MatrixXd& gram) {
    n_ = gram.rows();
    Eigen::LLT<MatrixXd> llt(gram);
    if (llt.info() == Eigen::Success &&
        llt.matrixLLT().diagonal().minCoeff() >
            1e-7 * llt.matrixLLT().diagonal().maxCoeff()) {
      factor_ = llt.matrixL();
      return;
    }
    Eigen::SelfAdjointEigenSolver<MatrixXd> eig(gram);
    const VectorXd& lambda = eig.eigenvalues();
    const double cutoff = 1e-12 * std::max(lambda.maxCoeff(), 0.0);
    int64_t keep = 0;
    for (int64_t i = 0; i < lambda.size(); ++i) keep += lambda[i] > cutoff;
    factor_.resize(n_, keep);
    int64_t c = 0;
    for (int64_t i = 0; i < lambda.size(); ++i) {
      if (lambda[i] > cutoff) {
        factor_.col(c++) = eig.eigenvectors().col(i) * std::sqrt(lambda[i]);
      }
    }
  }

  // True once less than `reserve` is left before the deadline.
  bool TimeUp(absl::Duration reserve = absl::ZeroDuration()) const {
    return absl::Now() + reserve >= deadline_;
  }
  double exp_epsilon() const { return exp_epsilon_; }

  // McKenna's initialize(): uniform entries, z halfway between the extreme
  // feasible constants 1/(K·e^ε) and 1/K, then projected.
  Iterate RandomStart(int64_t k, uint64_t seed) const {
    StartingPointSequence random(seed);
    Iterate it;
    it.q.resize(k, n_);
    for (int64_t x = 0; x < n_; ++x) {
      for (int64_t o = 0; o < k; ++o) it.q(o, x) = random.NextUnit();
    }
    const double low = 1.0 / static_cast<double>(k) / exp_epsilon_;
    const double high = 1.0 / static_cast<double>(k);
    it.z = VectorXd::Constant(k, 0.5 * (low + high));
    it.shifts = VectorXd::Zero(n_);
    Project(it);
    return it;
  }

  // f(Q) = ⟨(QᵀD⁻¹Q)⁻¹, G⟩/N; +∞ when M is not positive definite (Q has
  // lost rank and cannot answer the workload).
  Evaluation Evaluate(const MatrixXd& q) const {
    Evaluation e;
    const VectorXd d = q.rowwise().sum();
    const MatrixXd scaled = d.cwiseSqrt().cwiseInverse().asDiagonal() * q;
    MatrixXd m(n_, n_);
    m.triangularView<Eigen::Lower>() = scaled.transpose() * scaled;
    e.llt.compute(m);
    if (e.llt.info() != Eigen::Success) return e;
    e.t = factor_;
    e.llt.matrixL().solveInPlace(e.t);
    const double f = e.t.squaredNorm() / static_cast<double>(n_);
    if (std::isfinite(f)) e.f = f;
    return e;
  }

  // ∂f/∂Q (K×N) at an evaluated Q.
  MatrixXd Gradient(const MatrixXd& q, const Evaluation& e) const {
    MatrixXd s = e.t;
    e.llt.matrixU().solveInPlace(s);  // M⁻¹·F
    MatrixXd x(n_, n_);
    x.triangularView<Eigen::Lower>() = s * s.transpose();
    x.triangularView<Eigen::StrictlyUpper>() = x.transpose();
    MatrixXd y(q.rows(), n_);
    y.noalias() = q * x;  // Q·X
    const VectorXd d = q.rowwise().sum();
    const VectorXd quad = y.cwiseProduct(q).rowwise().sum();  // q_oᵀ·X·q_o
    const double scale = -1.0 / static_cast<double>(n_);
    const VectorXd a = (2.0 * scale) * d.cwiseInverse();
    const VectorXd b = scale * quad.cwiseQuotient(d.cwiseProduct(d));
    ParallelFor(n_, [&](int64_t begin, int64_t end, int) {
      for (int64_t c = begin; c < end; ++c) {
        y.col(c) = y.col(c).cwiseProduct(a) - b;
      }
    });
    return y;
  }

  // One projected step of size γ from `from` along −grad, as an active-set
  // method on the faces of the box. Entries on a bound are tied to their
  // row's z; the others are free. Changing z_o by δ moves the tied entries
  // of column x by t_ox·δ (t = 1 at the floor z, e^ε at the ceiling), and
  // the column sum is restored by the free entries, so the reduced
  // gradients are
  //   free entries: ∇_ox − μ_x,   z_o: Σ_x t_ox·(∇_ox − μ_x),
  // μ_x the mean gradient over column x's free entries. A tied entry whose
  // reduced gradient points into the box is released (becomes free). The
  // column projection moves only free entries, so tied entries stay on
  // their face and the step is a descent direction for small γ. z's step
  // is scaled by 1/Σ_x t_ox², so a tied entry moves about as far as a free
  // one; rows whose z falls under 1e-10 are dropped.
  Iterate Step(const Iterate& from, const MatrixXd& grad, double gamma) const {
    const ActiveSet active = FindActiveSet(from, grad);
    Iterate to;
    to.z = StepFloors(from.z, active, gamma);
    StepColumns(from, grad, gamma, active, to);
    DropRowsBelow(to, 1e-10);
    return to;
  }

  // Projects every column of it.q onto its row box with sum one.
  void Project(Iterate& it) const {
    const int64_t k = it.q.rows();
    const VectorXd ub = exp_epsilon_ * it.z;
    ParallelFor(n_, [&](int64_t begin, int64_t end, int) {
      for (int64_t x = begin; x < end; ++x) {
        ProjectColumnTo(it.q.col(x).data(), it.z.data(), ub.data(), k, 1.0,
                        it.shifts[x]);
      }
    });
  }

  // Rows with z_o below `floor` carry (almost) no probability: drop them.
  static void DropRowsBelow(Iterate& it, double floor) {
    const int64_t k = it.q.rows();
    std::vector<int64_t> keep;
    keep.reserve(k);
    for (int64_t o = 0; o < k; ++o) {
      if (it.z[o] >= floor) keep.push_back(o);
    }
    if (static_cast<int64_t>(keep.size()) == k || keep.empty()) return;
    MatrixXd q(keep.size(), it.q.cols());
    VectorXd z(keep.size());
    for (size_t i = 0; i < keep.size(); ++i) {
      q.row(i) = it.q.row(keep[i]);
      z[i] = it.z[keep[i]];
    }
    it.q = std::move(q);
    it.z = std::move(z);
  }

 private:
  // Which entries of Q are tied to a face of the box, each column's mean
  // free gradient μ_x, and z's reduced gradient with its step scale.
  struct ActiveSet {
    std::vector<uint8_t> tie;  // K per column: 0 free, 1 floor, 2 ceiling
    VectorXd mu;               // N
    VectorXd dz;               // K: Σ_x t_ox·(∇_ox − μ_x)
    VectorXd weight;           // K: Σ_x t_ox²
  };

  // Ties column x's entries (t, K of them) and releases those whose reduced
  // gradient points into the box; adds the tied entries' terms to dz and
  // weight and returns μ_x.
  double TieColumn(const Iterate& from, const MatrixXd& grad, int64_t x,
                   uint8_t* t, VectorXd& dz, VectorXd& weight) const {
    const int64_t k = from.q.rows();
    const double* q = from.q.col(x).data();
    const double* g = grad.col(x).data();
    double free_sum = 0;
    int64_t free_count = 0;
    for (int64_t o = 0; o < k; ++o) {
      t[o] = q[o] == from.z[o] ? 1 : (q[o] == exp_epsilon_ * from.z[o] ? 2 : 0);
      if (t[o] == 0) {
        free_sum += g[o];
        ++free_count;
      }
    }
    double m = free_count > 0 ? free_sum / static_cast<double>(free_count)
                              : grad.col(x).mean();
    for (int64_t o = 0; o < k; ++o) {
      if ((t[o] == 1 && g[o] < m) || (t[o] == 2 && g[o] > m)) {
        t[o] = 0;
        free_sum += g[o];
        ++free_count;
      }
    }
    if (free_count > 0) m = free_sum / static_cast<double>(free_count);
    for (int64_t o = 0; o < k; ++o) {
      if (t[o] != 0) {
        const double w = t[o] == 1 ? 1.0 : exp_epsilon_;
        dz[o] += w * (g[o] - m);
        weight[o] += w * w;
      }
    }
    return m;
  }

  // TieColumn over every column; dz and weight are summed per part, then
  // over the parts in order.
  ActiveSet FindActiveSet(const Iterate& from, const MatrixXd& grad) const {
    const int64_t k = from.q.rows();
    ActiveSet active;
    active.tie.resize(static_cast<size_t>(k) * n_);
    active.mu.resize(n_);
    std::vector<VectorXd> dz_part(kParts, VectorXd::Zero(k));
    std::vector<VectorXd> weight_part(kParts, VectorXd::Zero(k));
    ParallelFor(n_, [&](int64_t begin, int64_t end, int part) {
      for (int64_t x = begin; x < end; ++x) {
        active.mu[x] = TieColumn(from, grad, x, active.tie.data() + x * k,
                                 dz_part[part], weight_part[part]);
      }
    });
    active.dz = VectorXd::Zero(k);
    active.weight = VectorXd::Zero(k);
    for (int p = 0; p < kParts; ++p) {
      active.dz += dz_part[p];
      active.weight += weight_part[p];
    }
    return active;
  }

  // The row floors after a step of γ, clamped to [0, 1] and rescaled so
  // that the box stays non-empty.
  VectorXd StepFloors(const VectorXd& z, const ActiveSet& active,
                      double gamma) const {
    const int64_t k = z.size();
    VectorXd to(k);
    for (int64_t o = 0; o < k; ++o) {
      to[o] = std::clamp(
          z[o] - gamma * active.dz[o] / std::max(active.weight[o], 1.0), 0.0,
          1.0);
    }
    // Keep {z ≤ q ≤ e^ε·z, Σq = 1} non-empty: Σz ≤ 1 ≤ e^ε·Σz.
    const double total = to.sum();
    if (total > 1.0) to /= total;
    if (exp_epsilon_ * to.sum() < 1.0) to /= exp_epsilon_ * to.sum();
    return to;
  }

  // Column x of to.q after a step of γ: free entries step and are projected
  // onto their boxes with the sum the tied ones leave; if that face is
  // infeasible, the whole column is projected. r, lb and hb are K-long
  // scratch.
  void StepColumn(const Iterate& from, const MatrixXd& grad, double gamma,
                  const ActiveSet& active, const VectorXd& ub, int64_t x,
                  Iterate& to, double* r, double* lb, double* hb) const {
    const int64_t k = from.q.rows();
    const uint8_t* t = active.tie.data() + x * k;
    const double* q = from.q.col(x).data();
    const double* g = grad.col(x).data();
    const double mu = active.mu[x];
    double* col = to.q.col(x).data();
    int64_t f = 0;
    double tied_sum = 0, free_lb = 0, free_ub = 0;
    for (int64_t o = 0; o < k; ++o) {
      if (t[o] == 0) {
        r[f] = q[o] - gamma * (g[o] - mu);
        lb[f] = to.z[o];
        hb[f] = ub[o];
        free_lb += lb[f];
        free_ub += hb[f];
        ++f;
      } else {
        tied_sum += t[o] == 1 ? to.z[o] : ub[o];
      }
    }
    const double target = 1.0 - tied_sum;
    if (f > 0 && free_lb <= target && target <= free_ub) {
      ProjectColumnTo(r, lb, hb, f, target, to.shifts[x]);
      int64_t i = 0;
      for (int64_t o = 0; o < k; ++o) {
        col[o] = t[o] == 0 ? r[i++] : (t[o] == 1 ? to.z[o] : ub[o]);
      }
    } else {
      for (int64_t o = 0; o < k; ++o) {
        col[o] = t[o] == 0 ? q[o] - gamma * (g[o] - mu)
                           : (t[o] == 1 ? to.z[o] : ub[o]);
      }
      ProjectColumnTo(col, to.z.data(), ub.data(), k, 1.0, to.shifts[x]);
    }
  }

  // Fills to.q (and to.shifts) from the new floors to.z.
  void StepColumns(const Iterate& from, const MatrixXd& grad, double gamma,
                   const ActiveSet& active, Iterate& to) const {
    const int64_t k = from.q.rows();
    const VectorXd ub = exp_epsilon_ * to.z;
    to.q.resize(k, n_);
    to.shifts = from.shifts;
    ParallelFor(n_, [&](int64_t begin, int64_t end, int) {
      std::vector<double> r(k), lb(k), hb(k);
      for (int64_t x = begin; x < end; ++x) {
        StepColumn(from, grad, gamma, active, ub, x, to, r.data(), lb.data(),
                   hb.data());
      }
    });
  }

  double exp_epsilon_;
  absl::Time deadline_;
  int64_t n_ = 0;
  MatrixXd factor_;
};

// Backtracking descent: a step is kept only if it lowers f; γ grows 1.5×
// after a success and halves after a failure. Stops after max_iterations
// accepted steps, at the deadline, when 40 halvings in a row find no
// descent, or when 50 steps improve f by less than 1e-9 relative.
struct Descent {
  Iterate iterate;
  double objective = std::numeric_limits<double>::infinity();
  int iterations = 0;
};

Descent Descend(const Optimizer& opt, Iterate start, int max_iterations) {
  Descent out;
  Evaluation eval = opt.Evaluate(start.q);
  out.objective = eval.f;
  out.iterate = std::move(start);
  if (!std::isfinite(out.objective)) return out;
  MatrixXd grad = opt.Gradient(out.iterate.q, eval);
  // The first step moves the steepest entry by a tenth of a typical entry;
  // backtracking adapts it from there.
  double gamma = 0.1 / static_cast<double>(out.iterate.q.rows()) /
                 std::max(grad.cwiseAbs().maxCoeff(), 1e-300);
  int failures = 0;
  double checkpoint = out.objective;
  // Leave room before the deadline for one more step and the final
  // rounding (each about as long as the slowest iteration so far).
  absl::Duration slowest = absl::ZeroDuration();
  while (out.iterations < max_iterations && !opt.TimeUp(2 * slowest)) {
    const absl::Time step_start = absl::Now();
    Iterate next = opt.Step(out.iterate, grad, gamma);
    Evaluation next_eval = opt.Evaluate(next.q);
    if (next_eval.f < out.objective) {
      out.iterate = std::move(next);
      out.objective = next_eval.f;
      eval = std::move(next_eval);
      ++out.iterations;
      gamma *= 1.5;
      failures = 0;
      if (out.iterations % 50 == 0) {
        if (checkpoint - out.objective <= 1e-9 * checkpoint) break;
        checkpoint = out.objective;
      }
      grad = opt.Gradient(out.iterate.q, eval);
    } else {
      gamma *= 0.5;
      if (++failures > 40) break;
    }
    slowest = std::max(slowest, absl::Now() - step_start);
  }
  return out;
}

// Makes the result's implemented ε (after matrix_strategy.h's integer
// rounding) at most ε: drops rows too light to round precisely (unless Q
// would lose rank), then re-projects onto a slightly narrower box, wider
// margins only if the rounded ε still does not fit.
absl::StatusOr<MatrixXd> Finalize(const Optimizer& opt, Iterate it, int64_t n,
                                  double epsilon) {
  // Entries ≥ 1e-6 round to 2^-40 with relative error < 1e-6.
  Iterate trimmed = it;
  Optimizer::DropRowsBelow(trimmed, 1e-6);
  if (std::isfinite(opt.Evaluate(trimmed.q).f)) it = std::move(trimmed);
  double margin = 1e-7 * epsilon;
  for (int attempt = 0; attempt < 8; ++attempt, margin *= 10) {
    const double exp_box = std::exp(epsilon - margin);
    Iterate projected = it;
    const double total = projected.z.sum();
    if (total > 1.0) projected.z /= total;
    if (exp_box * projected.z.sum() < 1.0) {
      projected.z /= exp_box * projected.z.sum();
    }
    const VectorXd ub = exp_box * projected.z;
    for (int64_t x = 0; x < n; ++x) {
      ProjectColumnTo(projected.q.col(x).data(), projected.z.data(), ub.data(),
                      projected.q.rows(), 1.0, projected.shifts[x]);
    }
    absl::StatusOr<double> implemented = MatrixStrategyEpsilon(projected.q);
    if (implemented.ok() && *implemented <= epsilon) return projected.q;
  }
  return absl::InternalError(
      "the optimized strategy matrix could not be rounded within epsilon");
}

}  // namespace

absl::StatusOr<OptimizedMatrix> OptimizeStrategyMatrix(
    const Workload& workload, double epsilon,
    const MatrixOptimizerOptions& options) {
  if (!std::isfinite(epsilon) || epsilon <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("epsilon must be finite and > 0, got ", epsilon));
  }
  const absl::Time deadline = absl::Now() + options.time_limit;
  const MatrixXd gram = workload.Gram();
  if (gram.cwiseAbs().maxCoeff() == 0) {
    return absl::InvalidArgumentError(
        "the workload is all zeros: there is nothing to optimize for");
  }
  const int64_t n = gram.rows();
  const int64_t k = options.num_outputs > 0 ? options.num_outputs : 4 * n;
  if (k < n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_outputs must be 0 (= 4N) or at least the domain size ", n,
        " (fewer outputs cannot answer every query unbiasedly), got ", k));
  }
  // The descent runs in a box a hair narrower than e^ε, so the final
  // rounding to integer weights rarely needs to move anything.
  Optimizer opt(epsilon * (1 - 1e-7), deadline);
  opt.SetGram(gram);
  Descent result = Descend(opt, opt.RandomStart(k, options.seed),
                           std::max(options.iterations, 0));
  absl::StatusOr<MatrixXd> q =
      Finalize(opt, std::move(result.iterate), n, epsilon);
  if (!q.ok()) return q.status();
  const Evaluation final_eval = opt.Evaluate(*q);
  if (!std::isfinite(final_eval.f)) {
    return absl::InternalError(absl::StrCat(
        "the optimized strategy matrix lost rank (", q->rows(), " outputs for ",
        n, " items); try more outputs (num_outputs)"));
  }
  OptimizedMatrix out;
  out.q = *std::move(q);
  out.objective = final_eval.f - gram.trace() / static_cast<double>(n);
  out.iterations = result.iterations;
  return out;
}

}  // namespace ldp
