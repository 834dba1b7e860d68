// The products of a workload with vectors and matrices (workload.h):
// W·h, the weighted Gram matrix Wᵀ·diag(p)·W and the quadratic forms
// w_jᵀ·S·w_j, each in closed form per kind (workload.cc lists them).
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "common/workload/strategies/workload.h"
#include "common/workload/strategies/workload_internal.h"

namespace ldp {

using workload_internal::CellOf;
using workload_internal::ForEachInCell;
using workload_internal::Hadamard;
using workload_internal::RangeCursor;

Eigen::VectorXd Workload::Answer(const Eigen::VectorXd& h) const {
  const Data& w = *data_;
  assert(h.size() == w.n);
  const uint32_t n = w.n;
  Eigen::VectorXd out(static_cast<Eigen::Index>(w.m));
  switch (w.spec.kind) {
    case WorkloadKind::kHistogram:
      return h;
    case WorkloadKind::kPrefix: {
      double sum = 0;
      for (uint32_t t = 0; t < n; ++t) out[t] = sum += h[t];
      return out;
    }
    case WorkloadKind::kAllRange: {
      std::vector<double> cum(n + 1, 0.0);  // cum[t] = Σ_{x<t} h_x
      for (uint32_t x = 0; x < n; ++x) cum[x + 1] = cum[x] + h[x];
      RangeCursor c{n, 0, 0};
      for (uint64_t j = 0; j < w.m; ++j, c.Next()) {
        out[j] = cum[c.b + 1] - cum[c.a];
      }
      return out;
    }
    case WorkloadKind::kMarginals: {
      out.setZero();
      for (size_t s = 0; s < w.subsets.size(); ++s) {
        const uint64_t base = uint64_t{s} << w.k;
        for (uint32_t x = 0; x < n; ++x) {
          out[base + CellOf(w.subsets[s], w.d, x)] += h[x];
        }
      }
      return out;
    }
    case WorkloadKind::kParities: {
      Eigen::VectorXd t = h;
      Hadamard(t.data(), n);
      const double total = h.sum();
      for (uint64_t j = 0; j < w.m; ++j) out[j] = 0.5 * (total - t[w.masks[j]]);
      return out;
    }
    case WorkloadKind::kCustom:
    case WorkloadKind::kAttributeMarginals:  // held as a dense matrix
      return w.custom * h;
  }
  return out;
}

Eigen::MatrixXd Workload::Gram() const {
  return WeightedGram(
      Eigen::VectorXd::Ones(static_cast<Eigen::Index>(data_->m)));
}

Eigen::MatrixXd Workload::WeightedGram(const Eigen::VectorXd& p) const {
  const Data& w = *data_;
  assert(static_cast<uint64_t>(p.size()) == w.m);
  const uint32_t n = w.n;
  switch (w.spec.kind) {
    case WorkloadKind::kHistogram:
      return p.asDiagonal();
    case WorkloadKind::kPrefix: {
      // G_xy = Σ_{t ≥ max(x,y)} p_t.
      std::vector<double> suffix(n + 1, 0.0);
      for (uint32_t t = n; t-- > 0;) suffix[t] = suffix[t + 1] + p[t];
      Eigen::MatrixXd g(n, n);
      for (uint32_t y = 0; y < n; ++y) {
        for (uint32_t x = 0; x < n; ++x) g(x, y) = suffix[std::max(x, y)];
      }
      return g;
    }
    case WorkloadKind::kAllRange: {
      // C(a,b) = Σ_{a' ≤ a, b' ≥ b} p(a',b'); G_xy = C(min, max).
      Eigen::MatrixXd c = Eigen::MatrixXd::Zero(n, n);
      {
        RangeCursor cur{n, 0, 0};
        for (uint64_t j = 0; j < w.m; ++j, cur.Next()) c(cur.a, cur.b) = p[j];
      }
      for (uint32_t b = n; b-- > 0;) {
        for (uint32_t a = 0; a < n; ++a) {
          double v = c(a, b);
          if (a > 0) v += c(a - 1, b);
          if (b + 1 < n) v += c(a, b + 1);
          if (a > 0 && b + 1 < n) v -= c(a - 1, b + 1);
          c(a, b) = v;
        }
      }
      Eigen::MatrixXd g(n, n);
      for (uint32_t y = 0; y < n; ++y) {
        for (uint32_t x = 0; x < n; ++x) {
          g(x, y) = c(std::min(x, y), std::max(x, y));
        }
      }
      return g;
    }
    case WorkloadKind::kMarginals: {
      // Pairs (x, y) in the same cell of S get that cell's weight.
      Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, n);
      for (size_t s = 0; s < w.subsets.size(); ++s) {
        const uint64_t base = uint64_t{s} << w.k;
        for (uint32_t x = 0; x < n; ++x) {
          const double weight = p[base + CellOf(w.subsets[s], w.d, x)];
          if (weight == 0) continue;
          double* column = g.col(x).data();
          ForEachInCell(x, w.masks[s], n - 1,
                        [&](uint32_t y) { column[y] += weight; });
        }
      }
      return g;
    }
    case WorkloadKind::kParities: {
      // 1[odd] = (1 − χ)/2 and χ_T(x)χ_T(y) = χ_T(x⊕y):
      // G_xy = (P − f(x) − f(y) + f(x⊕y))/4 with f = H·(p placed at masks).
      Eigen::VectorXd f = Eigen::VectorXd::Zero(n);
      for (uint64_t j = 0; j < w.m; ++j) f[w.masks[j]] += p[j];
      const double total = p.sum();
      Hadamard(f.data(), n);
      Eigen::MatrixXd g(n, n);
      for (uint32_t y = 0; y < n; ++y) {
        for (uint32_t x = 0; x < n; ++x) {
          g(x, y) = 0.25 * (total - f[x] - f[y] + f[x ^ y]);
        }
      }
      return g;
    }
    case WorkloadKind::kCustom:
    case WorkloadKind::kAttributeMarginals:  // held as a dense matrix
      return w.custom.transpose() * (p.asDiagonal() * w.custom);
  }
  return {};
}

Eigen::VectorXd Workload::QuadraticForms(const Eigen::MatrixXd& s) const {
  const Data& w = *data_;
  assert(s.rows() == w.n && s.cols() == w.n);
  const uint32_t n = w.n;
  Eigen::VectorXd out(static_cast<Eigen::Index>(w.m));
  switch (w.spec.kind) {
    case WorkloadKind::kHistogram:
      return s.diagonal();
    case WorkloadKind::kPrefix:
    case WorkloadKind::kAllRange: {
      // q(i,j) = Σ_{x<i, y<j} S_xy; a block sum over [a,b]² is 4 lookups.
      Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n + 1, n + 1);
      for (uint32_t j = 0; j < n; ++j) {
        double column_sum = 0;
        for (uint32_t i = 0; i < n; ++i) {
          column_sum += s(i, j);
          q(i + 1, j + 1) = q(i + 1, j) + column_sum;
        }
      }
      if (w.spec.kind == WorkloadKind::kPrefix) {
        for (uint32_t t = 0; t < n; ++t) out[t] = q(t + 1, t + 1);
        return out;
      }
      RangeCursor c{n, 0, 0};
      for (uint64_t j = 0; j < w.m; ++j, c.Next()) {
        out[j] = q(c.b + 1, c.b + 1) - q(c.a, c.b + 1) - q(c.b + 1, c.a) +
                 q(c.a, c.a);
      }
      return out;
    }
    case WorkloadKind::kMarginals: {
      out.setZero();
      for (size_t sub = 0; sub < w.subsets.size(); ++sub) {
        const uint64_t base = uint64_t{sub} << w.k;
        for (uint32_t x = 0; x < n; ++x) {
          const double* column = s.col(x).data();
          double acc = 0;
          ForEachInCell(x, w.masks[sub], n - 1,
                        [&](uint32_t y) { acc += column[y]; });
          out[base + CellOf(w.subsets[sub], w.d, x)] += acc;
        }
      }
      return out;
    }
    case WorkloadKind::kParities: {
      // w_Tᵀ S w_T = (1ᵀS1 − 2·(H·S1)[T] + (H·g)[T]) / 4, with
      // g(z) = Σ_x S(x, x⊕z).
      Eigen::VectorXd row_sums = s.rowwise().sum();
      const double total = row_sums.sum();
      Hadamard(row_sums.data(), n);
      Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
      for (uint32_t x = 0; x < n; ++x) {
        const double* column = s.col(x).data();
        for (uint32_t z = 0; z < n; ++z) g[z] += column[x ^ z];
      }
      Hadamard(g.data(), n);
      for (uint64_t j = 0; j < w.m; ++j) {
        const uint32_t t = w.masks[j];
        out[j] = 0.25 * (total - 2 * row_sums[t] + g[t]);
      }
      return out;
    }
    case WorkloadKind::kCustom:
    case WorkloadKind::kAttributeMarginals:  // held as a dense matrix
      return (w.custom * s).cwiseProduct(w.custom).rowwise().sum();
  }
  return out;
}

}  // namespace ldp
