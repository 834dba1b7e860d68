// Routing the writes of a sharded store's transactions; see the header.
#include "server/store/sharded/sharded_transaction.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::sharded_internal {

// ---- One shard's lane -----------------------------------------------------

absl::Status ShardTransaction::CheckAgent(uint64_t agent_id) const {
  const int owner = map_.ShardOfAgent(agent_id);
  if (owner == shard_) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "agent ", agent_id, " belongs to shard ", owner + 1,
      ", not to the shard ", shard_ + 1, " transaction that wrote it"));
}

absl::Status ShardTransaction::NotHere(const char* what) const {
  return absl::InternalError(
      absl::StrCat(what,
                   " spans every shard: it runs in Store::Transact, "
                   "not in one shard's transaction"));
}

absl::Status ShardTransaction::InsertAgent(const AgentRow& row) {
  RETURN_IF_ERROR(CheckAgent(row.agent_id));
  return inner_.InsertAgent(row);
}

absl::Status ShardTransaction::InsertAgents(absl::Span<const AgentRow> rows) {
  for (const AgentRow& row : rows) RETURN_IF_ERROR(CheckAgent(row.agent_id));
  return inner_.InsertAgents(rows);
}

absl::StatusOr<QuotaDecision> ShardTransaction::InsertAgentsWithinQuota(
    absl::Span<const AgentRow> rows, int64_t max_agents) {
  for (const AgentRow& row : rows) RETURN_IF_ERROR(CheckAgent(row.agent_id));
  return inner_.InsertAgentsWithinQuota(rows, max_agents);
}

absl::StatusOr<std::vector<AgentRow>> ShardTransaction::FindEnrolledAgents(
    absl::Span<const std::string> requests) {
  return inner_.FindEnrolledAgents(requests);
}

absl::StatusOr<uint64_t> ShardTransaction::InsertStudy(const StudyRow&) {
  return NotHere("a study");
}
absl::Status ShardTransaction::SetStudyState(uint64_t, StudyState) {
  return NotHere("a study");
}
absl::Status ShardTransaction::InsertRound(const RoundRow&) {
  return NotHere("a round");
}
absl::Status ShardTransaction::SetRoundState(uint64_t, RoundState) {
  return NotHere("a round");
}
absl::StatusOr<bool> ShardTransaction::CloseRound(uint64_t, RoundState) {
  return NotHere("a round");
}

absl::StatusOr<AppendResult> ShardTransaction::AppendReport(
    const ReportRow& row) {
  RETURN_IF_ERROR(CheckAgent(row.agent_id));
  return inner_.AppendReport(row);
}

absl::Status ShardTransaction::AppendReports(
    absl::Span<const ReportRow* const> rows, absl::Span<AppendResult> results) {
  for (const ReportRow* row : rows) RETURN_IF_ERROR(CheckAgent(row->agent_id));
  return inner_.AppendReports(rows, results);
}

absl::Status ShardTransaction::AppendDelta(const DeltaRow& row) {
  RETURN_IF_ERROR(CheckAgent(row.agent_id));
  return inner_.AppendDelta(row);
}

// ---- Every database -------------------------------------------------------

absl::Status FanoutTransaction::InsertAgent(const AgentRow& row) {
  return Of(row.agent_id).InsertAgent(row);
}

absl::Status FanoutTransaction::InsertAgents(absl::Span<const AgentRow> rows) {
  std::vector<std::vector<AgentRow>> per_shard(shards_.size());
  for (const AgentRow& row : rows) {
    per_shard[map_.ShardOfAgent(row.agent_id)].push_back(row);
  }
  for (size_t k = 0; k < per_shard.size(); ++k) {
    if (!per_shard[k].empty()) {
      RETURN_IF_ERROR(shards_[k]->InsertAgents(per_shard[k]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<QuotaDecision> FanoutTransaction::InsertAgentsWithinQuota(
    absl::Span<const AgentRow> rows, int64_t max_agents) {
  // A batch's count row is on the shard its agents are placed on.
  const int shard = map_.ShardOfAgent(rows.front().agent_id);
  ShardTransaction lane(*shards_[shard], map_, shard);
  return lane.InsertAgentsWithinQuota(rows, max_agents);
}

absl::StatusOr<std::vector<AgentRow>> FanoutTransaction::FindEnrolledAgents(
    absl::Span<const std::string>) {
  return absl::InternalError(
      "an enrollment lookup runs in the transaction of the shard its request "
      "is placed on (Store::TransactShard)");
}

absl::StatusOr<uint64_t> FanoutTransaction::InsertStudy(const StudyRow& row) {
  return shards_[0]->InsertStudy(row);
}

absl::Status FanoutTransaction::SetStudyState(uint64_t study_id,
                                              StudyState state) {
  return shards_[0]->SetStudyState(study_id, state);
}

absl::Status FanoutTransaction::InsertRound(const RoundRow& row) {
  for (StoreTransaction* shard : shards_) {
    RETURN_IF_ERROR(shard->InsertRound(row));
  }
  return absl::OkStatus();
}

absl::Status FanoutTransaction::SetRoundState(uint64_t round_id,
                                              RoundState state) {
  for (StoreTransaction* shard : shards_) {
    RETURN_IF_ERROR(shard->SetRoundState(round_id, state));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FanoutTransaction::CloseRound(uint64_t round_id,
                                                   RoundState state) {
  ASSIGN_OR_RETURN(const bool closed, shards_[0]->CloseRound(round_id, state));
  for (size_t k = 1; k < shards_.size(); ++k) {
    RETURN_IF_ERROR(shards_[k]->SetRoundState(round_id, state));
  }
  return closed;
}

absl::StatusOr<AppendResult> FanoutTransaction::AppendReport(
    const ReportRow& row) {
  return Of(row.agent_id).AppendReport(row);
}

absl::Status FanoutTransaction::AppendReports(
    absl::Span<const ReportRow* const> rows, absl::Span<AppendResult> results) {
  std::vector<std::vector<const ReportRow*>> per_shard(shards_.size());
  std::vector<std::vector<size_t>> index(shards_.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const int k = map_.ShardOfAgent(rows[i]->agent_id);
    per_shard[k].push_back(rows[i]);
    index[k].push_back(i);
  }
  for (size_t k = 0; k < shards_.size(); ++k) {
    if (per_shard[k].empty()) continue;
    std::vector<AppendResult> part(per_shard[k].size());
    RETURN_IF_ERROR(
        shards_[k]->AppendReports(per_shard[k], absl::MakeSpan(part)));
    for (size_t j = 0; j < part.size(); ++j) results[index[k][j]] = part[j];
  }
  return absl::OkStatus();
}

absl::Status FanoutTransaction::AppendDelta(const DeltaRow& row) {
  return Of(row.agent_id).AppendDelta(row);
}

}  // namespace ldp::sharded_internal
