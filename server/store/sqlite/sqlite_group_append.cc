// Groups of reports in three statements; see the header.
#include "server/store/sqlite/sqlite_group_append.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/append_decision.h"

namespace ldp::sqlite_internal {

using sqlite::Statement;
using sqlite::Use;

namespace {

int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

template <typename T>
bool AllDistinct(std::vector<T> values) {
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) == values.end();
}

// Runs `s` and says whether it changed exactly `rows` rows.
absl::StatusOr<bool> RunChanging(Statement& s, int rows) {
  RETURN_IF_ERROR(s.Run());
  return s.Changes() == rows;
}

}  // namespace

std::string MultiRowInsert(absl::string_view table,
                           absl::Span<const absl::string_view> columns,
                           int rows, absl::string_view suffix) {
  std::string sql = absl::StrCat("INSERT INTO ", table, "(");
  for (size_t c = 0; c < columns.size(); ++c) {
    absl::StrAppend(&sql, c == 0 ? "" : ", ", columns[c]);
  }
  absl::StrAppend(&sql, ") VALUES");
  int parameter = 0;
  for (int r = 0; r < rows; ++r) {
    absl::StrAppend(&sql, r == 0 ? "(" : ",(");
    for (size_t c = 0; c < columns.size(); ++c) {
      absl::StrAppend(&sql, c == 0 ? "?" : ",?", ++parameter);
    }
    absl::StrAppend(&sql, ")");
  }
  absl::StrAppend(&sql, suffix);
  return sql;
}

void BindReport(Statement& s, int offset, const ReportRow& row) {
  s.Bind(offset + 1, Signed(row.task_id));
  s.Bind(offset + 2, Signed(row.round_id));
  s.Bind(offset + 3, Signed(row.agent_id));
  s.BindBlob(
      offset + 4,
      std::string_view(reinterpret_cast<const char*>(row.report_id.data()),
                       row.report_id.size()));
  s.BindBlob(offset + 5, row.payload);
  s.Bind(offset + 6, absl::ToUnixNanos(row.received_at));
}

bool MayBeFirstCharges(absl::Span<const ReportRow* const> group) {
  std::vector<uint64_t> tasks;
  std::vector<std::pair<uint64_t, uint64_t>> ledgers;
  tasks.reserve(group.size());
  ledgers.reserve(group.size());
  for (const ReportRow* row : group) {
    if (row->epsilon_nanos <= 0 ||
        !ChargeFits(row->epsilon_nanos, 0, row->cap_nanos)) {
      return false;
    }
    tasks.push_back(row->task_id);
    ledgers.emplace_back(row->agent_id, row->study_id);
  }
  return AllDistinct(std::move(tasks)) && AllDistinct(std::move(ledgers));
}

absl::StatusOr<std::unique_ptr<GroupAppender>> GroupAppender::Prepare(
    sqlite3* db) {
  std::unique_ptr<GroupAppender> a(new GroupAppender());
  constexpr absl::string_view kReports[] = {
      "task_id", "round_id", "agent_id", "report_id", "payload", "received_at"};
  constexpr absl::string_view kLedger[] = {"agent_id", "study_id",
                                           "spent_nanos", "cap_nanos"};
  const std::pair<std::unique_ptr<Statement>*, std::string> all[] = {
      {&a->savepoint_, "SAVEPOINT report_group"},
      {&a->release_, "RELEASE report_group"},
      {&a->rollback_, "ROLLBACK TO report_group"},
      {&a->reports_, MultiRowInsert("reports", kReports, kRowsPerGroup,
                                    " ON CONFLICT(task_id) DO NOTHING")},
      {&a->ledger_,
       MultiRowInsert("ledger", kLedger, kRowsPerGroup,
                      " ON CONFLICT(agent_id, study_id) DO NOTHING")},
  };
  for (const auto& [slot, sql] : all) {
    ASSIGN_OR_RETURN(*slot, Statement::Prepare(db, sql.c_str()));
  }
  return a;
}

absl::StatusOr<bool> GroupAppender::Append(
    absl::Span<const ReportRow* const> group) {
  if (group.size() != kRowsPerGroup) return false;
  {
    Use s(*savepoint_);
    RETURN_IF_ERROR(s->Run());
  }
  bool whole = false;
  {
    Use s(*reports_);
    for (int r = 0; r < kRowsPerGroup; ++r) {
      BindReport(*s, r * kReportColumns, *group[r]);
    }
    ASSIGN_OR_RETURN(whole, RunChanging(*s, kRowsPerGroup));
  }
  if (whole) {
    Use s(*ledger_);
    for (int r = 0; r < kRowsPerGroup; ++r) {
      const ReportRow& row = *group[r];
      s->Bind(4 * r + 1, Signed(row.agent_id));
      s->Bind(4 * r + 2, Signed(row.study_id));
      s->Bind(4 * r + 3, row.epsilon_nanos);
      s->Bind(4 * r + 4, row.cap_nanos);
    }
    ASSIGN_OR_RETURN(whole, RunChanging(*s, kRowsPerGroup));
  }
  if (!whole) {
    Use s(*rollback_);
    RETURN_IF_ERROR(s->Run());
  }
  Use s(*release_);
  RETURN_IF_ERROR(s->Run());
  return whole;
}

}  // namespace ldp::sqlite_internal
