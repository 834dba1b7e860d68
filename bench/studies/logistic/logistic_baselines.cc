// Non-private logistic regression for the experiment; see the header.
#include "bench/studies/logistic/logistic_baselines.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace ldp {
namespace {

double Sigmoid(double z) {
  const double e = std::exp(-std::fabs(z));
  return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}

double Margin(const LogisticModel& m, const std::vector<double>& x) {
  return std::inner_product(x.begin(), x.end(), m.theta.begin(), m.bias);
}

}  // namespace

absl::StatusOr<Split> MakeSplit(const TabularData& data,
                                const std::vector<size_t>& train_rows,
                                const std::vector<size_t>& held_rows,
                                const DeclaredBounds& declared) {
  if (train_rows.empty() || held_rows.empty()) {
    return absl::InvalidArgumentError(
        "a split needs at least one training and one held-out row");
  }
  absl::StatusOr<FeatureBounds> bounds =
      ResolveBounds(data, train_rows, declared);
  if (!bounds.ok()) return bounds.status();
  absl::StatusOr<std::vector<std::vector<double>>> train_x =
      ScaleRows(data, train_rows, *bounds);
  if (!train_x.ok()) return train_x.status();
  absl::StatusOr<std::vector<std::vector<double>>> held_x =
      ScaleRows(data, held_rows, *bounds);
  if (!held_x.ok()) return held_x.status();
  Split s{.bounds = *std::move(bounds),
          .label = data.label_field,
          .train_x = *std::move(train_x),
          .held_x = *std::move(held_x)};
  for (size_t j : s.bounds.columns) s.features.push_back(data.features[j]);
  for (size_t i : held_rows) s.held_y.push_back(data.y[i]);
  for (size_t i : train_rows) {
    s.train_y.push_back(data.y[i]);
    Record r;
    for (size_t k = 0; k < s.features.size(); ++k) {
      r.values[s.features[k]] = data.x[i][s.bounds.columns[k]];
    }
    r.values[s.label] = data.y[i] == 1;
    s.train_records.push_back(std::move(r));
  }
  return s;
}

bool IsFinite(const LogisticModel& m) {
  return std::isfinite(m.bias) &&
         std::all_of(m.theta.begin(), m.theta.end(),
                     [](double v) { return std::isfinite(v); });
}

double Accuracy(const LogisticModel& m,
                const std::vector<std::vector<double>>& x,
                const std::vector<int>& y) {
  int correct = 0;
  for (size_t i = 0; i < y.size(); ++i)
    correct += (Margin(m, x[i]) > 0) == (y[i] == 1);
  return static_cast<double>(correct) / y.size();
}

std::vector<double> Gradient(const LogisticModel& m, const Split& s) {
  const size_t d = m.theta.size();
  std::vector<double> g(d + 1, 0);
  for (size_t i = 0; i < s.train_y.size(); ++i) {
    const double r = Sigmoid(Margin(m, s.train_x[i])) - s.train_y[i];
    for (size_t j = 0; j < d; ++j) g[j] += r * s.train_x[i][j];
    g[d] += r;
  }
  for (double& v : g) v /= s.train_y.size();
  return g;
}

double LogLoss(const LogisticModel& m,
               const std::vector<std::vector<double>>& x,
               const std::vector<int>& y) {
  double total = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double z = (y[i] == 1 ? 1 : -1) * Margin(m, x[i]);
    total += z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
  }
  return total / y.size();
}

LogisticModel Newton(const Split& s, double l2) {
  const size_t d = s.train_x[0].size(), p = d + 1;
  LogisticModel m{.theta = std::vector<double>(d)};
  for (int iter = 0; iter < 100; ++iter) {
    std::vector<double> g = Gradient(m, s);
    for (size_t j = 0; j < d; ++j) g[j] += l2 * m.theta[j];
    std::vector<std::vector<double>> h(p, std::vector<double>(p + 1, 0));
    for (size_t i = 0; i < s.train_y.size(); ++i) {
      const double q = Sigmoid(Margin(m, s.train_x[i]));
      const double w = q * (1 - q) / s.train_y.size();
      for (size_t a = 0; a < p; ++a) {
        const double xa = a < d ? s.train_x[i][a] : 1;
        for (size_t b = 0; b < p; ++b) {
          h[a][b] += w * xa * (b < d ? s.train_x[i][b] : 1);
        }
      }
    }
    for (size_t j = 0; j < d; ++j) h[j][j] += l2;
    for (size_t a = 0; a < p; ++a) h[a][p] = g[a];
    // Gaussian elimination with partial pivoting: h·step = g.
    for (size_t c = 0; c < p; ++c) {
      size_t pivot = c;
      for (size_t r = c + 1; r < p; ++r) {
        if (std::fabs(h[r][c]) > std::fabs(h[pivot][c])) pivot = r;
      }
      std::swap(h[c], h[pivot]);
      for (size_t r = 0; r < p; ++r) {
        if (r == c || h[c][c] == 0) continue;
        const double f = h[r][c] / h[c][c];
        for (size_t k = c; k <= p; ++k) h[r][k] -= f * h[c][k];
      }
    }
    double change = 0;
    for (size_t a = 0; a < p; ++a) {
      const double step = h[a][a] == 0 ? 0 : h[a][p] / h[a][a];
      (a < d ? m.theta[a] : m.bias) -= step;
      change = std::max(change, std::fabs(step));
    }
    if (change < 1e-10) break;
  }
  return m;
}

}  // namespace ldp
