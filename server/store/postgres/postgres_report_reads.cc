// The PostgreSQL store's reads of reports and deltas; see the header.
//
// Why a file of their own: loads for folding (ForEachReport,
// ForEachClosedRoundReport) and the polls that follow other servers'
// commits (PollReports, PollDeltas) read the same rows, and the polls
// share one exact change-following technique (Follow).
#include <cstring>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base/status_macros.h"
#include "server/store/postgres/postgres_connection.h"
#include "server/store/postgres/postgres_statements.h"
#include "server/store/postgres/postgres_store.h"

namespace ldp {

using postgres_internal::FromNanos;
using postgres_internal::kRoundState;
using postgres_internal::Params;
using postgres_internal::Result;
using postgres_internal::RunWithRetries;
using postgres_internal::Signed;

namespace {

absl::Status CheckReportId(std::string_view id, uint64_t task_id,
                           ReportId& out) {
  if (id.size() != out.size()) {
    return absl::DataLossError(absl::StrCat("report for task ", task_id,
                                            " has a malformed report id"));
  }
  std::memcpy(out.data(), id.data(), id.size());
  return absl::OkStatus();
}

// Columns task_id, round_id, agent_id, report_id, payload, received_at.
absl::Status VisitReport(
    const Result& r, int i, ReportRow& report,
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  report.task_id = static_cast<uint64_t>(r.Int(i, 0));
  report.round_id = static_cast<uint64_t>(r.Int(i, 1));
  report.agent_id = static_cast<uint64_t>(r.Int(i, 2));
  RETURN_IF_ERROR(
      CheckReportId(r.Bytes(i, 3), report.task_id, report.report_id));
  report.payload.assign(r.Bytes(i, 4));
  report.received_at = FromNanos(r.Int(i, 5));
  return visit(report);
}

}  // namespace

// Loads for folding read every payload (in_delta stays false): a fold
// counts a round's reports themselves, not the deltas that counted them.
absl::Status PostgresStore::ForEachReport(
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  ReportRow report;
  return Read(
      "SELECT task_id, round_id, agent_id, report_id, payload, received_at "
      "FROM reports ORDER BY task_id",
      /*revisit_ok=*/false, nullptr,
      [&](const Result& r, int i) { return VisitReport(r, i, report, visit); },
      [] {});
}

// Exact change-following with the writers' transaction ids (column xid).
// In one REPEATABLE READ snapshot we read X, the snapshot's xmin, and every
// row whose writing transaction's id is ≥ the cursor; the next cursor is
// X. Nothing is missed: every transaction with an id below X had ended
// when the snapshot was taken, so what it committed is visible to this
// poll; one still running then, or started since, has an id ≥ X, so the
// next poll reads its rows once it commits. Rows of transactions with ids
// ≥ X that this poll saw are read again by the next one: callers dedupe.
absl::Status PostgresStore::Follow(
    std::atomic<bool>& rescan, ReportCursor* cursor, absl::string_view select,
    absl::string_view condition,
    absl::FunctionRef<absl::Status(const Result&, int)> visit) {
  uint64_t xmin = 0;
  cursor->resize(1);
  // This store's own rows are skipped: its caller counted them when their
  // transaction committed (or counts them from the retry that finds them).
  // A rescan stays asked for until a poll has done it.
  const bool from_start = rescan.exchange(false);
  const uint64_t from = from_start ? 0 : cursor->front();
  absl::Status status =
      Read(absl::StrCat(select, " WHERE xid >= '", from,
                        "'::xid8 AND writer <> ", writer_id_.load(),
                        condition.empty() ? "" : " AND ", condition),
           /*revisit_ok=*/true, &xmin, visit, [] {});
  if (!status.ok()) {
    if (from_start) rescan = true;
    return status;
  }
  cursor->front() = xmin;
  return absl::OkStatus();
}

// Reports from tasks_since on are named by the deltas of the transactions
// that stored them: not read at all (the poll finds nothing past the
// older rows). Those from deltas_since on are counted by such deltas:
// their payloads are not shipped.
absl::Status PostgresStore::PollReports(
    ReportCursor* cursor, absl::Span<const uint64_t> without_payload,
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  // Once a poll's snapshot had every transaction before tasks_since_
  // ended, no row it could return is left to come: no query at all. Nor
  // would a rescan find any, since this instance's own rows are all newer.
  if (!cursor->empty() && cursor->front() >= tasks_since_) {
    rescan_reports_ = false;
    return absl::OkStatus();
  }
  const std::string in_delta =
      absl::StrCat("xid >= '", deltas_since_, "'::xid8");
  const std::string payload =
      without_payload.empty()
          ? absl::StrCat("CASE WHEN ", in_delta,
                         " THEN ''::bytea ELSE payload END")
          : absl::StrCat("CASE WHEN ", in_delta, " OR round_id IN (",
                         absl::StrJoin(without_payload, ","),
                         ") THEN ''::bytea ELSE payload END");
  ReportRow report;
  return Follow(
      rescan_reports_, cursor,
      absl::StrCat("SELECT task_id, round_id, agent_id, report_id, ", payload,
                   ", received_at, ", in_delta, " FROM reports"),
      absl::StrCat("xid < '", tasks_since_, "'::xid8"),
      [&](const Result& r, int i) {
        report.in_delta = r.Bool(i, 6);
        return VisitReport(r, i, report, visit);
      });
}

absl::Status PostgresStore::PollDeltas(
    ReportCursor* cursor,
    absl::FunctionRef<absl::Status(const DeltaRow&)> visit) {
  DeltaRow delta;
  return Follow(rescan_deltas_, cursor,
                "SELECT delta_id, round_id, statistics FROM report_deltas", "",
                [&](const Result& r, int i) {
                  delta.delta_id = static_cast<uint64_t>(r.Int(i, 0));
                  delta.round_id = static_cast<uint64_t>(r.Int(i, 1));
                  delta.statistics.assign(r.Bytes(i, 2));
                  return visit(delta);
                });
}

absl::Status PostgresStore::ForEachClosedRoundReport(
    int database, uint64_t round_id,
    absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  if (database != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no database ", database, " in a store on one database"));
  }
  // Closed is for good, so a read that starts after this sees every report
  // the round will ever have here.
  Params p;
  p.Int(Signed(round_id));
  {
    absl::MutexLock lock(&misc_mutex_);
    ASSIGN_OR_RETURN(Result r, RunWithRetries(*misc_, kRoundState, p));
    if (r.rows() == 0 ||
        static_cast<RoundState>(r.Int(0, 0)) == RoundState::kOpen) {
      return absl::FailedPreconditionError(absl::StrCat(
          "round ", round_id, " is not closed in this database yet"));
    }
  }
  ReportRow report;
  return Read(
      absl::StrCat("SELECT task_id, round_id, agent_id, report_id, payload, "
                   "received_at FROM reports WHERE round_id = ",
                   Signed(round_id), " ORDER BY task_id"),
      /*revisit_ok=*/false, nullptr,
      [&](const Result& r, int i) { return VisitReport(r, i, report, visit); },
      [] {});
}

}  // namespace ldp
