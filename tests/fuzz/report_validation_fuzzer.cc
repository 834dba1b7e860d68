// libFuzzer target: an agent's report as it reaches the server.
//
// Bytes are parsed as a wire ldp.v1.Report (ReportFromProto, then
// TaskMechanism::Validate against one task per oracle, mechanism and
// workload strategy) and as
// a stored payload (server/storage_codec DecodePayload, which a restart
// feeds from the database, and server/legacy_codec's reader of the old
// format, which the schema migration feeds). Properties: nothing crashes; a
// payload a task accepts is counted by its accumulator, whose estimate stays
// finite; the stored encoding is canonical (decode then encode gives the
// same bytes); a legacy payload upgrades to bytes that decode to it; the
// wire form round-trips.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/task_estimation/task_accumulator.h"
#include "common/tasks/task_mechanism.h"
#include "proto/convert/report_convert.h"
#include "server/store/legacy_codec.h"
#include "server/store/storage_codec.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

void CheckFinite(const TaskAccumulator& accumulator) {
  const TaskEstimate estimate = accumulator.Estimate(0.95);
  if (const auto* scalar = std::get_if<ScalarEstimate>(&estimate)) {
    Check(std::isfinite(scalar->value), "scalar estimate not finite");
    return;
  }
  if (std::holds_alternative<WorkloadAnswer>(estimate)) {
    // The fixtures attach no workload: check the strategy's ŷ ≈ A·h.
    for (double y : accumulator.StrategyEstimate()) {
      Check(std::isfinite(y), "strategy estimate not finite");
    }
    return;
  }
  for (double f : std::get<HistogramEstimate>(estimate).frequencies) {
    Check(std::isfinite(f), "histogram frequency not finite");
  }
}

void ValidateEverywhere(const ReportPayload& payload) {
  for (size_t i = 0; i < Mechanisms().size(); ++i) {
    const auto& mechanism = Mechanisms()[i];
    const absl::Status valid = mechanism->Validate(payload);
    TaskAccumulator accumulator(mechanism, Estimation(i));
    const absl::Status added = accumulator.Add(payload);
    Check(valid.ok() == added.ok(), "Validate and Add disagree");
    Check(accumulator.num_reports() == (added.ok() ? 1 : 0),
          "a rejected payload was counted");
    if (added.ok()) CheckFinite(accumulator);
  }
}

void FuzzWireReport(const uint8_t* data, size_t size) {
  v1::Report proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return;
  absl::StatusOr<TaskReport> report = ReportFromProto(proto);
  if (!report.ok()) return;
  ValidateEverywhere(report->payload);
  v1::Report again;
  ReportToProto(*report, proto.agent_id(), &again);
  absl::StatusOr<TaskReport> reread = ReportFromProto(again);
  Check(reread.ok() && reread->payload == report->payload &&
            reread->report_id == report->report_id,
        "wire report does not round-trip");
}

void FuzzStoredPayload(std::string_view bytes) {
  absl::StatusOr<ReportPayload> payload = DecodePayload(bytes);
  if (absl::StatusOr<ReportPayload> legacy = DecodeLegacyPayload(bytes);
      legacy.ok()) {
    Check(!payload.ok(), "payload bytes read as both formats");
    const std::optional<std::string> upgraded = UpgradeLegacyPayload(bytes);
    Check(upgraded.has_value(), "legacy payload does not upgrade");
    payload = DecodePayload(*upgraded);
    Check(payload.ok() && *payload == *legacy,
          "upgraded legacy payload does not decode to itself");
    ValidateEverywhere(*payload);
    return;
  }
  if (!payload.ok()) return;
  Check(EncodePayload(*payload) == bytes,
        "stored payload encoding not canonical");
  ValidateEverywhere(*payload);
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ldp::fuzz::FuzzWireReport(data, size);
  ldp::fuzz::FuzzStoredPayload(
      std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
