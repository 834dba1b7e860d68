// Who may report: enrollment under quotas, agent ids, and authentication
// of every agent call.
//
// Why a class of its own: enrollment is the one path where a leaked token
// could mint agents without bound, so its quota bookkeeping (reserved
// before writing, given back on failure or for a retry, raised by what a
// shared database counted) must be readable and testable apart from
// ingestion. The agents' credential hashes live in an AgentDirectory, read
// without a lock. A call with a request id is safe to retry
// (credential.h): its EnrollJob finds what a first attempt stored.
#ifndef LDP_SERVER_CORE_AGENT_REGISTRY_H_
#define LDP_SERVER_CORE_AGENT_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/crypto/secure_random.h"
#include "server/core/agent_directory.h"
#include "server/core/aggregator_context.h"
#include "server/core/aggregator_types.h"
#include "server/core/enroll_job.h"

namespace ldp {

// An enrollment token's key in AgentRegistry's quotas and in
// AgentRow::enrollment_batch: its SHA-256, so the store never holds a token.
std::string EnrollmentBatchKey(std::string_view token);

// Thread-safe. The contract of each call is Aggregator's (aggregator.h).
class AgentRegistry {
 public:
  // `context` outlives this; `random` issues the credentials' secrets.
  AgentRegistry(const AggregatorContext& context,
                std::unique_ptr<SecureRandom> random);
  AgentRegistry(const AgentRegistry&) = delete;
  AgentRegistry& operator=(const AgentRegistry&) = delete;

  // At start: every stored agent, each configured token's count of them,
  // and agent ids after the largest stored one.
  absl::Status LoadFromStore();

  void EnrollAsync(
      std::string_view enrollment_token, const EnrollRetry& retry,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done);
  void EnrollManyAsync(
      std::string_view enrollment_token, int count, const EnrollRetry& retry,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done);
  // Without a request id: not safe to retry.
  void EnrollAsync(
      std::string_view enrollment_token,
      absl::AnyInvocable<void(absl::StatusOr<Enrollment>) &&> done) {
    EnrollAsync(enrollment_token, {}, std::move(done));
  }
  void EnrollManyAsync(
      std::string_view enrollment_token, int count,
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>
          done) {
    EnrollManyAsync(enrollment_token, count, {}, std::move(done));
  }
  absl::StatusOr<uint64_t> Authenticate(std::string_view bearer_token);

  // Enrolled here (no store lookup; for every task poll).
  bool Contains(uint64_t agent_id) const {
    return directory_.Contains(agent_id);
  }
  // Whether the agent is enrolled: in memory, or (shared stores) enrolled
  // by another server, then remembered. UNAVAILABLE if the database fails.
  absl::StatusOr<bool> Knows(uint64_t agent_id);
  // The agent's ledger (only `study_id`'s if non-zero); NOT_FOUND for an
  // agent never enrolled.
  absl::StatusOr<std::vector<LedgerEntry>> GetBudget(uint64_t agent_id,
                                                     uint64_t study_id);
  // Agents known here (metrics).
  int64_t size() const { return directory_.size(); }

 private:
  friend class EnrollJob;

  // An accepted token's quota, keyed by EnrollmentBatchKey. `enrolled`
  // counts agents stored plus in flight. With a shared store it is only
  // this server's lower bound of the batch's agents (those stored at load,
  // its own since, and any count the database answered); the database
  // counts and decides (see ReserveEnrollment).
  struct EnrollmentBatch {
    int64_t max_agents = 0;  // 0 = no quota
    int64_t enrolled = 0;
  };

  // Takes `count` slots in the token's quota; sets `batch` and returns the
  // token's max_agents (0: no quota, or open enrollment). UNAUTHENTICATED
  // for a wrong token, RESOURCE_EXHAUSTED when the slots are not there
  // (logged unless `quiet_over_quota`: a retry may still be answered).
  absl::StatusOr<int64_t> ReserveEnrollment(std::string_view enrollment_token,
                                            int count, std::string& batch,
                                            bool quiet_over_quota);
  // Gives back `count` slots reserved in `batch` for agents that were not
  // stored after all.
  void ReleaseEnrollment(const std::string& batch, int64_t count);
  // A shared store counted `stored` agents in `batch` (every server's):
  // raises this server's count to it, so its early refusals see them too.
  void NoteStoredEnrollments(const std::string& batch, int64_t stored);
  // `count` fresh agent ids, the first returned: from memory, from the
  // shared store in blocks, or from a sharded store on `placement`'s shard.
  absl::StatusOr<uint64_t> NextAgentIds(int64_t count,
                                        std::optional<uint64_t> placement);
  // Where a sharded store keeps an enrollment's agents: a token whose
  // quota the store counts keeps all its agents on one shard (so that one
  // row counts them), a named request on its digest's shard (so that a
  // retry finds its first attempt there), anything else where the store
  // picks.
  static std::optional<uint64_t> Placement(
      const std::string& batch, int64_t max_agents,
      const std::optional<EnrollJob::Retry>& retry);
  // `count` credentials for agents first_id.., as rows of `batch`: drawn,
  // or those `derived` from a request id.
  std::vector<AgentRow> IssueCredentials(uint64_t first_id, int count,
                                         const std::string& batch,
                                         const DerivedEnrollment* derived,
                                         std::vector<std::string>& tokens);
  // The agent ids and rows of a call that passed the quota, submitted.
  void SubmitNew(int count, std::string batch, int64_t max_agents,
                 std::optional<EnrollJob::Retry> retry, EnrollJob::Done done);
  // Into shard `shard`'s lane (CommitLanes).
  void Submit(std::unique_ptr<EnrollJob> job, int shard);

  const AggregatorContext& context_;
  // Neither a single token nor quotas are configured: anyone may enroll.
  const bool open_enrollment_;
  AgentDirectory directory_;

  // Looking a token up by its hash leaks nothing useful through timing:
  // the attacker does not control the hash. Empty = open enrollment.
  absl::Mutex enrollment_mutex_;
  absl::flat_hash_map<std::string, EnrollmentBatch> enrollment_batches_
      ABSL_GUARDED_BY(enrollment_mutex_);

  absl::Mutex random_mutex_;
  std::unique_ptr<SecureRandom> random_ ABSL_GUARDED_BY(random_mutex_);

  std::atomic<uint64_t> next_agent_id_{1};
  // Agent ids reserved from a shared store and not yet used: [next, end).
  absl::Mutex id_block_mutex_;
  uint64_t agent_block_next_ ABSL_GUARDED_BY(id_block_mutex_) = 0;
  uint64_t agent_block_end_ ABSL_GUARDED_BY(id_block_mutex_) = 0;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGENT_REGISTRY_H_
