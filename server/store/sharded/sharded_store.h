// The shared store over several PostgreSQL databases, each a shard
// (DESIGN, "Storage and scale").
//
// Where rows live:
//  - an agent's enrollment, reports and ledger rows on the shard its id
//    maps to (shard_map.h), so a budget charge is one shard's
//    transaction, never a cross-shard one;
//  - studies, id counters and the catalog's copy of every round on the
//    first database (the catalog, which is also shard 1);
//  - a copy of every round on every shard, which that shard's report
//    appends lock FOR SHARE, so that closing a round refuses later reports
//    on each shard exactly as on one database.
//
// Writes: TransactShard(k) is one transaction on shard k (reports,
// enrollments), which the server runs in a lane of its own per shard, so
// one shard's outage stalls only its agents. Transact spans every
// database (studies, rounds): a transaction per database, nested, the
// catalog's committed last. A failure between commits leaves the shards
// ahead of the catalog (a round already closed on a shard, or inserted on
// one but not listed in the catalog), which refuses nothing that should be
// admitted and is completed when the body runs again: every write is
// idempotent (postgres_store.h).
//
// Reads: loads, polls and ledger summaries visit every shard and merge;
// a poll keeps one cursor per shard and goes on past a shard that fails.
//
// Connections: two PostgresStores per database, one for the shard's lane
// and reads, one for the catalog's transactions, so that a catalog write
// waiting on a down shard never holds the lane of a healthy one.
#ifndef LDP_SERVER_STORE_SHARDED_SHARDED_STORE_H_
#define LDP_SERVER_STORE_SHARDED_SHARDED_STORE_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/shard_map.h"
#include "server/store/store.h"

namespace ldp {

struct ShardedStoreOptions {
  // One libpq URL per database, the catalog first; 2 to
  // ShardMap::kLogicalShards of them. The list is fixed once used: each
  // database records its place (PostgresStoreOptions::shard).
  std::vector<std::string> urls;
  int max_retries = PostgresStoreOptions{}.max_retries;
  absl::Duration connect_timeout = PostgresStoreOptions{}.connect_timeout;
};

// `text` split at whitespace into URLs: the form `--db` takes a shard list
// in (a URL holds no unescaped space; it may hold commas).
std::vector<std::string> SplitShardUrls(std::string_view text);

class ShardedStore final : public Store {
 public:
  // Opens every database (as PostgresStore::Open, each). InvalidArgument
  // for fewer than two URLs or more than kLogicalShards.
  static absl::StatusOr<std::unique_ptr<ShardedStore>> Open(
      const ShardedStoreOptions& options);

  bool shared() const override { return true; }
  const ShardMap* shard_map() const override { return &map_; }
  // Study and round ids; agent ids come from ReserveAgentIds.
  absl::StatusOr<uint64_t> ReserveIds(IdKind kind, int64_t count) override;
  absl::StatusOr<uint64_t> ReserveAgentIds(std::optional<uint64_t> placement,
                                           int64_t count) override;
  absl::StatusOr<std::optional<AgentRow>> FindAgent(uint64_t agent_id) override;
  using Store::PollReports;
  absl::Status PollReports(
      ReportCursor* cursor, absl::Span<const uint64_t> without_payload,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  absl::Status PollDeltas(
      ReportCursor* cursor,
      absl::FunctionRef<absl::Status(const DeltaRow&)> visit) override;

  absl::Status Transact(
      absl::FunctionRef<absl::Status(StoreTransaction&)> body) override;
  absl::Status TransactShard(
      int shard,
      absl::FunctionRef<absl::Status(StoreTransaction&)> body) override;
  // Shard after shard, each in id order.
  absl::Status ForEachAgent(
      absl::FunctionRef<absl::Status(const AgentRow&)> visit) override;
  absl::StatusOr<std::vector<StudyRow>> LoadStudies() override;
  absl::StatusOr<std::vector<RoundRow>> LoadRounds() override;
  absl::Status ForEachReport(
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  // Round statistics: database k is shard k + 1 (the catalog first).
  int num_report_databases() const override {
    return static_cast<int>(lanes_.size());
  }
  absl::Status ForEachClosedRoundReport(
      int database, uint64_t round_id,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  absl::Status SaveRoundStatistics(int database, uint64_t round_id,
                                   std::string_view statistics) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> LoadRoundStatistics(
      uint64_t round_id) override;
  // The shards' summaries merged: agents are disjoint, so counts add.
  absl::StatusOr<std::vector<LedgerSummary>> SummarizeLedger() override;
  absl::StatusOr<std::vector<LedgerEntry>> GetLedger(
      uint64_t agent_id, uint64_t study_id) override;

 private:
  // A logical shard's current block of agent ids, under its own mutex:
  // a reservation waiting on one database holds up no other.
  struct IdBlock {
    absl::Mutex mutex;
    uint64_t next ABSL_GUARDED_BY(mutex) = 0;
    uint64_t end ABSL_GUARDED_BY(mutex) = 0;
  };

  explicit ShardedStore(int shards)
      : map_(shards), down_until_(static_cast<size_t>(shards)) {}
  // A poll of every lane (PollReports, PollDeltas): `poll` with lane k's
  // own cursor position, (*cursor)[k]; past a lane that fails, whose
  // position stays, and the first such error returned.
  absl::Status PollLanes(
      ReportCursor* cursor,
      absl::FunctionRef<absl::Status(PostgresStore&, ReportCursor*)> poll);
  absl::Status Nest(size_t k, std::vector<StoreTransaction*>& open,
                    absl::FunctionRef<absl::Status(StoreTransaction&)> body);
  // `count` ids from logical shard `logical`'s block, reserving a new
  // block on its database when this one has no room.
  absl::StatusOr<uint64_t> TakeIds(int logical, int64_t count);
  // Reservations are made on the callers' threads (gRPC's): a shard that
  // just failed one is not asked again for kShardRest, and unplaced
  // enrollments go to the other shards meanwhile.
  bool Resting(int shard) const;
  // The lane of database `database`; InvalidArgument past the last.
  absl::StatusOr<PostgresStore*> Lane(int database) const;
  void Rest(int shard);

  static constexpr absl::Duration kShardRest = absl::Seconds(2);

  const ShardMap map_;
  std::vector<std::unique_ptr<PostgresStore>> lanes_;
  std::vector<std::unique_ptr<PostgresStore>> catalog_;
  std::array<IdBlock, ShardMap::kLogicalShards> blocks_;
  std::atomic<uint64_t> next_placement_{0};
  // Per shard, until when it rests (unix nanoseconds).
  std::vector<std::atomic<int64_t>> down_until_;
};

}  // namespace ldp

#endif  // LDP_SERVER_STORE_SHARDED_SHARDED_STORE_H_
