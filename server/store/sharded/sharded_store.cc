// The sharded PostgreSQL store; see the header.
#include "server/store/sharded/sharded_store.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "server/store/sharded/sharded_transaction.h"

namespace ldp {

using sharded_internal::FanoutTransaction;
using sharded_internal::ShardTransaction;

std::vector<std::string> SplitShardUrls(std::string_view text) {
  return absl::StrSplit(absl::string_view(text.data(), text.size()),
                        absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
}

absl::StatusOr<std::unique_ptr<ShardedStore>> ShardedStore::Open(
    const ShardedStoreOptions& options) {
  const int shards = static_cast<int>(options.urls.size());
  if (shards < 2 || shards > ShardMap::kLogicalShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("a sharded store takes 2 to ", ShardMap::kLogicalShards,
                     " database URLs, got ", shards));
  }
  std::unique_ptr<ShardedStore> store(new ShardedStore(shards));
  for (int k = 0; k < shards; ++k) {
    PostgresStoreOptions one{.url = options.urls[k],
                             .max_retries = options.max_retries,
                             .connect_timeout = options.connect_timeout,
                             .shard = {.shard = k, .shards = shards}};
    for (auto* into : {&store->lanes_, &store->catalog_}) {
      absl::StatusOr<std::unique_ptr<PostgresStore>> opened =
          PostgresStore::Open(one);
      if (!opened.ok()) {
        return absl::Status(opened.status().code(),
                            absl::StrCat("shard ", k + 1, " of ", shards, ": ",
                                         opened.status().message()));
      }
      into->push_back(*std::move(opened));
    }
  }
  return store;
}

absl::StatusOr<uint64_t> ShardedStore::ReserveIds(IdKind kind, int64_t count) {
  if (kind == IdKind::kAgent) {
    return absl::InvalidArgumentError(
        "a sharded store places agent ids by shard: use ReserveAgentIds");
  }
  return lanes_[0]->ReserveIds(kind, count);
}

bool ShardedStore::Resting(int shard) const {
  return absl::ToUnixNanos(absl::Now()) < down_until_[shard].load();
}

void ShardedStore::Rest(int shard) {
  down_until_[shard].store(absl::ToUnixNanos(absl::Now() + kShardRest));
}

absl::StatusOr<uint64_t> ShardedStore::TakeIds(int logical, int64_t count) {
  IdBlock& block = blocks_[logical];
  absl::MutexLock lock(&block.mutex);
  if (block.end - block.next < static_cast<uint64_t>(count)) {
    // The rest of the block is forfeited: one call's ids stay in one block.
    const int shard = map_.ShardOfLogical(logical);
    absl::StatusOr<uint64_t> first = lanes_[shard]->ReserveAgentBlock(logical);
    if (!first.ok()) {
      Rest(shard);
      return absl::UnavailableError(absl::StrCat(
          "shard ", shard + 1, " of the database: ", first.status().message()));
    }
    block.next = *first;
    block.end = *first + ShardMap::kAgentBlock;
  }
  const uint64_t first = block.next;
  block.next += static_cast<uint64_t>(count);
  return first;
}

absl::StatusOr<uint64_t> ShardedStore::ReserveAgentIds(
    std::optional<uint64_t> placement, int64_t count) {
  if (count < 1 || count > static_cast<int64_t>(ShardMap::kAgentBlock)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReserveAgentIds: count must be 1 to ",
                     ShardMap::kAgentBlock, ", got ", count));
  }
  if (placement.has_value()) {
    const int logical = ShardMap::LogicalOfPlacement(*placement);
    const int shard = map_.ShardOfLogical(logical);
    if (Resting(shard)) {
      return absl::UnavailableError(absl::StrCat(
          "shard ", shard + 1, " of the database is not answering; retry"));
    }
    return TakeIds(logical, count);
  }
  // Anywhere: logical shards in turn, past shards at rest, trying each
  // database at most once.
  absl::Status last = absl::UnavailableError("no shard of the database is up");
  int tried = 0;
  for (int step = 0;
       step < ShardMap::kLogicalShards && tried < map_.num_shards(); ++step) {
    const int logical = ShardMap::LogicalOfPlacement(next_placement_++);
    if (Resting(map_.ShardOfLogical(logical))) continue;
    ++tried;
    absl::StatusOr<uint64_t> first = TakeIds(logical, count);
    if (first.ok()) return first;
    last = first.status();
  }
  return last;
}

absl::StatusOr<std::optional<AgentRow>> ShardedStore::FindAgent(
    uint64_t agent_id) {
  return lanes_[map_.ShardOfAgent(agent_id)]->FindAgent(agent_id);
}

absl::Status ShardedStore::PollLanes(
    ReportCursor* cursor,
    absl::FunctionRef<absl::Status(PostgresStore&, ReportCursor*)> poll) {
  cursor->resize(lanes_.size());
  absl::Status first_error;
  for (size_t k = 0; k < lanes_.size(); ++k) {
    ReportCursor one = {(*cursor)[k]};
    absl::Status status = poll(*lanes_[k], &one);
    if (status.ok()) {
      (*cursor)[k] = one.front();
    } else if (first_error.ok()) {
      first_error = absl::Status(
          status.code(), absl::StrCat("shard ", k + 1, ": ", status.message()));
    }
  }
  return first_error;
}

absl::Status ShardedStore::PollReports(
    ReportCursor* cursor, absl::Span<const uint64_t> without_payload,
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  return PollLanes(cursor, [&](PostgresStore& lane, ReportCursor* one) {
    return lane.PollReports(one, without_payload, visit);
  });
}

absl::Status ShardedStore::PollDeltas(
    ReportCursor* cursor,
    absl::FunctionRef<absl::Status(const DeltaRow&)> visit) {
  return PollLanes(cursor, [&](PostgresStore& lane, ReportCursor* one) {
    return lane.PollDeltas(one, visit);
  });
}

absl::Status ShardedStore::Nest(
    size_t k, std::vector<StoreTransaction*>& open,
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  if (k == open.size()) {
    FanoutTransaction all(open, map_);
    return body(all);
  }
  // Shard k's transaction commits after every later shard's: the catalog
  // (k = 0) commits last.
  return catalog_[k]->Transact([&](StoreTransaction& transaction) {
    open[k] = &transaction;
    return Nest(k + 1, open, body);
  });
}

absl::Status ShardedStore::Transact(
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  std::vector<StoreTransaction*> open(catalog_.size(), nullptr);
  return Nest(0, open, body);
}

absl::Status ShardedStore::TransactShard(
    int shard, absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  if (shard < 0 || shard >= map_.num_shards()) {
    return absl::InternalError(absl::StrCat("no shard ", shard + 1));
  }
  return lanes_[shard]->Transact([&](StoreTransaction& transaction) {
    ShardTransaction lane(transaction, map_, shard);
    return body(lane);
  });
}

absl::Status ShardedStore::ForEachAgent(
    absl::FunctionRef<absl::Status(const AgentRow&)> visit) {
  for (auto& lane : lanes_) RETURN_IF_ERROR(lane->ForEachAgent(visit));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StudyRow>> ShardedStore::LoadStudies() {
  return lanes_[0]->LoadStudies();
}

absl::StatusOr<std::vector<RoundRow>> ShardedStore::LoadRounds() {
  return lanes_[0]->LoadRounds();
}

absl::Status ShardedStore::ForEachReport(
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  for (auto& lane : lanes_) RETURN_IF_ERROR(lane->ForEachReport(visit));
  return absl::OkStatus();
}

absl::StatusOr<PostgresStore*> ShardedStore::Lane(int database) const {
  if (database < 0 || database >= num_report_databases()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no database ", database, " among ", num_report_databases()));
  }
  return lanes_[static_cast<size_t>(database)].get();
}

absl::Status ShardedStore::ForEachClosedRoundReport(
    int database, uint64_t round_id,
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  ASSIGN_OR_RETURN(PostgresStore * lane, Lane(database));
  return lane->ForEachClosedRoundReport(0, round_id, visit);
}

absl::Status ShardedStore::SaveRoundStatistics(int database, uint64_t round_id,
                                               std::string_view statistics) {
  ASSIGN_OR_RETURN(PostgresStore * lane, Lane(database));
  return lane->SaveRoundStatistics(0, round_id, statistics);
}

absl::StatusOr<std::vector<std::optional<std::string>>>
ShardedStore::LoadRoundStatistics(uint64_t round_id) {
  std::vector<std::optional<std::string>> statistics;
  for (size_t k = 0; k < lanes_.size(); ++k) {
    absl::StatusOr<std::vector<std::optional<std::string>>> one =
        lanes_[k]->LoadRoundStatistics(round_id);
    if (!one.ok()) {
      return absl::Status(
          one.status().code(),
          absl::StrCat("shard ", k + 1, ": ", one.status().message()));
    }
    statistics.push_back(std::move(one->front()));
  }
  return statistics;
}

absl::StatusOr<std::vector<LedgerSummary>> ShardedStore::SummarizeLedger() {
  std::map<uint64_t, LedgerSummary> merged;
  for (auto& lane : lanes_) {
    ASSIGN_OR_RETURN(std::vector<LedgerSummary> part, lane->SummarizeLedger());
    for (const LedgerSummary& s : part) {
      LedgerSummary& into = merged[s.study_id];
      into.study_id = s.study_id;
      into.num_agents += s.num_agents;
      into.max_spent_nanos = std::max(into.max_spent_nanos, s.max_spent_nanos);
    }
  }
  std::vector<LedgerSummary> summaries;
  summaries.reserve(merged.size());
  for (auto& [id, summary] : merged) summaries.push_back(summary);
  return summaries;
}

absl::StatusOr<std::vector<LedgerEntry>> ShardedStore::GetLedger(
    uint64_t agent_id, uint64_t study_id) {
  return lanes_[map_.ShardOfAgent(agent_id)]->GetLedger(agent_id, study_id);
}

}  // namespace ldp
