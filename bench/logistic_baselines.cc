// Non-private logistic regression for the experiment; see the header.
#include "bench/logistic_baselines.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ldp {
namespace {

double ScaleValue(double v, double lo, double hi) {
  return 2 * (std::clamp(v, lo, hi) - lo) / (hi - lo) - 1;
}

double Sigmoid(double z) {
  const double e = std::exp(-std::fabs(z));
  return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}

double Margin(const LogisticModel& m, const std::vector<double>& x) {
  return std::inner_product(x.begin(), x.end(), m.theta.begin(), m.bias);
}

}  // namespace

absl::StatusOr<Data> ReadCsv(const std::string& path, const std::string& label) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(
        "cannot read ", path, " (run bench/data/export_breast_cancer.py, "
        "or pass --csv)"));
  }
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = absl::StrSplit(line, ',');
  const auto label_it = std::find(header.begin(), header.end(), label);
  if (label_it == header.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " has no column \"", label, "\""));
  }
  const size_t label_col = label_it - header.begin();
  Data data;
  for (size_t c = 0; c < header.size(); ++c) {
    if (c != label_col) data.features.push_back(header[c]);
  }
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = absl::StrSplit(line, ',');
    if (cells.size() != header.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", row, ": ", cells.size(), " cells, want ",
                       header.size()));
    }
    std::vector<double> x;
    for (size_t c = 0; c < cells.size(); ++c) {
      double v = 0;
      if (!absl::SimpleAtod(cells[c], &v) || !std::isfinite(v)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ":", row, ": bad number \"", cells[c], "\""));
      }
      if (c == label_col) {
        if (v != 0 && v != 1) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ":", row, ": label must be 0 or 1"));
        }
        data.y.push_back(static_cast<int>(v));
      } else {
        x.push_back(v);
      }
    }
    data.x.push_back(std::move(x));
  }
  return data;
}

Split MakeSplit(const Data& data, const std::vector<size_t>& train_rows,
                const std::vector<size_t>& held_rows,
                const std::string& label) {
  const size_t d = data.features.size();
  Split s{.lo = std::vector<double>(d, INFINITY),
          .hi = std::vector<double>(d, -INFINITY)};
  for (size_t i : train_rows) {
    for (size_t j = 0; j < d; ++j) {
      s.lo[j] = std::min(s.lo[j], data.x[i][j]);
      s.hi[j] = std::max(s.hi[j], data.x[i][j]);
    }
  }
  const auto scaled = [&](size_t i) {
    std::vector<double> x(d);
    for (size_t j = 0; j < d; ++j) x[j] = ScaleValue(data.x[i][j], s.lo[j], s.hi[j]);
    return x;
  };
  for (size_t i : held_rows) {
    s.held_x.push_back(scaled(i));
    s.held_y.push_back(data.y[i]);
  }
  for (size_t i : train_rows) {
    s.train_x.push_back(scaled(i));
    s.train_y.push_back(data.y[i]);
    Record r;
    for (size_t j = 0; j < d; ++j) r.values[data.features[j]] = data.x[i][j];
    r.values[label] = data.y[i] == 1;
    s.train_records.push_back(std::move(r));
  }
  return s;
}

double Accuracy(const LogisticModel& m,
                const std::vector<std::vector<double>>& x,
                const std::vector<int>& y) {
  int correct = 0;
  for (size_t i = 0; i < y.size(); ++i) correct += (Margin(m, x[i]) > 0) == (y[i] == 1);
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

double LogLoss(const LogisticModel& m, const std::vector<std::vector<double>>& x,
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
