// SplitMix64 and the timed simulation; see the header.
#include "bench/studies/experiment_simulation.h"

#include <chrono>
#include <utility>

namespace ldp {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

TimedSimulation SimulateTimed(const StudySpec& study, int64_t num_agents,
                              const RecordSource& records,
                              absl::BitGenRef coins) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<SimulationResult> run =
      SimulateStudy(study, num_agents, records, coins);
  return {.run = std::move(run),
          .seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count()};
}

}  // namespace ldp
