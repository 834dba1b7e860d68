// Shuffled batches in the SQLite store (store.h, AppendShuffledBatch).
//
// Why apart from the per-agent reports table: shuffled reports have no
// agent and no task of their own, so neither the task-keyed reports table
// nor the ledger fits them. Their rows are keyed by (round, question,
// report id) in a WITHOUT ROWID table, so not even an insertion counter
// is stored beside a payload.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_SHUFFLED_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_SHUFFLED_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/sqlite/sqlite_statement.h"
#include "server/store/store.h"

namespace ldp::sqlite_internal {

// The tables, created by the schema's migration 4.
inline constexpr char kShuffledTablesSql[] = R"sql(
CREATE TABLE shuffled_batches(
  batch_id BLOB PRIMARY KEY,
  round_id INTEGER NOT NULL,
  question INTEGER NOT NULL,
  accepted INTEGER NOT NULL,
  duplicates INTEGER NOT NULL,
  not_opened INTEGER NOT NULL,
  invalid INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE shuffled_reports(
  round_id INTEGER NOT NULL,
  question INTEGER NOT NULL,
  report_id BLOB NOT NULL,
  payload BLOB NOT NULL,
  PRIMARY KEY(round_id, question, report_id)) WITHOUT ROWID;
)sql";

// The writer connection's statements for shuffled batches.
class ShuffledAppender {
 public:
  static absl::StatusOr<std::unique_ptr<ShuffledAppender>> Prepare(sqlite3* db);

  // Inside the caller's transaction; see StoreTransaction.
  absl::StatusOr<ShuffledAppendResult> Append(const ShuffledBatchRow& row);

 private:
  ShuffledAppender() = default;
  absl::StatusOr<bool> FindBatch(const ShuffledBatchRow& row,
                                 ShuffledAppendResult& result);
  absl::StatusOr<bool> ReportExists(const ShuffledBatchRow& row,
                                    const ShuffledReportRow& report);

  std::unique_ptr<sqlite::Statement> find_batch_, find_report_, insert_batch_,
      insert_report_;
};

absl::Status ForEachShuffledBatch(
    sqlite3* db,
    absl::FunctionRef<absl::Status(const ShuffledBatchSummary&)> visit);
absl::Status ForEachShuffledReport(
    sqlite3* db,
    absl::FunctionRef<absl::Status(uint64_t round_id, uint32_t question,
                                   std::string_view payload)>
        visit);

}  // namespace ldp::sqlite_internal

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_SHUFFLED_H_
