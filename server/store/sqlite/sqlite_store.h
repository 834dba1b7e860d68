// The embedded default Store: one SQLite database file in WAL mode.
//
// Why these settings: WAL lets the analyst-facing reader connection read
// while the writer commits; synchronous=FULL syncs the log at every commit,
// so a committed transaction survives a crash or power loss (DESIGN
// invariant 5). The cost of that sync is why the aggregator group-commits:
// one transaction, and one sync, covers every report queued meanwhile.
//
// Tables: agents, studies, rounds, reports (primary key task_id: one report
// per task; the report row is the task's participation record) and
// ledger(agent_id, study_id) → spent and cap. Report payloads, study specs
// and round plans are opaque blobs. The schema is versioned with
// PRAGMA user_version.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_STORE_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/store/sqlite/wal_checkpointer.h"
#include "server/store/store.h"

namespace ldp {
namespace sqlite_internal {
struct Connection;
}  // namespace sqlite_internal

struct SqliteStoreOptions {
  // The database file; created if missing.
  std::string path;
  // Page cache of the writer connection, in KiB.
  int cache_kib = 32 * 1024;
  // Once a commit leaves this many pages in the write-ahead log, a thread
  // of the store's own checkpoints it (wal_checkpointer.h) so that no
  // commit pays for it; 0 = SQLite's automatic checkpoint, inside the
  // commit that crosses 10,000 pages.
  int checkpoint_pages = 10'000;
};

class SqliteStore final : public Store {
 public:
  // Opens or creates the database. InvalidArgument for an empty path;
  // FailedPrecondition for a database of an unknown schema version;
  // Internal if SQLite fails.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(
      const SqliteStoreOptions& options);
  ~SqliteStore() override;

  absl::Status Transact(
      absl::FunctionRef<absl::Status(StoreTransaction&)> body) override;
  absl::Status ForEachAgent(
      absl::FunctionRef<absl::Status(const AgentRow&)> visit) override;
  absl::StatusOr<std::vector<StudyRow>> LoadStudies() override;
  absl::StatusOr<std::vector<RoundRow>> LoadRounds() override;
  absl::Status ForEachReport(
      absl::FunctionRef<absl::Status(const ReportRow&)> visit) override;
  bool keeps_shuffled_reports() const override { return true; }
  absl::Status ForEachShuffledBatch(
      absl::FunctionRef<absl::Status(const ShuffledBatchSummary&)> visit)
      override;
  absl::Status ForEachShuffledReport(
      absl::FunctionRef<absl::Status(uint64_t, uint32_t, std::string_view)>
          visit) override;
  absl::StatusOr<std::vector<LedgerSummary>> SummarizeLedger() override;
  absl::StatusOr<std::vector<LedgerEntry>> GetLedger(
      uint64_t agent_id, uint64_t study_id) override;

  // Checkpoints the store's own thread has run (0 with checkpoint_pages 0).
  int64_t checkpoints() const {
    return checkpointer_ == nullptr ? 0 : checkpointer_->checkpoints();
  }

 private:
  class Transaction;

  SqliteStore() = default;
  // The writer connection's commit hook: asks for a checkpoint once the
  // log holds checkpoint_pages_.
  static int OnWalCommit(void* store, sqlite3* db, const char* name, int pages);

  std::unique_ptr<sqlite_internal::Connection> writer_;
  std::unique_ptr<WalCheckpointer> checkpointer_;  // null: SQLite's own
  int checkpoint_pages_ = 0;
  absl::Mutex reader_mutex_;
  std::unique_ptr<sqlite_internal::Connection> reader_
      ABSL_GUARDED_BY(reader_mutex_);
};

}  // namespace ldp

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_STORE_H_
