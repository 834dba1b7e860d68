// The shared Store: PostgreSQL, for several ldp-server replicas on one
// database (DESIGN, "Storage and scale").
//
// Why it differs from the SQLite store: with several writers the database,
// not a server's memory, must refuse what must not happen twice. One
// report per task is the reports primary key; the per-agent cap is a
// conditional upsert of the ledger row, which serializes charges of one
// agent across replicas on that row's lock; a report into a round another
// replica closed is refused because a batch holds the open rounds' rows
// FOR SHARE until it commits, and closing takes their update lock (a batch
// meeting a close in progress refuses that round's reports); an
// enrollment token's quota is a count row (enrollment_counts) that every
// quota'd enrollment locks and checks in the transaction that inserts its
// agents. Every
// write is idempotent, so a transaction whose commit was lost with the
// connection is simply run again. The one exception is a delta
// (StoreTransaction::AppendDelta): the re-run writes its own, under a new
// id, counting what it stored itself, and this store's polls find the
// first run's if it did commit (see Transact).
//
// Why batch statements: one group commit appends thousands of reports, and
// a round trip per report would cap a replica at a few thousand reports a
// second. AppendReports sends the batch as binary arrays in one statement
// (a few more only when an agent pushes past its cap or a task repeats).
//
// Connections: the writer (Transact) has one; loads and polls share a
// second and the small calls (ReserveIds, FindAgent, GetLedger) a third,
// each behind its own mutex, so a long load never delays a commit. Each
// reconnects after a lost connection; Transact re-runs its body on
// serialization failures, deadlocks and lost connections.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_STORE_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_STORE_H_

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/store/shard_map.h"
#include "server/store/store.h"

namespace ldp {
namespace postgres_internal {
class Connection;
class Result;
}  // namespace postgres_internal

struct PostgresStoreOptions {
  // A libpq connection URI: postgresql://user[:password]@host[:port]/db[?...]
  std::string url;
  // How often Transact re-runs a body after a serialization failure,
  // deadlock or lost connection before giving up (Unavailable). Backoff
  // doubles from 10 ms up to 1 s between attempts, so the default waits
  // about 45 s: longer than a failover to a synchronous standby takes
  // under deploy/postgres/patroni.yml.example (its ttl and loop_wait).
  int max_retries = 50;
  // How long Open keeps trying to reach the database, so a server started
  // next to a database that is still coming up waits for it.
  absl::Duration connect_timeout = absl::Seconds(10);
  // Which database of a sharded store this is (sharded_store.h), as
  // "shard of shards". {0, 1}: a store on one database. Open refuses a
  // database that was opened before as another shard, and a database
  // holding agents as a shard of several it was not made as.
  ShardPosition shard{};
};

// Whether `text` is a PostgreSQL connection URI (postgresql:// or
// postgres://) rather than, say, a SQLite file path.
bool IsPostgresUrl(absl::string_view text);

// `url` with any password removed, for messages and logs.
std::string RedactPostgresUrl(std::string_view url);

class PostgresStore final : public Store {
 public:
  // Connects and applies the schema migrations this binary has and the
  // database lacks. InvalidArgument for bad options; Unavailable when the
  // database cannot be reached within connect_timeout; FailedPrecondition
  // for a database with a newer schema than this binary knows, or with
  // tables of something else.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(
      const PostgresStoreOptions& options);
  ~PostgresStore() override;

  bool shared() const override { return true; }
  absl::StatusOr<uint64_t> ReserveIds(IdKind kind, int64_t count) override;
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
  absl::Status ForEachAgent(
      absl::FunctionRef<absl::Status(const AgentRow&)> visit) override;
  absl::StatusOr<std::vector<StudyRow>> LoadStudies() override;
  absl::StatusOr<std::vector<RoundRow>> LoadRounds() override;
  absl::Status ForEachReport(
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  absl::StatusOr<std::vector<LedgerSummary>> SummarizeLedger() override;
  absl::StatusOr<std::vector<LedgerEntry>> GetLedger(
      uint64_t agent_id, uint64_t study_id) override;
  // One database: `database` must be 0.
  absl::Status ForEachClosedRoundReport(
      int database, uint64_t round_id,
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  absl::Status SaveRoundStatistics(int database, uint64_t round_id,
                                   std::string_view statistics) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> LoadRoundStatistics(
      uint64_t round_id) override;

  // The first id of a new block of ShardMap::kAgentBlock agent ids of
  // logical shard `logical`, which this database must hold: the counters
  // of a logical shard's blocks live on its database. Thread-safe.
  absl::StatusOr<uint64_t> ReserveAgentBlock(int logical);

 private:
  PostgresStore() = default;

  // Runs `query` in one read-only REPEATABLE READ transaction on the reader
  // connection and hands its rows to `visit` a fetch (10,000 rows) at a
  // time, so a table of any size streams. `snapshot_xmin`, if not null,
  // receives the transaction snapshot's xmin (taken before the query).
  // A lost connection is retried from the start, after `restart`, only
  // while nothing was visited, or always when `revisit_ok`. `visit` must
  // not call the store's loads (the reader connection is held).
  absl::Status Read(
      const std::string& query, bool revisit_ok, uint64_t* snapshot_xmin,
      absl::FunctionRef<absl::Status(const postgres_internal::Result&, int)>
          visit,
      absl::FunctionRef<void()> restart);

  // A poll (PollReports, PollDeltas): visits the rows of `select` (a
  // SELECT ... FROM a table with columns xid and writer) committed since
  // `*cursor` by other writer ids and meeting `condition` (SQL, or empty),
  // then advances the cursor; from the start instead when `rescan` is
  // set, which it clears once that succeeded. postgres_report_reads.cc
  // says why nothing is missed.
  absl::Status Follow(
      std::atomic<bool>& rescan, ReportCursor* cursor, absl::string_view select,
      absl::string_view condition,
      absl::FunctionRef<absl::Status(const postgres_internal::Result&, int)>
          visit);
  // A new writer id, and a rescan for each poll (see Transact).
  void RenewWriterId();

  int max_retries_ = 0;
  // Stamped on the report and delta rows this instance writes (column
  // writer), so that its polls skip them; renewed after every attempt of
  // a transaction that failed once its body ran (see Transact), and then
  // each poll reads everything once more: a flag per poll, since each has
  // its own cursor.
  std::atomic<int64_t> writer_id_{0};
  std::atomic<bool> rescan_reports_{false};
  std::atomic<bool> rescan_deltas_{false};
  // Read at Open (table deltas_since): PollReports leaves out the
  // payloads of reports from deltas_since_ on, which deltas count, and the
  // rows from tasks_since_ on, which deltas name.
  uint64_t deltas_since_ = 0;
  uint64_t tasks_since_ = 0;
  absl::Mutex writer_mutex_;
  std::unique_ptr<postgres_internal::Connection> writer_
      ABSL_GUARDED_BY(writer_mutex_);
  absl::Mutex reader_mutex_;
  std::unique_ptr<postgres_internal::Connection> reader_
      ABSL_GUARDED_BY(reader_mutex_);
  absl::Mutex misc_mutex_;
  std::unique_ptr<postgres_internal::Connection> misc_
      ABSL_GUARDED_BY(misc_mutex_);
};

}  // namespace ldp

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_STORE_H_
