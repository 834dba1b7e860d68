// The PostgreSQL store's append path: a group commit's reports charged in
// one statement (kAppendBatch), with the few rows it cannot settle (a group
// past its cap, a task repeated in the batch, a non-positive charge, a race
// with another replica) redone one at a time.
//
// Why its own unit: it is the store's hot path and its subtlest code, and
// it is the only part that turns a statement's answers into AppendResults
// (through DecideAppend, append_decision.h). Keeping it apart from the
// enrollment and study writes lets it be read, and changed, on its own.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_APPEND_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_APPEND_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "server/store/store.h"

namespace ldp::postgres_internal {

class Transaction;

// StoreTransaction::AppendReports inside `t`. The results are those of
// AppendReport on each row in turn, with one liberty: a row that stores
// nothing (retry, conflict, closed round) reports the agent's spend at the
// end of the batch, not at its place in it. Stored rows report their
// running spend exactly, and first_charge is set on the row that created
// the ledger entry.
absl::Status AppendBatch(Transaction& t,
                         absl::Span<const ReportRow* const> rows,
                         absl::Span<AppendResult> results);

// One report, as the SQLite store does it: insert (the task's primary key
// dedupes), then charge, and take the report back out if the charge does
// not fit. A task that already has a report is a retry or a conflict even
// if its round has closed since.
absl::StatusOr<AppendResult> AppendOne(Transaction& t, const ReportRow& row);

}  // namespace ldp::postgres_internal

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_APPEND_H_
