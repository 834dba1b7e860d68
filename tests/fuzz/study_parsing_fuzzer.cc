// libFuzzer target: a study file as an analyst submits it (CreateStudy, or
// `ldp study create file.textproto`).
//
// Bytes are parsed both as protobuf text format and as binary
// ldp.v1.StudySpec, converted (StudySpecFromProto), and planned the way the
// aggregator plans a new study: RoundPlan::Create for a noninteractive
// study; for an interactive one, the analyst program is created from its
// name and parameters, its schedule checked against the ε cap, and its
// first round planned (RoundPlan::CreateForProgram). Properties: nothing
// crashes; a converted spec survives its stored form (StudySpecToBytes);
// every planned task charges > 0 and within the study's cap.
//
// Workload questions are planned with the structured strategies only, and
// only up to N = kMaxPlannedWorkloadDomain: planning is cubic in N and the
// optimizers run for minutes by design (a documented cost of CreateStudy,
// bounded by StrategyPlannerOptions::optimizer_time_limit), which would
// read as a timeout here rather than as a finding. At N = 64 the scoring of
// the structured candidates took three quarters of the fuzzer's time; every
// strategy and its variance code is already reached at N = 16, where the
// unit tests cover the larger domains.
#include <cstddef>
#include <cstdint>
#include <string>

#include "google/protobuf/text_format.h"
#include "planning/planner.h"
#include "planning/programs/program_registry.h"
#include "planning/programs/program_schedule.h"
#include "proto/convert/study_convert.h"
#include "tests/fuzz/fuzz_fixtures.h"

namespace ldp::fuzz {
namespace {

constexpr uint32_t kMaxPlannedWorkloadDomain = 16;

// Whether the study's workloads are small enough to plan within the
// fuzzer's per-input time limit.
bool WorkloadsArePlannable(const StudySpec& spec) {
  for (const Question& q : spec.questions) {
    const auto* w = std::get_if<WorkloadQuestion>(&q.kind);
    if (w != nullptr && w->encoding.domain_size() > kMaxPlannedWorkloadDomain) {
      return false;
    }
  }
  return true;
}

StrategyPlannerOptions StructuredOnly() {
  return {.include_optimized_matrix = false, .include_factorization = false};
}

void CheckCharges(const RoundPlan& plan, int64_t cap_nanos) {
  for (const PlannedQuestion& q : plan.questions()) {
    Check(q.task != nullptr && q.mechanism != nullptr,
          "planned question incomplete");
    Check(q.task->epsilon_nanos > 0 && q.task->epsilon_nanos <= cap_nanos,
          "planned task charges outside (0, cap]");
  }
}

void PlanProgram(const StudySpec& spec) {
  absl::StatusOr<std::unique_ptr<AnalystProgram>> program =
      CreateAnalystProgram(*spec.program,
                           {.schema = spec.schema,
                            .epsilon_cap_nanos = spec.epsilon_cap_nanos,
                            .confidence = spec.confidence});
  if (!program.ok()) return;
  const std::vector<ScheduledRound> schedule = (*program)->Schedule();
  if (!CheckSchedule(schedule, spec.epsilon_cap_nanos).ok()) return;
  absl::StatusOr<ProgramStep> step = (*program)->Next({});
  if (!step.ok() || !step->round.has_value() || schedule.empty()) return;
  absl::StatusOr<RoundPlan> plan =
      RoundPlan::CreateForProgram(spec, *step->round, schedule[0]);
  if (plan.ok()) CheckCharges(*plan, spec.epsilon_cap_nanos);
}

void FuzzStudy(const v1::StudySpec& proto) {
  absl::StatusOr<StudySpec> spec = StudySpecFromProto(proto);
  if (!spec.ok()) return;
  Check(StudySpecFromBytes(StudySpecToBytes(*spec)).ok(),
        "a valid study does not survive its stored form");
  if (spec->mode == StudyMode::kInteractive) {
    if (spec->program.has_value() && spec->questions.empty())
      PlanProgram(*spec);
    return;
  }
  if (spec->program.has_value()) return;  // the aggregator refuses this
  if (!WorkloadsArePlannable(*spec)) return;
  absl::StatusOr<RoundPlan> plan = RoundPlan::Create(*spec, StructuredOnly());
  if (plan.ok()) CheckCharges(*plan, spec->epsilon_cap_nanos);
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ldp::v1::StudySpec proto;
  google::protobuf::TextFormat::Parser parser;
  parser.AllowPartialMessage(false);
  if (parser.ParseFromString(bytes, &proto)) ldp::fuzz::FuzzStudy(proto);
  proto.Clear();
  if (proto.ParseFromString(bytes)) ldp::fuzz::FuzzStudy(proto);
  return 0;
}
