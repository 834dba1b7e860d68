// libFuzzer target: what a restarting server decodes from its database to
// rebuild estimators.
//
// The same bytes are read two ways. As a stored round plan
// (server/storage_codec DecodePlan): canonical (decode then encode gives the
// same bytes) and, if it decodes, restored against a fixed study
// (RoundPlan::Restore), which must refuse or give a usable plan; bytes of
// the legacy format (server/legacy_codec, read by the schema migration)
// must upgrade to a plan that decodes, and go the same way. As a run of
// stored payloads (each a 1-byte length and that many bytes, decoded by
// DecodePayload): every payload goes to an accumulator of every fixed task
// (one per oracle and real mechanism), which must reject what is invalid,
// count what is valid, and keep its estimate and variances finite (and ≥ 0).
// The one exception is documented: RAPPOR's whole-domain decode reports +∞
// variances (and zero frequencies) when the cohorts that have reports cannot
// tell the items apart (one report in one cohort can do that: 64 items' two-
// bit filters in 128 bits may form an even cycle), never NaN or a negative.
// The fixed tasks include one per workload strategy, so stored workload
// payloads reach the strategies' validation and accumulators.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "planning/planner.h"
#include "server/store/legacy_codec.h"
#include "server/store/storage_codec.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

void FuzzPlan(std::string_view bytes) {
  absl::StatusOr<PlanDecisions> decisions = DecodePlan(bytes);
  const std::optional<std::string> upgraded = UpgradeLegacyPlan(bytes);
  if (upgraded.has_value()) {
    // The legacy forms (versions 1 and 2, strategy tag 2) are never the
    // current one, and the migration writes what the current codec reads.
    Check(!decisions.ok(), "plan bytes read as both formats");
    decisions = DecodePlan(*upgraded);
    Check(decisions.ok(), "upgraded legacy plan does not decode");
    bytes = *upgraded;
  }
  if (!decisions.ok()) return;
  Check(EncodePlan(*decisions) == bytes, "stored plan encoding not canonical");
  absl::StatusOr<RoundPlan> plan = RoundPlan::Restore(Study(), *decisions);
  if (!plan.ok()) return;
  const int n = static_cast<int>(plan->questions().size());
  Check(n == static_cast<int>(Study().questions.size()),
        "restored plan lost questions");
  for (int q = 0; q < n; ++q) {
    const double share = plan->Share(q);
    Check(std::isfinite(share) && share >= 0 && share <= 1,
          "share outside [0, 1]");
  }
  for (uint64_t agent = 1; agent <= 64; ++agent) {
    if (!plan->AsksAgent(agent)) continue;
    if (plan->strategy() == SplitStrategy::kSampleSplitting) {
      const int q = plan->SampleQuestion(agent);
      Check(q >= 0 && q < n, "agent sampled into no question");
    }
  }
}

// True for an oracle whose estimate may honestly be "unidentified" (+∞).
bool MayBeUnidentified(const TaskMechanism& mechanism) {
  return mechanism.oracle() != nullptr &&
         mechanism.oracle()->kind() == FrequencyOracleKind::kRappor;
}

void CheckHistogram(const HistogramEstimate& histogram,
                    bool may_be_unidentified) {
  Check(histogram.frequencies.size() == histogram.variances.size(),
        "histogram frequencies and variances differ in length");
  for (size_t v = 0; v < histogram.frequencies.size(); ++v) {
    const double f = histogram.frequencies[v];
    const double variance = histogram.variances[v];
    Check(std::isfinite(f), "histogram frequency not finite");
    Check(!std::isnan(variance) && variance >= 0,
          "histogram variance NaN or negative");
    if (std::isfinite(variance)) continue;
    Check(may_be_unidentified, "histogram variance not finite");
    Check(f == 0, "an unidentified item has a nonzero frequency");
  }
}

void CheckEstimate(const TaskAccumulator& accumulator,
                   bool may_be_unidentified) {
  const TaskEstimate estimate = accumulator.Estimate(0.95);
  if (const auto* scalar = std::get_if<ScalarEstimate>(&estimate)) {
    Check(std::isfinite(scalar->value), "scalar estimate not finite");
    Check(std::isfinite(scalar->standard_error),
          "scalar standard error not finite");
    return;
  }
  if (std::holds_alternative<WorkloadAnswer>(estimate)) {
    // The fixtures attach no workload: check the strategy's ŷ ≈ A·h.
    for (double y : accumulator.StrategyEstimate()) {
      Check(std::isfinite(y), "strategy estimate not finite");
    }
    return;
  }
  CheckHistogram(std::get<HistogramEstimate>(estimate), may_be_unidentified);
}

void FuzzPayloads(std::string_view bytes) {
  std::vector<ReportPayload> payloads;
  while (!bytes.empty()) {
    const size_t length =
        std::min<size_t>(static_cast<uint8_t>(bytes[0]), bytes.size() - 1);
    absl::StatusOr<ReportPayload> payload =
        DecodePayload(bytes.substr(1, length));
    bytes.remove_prefix(1 + length);
    if (payload.ok()) payloads.push_back(*std::move(payload));
  }
  if (payloads.empty()) return;  // accumulators are costly to build: skip
  std::vector<TaskAccumulator> accumulators;
  for (size_t i = 0; i < Mechanisms().size(); ++i) {
    accumulators.emplace_back(Mechanisms()[i], Estimation(i));
  }
  std::vector<int64_t> accepted(accumulators.size(), 0);
  for (const ReportPayload& payload : payloads) {
    for (size_t i = 0; i < accumulators.size(); ++i) {
      if (accumulators[i].Add(payload).ok()) ++accepted[i];
    }
  }
  for (size_t i = 0; i < accumulators.size(); ++i) {
    Check(accumulators[i].num_reports() == accepted[i], "report count drifted");
    if (accepted[i] > 0) {
      CheckEstimate(accumulators[i], MayBeUnidentified(*Mechanisms()[i]));
    }
  }
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ldp::fuzz::FuzzPlan(bytes);
  ldp::fuzz::FuzzPayloads(bytes);
  return 0;
}
