// Consistency post-processing; see the header.
#include "common/estimation/consistency.h"

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

}  // namespace ldp
