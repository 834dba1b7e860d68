// Shuffled batches in SQLite; see the header.
#include "server/store/sqlite/sqlite_shuffled.h"

#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "common/base/status_macros.h"

namespace ldp::sqlite_internal {

using sqlite::Statement;
using sqlite::Use;

namespace {

std::string_view Bytes(const ReportId& id) {
  return {reinterpret_cast<const char*>(id.data()), id.size()};
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShuffledAppender>> ShuffledAppender::Prepare(
    sqlite3* db) {
  std::unique_ptr<ShuffledAppender> a(new ShuffledAppender());
  ASSIGN_OR_RETURN(a->find_batch_,
                   Statement::Prepare(db,
                                      "SELECT accepted, duplicates, "
                                      "not_opened, invalid FROM "
                                      "shuffled_batches WHERE batch_id = ?1"));
  ASSIGN_OR_RETURN(
      a->find_report_,
      Statement::Prepare(db,
                         "SELECT 1 FROM shuffled_reports WHERE round_id = ?1 "
                         "AND question = ?2 AND report_id = ?3"));
  ASSIGN_OR_RETURN(
      a->insert_batch_,
      Statement::Prepare(db,
                         "INSERT INTO shuffled_batches(batch_id, round_id, "
                         "question, accepted, duplicates, not_opened, "
                         "invalid) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  ASSIGN_OR_RETURN(
      a->insert_report_,
      Statement::Prepare(db,
                         "INSERT INTO shuffled_reports(round_id, question, "
                         "report_id, payload) VALUES(?1, ?2, ?3, ?4) "
                         "ON CONFLICT DO NOTHING"));
  return a;
}

absl::StatusOr<bool> ShuffledAppender::FindBatch(const ShuffledBatchRow& row,
                                                 ShuffledAppendResult& result) {
  Use s(*find_batch_);
  s->BindBlob(1, Bytes(row.batch_id));
  ASSIGN_OR_RETURN(const bool found, s->Step());
  if (!found) return false;
  result.outcome = ShuffledAppendOutcome::kRetry;
  result.accepted = s->Int(0);
  result.duplicates = s->Int(1);
  result.not_opened = s->Int(2);
  result.invalid = s->Int(3);
  return true;
}

absl::StatusOr<bool> ShuffledAppender::ReportExists(
    const ShuffledBatchRow& row, const ShuffledReportRow& report) {
  Use s(*find_report_);
  s->Bind(1, static_cast<int64_t>(row.round_id));
  s->Bind(2, row.question);
  s->BindBlob(3, Bytes(report.report_id));
  return s->Step();
}

// Duplicates are found before anything is written, so a batch below the
// minimum leaves no row: the group's transaction stays usable for others.
absl::StatusOr<ShuffledAppendResult> ShuffledAppender::Append(
    const ShuffledBatchRow& row) {
  ShuffledAppendResult result{.not_opened = row.not_opened,
                              .invalid = row.invalid};
  ASSIGN_OR_RETURN(const bool retry, FindBatch(row, result));
  if (retry) return result;
  result.stored.assign(row.reports.size(), false);
  absl::flat_hash_set<std::string_view> seen;
  for (size_t i = 0; i < row.reports.size(); ++i) {
    ASSIGN_OR_RETURN(const bool exists, ReportExists(row, row.reports[i]));
    result.stored[i] =
        !exists && seen.insert(Bytes(row.reports[i].report_id)).second;
    (result.stored[i] ? result.accepted : result.duplicates) += 1;
  }
  if (result.accepted < row.min_batch) {
    result.outcome = ShuffledAppendOutcome::kBelowMinimum;
    return result;
  }
  for (size_t i = 0; i < row.reports.size(); ++i) {
    if (!result.stored[i]) continue;
    Use s(*insert_report_);
    s->Bind(1, static_cast<int64_t>(row.round_id));
    s->Bind(2, row.question);
    s->BindBlob(3, Bytes(row.reports[i].report_id));
    s->BindBlob(4, row.reports[i].payload);
    RETURN_IF_ERROR(s->Run());
  }
  Use s(*insert_batch_);
  s->BindBlob(1, Bytes(row.batch_id));
  s->Bind(2, static_cast<int64_t>(row.round_id));
  s->Bind(3, row.question);
  s->Bind(4, result.accepted);
  s->Bind(5, result.duplicates);
  s->Bind(6, result.not_opened);
  s->Bind(7, result.invalid);
  RETURN_IF_ERROR(s->Run());
  return result;
}

absl::Status ForEachShuffledBatch(
    sqlite3* db,
    absl::FunctionRef<absl::Status(const ShuffledBatchSummary&)> visit) {
  return sqlite::ForEachRow(
      db, "SELECT round_id, question, accepted FROM shuffled_batches",
      [&](Statement& s) {
        return visit({.round_id = static_cast<uint64_t>(s.Int(0)),
                      .question = static_cast<uint32_t>(s.Int(1)),
                      .accepted = s.Int(2)});
      });
}

absl::Status ForEachShuffledReport(
    sqlite3* db,
    absl::FunctionRef<absl::Status(uint64_t round_id, uint32_t question,
                                   std::string_view payload)>
        visit) {
  return sqlite::ForEachRow(
      db, "SELECT round_id, question, payload FROM shuffled_reports",
      [&](Statement& s) {
        return visit(static_cast<uint64_t>(s.Int(0)),
                     static_cast<uint32_t>(s.Int(1)), s.Blob(2));
      });
}

}  // namespace ldp::sqlite_internal
