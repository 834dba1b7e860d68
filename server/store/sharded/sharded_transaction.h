// The two kinds of transaction a sharded store (sharded_store.h) hands a
// body.
//
// Why two: a shard's lane (Store::TransactShard) writes one database, so
// that database's outage fails only that lane, and the check that every
// row belongs there is what keeps rows off the wrong shard. A catalog
// transaction (Store::Transact) spans every database: studies live on the
// catalog, rounds on every shard, because each shard's report append must
// see in its own transaction whether the round is still open.
#ifndef LDP_SERVER_STORE_SHARDED_SHARDED_TRANSACTION_H_
#define LDP_SERVER_STORE_SHARDED_SHARDED_TRANSACTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/store/shard_map.h"
#include "server/store/store.h"

namespace ldp::sharded_internal {

// One shard's lane: agent-keyed writes of agents on `shard`, passed on to
// `inner`; anything else is refused (Internal: a caller's bug).
class ShardTransaction final : public StoreTransaction {
 public:
  ShardTransaction(StoreTransaction& inner, const ShardMap& map, int shard)
      : inner_(inner), map_(map), shard_(shard) {}

  absl::Status InsertAgent(const AgentRow& row) override;
  absl::Status InsertAgents(absl::Span<const AgentRow> rows) override;
  absl::StatusOr<QuotaDecision> InsertAgentsWithinQuota(
      absl::Span<const AgentRow> rows, int64_t max_agents) override;
  absl::StatusOr<std::vector<AgentRow>> FindEnrolledAgents(
      absl::Span<const std::string> requests) override;
  absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override;
  absl::Status SetStudyState(uint64_t study_id, StudyState state) override;
  absl::Status InsertRound(const RoundRow& row) override;
  absl::Status SetRoundState(uint64_t round_id, RoundState state) override;
  absl::StatusOr<bool> CloseRound(uint64_t round_id, RoundState state) override;
  absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) override;
  absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                             absl::Span<AppendResult> results) override;
  // A delta of this shard's reports: its agent_id must be on the shard.
  absl::Status AppendDelta(const DeltaRow& row) override;

 private:
  absl::Status CheckAgent(uint64_t agent_id) const;
  absl::Status NotHere(const char* what) const;

  StoreTransaction& inner_;
  const ShardMap& map_;
  const int shard_;
};

// Every database at once: `shards[0]` is the catalog. Studies go to the
// catalog, rounds to every shard, agent-keyed writes to their agent's
// shard. Enrollment lookups run in a shard's lane only.
class FanoutTransaction final : public StoreTransaction {
 public:
  FanoutTransaction(absl::Span<StoreTransaction* const> shards,
                    const ShardMap& map)
      : shards_(shards), map_(map) {}

  absl::Status InsertAgent(const AgentRow& row) override;
  absl::Status InsertAgents(absl::Span<const AgentRow> rows) override;
  absl::StatusOr<QuotaDecision> InsertAgentsWithinQuota(
      absl::Span<const AgentRow> rows, int64_t max_agents) override;
  absl::StatusOr<std::vector<AgentRow>> FindEnrolledAgents(
      absl::Span<const std::string> requests) override;
  absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override;
  absl::Status SetStudyState(uint64_t study_id, StudyState state) override;
  absl::Status InsertRound(const RoundRow& row) override;
  absl::Status SetRoundState(uint64_t round_id, RoundState state) override;
  // The catalog decides whether this call closed the round; every shard's
  // copy is closed either way, which also completes a close that another
  // server's failure left half done.
  absl::StatusOr<bool> CloseRound(uint64_t round_id, RoundState state) override;
  absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) override;
  absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                             absl::Span<AppendResult> results) override;
  // To the shard of the delta's agent_id, beside the reports it counts.
  absl::Status AppendDelta(const DeltaRow& row) override;

 private:
  StoreTransaction& Of(uint64_t agent_id) const {
    return *shards_[map_.ShardOfAgent(agent_id)];
  }

  absl::Span<StoreTransaction* const> shards_;
  const ShardMap& map_;
};

}  // namespace ldp::sharded_internal

#endif  // LDP_SERVER_STORE_SHARDED_SHARDED_TRANSACTION_H_
