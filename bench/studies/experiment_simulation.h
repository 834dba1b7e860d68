// What the analyst-program experiments share around the in-process
// simulator: a seeded hash for populations computed on demand, and a
// simulated study timed by the wall clock.
#ifndef LDP_BENCH_STUDIES_EXPERIMENT_SIMULATION_H_
#define LDP_BENCH_STUDIES_EXPERIMENT_SIMULATION_H_

#include <cstdint>

#include "absl/random/bit_gen_ref.h"
#include "absl/status/statusor.h"
#include "common/tasks/study_spec.h"
#include "planning/program_simulator.h"

namespace ldp {

// SplitMix64 (Steele, Lea, Flood 2014): a pure function of x, so agent i's
// record can be drawn from (seed, i) without storing a population. Never
// privacy noise.
uint64_t SplitMix64(uint64_t x);

struct TimedSimulation {
  absl::StatusOr<SimulationResult> run;
  double seconds = 0;  // wall clock, whether or not the run succeeded
};

// SimulateStudy, timed.
TimedSimulation SimulateTimed(const StudySpec& study, int64_t num_agents,
                              const RecordSource& records,
                              absl::BitGenRef coins);

}  // namespace ldp

#endif  // LDP_BENCH_STUDIES_EXPERIMENT_SIMULATION_H_
