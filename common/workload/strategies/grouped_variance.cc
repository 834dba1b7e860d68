// The variance algebra of a grouped strategy (grouped_variance.h).
#include "common/workload/strategies/grouped_variance.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/report_count.h"
#include "common/workload/strategy_randomizers/grouped_layout.h"

namespace ldp::grouped {
namespace {

// Pr[two given groups both get no report] = (1 − π_g − π_h)^n.
double BothEmpty(int64_t n, double pi_sum) {
  if (pi_sum >= 1) return 0;
  return std::exp(static_cast<double>(n) * std::log1p(-pi_sum));
}

// Adds (1/π_g)·rᵀ·Cov_g·r for group g (rows o..o+k of ŷ) at group
// distribution y to v; `scale` is (1/π_g)/(p − q)², with 1/π_g replaced by
// n·E[1/n_g; n_g > 0] at finite n. `first` and `second` are scratch (b).
void AddGroupCovariance(const Level& level, const Eigen::VectorXd& y,
                        uint32_t o, const Eigen::MatrixXd& rows, double scale,
                        double inverse_pi, Eigen::VectorXd& v,
                        Eigen::ArrayXd& first, Eigen::ArrayXd& second) {
  const double gap = level.p - level.q;
  const uint32_t k = level.group_size;
  if (level.inner == InnerKind::kOue) {
    // Bits are independent given the item, not across a mixture:
    // Cov = diag(P_i(1 − P_i))/(p − q)² − (y·yᵀ − diag(y_i²)).
    first.setZero();
    for (uint32_t i = 0; i < k; ++i) {
      const double share = y[o + i];
      const double support = level.q + gap * share;
      v += (scale * support * (1 - support) + inverse_pi * share * share) *
           rows.col(o + i).cwiseAbs2();
      first += share * rows.col(o + i).array();
    }
    v -= inverse_pi * first.square().matrix();
  } else if (k == 2) {
    // Σ r_i²P_i − (Σ r_i P_i)² = P_0·P_1·(r_0 − r_1)² when P_0 + P_1 = 1.
    const double support = level.q + gap * y[o];
    v += (scale * support * (1 - support)) *
         (rows.col(o) - rows.col(o + 1)).cwiseAbs2();
  } else {
    // rᵀ(diag(P) − P·Pᵀ)r.
    first.setZero();
    second.setZero();
    for (uint32_t i = 0; i < k; ++i) {
      const double support = level.q + gap * y[o + i];
      first += support * rows.col(o + i).array();
      second += support * rows.col(o + i).array().square();
    }
    v += (scale * (second - first.square())).matrix();
  }
}

// The pairs of groups empty at once (grouped_variance.h): per level pair
// (a, c), n·Pr[n_g = n_h = 0] times the product of the levels' summed
// biases, less the g = h terms.
void AddBothEmptyBiases(const Layout& l, int64_t n,
                        const std::vector<Eigen::ArrayXd>& level_bias,
                        const std::vector<Eigen::ArrayXd>& level_bias_squares,
                        Eigen::VectorXd& v) {
  for (size_t a = 0; a < level_bias.size(); ++a) {
    for (size_t c = 0; c < level_bias.size(); ++c) {
      const double both_empty =
          static_cast<double>(n) *
          BothEmpty(n, l.GroupProbability(l.levels[a].first_group) +
                           l.GroupProbability(l.levels[c].first_group));
      if (both_empty == 0) continue;
      v += (both_empty * level_bias[a] * level_bias[c]).matrix();
      if (a == c) v -= (both_empty * level_bias_squares[a]).matrix();
    }
  }
}

// T (b×k): T(j, offset_g + t) = (1/π_g)·r_{j,g}ᵀ·Cov_g(e_t)·r_{j,g}, the
// contribution of group g to v_j(e_x) for any x with c_g(x) = t. The
// known total adds nothing.
Eigen::MatrixXd PointMassTerms(const Layout& l, const Eigen::MatrixXd& rows) {
  const Eigen::Index b = rows.rows();
  Eigen::MatrixXd terms(b, l.rows());
  terms.col(l.total_row()).setZero();
  Eigen::ArrayXd s1(b), s2(b);
  for (uint32_t g = 0; g < l.num_groups(); ++g) {
    const Level& level = l.levels[l.level_of[g]];
    const double p = level.p, q = level.q, gap = p - q;
    const uint32_t k = level.group_size, o = l.offset[g];
    const double scale = 1 / (l.GroupProbability(g) * gap * gap);
    s1.setZero();
    s2.setZero();
    for (uint32_t t = 0; t < k; ++t) {
      s1 += rows.col(o + t).array();
      s2 += rows.col(o + t).array().square();
    }
    for (uint32_t t = 0; t < k; ++t) {
      const auto r = rows.col(o + t).array();
      if (level.inner == InnerKind::kOue) {
        // σ_q²‖r‖² + (σ_p² − σ_q²)·r_t², in units of 1/(p − q)².
        terms.col(o + t).array() =
            scale *
            (q * (1 - q) * s2 + (p * (1 - p) - q * (1 - q)) * r.square());
      } else {
        // rᵀ(diag(P) − P·Pᵀ)r with P = q·1 + (p − q)·e_t.
        terms.col(o + t).array() =
            scale * (q * s2 + gap * r.square() - (q * s1 + gap * r).square());
      }
    }
  }
  return terms;
}

}  // namespace

Eigen::VectorXd GroupDistributions(const Layout& l, const Eigen::VectorXd& h) {
  Eigen::VectorXd y = Eigen::VectorXd::Zero(l.rows());
  for (uint32_t g = 0; g < l.num_groups(); ++g) {
    for (uint32_t x = 0; x < l.n; ++x) y[l.offset[g] + l.ItemOf(g, x)] += h[x];
  }
  y[l.total_row()] = h.sum();
  return y;
}

Eigen::VectorXd GroupVariances(const Layout& l, const Eigen::MatrixXd& rows,
                               const Eigen::VectorXd& h, int64_t n) {
  const Eigen::VectorXd y = GroupDistributions(l, h);
  const Eigen::Index b = rows.rows();
  Eigen::VectorXd v = Eigen::VectorXd::Zero(b);
  Eigen::ArrayXd first(b), second(b), mean(b);
  // The groups of a level share π: one count distribution per level
  // (Haar has 1023 groups at N = 1024 but 10 levels).
  std::vector<ReportCountMoments> level_moments;
  // Per level: Σ_g r·y_g and Σ_g (r·y_g)² over its groups.
  std::vector<Eigen::ArrayXd> level_bias, level_bias_squares;
  if (n > 0) {
    for (const Level& level : l.levels) {
      level_moments.push_back(MomentsOfReportCount(
          n, level.probability / static_cast<double>(level.num_groups)));
      level_bias.push_back(Eigen::ArrayXd::Zero(b));
      level_bias_squares.push_back(Eigen::ArrayXd::Zero(b));
    }
  }
  for (uint32_t g = 0; g < l.num_groups(); ++g) {
    const Level& level = l.levels[l.level_of[g]];
    const double gap = level.p - level.q;
    const uint32_t k = level.group_size, o = l.offset[g];
    const double pi = l.GroupProbability(g);
    double inverse_pi = 1 / pi;
    if (n > 0) {
      const ReportCountMoments& moments = level_moments[l.level_of[g]];
      inverse_pi = static_cast<double>(n) * moments.inverse_mean;
      mean.setZero();
      for (uint32_t i = 0; i < k; ++i) {
        mean += y[o + i] * rows.col(o + i).array();
      }
      v += (static_cast<double>(n) * moments.empty) * mean.square().matrix();
      level_bias[l.level_of[g]] += mean;
      level_bias_squares[l.level_of[g]] += mean.square();
    }
    const double scale = inverse_pi / (gap * gap);
    AddGroupCovariance(level, y, o, rows, scale, inverse_pi, v, first, second);
  }
  AddBothEmptyBiases(l, n, level_bias, level_bias_squares, v);
  return v;
}

// Σ_g (1/π_g)·r_{j,g}ᵀ·Cov_g(e_{c_g(x)})·r_{j,g} for every (j, x).
Eigen::MatrixXd PointMassSum(const Layout& l, const Eigen::MatrixXd& rows) {
  const Eigen::Index b = rows.rows();
  if (l.spec.kind == StrategyKind::kHaar ||
      l.spec.kind == StrategyKind::kFourier) {
    // Two-item groups are always GRR (2 < 3e^ε + 2) with p + q = 1, and
    // then rᵀ(diag(P) − P·Pᵀ)r = p·q·(r_0 − r_1)² whichever bit the item
    // has: the point-mass variance is the same for every x.
    Eigen::VectorXd v = Eigen::VectorXd::Zero(b);
    for (uint32_t g = 0; g < l.num_groups(); ++g) {
      const Level& level = l.levels[l.level_of[g]];
      const double gap = level.p - level.q;
      const double scale =
          level.p * level.q / (l.GroupProbability(g) * gap * gap);
      v += scale *
           (rows.col(l.offset[g]) - rows.col(l.offset[g] + 1)).cwiseAbs2();
    }
    return v.replicate(1, l.n);
  }
  // Identity and trees: T(j, offset_g + t) = the contribution of group g
  // when c_g(x) = t, then Σ_g over each item's nodes.
  const Eigen::MatrixXd terms = PointMassTerms(l, rows);
  if (l.spec.kind == StrategyKind::kIdentity) return terms.leftCols(l.n);
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(b, l.n);
  if (l.spec.kind == StrategyKind::kAttributeSampling) {
    // An attribute's cells are not contiguous ranges of items.
    for (uint32_t x = 0; x < l.n; ++x) {
      for (uint32_t g = 0; g < l.num_groups(); ++g) {
        out.col(x) += terms.col(l.offset[g] + l.ItemOf(g, x));
      }
    }
    return out;
  }
  for (uint32_t g = 0; g < l.num_groups(); ++g) {
    // Node t of a level covers the contiguous items [t·span, (t+1)·span).
    const Level& level = l.levels[l.level_of[g]];
    for (uint32_t t = 0; t < level.group_size; ++t) {
      const uint64_t first = t * level.divisor;
      const uint64_t last = std::min<uint64_t>(first + level.divisor, l.n);
      out.middleCols(first, last - first).colwise() +=
          terms.col(l.offset[g] + t);
    }
  }
  return out;
}

}  // namespace ldp::grouped
