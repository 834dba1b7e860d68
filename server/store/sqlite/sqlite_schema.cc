// The SQLite store's schema and settings; see the header.
#include "server/store/sqlite/sqlite_schema.h"

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "common/sqlite/sqlite_statement.h"
#include "server/store/legacy_codec.h"
#include "server/store/sqlite/sqlite_shuffled.h"

namespace ldp::sqlite_internal {

using sqlite::EnableWal;
using sqlite::Exec;
using sqlite::QueryInt;
using sqlite::Statement;
using sqlite::Transaction;
using sqlite::Use;

namespace {

// Rewrites, in chunks, every blob of one column that reads as a legacy
// byte format (legacy_codec.h) into the current one; other blobs stay as
// they are. `select` takes the last key seen and a chunk size and yields
// (key, blob) in key order; `update` takes (key, blob).
absl::Status RewriteLegacyBlobs(
    sqlite3* db, const char* select, const char* update,
    std::optional<std::string> (*upgrade)(std::string_view)) {
  constexpr int64_t kChunk = 4096;
  ASSIGN_OR_RETURN(auto read, Statement::Prepare(db, select));
  ASSIGN_OR_RETURN(auto write, Statement::Prepare(db, update));
  std::vector<std::pair<int64_t, std::string>> upgraded;
  int64_t last = -1;
  for (bool more = true; more;) {
    upgraded.clear();
    int64_t rows = 0;
    {
      Use r(*read);
      r->Bind(1, last);
      r->Bind(2, kChunk);
      while (true) {
        ASSIGN_OR_RETURN(const bool row, r->Step());
        if (!row) break;
        ++rows;
        last = r->Int(0);
        if (std::optional<std::string> blob = upgrade(r->Blob(1))) {
          upgraded.emplace_back(last, *std::move(blob));
        }
      }
    }
    for (const auto& [key, blob] : upgraded) {
      Use w(*write);
      w->Bind(1, key);
      w->BindBlob(2, blob);
      RETURN_IF_ERROR(w->Run());
    }
    more = rows == kChunk;
  }
  return absl::OkStatus();
}

// Version 3: payloads and plans as storage.proto messages (storage_codec.h)
// instead of the hand-written byte formats.
absl::Status RewriteLegacyPayloadsAndPlans(sqlite3* db) {
  RETURN_IF_ERROR(RewriteLegacyBlobs(
      db,
      "SELECT round_id, plan FROM rounds WHERE round_id > ?1 "
      "ORDER BY round_id LIMIT ?2",
      "UPDATE rounds SET plan = ?2 WHERE round_id = ?1", &UpgradeLegacyPlan));
  return RewriteLegacyBlobs(
      db,
      "SELECT task_id, payload FROM reports WHERE task_id > ?1 "
      "ORDER BY task_id LIMIT ?2",
      "UPDATE reports SET payload = ?2 WHERE task_id = ?1",
      &UpgradeLegacyPayload);
}

// The schema's migrations, applied in order at open; PRAGMA user_version
// records the last one applied. A migration is never edited once released:
// a change is a new entry.
struct Migration {
  int version;
  const char* sql;
  // Run after `sql` in the same transaction, when the change is to rows
  // rather than tables.
  absl::Status (*rewrite)(sqlite3* db) = nullptr;
};

constexpr Migration kMigrations[] = {
    {1, R"sql(
CREATE TABLE agents(
  agent_id INTEGER PRIMARY KEY,
  credential_hash BLOB NOT NULL,
  enrolled_at INTEGER NOT NULL);
CREATE TABLE studies(
  study_id INTEGER PRIMARY KEY,
  spec BLOB NOT NULL,
  request_id TEXT UNIQUE,
  state INTEGER NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE rounds(
  round_id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL,
  state INTEGER NOT NULL,
  start_time INTEGER NOT NULL,
  deadline INTEGER NOT NULL,
  plan BLOB NOT NULL);
CREATE TABLE reports(
  task_id INTEGER PRIMARY KEY,
  round_id INTEGER NOT NULL,
  agent_id INTEGER NOT NULL,
  report_id BLOB NOT NULL,
  payload BLOB NOT NULL,
  received_at INTEGER NOT NULL);
CREATE TABLE ledger(
  agent_id INTEGER NOT NULL,
  study_id INTEGER NOT NULL,
  spent_nanos INTEGER NOT NULL,
  cap_nanos INTEGER NOT NULL,
  PRIMARY KEY(agent_id, study_id)) WITHOUT ROWID;
)sql"},
    // Enrollment quotas: which token admitted each agent ("" = open).
    {2,
     "ALTER TABLE agents ADD COLUMN enrollment_batch BLOB NOT NULL "
     "DEFAULT x''"},
    // Stored payloads and plans as protobuf (storage_codec.h); the rows of
    // the hand-written formats are rewritten (legacy_codec.h says why).
    {3, "", &RewriteLegacyPayloadsAndPlans},
    // Shuffled batches and their reports, with no agent and no time.
    {4, kShuffledTablesSql},
    // Retry-safe enrollment: the digest of the client's request id per
    // agent (NULL for agents enrolled without one), unique, so a retry
    // finds the agent its first attempt stored.
    {5,
     "ALTER TABLE agents ADD COLUMN enrollment_request BLOB;"
     "CREATE UNIQUE INDEX agents_enrollment_request "
     "ON agents(enrollment_request);"},
};

constexpr int kSchemaVersion = kMigrations[std::size(kMigrations) - 1].version;

}  // namespace

absl::Status Configure(sqlite3* db, int cache_kib) {
  sqlite3_busy_timeout(db, 10'000);
  RETURN_IF_ERROR(EnableWal(db));
  RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous=FULL"));
  RETURN_IF_ERROR(Exec(db, "PRAGMA temp_store=MEMORY"));
  // With checkpoint_pages 0 the writer checkpoints inside the commit that
  // crosses this: fewer, larger ones. Otherwise the store's wal_hook
  // replaces it (wal_checkpointer.h). Either way the log is truncated back
  // to a bounded size after each.
  RETURN_IF_ERROR(Exec(db, "PRAGMA wal_autocheckpoint=10000"));
  RETURN_IF_ERROR(Exec(db, "PRAGMA journal_size_limit=67108864"));
  return Exec(db, absl::StrCat("PRAGMA cache_size=-", cache_kib).c_str());
}

absl::Status EnsureSchema(sqlite3* db) {
  ASSIGN_OR_RETURN(const int64_t version, QueryInt(db, "PRAGMA user_version"));
  if (version == kSchemaVersion) return absl::OkStatus();
  if (version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("database schema version ", version,
                     " is newer than this ldp-server "
                     "knows (",
                     kSchemaVersion, "); run a newer ldp-server"));
  }
  if (version == 0) {
    ASSIGN_OR_RETURN(const int64_t tables,
                     QueryInt(db, "SELECT count(*) FROM sqlite_master"));
    if (tables != 0) {
      return absl::FailedPreconditionError(
          "the database file holds tables but is not an LDP aggregator store");
    }
  }
  // All pending migrations in one transaction: a crash leaves the old
  // version whole.
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                   Transaction::Begin(db));
  for (const Migration& migration : kMigrations) {
    if (migration.version <= version) continue;
    RETURN_IF_ERROR(Exec(db, migration.sql));
    if (migration.rewrite != nullptr) RETURN_IF_ERROR(migration.rewrite(db));
  }
  RETURN_IF_ERROR(
      Exec(db, absl::StrCat("PRAGMA user_version=", kSchemaVersion).c_str()));
  return transaction->Commit();
}

}  // namespace ldp::sqlite_internal
