// What appending one report comes to: stored, an identical retry, a
// conflict, over the cap, or (shared stores) into a closed round.
//
// Why one function: every store answers AppendReport by the same rules, and
// the aggregator acknowledges, refuses or counts a report by that answer. The
// SQLite store decides one report at a time; the PostgreSQL store decides in
// a batch statement, row by row after it, and one at a time. Each of them
// only gathers the facts (what the insert found, what the ledger took) and
// lets DecideAppend say what they mean, so the stores cannot drift apart.
//
// The charge itself must be atomic with the ledger's write, so it stays in
// each store: SQLite checks ChargeFits in its transaction, PostgreSQL the
// same inequality in SQL (postgres_statements.h) under the ledger row's lock.
#ifndef LDP_SERVER_STORE_APPEND_DECISION_H_
#define LDP_SERVER_STORE_APPEND_DECISION_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "server/store/store.h"

namespace ldp {

// The report a task already has, as a store read it back.
struct StoredReportView {
  std::string_view report_id{};
  std::string_view payload{};
  uint64_t agent_id = 0;
};

// What a store found while appending one report, in its transaction.
struct AppendFacts {
  // Set when the task already had a report, so the insert changed nothing.
  // Decides alone: a retry stays a retry after its round closed.
  std::optional<StoredReportView> stored{};
  // Shared stores: false when the round was not open and nothing was
  // inserted.
  bool round_open = true;
  // The agent's spend in the study: before this report's charge when the
  // ledger took it, as it stands otherwise. Unused for a zero charge.
  int64_t spent_nanos = 0;
  // The ledger took this report's (positive) charge.
  bool charged = false;
};

// Whether a charge of `epsilon_nanos` fits an agent that has spent
// `spent_nanos` of `cap_nanos`. Written as "ε ≤ cap − spent" so that no sum
// overflows; a negative charge never fits.
bool ChargeFits(int64_t epsilon_nanos, int64_t spent_nanos, int64_t cap_nanos);

// The answer to appending `row`, given what the store found. A zero charge
// (a repeated question, server/rounds/ledger_charge.h) is stored at no charge
// and reports no spend; a stored charge reports the running spend, and
// first_charge when the agent had spent nothing in the study (ledger rows
// exist only with a positive spend).
AppendResult DecideAppend(const ReportRow& row, const AppendFacts& facts);

}  // namespace ldp

#endif  // LDP_SERVER_STORE_APPEND_DECISION_H_
