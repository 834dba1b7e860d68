// The commit job of one Enroll or EnrollBatch call: stores its agents in
// one transaction (within the token's quota when the store counts it), or,
// for a call that names a request id the store already holds, writes
// nothing and answers with the agents the first attempt stored.
//
// Why its own unit: the job decides on the writer thread, with the store's
// facts in hand (what the request already enrolled, what the quota left),
// and each outcome gives back or keeps the registry's reservations in its
// own way; AgentRegistry (agent_registry.h) only prepares the call.
#ifndef LDP_SERVER_CORE_ENROLL_JOB_H_
#define LDP_SERVER_CORE_ENROLL_JOB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/commit/commit_queue.h"
#include "server/core/aggregator_context.h"
#include "server/core/aggregator_types.h"
#include "server/core/credential.h"
#include "server/store/store.h"

namespace ldp {

class AgentRegistry;

// The refusal of an enrollment past its token's quota, whoever counted.
absl::Status QuotaUsedUp(int64_t max_agents, int64_t enrolled, int64_t asked);

class EnrollJob final : public CommitJob {
 public:
  using Done =
      absl::AnyInvocable<void(absl::StatusOr<std::vector<Enrollment>>) &&>;

  // What a call with a request id adds.
  struct Retry {
    DerivedEnrollment derived;
    // Not OK: the registry's quota had no room, so the job only looks for
    // the first attempt's agents, and answers this if there are none.
    absl::Status refusal;
  };

  // `count` agents of `batch` (EnrollmentBatchKey, "" for open
  // enrollment): `rows` (none when retry->refusal is set) with their
  // tokens (empty for a retry, whose tokens are derived); max_agents: the
  // batch's quota (0 = none), for a store that counts it.
  EnrollJob(AgentRegistry* registry, std::string batch, int count,
            std::vector<AgentRow> rows, std::vector<std::string> tokens,
            int64_t max_agents, std::optional<Retry> retry, Done done);

  int64_t NumWrites() const override { return count_; }
  // A run again (CommitJob::Apply) overwrites what the last run found.
  absl::Status Apply(StoreTransaction& transaction) override;
  // Never submitted (backpressure): answer `status` instead.
  void Refuse(absl::Status status);
  void Finish(const absl::Status& commit_status) override;

 private:
  const AggregatorContext& context() const;
  void FailCommit(const absl::Status& commit_status);
  void RefuseOverQuota();
  // A retry: answers the stored agents, each with its credential derived
  // again, if they are the request's as sent now.
  void AnswerStored();
  absl::StatusOr<std::vector<Enrollment>> MatchStored();

  AgentRegistry* registry_;
  const std::string batch_;
  const int count_;
  std::vector<AgentRow> rows_;
  std::vector<std::string> tokens_;
  const int64_t max_agents_;
  std::optional<Retry> retry_;
  Done done_;
  // What the last Apply found.
  QuotaDecision decision_;
  std::vector<AgentRow> stored_;
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_ENROLL_JOB_H_
