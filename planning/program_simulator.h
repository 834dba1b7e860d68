// Runs an analyst program against a population simulated in process.
//
// Why: an experiment such as MASKED-PARITY at n = 10^6 agents, 20 seeds and
// six dimensions needs hundreds of millions of reports; through gRPC that
// is hours, in process it is minutes. The simulation uses the same pieces
// as the real server — the program's schedule check, RoundPlan (which agent
// answers which question, by id), TaskMechanism (each agent's randomizer on
// its own record) and TaskAccumulator with AddSamplingVariance (estimates) —
// and keeps a ledger of every agent's spend that refuses any charge over the
// cap, as the store does. Left out: the network, durability and the
// agent-side task checks (tested with the client library).
#ifndef LDP_PLANNING_PROGRAM_SIMULATOR_H_
#define LDP_PLANNING_PROGRAM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/queries/record_schema.h"
#include "common/tasks/study_spec.h"
#include "planning/programs/analyst_program.h"

namespace ldp {

// The record of agent `agent_id` (1-based). Called once for every round that
// asks the agent; must return the same record every time.
using RecordSource = std::function<Record(uint64_t agent_id)>;

struct SimulatedRound {
  std::string name{};
  std::vector<std::string> question_ids{};
  std::vector<int64_t> num_reports{};  // per question
  RoundAnswers answers{};
  // What the program reported when it asked for this round.
  ProgramResult result_before{};
};

struct SimulationResult {
  std::vector<SimulatedRound> rounds{};
  ProgramResult result{};  // final
  // From the simulated ledger: the largest spend of any agent, and how many
  // agents were asked at least once.
  int64_t max_spent_nanos = 0;
  int64_t num_agents_charged = 0;
  // Charges the ledger refused because they would pass the cap (0 for any
  // program whose schedule passed CheckSchedule).
  int64_t refused_over_cap = 0;
};

// Runs `program` for a study with `study`'s schema, cap and confidence over
// agents 1 … num_agents, drawing every randomizer coin from `gen`.
// InvalidArgument if the schedule does not fit the cap or a round strays
// from it; the program's own errors pass through.
absl::StatusOr<SimulationResult> SimulateProgram(const AnalystProgram& program,
                                                 const StudySpec& study,
                                                 int64_t num_agents,
                                                 const RecordSource& records,
                                                 absl::BitGenRef gen);

// As above, creating the program named by `study.program`.
absl::StatusOr<SimulationResult> SimulateStudy(const StudySpec& study,
                                               int64_t num_agents,
                                               const RecordSource& records,
                                               absl::BitGenRef gen);

}  // namespace ldp

#endif  // LDP_PLANNING_PROGRAM_SIMULATOR_H_
