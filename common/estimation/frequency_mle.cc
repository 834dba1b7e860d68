// Maximum-likelihood histograms; see the header.
#include "common/estimation/frequency_mle.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace ldp {
namespace {

std::vector<double> Uniform(size_t n) {
  return std::vector<double>(n, 1.0 / static_cast<double>(n));
}

// f_v = (π − q)/(p − q) clamped into [0, 1] for the π that maximizes
// C·log π + (n − C)·log(1 − π) − μ·π: the root in [0, 1] of
// μπ² − (μ + n)π + C = 0, in whichever of its two algebraic forms does not
// cancel (μ = λ/(p − q), λ the multiplier of Σf = 1).
double BitwiseFrequency(double c, double n, double mu, const PureProtocol& ch) {
  const double b = mu + n;
  const double root = std::sqrt(std::max(b * b - 4 * mu * c, 0.0));
  double pi = 0;
  if (b >= 0) {
    pi = b + root > 0 ? 2 * c / (b + root) : 0;
  } else {
    pi = (b - root) / (2 * mu);
  }
  return std::clamp((pi - ch.q) / (ch.p - ch.q), 0.0, 1.0);
}

double BitwiseTotal(absl::Span<const int64_t> counts, double n, double mu,
                    const PureProtocol& ch) {
  double total = 0;
  for (int64_t c : counts)
    total += BitwiseFrequency(static_cast<double>(c), n, mu, ch);
  return total;
}

}  // namespace

absl::Status CheckSupportCounts(absl::Span<const int64_t> support_counts,
                                const PureProtocol& channel) {
  if (support_counts.empty()) {
    return absl::InvalidArgumentError("histogram is empty");
  }
  if (!(channel.p > channel.q) || channel.q < 0 || channel.p > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "channel needs 0 <= q < p <= 1, got p=", channel.p, " q=", channel.q));
  }
  for (int64_t c : support_counts) {
    if (c < 0) return absl::InvalidArgumentError("support counts must be >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> SupportShareMaximumLikelihood(
    absl::Span<const int64_t> support_counts, const PureProtocol& channel) {
  if (absl::Status s = CheckSupportCounts(support_counts, channel); !s.ok()) {
    return s;
  }
  const size_t n = support_counts.size();
  std::vector<double> sorted(support_counts.begin(), support_counts.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  if (sorted[0] == 0) return Uniform(n);
  // KKT: C_v/(q/(p−q) + f_v) = λ where f_v > 0, C_v ≤ λ·q/(p−q) elsewhere.
  // With the k largest counts positive, λ_k = Σ_{i<k} C_(i)/(1 + k·r); the
  // active set is the largest k whose smallest member stays positive.
  const double r = channel.q / (channel.p - channel.q);
  double prefix = 0, lambda = 0;
  for (size_t k = 0; k < n; ++k) {
    prefix += sorted[k];
    const double candidate = prefix / (1 + static_cast<double>(k + 1) * r);
    if (sorted[k] / candidate - r > 0) lambda = candidate;
  }
  std::vector<double> f(n);
  double total = 0;
  for (size_t v = 0; v < n; ++v) {
    f[v] = std::max(static_cast<double>(support_counts[v]) / lambda - r, 0.0);
    total += f[v];
  }
  for (double& x : f) x /= total;  // exact up to round-off already
  return f;
}

double SupportShareLogLikelihood(absl::Span<const int64_t> support_counts,
                                 const PureProtocol& channel,
                                 absl::Span<const double> frequencies) {
  double sum = 0, total = 0;
  for (size_t v = 0; v < support_counts.size(); ++v) {
    if (support_counts[v] == 0) continue;
    const double c = static_cast<double>(support_counts[v]);
    sum += c * std::log(channel.q + (channel.p - channel.q) * frequencies[v]);
    total += c;
  }
  return total > 0 ? sum / total : 0;
}

absl::StatusOr<std::vector<double>> BitwiseMaximumLikelihood(
    absl::Span<const int64_t> support_counts, int64_t num_reports,
    const PureProtocol& channel) {
  if (absl::Status s = CheckSupportCounts(support_counts, channel); !s.ok()) {
    return s;
  }
  if (num_reports < 1) {
    return absl::InvalidArgumentError("bitwise MLE needs at least one report");
  }
  for (int64_t c : support_counts) {
    if (c > num_reports) {
      return absl::InvalidArgumentError(
          absl::StrCat("a support count (", c,
                       ") exceeds the number of reports (", num_reports, ")"));
    }
  }
  if (support_counts.size() == 1) return std::vector<double>{1.0};
  const double n = static_cast<double>(num_reports);
  // Σf(μ) falls from N ≥ 2 (μ → −∞, every π → 1) to 0 (μ → +∞): bracket
  // the μ with Σf = 1 (a few dozen doublings at most), then bisect until
  // the bracket stops shrinking.
  double lo = -n, hi = n;
  for (int i = 0; i < 1000 && BitwiseTotal(support_counts, n, lo, channel) < 1;
       ++i) {
    lo *= 2;
  }
  for (int i = 0; i < 1000 && BitwiseTotal(support_counts, n, hi, channel) > 1;
       ++i) {
    hi *= 2;
  }
  for (int i = 0; i < 2000; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (BitwiseTotal(support_counts, n, mid, channel) > 1 ? lo : hi) = mid;
  }
  std::vector<double> f(support_counts.size());
  double total = 0;
  for (size_t v = 0; v < f.size(); ++v) {
    f[v] = BitwiseFrequency(static_cast<double>(support_counts[v]), n, hi,
                            channel);
    total += f[v];
  }
  if (!(total > 0)) return Uniform(f.size());
  for (double& x : f) x /= total;
  return f;
}

}  // namespace ldp
