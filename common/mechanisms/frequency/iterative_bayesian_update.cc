// Iterative Bayesian update; see the header.
#include "common/mechanisms/frequency/iterative_bayesian_update.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/estimation/consistency.h"
#include "common/estimation/frequency_mle.h"

namespace ldp {
namespace {

// Share of uniform mixed into the projection start: EM multiplies, so an
// item the projection set to zero would stay there.
constexpr double kUniformShare = 1e-3;

// One EM update of the support-share likelihood, and the Frank–Wolfe gap
// that certifies a point, both from the shares s_v. The channel's column sums
// p + (N−1)q are equal, so with D_y = q + (p − q)·f_y the update is
// f_x ← f_x·(q·Σ_y s_y/D_y + (p − q)·s_x/D_x)/(p + (N−1)q), O(N).
class EmStep {
 public:
  EmStep(absl::Span<const int64_t> counts, const PureProtocol& channel)
      : channel_(channel), share_(counts.size()), ratio_(counts.size()) {
    double total = 0;
    for (int64_t c : counts) total += static_cast<double>(c);
    for (size_t v = 0; v < counts.size(); ++v) {
      share_[v] = static_cast<double>(counts[v]) / total;
    }
  }

  // max_v ∂_v L − Σ_v f_v·∂_v L for L = Σ_v s_v·log(q + (p − q)·f_v): by
  // concavity, L(f*) − L(f) ≤ ⟨∇L(f), f* − f⟩ ≤ this.
  double FrankWolfeGap(const std::vector<double>& f) const {
    const double gap = channel_.p - channel_.q;
    double top = -std::numeric_limits<double>::infinity(), mean = 0;
    for (size_t v = 0; v < f.size(); ++v) {
      const double grad = share_[v] * gap / (channel_.q + gap * f[v]);
      top = std::max(top, grad);
      mean += f[v] * grad;
    }
    return std::max(top - mean, 0.0);
  }

  std::vector<double> operator()(const std::vector<double>& f) {
    const double gap = channel_.p - channel_.q;
    double shared = 0;
    for (size_t y = 0; y < f.size(); ++y) {
      ratio_[y] = share_[y] / (channel_.q + gap * f[y]);
      shared += ratio_[y];
    }
    const double column_sum =
        channel_.p + static_cast<double>(f.size() - 1) * channel_.q;
    std::vector<double> next(f.size());
    double sum = 0;
    for (size_t x = 0; x < f.size(); ++x) {
      next[x] = f[x] * (channel_.q * shared + gap * ratio_[x]) / column_sum;
      sum += next[x];
    }
    for (double& x : next) x /= sum;
    return next;
  }

 private:
  PureProtocol channel_;
  std::vector<double> share_, ratio_;
};

std::vector<double> Start(absl::Span<const int64_t> counts, int64_t n,
                          const PureProtocol& channel, IbuStart start) {
  const size_t d = counts.size();
  if (start == IbuStart::kUniform) {
    return std::vector<double>(d, 1.0 / static_cast<double>(d));
  }
  if (start == IbuStart::kClosedForm) {
    return *SupportShareMaximumLikelihood(counts, channel);  // checked input
  }
  std::vector<double> unbiased(d);
  for (size_t v = 0; v < d; ++v) {
    unbiased[v] =
        (static_cast<double>(counts[v]) / static_cast<double>(n) - channel.q) /
        (channel.p - channel.q);
  }
  std::vector<double> f = ProjectOntoSimplex(unbiased);
  const double uniform = kUniformShare / static_cast<double>(d);
  for (double& x : f) x = (1 - kUniformShare) * x + uniform;
  return f;
}

// The SQUAREM point f0 − 2α·r + α²·v (r = f1 − f0, v = f2 − 2f1 + f0,
// α = −‖r‖/‖v‖ ≤ −1, scheme S3), or f2 if that point leaves the simplex or
// has a lower likelihood than f2.
std::vector<double> Extrapolate(const std::vector<double>& f0,
                                const std::vector<double>& f1,
                                const std::vector<double>& f2,
                                absl::Span<const int64_t> counts,
                                const PureProtocol& channel) {
  double rr = 0, vv = 0;
  for (size_t i = 0; i < f0.size(); ++i) {
    const double r = f1[i] - f0[i], v = f2[i] - 2 * f1[i] + f0[i];
    rr += r * r;
    vv += v * v;
  }
  if (vv == 0) return f2;
  const double alpha = std::min(-std::sqrt(rr / vv), -1.0);
  std::vector<double> out(f0.size());
  double sum = 0;
  for (size_t i = 0; i < f0.size(); ++i) {
    const double r = f1[i] - f0[i], v = f2[i] - 2 * f1[i] + f0[i];
    out[i] = f0[i] - 2 * alpha * r + alpha * alpha * v;
    if (!(out[i] >= 0)) return f2;
    sum += out[i];
  }
  // The point sums to one in exact arithmetic; α² would amplify the
  // round-off of the sums, so renormalize.
  for (double& x : out) x /= sum;
  if (SupportShareLogLikelihood(counts, channel, out) <
      SupportShareLogLikelihood(counts, channel, f2)) {
    return f2;
  }
  return out;
}

}  // namespace

absl::StatusOr<IbuResult> IterativeBayesianUpdate(
    absl::Span<const int64_t> support_counts, int64_t num_reports,
    const PureProtocol& channel, const IbuOptions& options) {
  if (absl::Status s = CheckSupportCounts(support_counts, channel); !s.ok()) {
    return s;
  }
  if (options.start == IbuStart::kProjection && num_reports < 1) {
    return absl::InvalidArgumentError(
        "IBU's projection start needs num_reports >= 1");
  }
  IbuResult result;
  if (std::all_of(support_counts.begin(), support_counts.end(),
                  [](int64_t c) { return c == 0; })) {
    result.frequencies.assign(support_counts.size(),
                              1.0 / static_cast<double>(support_counts.size()));
    result.converged = true;
    return result;
  }
  std::vector<double> f =
      Start(support_counts, num_reports, channel, options.start);
  EmStep em(support_counts, channel);
  // Each pass: stop if f is certified, else one EM update, and with
  // acceleration a second one and the SQUAREM point from the three.
  while (true) {
    result.gap = em.FrankWolfeGap(f);
    result.converged = result.gap <= options.tolerance;
    if (result.converged || result.iterations >= options.max_iterations) break;
    std::vector<double> f1 = em(f);
    ++result.iterations;
    if (!options.accelerate || result.iterations >= options.max_iterations) {
      f = std::move(f1);
      continue;
    }
    std::vector<double> f2 = em(f1);
    ++result.iterations;
    f = Extrapolate(f, f1, f2, support_counts, channel);
  }
  result.frequencies = std::move(f);
  return result;
}

absl::StatusOr<IbuResult> IterativeBayesianUpdate(
    const PureFrequencyOracle& oracle, absl::Span<const int64_t> support_counts,
    int64_t num_reports, const IbuOptions& options) {
  if (oracle.kind() == FrequencyOracleKind::kHadamardResponse) {
    return absl::InvalidArgumentError(
        "iterative Bayesian update does not fit Hadamard response: each "
        "report supports half of all items, correlated across items, which "
        "its support-share model ignores (measured, it is no better than "
        "simplex projection, and as usually run 10 to 24 times worse); use "
        "simplex projection");
  }
  if (support_counts.size() != oracle.domain_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "IBU got ", support_counts.size(), " support counts for a domain of ",
        oracle.domain_size(), " items"));
  }
  return IterativeBayesianUpdate(support_counts, num_reports, oracle.protocol(),
                                 options);
}

}  // namespace ldp
