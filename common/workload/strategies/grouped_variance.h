// The variance algebra of a grouped strategy (grouped_strategy.h) over its
// layout (grouped_layout.h): per-user variances of reconstructed answers at
// a histogram and at point masses.
//
// The server normalizes each group by its own report count. Per-user
// covariance of ŷ is then block-diagonal with block (1/π_g)·Cov_g(y_g),
// Cov_g the single-report covariance of the inner oracle's unbiased
// estimate at group distribution y_g = A_g·h (agents drawn iid from h):
//   GRR: (diag(P) − P·Pᵀ)/(p − q)²,  P_i = q + (p − q)·y_i;
//   OUE: diag(P_i(1 − P_i))/(p − q)² − (y·yᵀ − diag(y_i²)) — the bits are
//   independent given the item, but not across a mixture of items.
// Point-mass variances v_j(e_x) = Σ_g τ_{j,g}(c_g(x)) with τ computed once
// per (row, group), then summed over each item's tree nodes (contiguous
// blocks); the two-item groups of Haar and Fourier use randomized response
// whose point-mass variance does not depend on the bit, so there v_j(e_x)
// is the same for every x. Both avoid the O(b·N·#groups) generic sum.
#ifndef LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_VARIANCE_H_
#define LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_VARIANCE_H_

#include <cstdint>

#include "Eigen/Core"
#include "common/workload/strategy_randomizers/grouped_layout.h"

namespace ldp::grouped {

// A·h: each group's distribution over its rows, then the total Σh.
Eigen::VectorXd GroupDistributions(const Layout& layout,
                                   const Eigen::VectorXd& h);

// n·Var(r_j·ŷ) for each reconstruction row r_j (b×k `rows`) at agents
// drawn iid from h. n = 0: the limit, each group's report count n_g
// replaced by n·π_g. n > 0: n_g ~ Binomial(n, π_g); given n_g > 0 the
// group's estimate has covariance Cov_g/n_g, so the factor 1/π_g becomes
// n·E[1/n_g; n_g > 0], and an empty group (estimated as zeros) adds its
// bias n·Pr[n_g = 0]·(r·y_g)². Two groups empty at once add their biases'
// product, n·Pr[n_g = n_h = 0]·(r·y_g)(r·y_h), Pr = (1 − π_g − π_h)^n:
// per level pair that is the product of the levels' summed biases, less
// the g = h terms counted there. They matter when groups get a few
// reports each (Haar N = 1024 at n = 1e4: the finest groups' biases
// cancel within the level, and leaving these out overstated v_max by 10%).
Eigen::VectorXd GroupVariances(const Layout& layout,
                               const Eigen::MatrixXd& rows,
                               const Eigen::VectorXd& h, int64_t n);

// Σ_g (1/π_g)·r_{j,g}ᵀ·Cov_g(e_{c_g(x)})·r_{j,g} for every (j, x): b×N.
Eigen::MatrixXd PointMassSum(const Layout& layout, const Eigen::MatrixXd& rows);

}  // namespace ldp::grouped

#endif  // LDP_COMMON_WORKLOAD_STRATEGIES_GROUPED_VARIANCE_H_
