// Benjamini–Hochberg; see false_discovery.h.
#include "common/estimation/false_discovery.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ldp {

std::vector<bool> BenjaminiHochberg(absl::Span<const double> p_values,
                                    double q) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](size_t i) {
    return std::isnan(p_values[i]) ? INFINITY : p_values[i];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return key(a) < key(b); });
  size_t last = 0;  // k*: rejections are order[0 .. last)
  for (size_t k = 1; k <= m; ++k) {
    if (key(order[k - 1]) <= static_cast<double>(k) * q / m) last = k;
  }
  std::vector<bool> rejected(m, false);
  for (size_t k = 0; k < last; ++k) rejected[order[k]] = true;
  return rejected;
}

}  // namespace ldp
