// `ldp results` as text; see the header.
#include "tools/cli/estimate_printing.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/plan_command/gamma2_text.h"

namespace ldp {
namespace {

std::string Band(double lower, double upper) {
  return absl::StrFormat("[%9.5f, %9.5f]", lower, upper);
}

void PrintWorkloadRow(const v1::WorkloadEstimate& w, int j) {
  std::printf(
      "  %-30s %9.5f  se %-8.4g %s",
      j < w.labels_size() ? w.labels(j).c_str() : absl::StrCat("q", j).c_str(),
      w.answers(j), w.standard_errors(j),
      Band(w.band_lower(j), w.band_upper(j)).c_str());
  if (j < w.consistent_answers_size()) {
    std::printf("  %9.5f", w.consistent_answers(j));
  }
  std::printf("\n");
}

// A RAPPOR question's header line: how many candidates are discovered.
void PrintCandidateTest(const v1::HistogramEstimate& h) {
  int discovered = 0;
  for (const bool d : h.discovered()) discovered += d;
  std::printf(
      "  %d of %d candidates discovered at false-discovery rate %g (rows "
      "marked *); p: one-sided p-value for \"nobody holds it\"\n",
      discovered, h.frequencies_size(), h.false_discovery_rate());
}

}  // namespace

void PrintScalar(const std::string& id, const v1::ScalarEstimate& e) {
  std::printf(
      "%-24s %12.6g  se %-10.4g [%.6g, %.6g] at %g%%  n=%lld  eps=%.4g  %s\n",
      id.c_str(), e.value(), e.standard_error(), e.interval().lower(),
      e.interval().upper(), e.interval().confidence() * 100,
      static_cast<long long>(e.num_reports()), e.implemented_epsilon(),
      e.mechanism().c_str());
}

void PrintHistogram(const std::string& id, const v1::HistogramEstimate& h,
                    int top) {
  std::printf(
      "%s: histogram over %d items, n=%lld, eps=%.4g, %s, %g%% intervals%s\n",
      id.c_str(), h.frequencies_size(), static_cast<long long>(h.num_reports()),
      h.implemented_epsilon(), h.mechanism().c_str(), h.confidence() * 100,
      h.has_post_processed()
          ? absl::StrCat(", post-processed: ", h.post_processed().method())
                .c_str()
          : "");
  const bool tested = h.discovered_size() == h.frequencies_size() &&
                      h.p_values_size() == h.frequencies_size();
  if (tested) PrintCandidateTest(h);
  std::vector<int> order(h.frequencies_size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return h.frequencies(a) > h.frequencies(b);
  });
  const int rows =
      top <= 0 ? h.frequencies_size() : std::min(top, h.frequencies_size());
  for (int r = 0; r < rows; ++r) {
    const int v = order[r];
    std::printf(
        "  %-30s %9.5f  se %-8.4g [%9.5f, %9.5f]",
        v < h.labels_size() ? h.labels(v).c_str() : absl::StrCat(v).c_str(),
        h.frequencies(v), h.standard_errors(v), h.interval_lower(v),
        h.interval_upper(v));
    if (h.has_post_processed())
      std::printf("  %9.5f", h.post_processed().frequencies(v));
    if (tested) {
      std::printf("  p %-9.3g%s", h.p_values(v), h.discovered(v) ? " *" : "");
    }
    std::printf("\n");
  }
}

// A shuffled study's two guarantees, under its estimate.
void PrintShuffled(const v1::ShuffledGuarantee& g) {
  if (g.num_batches() == 0) {
    std::printf("  shuffled: no batch released yet; each report is %.4g-LDP\n",
                g.local_epsilon());
    return;
  }
  std::printf(
      "  shuffled: (%.4g, %.3g)-DP against the server alone (%llu batches, "
      "smallest %llu); %.4g-LDP per report if server and shuffler "
      "collude\n",
      g.central_epsilon(), g.delta(),
      static_cast<unsigned long long>(g.num_batches()),
      static_cast<unsigned long long>(g.smallest_batch()), g.local_epsilon());
}

void PrintWorkload(const std::string& id, const v1::WorkloadEstimate& w,
                   int rows) {
  const int m = w.answers_size();
  std::printf("%s: %s, %d answers, n=%lld, eps=%.4g, strategy %s\n", id.c_str(),
              w.workload().c_str(), m, static_cast<long long>(w.num_reports()),
              w.implemented_epsilon(), w.strategy().c_str());
  std::printf(
      "  simultaneous %g%% band (all answers at once): answer +- %.3g se; "
      "predicted per-user variance v_max %.4g, v_avg %.4g%s\n",
      w.confidence() * 100, w.band_z(), w.predicted_v_max(),
      w.predicted_v_avg(),
      w.consistent_answers_size() > 0 ? "; last column: consistent" : "");
  if (!w.best_fixed_strategy().empty()) {
    std::printf("  best fixed strategy: %s, v_max %.4g\n",
                w.best_fixed_strategy().c_str(), w.best_fixed_v_max());
  }
  if (w.gamma2_upper() > 0) {
    std::printf("  %s\n",
                Gamma2IntervalText(w.gamma2_lower(), w.gamma2_upper()).c_str());
  }
  if (rows <= 0 || m <= rows) {
    for (int j = 0; j < m; ++j) PrintWorkloadRow(w, j);
    return;
  }
  const int head = (rows + 1) / 2;
  const int tail = rows - head;
  for (int j = 0; j < head; ++j) PrintWorkloadRow(w, j);
  std::printf(
      "  ... %d more answers (--workload_rows=0 or --json prints all) ...\n",
      m - head - tail);
  for (int j = m - tail; j < m; ++j) PrintWorkloadRow(w, j);
}

}  // namespace ldp
