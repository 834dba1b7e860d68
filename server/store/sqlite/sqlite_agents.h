// The SQLite store's agent rows: inserts (one by one, or 64 per statement
// for a relay's batch) and the lookup of agents by the enrollment request
// that created them.
//
// Why apart from the store: retry-safe enrollment (store.h,
// FindEnrolledAgents) adds a nullable unique column and its lookup to the
// agent writes; together they are one concern, and the store's file stays
// about its transactions and loads.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_AGENTS_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_AGENTS_H_

#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/sqlite/sqlite_statement.h"
#include "server/store/store.h"

namespace ldp::sqlite_internal {

// Statements on the writer connection; used inside its transactions only.
class AgentWriter {
 public:
  static absl::StatusOr<std::unique_ptr<AgentWriter>> Prepare(sqlite3* db);

  absl::Status Insert(const AgentRow& row);
  // Whole groups of 64 rows per statement, the rest one by one; a failure
  // (an id or enrollment request stored already) fails the caller's
  // transaction either way.
  absl::Status InsertMany(absl::Span<const AgentRow> rows);
  // One index probe per request; the rows carry agent_id, credential_hash,
  // enrollment_batch and enrollment_request.
  absl::StatusOr<std::vector<AgentRow>> FindByRequests(
      absl::Span<const std::string> requests);

 private:
  AgentWriter() = default;

  std::unique_ptr<sqlite::Statement> insert_one_, insert_many_,
      find_by_request_;
};

}  // namespace ldp::sqlite_internal

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_AGENTS_H_
