// Internal: what stands behind the Aggregator facade (aggregator.h).
//
// Impl owns the store, the writer queue and one collaborator per job, and
// wires them together; it keeps for itself only the analysts' study calls
// (create, read, list, advance, estimates), which read across all of them.
// Each collaborator has its own header:
//   AgentRegistry   enrollment, quotas, agent ids, authentication
//   StudyRegistry   the studies and rounds known here, and their ids
//   ProgramDriver   interactive studies' analyst programs
//   RoundLifecycle  closing rounds durably (quorum, deadline, StartRound)
//   ReportIngest    task assignment and report admission
//   Restorer        reloading the store at start
//   StoreFollower   reading what other servers wrote to a shared store
#ifndef LDP_SERVER_CORE_AGGREGATOR_IMPL_H_
#define LDP_SERVER_CORE_AGGREGATOR_IMPL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/crypto/secure_random.h"
#include "server/commit/commit_queue.h"
#include "server/core/agent_registry.h"
#include "server/core/aggregator.h"
#include "server/core/aggregator_context.h"
#include "server/core/credential.h"
#include "server/core/program_driver.h"
#include "server/core/report_ingest.h"
#include "server/core/restore.h"
#include "server/core/round_lifecycle.h"
#include "server/core/shuffled_ingest.h"
#include "server/core/store_follower.h"
#include "server/core/study_registry.h"
#include "server/telemetry/server_stats.h"

namespace ldp {

class Aggregator::Impl {
 public:
  Impl(const AggregatorOptions& options, std::unique_ptr<Store> store,
       std::unique_ptr<SecureRandom> random);
  // Stops following the store, then commits every queued write while
  // everything the jobs touch is alive.
  ~Impl();

  // Reloads the store, then (shared stores) starts following it.
  absl::Status Start();

  // The analysts' study calls (aggregator.cc); contracts in aggregator.h.
  absl::Status AuthenticateAnalyst(std::string_view token) const;
  absl::StatusOr<StudyInfo> CreateStudy(StudySpec spec, std::string request_id);
  absl::StatusOr<StudyInfo> GetStudy(uint64_t study_id);
  StudyPage ListStudies(int page_size, uint64_t page_start);
  absl::StatusOr<RoundEstimates> GetEstimates(uint64_t study_id,
                                              uint64_t round_id);
  absl::StatusOr<RoundInfo> AdvanceStudy(uint64_t study_id);
  AggregatorStats Stats() const;

  const AggregatorContext& context() const { return context_; }
  const CommitLanes& lanes() const { return *lanes_; }
  AgentRegistry& agents() { return agents_; }
  StudyRegistry& studies() { return studies_; }
  RoundLifecycle& rounds() { return lifecycle_; }
  ReportIngest& ingest() { return ingest_; }
  ShuffledIngest& shuffled() { return shuffled_; }

 private:
  // A new study with its first round, not stored or registered yet.
  absl::StatusOr<std::shared_ptr<StudyRuntime>> NewStudy(
      StudySpec spec, std::string request_id);
  // The first round of a new study (its program's, for interactive ones).
  absl::StatusOr<RoundPlan> FirstRound(StudyRuntime& study);

  const AggregatorOptions options_;
  const CredentialHash analyst_hash_;
  std::unique_ptr<Store> store_;
  ServerStats stats_;
  // Stopped by ~Impl before any member is destroyed.
  std::unique_ptr<CommitLanes> lanes_;
  AggregatorContext context_;

  AgentRegistry agents_;
  StudyRegistry studies_;
  ProgramDriver programs_;
  RoundLifecycle lifecycle_;
  ReportIngest ingest_;
  ShuffledIngest shuffled_;
  Restorer restorer_;
  StoreFollower follower_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGGREGATOR_IMPL_H_
