// Reports in groups of 64 for the SQLite store: three statements per group
// instead of two per report, because SQLite's per-statement work (bind,
// step, halt, reset) was most of its share of bulk ingest.
//
// A group takes this path only when its outcome is certain to be what
// AppendReport would decide row by row: every report new, and every one
// its agent's first charge in its study, within the cap. The group's rows
// go in under a savepoint; if any report or ledger row was already there
// (a retry, an agent's second report), the group is rolled back to the
// savepoint and the caller takes its rows one by one.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_GROUP_APPEND_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_GROUP_APPEND_H_

#include <sqlite3.h>

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/sqlite/sqlite_statement.h"
#include "server/store/store.h"

namespace ldp::sqlite_internal {

inline constexpr int kRowsPerGroup = 64;

// "INSERT INTO table(a, b) VALUES(?1, ?2),(?3, ?4), …" for `rows` rows,
// followed by `suffix`.
std::string MultiRowInsert(absl::string_view table,
                           absl::Span<const absl::string_view> columns,
                           int rows, absl::string_view suffix = "");

// The columns InsertReport and the group insert bind, in order.
inline constexpr int kReportColumns = 6;
void BindReport(sqlite::Statement& s, int offset, const ReportRow& row);

// Whether `group` may be tried as first charges at all: every ε > 0 and
// within its cap from zero, no task and no (agent, study) twice.
bool MayBeFirstCharges(absl::Span<const ReportRow* const> group);

class GroupAppender {
 public:
  static absl::StatusOr<std::unique_ptr<GroupAppender>> Prepare(sqlite3* db);

  // Stores the kRowsPerGroup reports of `group` and charges each its first
  // ledger row, all or nothing: true if it did, false if it changed nothing
  // (the caller then appends row by row). Errors are SQLite's.
  absl::StatusOr<bool> Append(absl::Span<const ReportRow* const> group);

 private:
  GroupAppender() = default;

  std::unique_ptr<sqlite::Statement> savepoint_, release_, rollback_, reports_,
      ledger_;
};

}  // namespace ldp::sqlite_internal

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_GROUP_APPEND_H_
