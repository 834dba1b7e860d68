// The study ldp-loadtest asks its simulated agents: a histogram of `item`
// and the mean of `value` (population_source.h), or with --workload one
// workload question over `item` (marginals and parities read the item's
// bits as bool fields). A unit of its own because both the study's spec
// and every simulated agent's record follow from the same choice.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_STUDY_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_STUDY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "common/tasks/task.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_spec.h"
#include "tools/analyst_client/analyst_client.h"
#include "tools/loadtest/loadtest_rappor.h"
#include "tools/loadtest_core/population_source.h"

namespace ldp {

inline constexpr char kLoadtestHistogramId[] = "item_histogram";
inline constexpr char kLoadtestMeanId[] = "mean_value";
inline constexpr char kLoadtestWorkloadId[] = "workload";

// The run's study and agents, from ldp-loadtest's flags.
struct LoadtestConfig {
  std::string analyst_token{};
  std::string enrollment_token{};
  int64_t epsilon_nanos = 0;
  double confidence = 0.95;
  absl::Duration round_duration = absl::Hours(1);
  // The study's quorum: its round closes once every question has this many
  // reports (0: at its deadline only).
  int64_t quorum = 0;
  // --workload: its name, the workload asked (sized), its strategy choice,
  // and for bit workloads the number of bool fields the item is split into.
  std::string workload_name{};
  std::optional<WorkloadSpec> workload{};
  std::optional<StrategyChoice> strategy{};
  uint32_t num_bits = 0;
  // --shuffler: the study is shuffled, --epsilon its central target, and
  // epsilon_nanos the cap from which the planner takes ε0.
  std::optional<ShuffleSpec> shuffle{};
  // --rappor_candidates: one RAPPOR question over the agents' strings.
  std::optional<RapporRun> rappor{};
};

// --strategy: a fixed strategy kind by name; nullopt (the server's planner
// chooses) for an empty name.
absl::StatusOr<std::optional<StrategyChoice>> ParseStrategy(
    const std::string& name);

// Sets config's workload from --workload `name` (nothing if empty), sized
// for a domain of `n` items, with --workload_order `order` and --strategy.
absl::Status SetWorkload(const std::string& name, uint32_t n, int order,
                         const std::string& strategy, LoadtestConfig& config);

// Bit workloads read the item as num_bits bool fields bit0.., the first
// field its most significant bit (the product encoding's order).
RecordSchema BitSchema(uint32_t num_bits);
Record BitRecord(uint32_t item, uint32_t num_bits);

// The cap of a shuffled load-test study, and of its simulated agents: the
// planner runs every question at the largest ε0 that meets the target at
// min_batch, at most this.
inline constexpr int64_t kShuffledStudyCapNanos = 10 * kNanosPerEpsilon;

// The noninteractive study of this run.
absl::StatusOr<StudySpec> MakeStudySpec(const PopulationSource& population,
                                        const LoadtestConfig& config);

// Creates it through `analyst`; returns its id.
absl::StatusOr<uint64_t> CreateStudy(const AnalystClient& analyst,
                                     const StudySpec& spec);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_STUDY_H_
