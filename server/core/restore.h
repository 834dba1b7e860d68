// Restart: rebuilds the aggregator's memory from the store, and turns
// stored rows back into running studies, rounds and counted reports.
//
// Why a class of its own: estimates after a restart must be exactly those
// before it, so every stored report is decoded and accumulated again
// (stored reports are already privatized, so keeping them is safe), and
// work a crash interrupted (a quorum not yet closed, a program round whose
// successor was never planned) is finished. The same row conversions serve
// the store follower, which reads what other servers stored.
#ifndef LDP_SERVER_CORE_RESTORE_H_
#define LDP_SERVER_CORE_RESTORE_H_

#include <cstdint>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/core/agent_registry.h"
#include "server/core/aggregator_context.h"
#include "server/core/program_driver.h"
#include "server/core/round_lifecycle.h"
#include "server/core/study_registry.h"

namespace ldp {

class StoreFollower;

// Load runs once, before any call; the row conversions are thread-safe.
class Restorer {
 public:
  // Everything passed outlives this.
  Restorer(const AggregatorContext& context, AgentRegistry& agents,
           StudyRegistry& studies, const ProgramDriver& programs,
           RoundLifecycle& rounds)
      : context_(context),
        agents_(agents),
        studies_(studies),
        programs_(programs),
        rounds_(rounds) {}
  Restorer(const Restorer&) = delete;
  Restorer& operator=(const Restorer&) = delete;

  // Everything the store holds: agents, studies, rounds, ledger summaries
  // and reports. With a shared store the reports are read by `follower`,
  // as the first step of following the store. DATA_LOSS for stored state
  // that cannot be reloaded; the store's error if it cannot be read.
  absl::Status Load(StoreFollower& follower);

  // A stored study or round as it runs (at load, and when following).
  absl::StatusOr<std::shared_ptr<StudyRuntime>> StudyFromRow(
      StudyRow row) const;
  absl::StatusOr<std::shared_ptr<RoundRuntime>> RoundFromRow(
      const StudyRuntime& study, const RoundRow& row) const;
  // Counts a report read from the store unless counted already; false when
  // its round or question is not known here (yet). `cache` holds the last
  // round looked up.
  absl::StatusOr<bool> CountStoredReport(const ReportRow& row,
                                         RoundEntry& cache) const;

 private:
  using StudyMap = absl::flat_hash_map<uint64_t, std::shared_ptr<StudyRuntime>>;

  // Every stored study with its rounds, not registered yet; continues the
  // registry's ids after the stored ones.
  absl::StatusOr<StudyMap> LoadStudies() const;
  // Adds every stored round to its study; returns the largest round id.
  absl::StatusOr<uint64_t> LoadRounds(const StudyMap& studies) const;
  absl::Status LoadLedgerSummaries(const StudyMap& studies) const;
  absl::Status LoadReports(StoreFollower& follower) const;
  // Shuffled batches: their reports and each question's batch sizes.
  absl::Status LoadShuffledReports() const;
  // What a crash may have interrupted: closes rounds that reached quorum,
  // and closes again a program round whose successor was never planned.
  void FinishInterruptedWork(const StudyMap& studies) const;

  const AggregatorContext& context_;
  AgentRegistry& agents_;
  StudyRegistry& studies_;
  const ProgramDriver& programs_;
  RoundLifecycle& rounds_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_RESTORE_H_
