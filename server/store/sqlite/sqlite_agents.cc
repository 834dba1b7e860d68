// Agent rows of the SQLite store; see the header.
#include "server/store/sqlite/sqlite_agents.h"

#include <cstring>
#include <iterator>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/base/status_macros.h"
#include "server/store/sqlite/sqlite_group_append.h"

namespace ldp::sqlite_internal {

using sqlite::Statement;
using sqlite::Use;

namespace {

// Enrollments arrive a thousand at a time (RelayService.EnrollBatch); one
// statement per 64 of them spends SQLite's per-statement work (bind, step,
// reset) once per 64 rows instead of once per row.
constexpr int kAgentsPerInsert = 64;
constexpr absl::string_view kAgentColumns[] = {
    "agent_id", "credential_hash", "enrolled_at", "enrollment_batch",
    "enrollment_request"};
constexpr int kColumns = static_cast<int>(std::size(kAgentColumns));

std::string_view HashBytes(const CredentialHash& hash) {
  return std::string_view(reinterpret_cast<const char*>(hash.data()),
                          hash.size());
}

// Binds one agents row's columns after parameter `offset`; an empty
// enrollment request is NULL, which the UNIQUE index lets repeat.
void BindAgent(Statement& s, int offset, const AgentRow& row) {
  s.Bind(offset + 1, static_cast<int64_t>(row.agent_id));
  s.BindBlob(offset + 2, HashBytes(row.credential_hash));
  s.Bind(offset + 3, absl::ToUnixNanos(row.enrolled_at));
  s.BindBlob(offset + 4, row.enrollment_batch);
  s.BindBlobOrNull(offset + 5, row.enrollment_request);
}

}  // namespace

absl::StatusOr<std::unique_ptr<AgentWriter>> AgentWriter::Prepare(sqlite3* db) {
  std::unique_ptr<AgentWriter> writer(new AgentWriter());
  ASSIGN_OR_RETURN(writer->insert_one_,
                   Statement::Prepare(
                       db, MultiRowInsert("agents", kAgentColumns, 1).c_str()));
  ASSIGN_OR_RETURN(
      writer->insert_many_,
      Statement::Prepare(
          db,
          MultiRowInsert("agents", kAgentColumns, kAgentsPerInsert).c_str()));
  ASSIGN_OR_RETURN(
      writer->find_by_request_,
      Statement::Prepare(db,
                         "SELECT agent_id, credential_hash, enrolled_at, "
                         "enrollment_batch FROM agents "
                         "WHERE enrollment_request = ?1"));
  return writer;
}

absl::Status AgentWriter::Insert(const AgentRow& row) {
  Use s(*insert_one_);
  BindAgent(*s, 0, row);
  return s->Run();
}

absl::Status AgentWriter::InsertMany(absl::Span<const AgentRow> rows) {
  size_t next = 0;
  for (; rows.size() - next >= kAgentsPerInsert; next += kAgentsPerInsert) {
    Use s(*insert_many_);
    for (int r = 0; r < kAgentsPerInsert; ++r) {
      BindAgent(*s, r * kColumns, rows[next + r]);
    }
    RETURN_IF_ERROR(s->Run());
  }
  for (; next < rows.size(); ++next) RETURN_IF_ERROR(Insert(rows[next]));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<AgentRow>> AgentWriter::FindByRequests(
    absl::Span<const std::string> requests) {
  std::vector<AgentRow> found;
  for (const std::string& request : requests) {
    Use s(*find_by_request_);
    s->BindBlob(1, request);
    ASSIGN_OR_RETURN(const bool row, s->Step());
    if (!row) continue;
    AgentRow agent{.agent_id = static_cast<uint64_t>(s->Int(0)),
                   .enrolled_at = absl::FromUnixNanos(s->Int(2)),
                   .enrollment_batch = std::string(s->Blob(3)),
                   .enrollment_request = request};
    const std::string_view hash = s->Blob(1);
    if (hash.size() != agent.credential_hash.size()) {
      return absl::DataLossError(absl::StrCat(
          "agent ", agent.agent_id, " has a malformed credential hash"));
    }
    std::memcpy(agent.credential_hash.data(), hash.data(), hash.size());
    found.push_back(std::move(agent));
  }
  return found;
}

}  // namespace ldp::sqlite_internal
