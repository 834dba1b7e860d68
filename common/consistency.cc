// Consistency post-processing; see the header.
#include "common/consistency.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

double FiniteOrZero(double x) { return std::isfinite(x) ? x : 0.0; }

constexpr ConsistencyMethod kConsistencyMethods[] = {
    ConsistencyMethod::kSimplexProjection,
    ConsistencyMethod::kClipAndNormalize,
    ConsistencyMethod::kIterativeBayesianUpdate,
};

}  // namespace

std::optional<ConsistencyMethod> ConsistencyMethodFromName(
    std::string_view name) {
  for (ConsistencyMethod m : kConsistencyMethods) {
    if (ConsistencyMethodName(m) == name) return m;
  }
  return std::nullopt;
}

std::string ConsistencyMethodNames() {
  std::string names;
  for (ConsistencyMethod m : kConsistencyMethods) {
    absl::StrAppend(&names, names.empty() ? "" : ", ",
                    std::string(ConsistencyMethodName(m)));
  }
  return names;
}

std::string_view ConsistencyMethodName(ConsistencyMethod method) {
  switch (method) {
    case ConsistencyMethod::kSimplexProjection:
      return "simplex_projection";
    case ConsistencyMethod::kClipAndNormalize:
      return "clip_and_normalize";
    case ConsistencyMethod::kIterativeBayesianUpdate:
      return "iterative_bayesian_update";
  }
  return "unknown";
}

std::vector<double> ProjectOntoSimplex(absl::Span<const double> frequencies) {
  const size_t n = frequencies.size();
  std::vector<double> result(n);
  if (n == 0) return result;
  std::vector<double> sorted(n);
  std::transform(frequencies.begin(), frequencies.end(), sorted.begin(),
                 FiniteOrZero);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  // The threshold δ is set by the largest ρ with sorted[ρ] > (Σ_{i≤ρ} − 1)/ρ.
  double prefix = 0, delta = 0;
  for (size_t i = 0; i < n; ++i) {
    prefix += sorted[i];
    const double candidate = (prefix - 1) / static_cast<double>(i + 1);
    if (sorted[i] - candidate > 0) delta = candidate;
  }
  for (size_t i = 0; i < n; ++i) {
    result[i] = std::max(FiniteOrZero(frequencies[i]) - delta, 0.0);
  }
  return result;
}

std::vector<double> ClipAndNormalize(absl::Span<const double> frequencies) {
  std::vector<double> result(frequencies.size());
  double total = 0;
  for (size_t i = 0; i < frequencies.size(); ++i) {
    result[i] = std::max(FiniteOrZero(frequencies[i]), 0.0);
    total += result[i];
  }
  if (total <= 0) {
    std::fill(result.begin(), result.end(),
              1.0 / static_cast<double>(std::max<size_t>(result.size(), 1)));
    return result;
  }
  for (double& x : result) x /= total;
  return result;
}

absl::StatusOr<std::vector<double>> IterativeBayesianUpdate(
    absl::Span<const int64_t> support_counts, const PureProtocol& channel,
    const IbuOptions& options) {
  const size_t n = support_counts.size();
  if (n == 0) return absl::InvalidArgumentError("histogram is empty");
  if (!(channel.p > channel.q) || channel.q < 0 || channel.p > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "channel needs 0 <= q < p <= 1, got p=", channel.p, " q=", channel.q));
  }
  double total = 0;
  for (int64_t c : support_counts) {
    if (c < 0) return absl::InvalidArgumentError("support counts must be >= 0");
    total += static_cast<double>(c);
  }
  std::vector<double> f(n, 1.0 / static_cast<double>(n));
  if (total == 0) return f;
  // Channel column sums Σ_y M[y|x] = p + (N−1)q are the same for every x, so
  // the EM step is f_x ← f_x Σ_y s_y M[y|x] / (D_y · Σ_y' M[y'|x]) with
  // D_y = Σ_x' M[y|x'] f_x' = q + (p − q) f_y, computable in O(N).
  const double column_sum = channel.p + static_cast<double>(n - 1) * channel.q;
  const double gap = channel.p - channel.q;
  std::vector<double> ratio(n);
  for (int it = 0; it < options.max_iterations; ++it) {
    double shared = 0;
    for (size_t y = 0; y < n; ++y) {
      const double share = static_cast<double>(support_counts[y]) / total;
      ratio[y] = share / (channel.q + gap * f[y]);
      shared += ratio[y];
    }
    double moved = 0, sum = 0;
    for (size_t x = 0; x < n; ++x) {
      const double next = f[x] * (channel.q * shared + gap * ratio[x]) / column_sum;
      moved = std::max(moved, std::abs(next - f[x]));
      f[x] = next;
      sum += next;
    }
    for (double& x : f) x /= sum;
    if (moved <= options.tolerance) break;
  }
  return f;
}

}  // namespace ldp
