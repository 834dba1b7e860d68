// The agent's two calls after enrollment: which tasks it is asked
// (GetTasks), and admission of the reports it sends (upload jobs).
//
// Why a class of its own: this is the hot path, and its split by what
// needs ordering is the design's core (see report_ingest.cc). Everything
// that reads only immutable state runs on the calling thread, in
// parallel; what must be serialized runs in the writer thread's
// transaction; accumulating runs after the commit, so an estimate never
// includes a report that is not durable.
#ifndef LDP_SERVER_CORE_REPORT_INGEST_H_
#define LDP_SERVER_CORE_REPORT_INGEST_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "server/core/agent_registry.h"
#include "server/core/aggregator_context.h"
#include "server/core/aggregator_types.h"
#include "server/core/lane_batch.h"
#include "server/core/round_lifecycle.h"
#include "server/core/study_registry.h"

namespace ldp {

struct PendingReport;

// Thread-safe. The contract of each call is Aggregator's (aggregator.h).
class ReportIngest {
 public:
  // Everything passed outlives this.
  // Each commit lane sums its transactions' reports in a LaneBatch of
  // this object's: the lanes must stop before it is destroyed.
  ReportIngest(const AggregatorContext& context, const StudyRegistry& studies,
               const AgentRegistry& agents, RoundLifecycle& rounds);
  ReportIngest(const ReportIngest&) = delete;
  ReportIngest& operator=(const ReportIngest&) = delete;

  // A round of an active study that takes reports: what a task poll walks.
  struct OpenRound {
    std::shared_ptr<StudyRuntime> study;
    std::shared_ptr<RoundRuntime> round;
  };
  // The rounds open at `now`, oldest study first. A relay's batch of polls
  // walks one such view rather than every study's rounds per agent.
  std::vector<OpenRound> OpenRoundsAt(absl::Time now) const;

  absl::StatusOr<std::vector<TaskAssignment>> GetTasks(uint64_t agent_id,
                                                       int max_tasks) const;
  // The same against `open` (from OpenRoundsAt).
  absl::StatusOr<std::vector<TaskAssignment>> GetTasks(
      uint64_t agent_id, int max_tasks, absl::Span<const OpenRound> open) const;
  // Every report from `agent_id`.
  void UploadAsync(uint64_t agent_id, std::vector<TaskReport> reports,
                   absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);
  // Each report from its own agent (a relay's batch: one group commit).
  void UploadAsync(std::vector<AgentReport> reports,
                   absl::AnyInvocable<void(std::vector<absl::Status>) &&> done);

 private:
  friend class UploadJob;

  // Admission checks of one report on the request thread: the task is the
  // agent's and its round open. Refreshes `cache` with the task's round.
  absl::StatusOr<RoundEntry> AdmitTask(uint64_t agent_id, uint64_t task_id,
                                       RoundEntry& cache) const;
  // AdmitTask, then the payload's validity and the ledger charge; OK means
  // the report was added to `pending`.
  absl::Status AdmitReport(uint64_t agent_id, TaskReport report, absl::Time now,
                           RoundEntry& cache,
                           std::vector<PendingReport>& pending) const;
  // The admitted reports, one list per shard lane that has any (one list,
  // maybe empty, when none has).
  std::vector<std::vector<PendingReport>> SplitByShard(
      std::vector<PendingReport> pending) const;

  const AggregatorContext& context_;
  const StudyRegistry& studies_;
  const AgentRegistry& agents_;
  RoundLifecycle& rounds_;
  // One per commit lane, by shard.
  std::vector<std::unique_ptr<LaneBatch>> lane_batches_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_REPORT_INGEST_H_
