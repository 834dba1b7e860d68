// The shuffler database's schema; see the header and shuffle_store.h for
// why the tables are shaped this way.
#include "server/shuffler/core/shuffle_schema.h"

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"

namespace ldp::shuffler_internal {

using sqlite::QueryInt;
using sqlite::Transaction;

namespace {

constexpr int kSchemaVersion = 1;

// WITHOUT ROWID where a rowid would record arrival order. Pending and seen
// rows are keyed by (batch key, agent): their physical order says nothing
// about when an agent came. Outbox payloads are keyed by their permuted
// position.
constexpr char kSchema[] = R"sql(
CREATE TABLE batch_keys (
  batch_key BLOB PRIMARY KEY,
  header BLOB NOT NULL,
  deadline_nanos INTEGER NOT NULL,
  min_release INTEGER NOT NULL,
  threshold INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX batch_keys_by_deadline ON batch_keys (deadline_nanos);
CREATE TABLE pending (
  batch_key BLOB NOT NULL,
  agent_id INTEGER NOT NULL,
  enc BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  digest BLOB NOT NULL,
  PRIMARY KEY (batch_key, agent_id)
) WITHOUT ROWID;
CREATE TABLE seen (
  batch_key BLOB NOT NULL,
  agent_id INTEGER NOT NULL,
  PRIMARY KEY (batch_key, agent_id)
) WITHOUT ROWID;
CREATE TABLE outbox_batches (
  ordinal INTEGER PRIMARY KEY AUTOINCREMENT,
  batch_id BLOB NOT NULL UNIQUE,
  header BLOB NOT NULL
);
CREATE TABLE outbox_payloads (
  ordinal INTEGER NOT NULL REFERENCES outbox_batches (ordinal)
    ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  enc BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  PRIMARY KEY (ordinal, seq)
) WITHOUT ROWID;
)sql";

}  // namespace

absl::Status EnsureShuffleSchema(SqliteDb& db) {
  ASSIGN_OR_RETURN(const int64_t version,
                   QueryInt(db.handle(), "PRAGMA user_version"));
  if (version == kSchemaVersion) return absl::OkStatus();
  if (version > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("shuffler database schema version ", version,
                     " is newer than this ldp-shuffler knows (", kSchemaVersion,
                     "); run a newer ldp-shuffler"));
  }
  ASSIGN_OR_RETURN(const int64_t tables,
                   QueryInt(db.handle(), "SELECT count(*) FROM sqlite_master"));
  if (tables != 0) {
    return absl::FailedPreconditionError(
        "the database file holds tables but is not a shuffler database; "
        "give --data_dir a directory of its own");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Transaction> transaction,
                   Transaction::Begin(db.handle()));
  RETURN_IF_ERROR(db.Exec(kSchema));
  RETURN_IF_ERROR(
      db.Exec(absl::StrCat("PRAGMA user_version=", kSchemaVersion).c_str()));
  return transaction->Commit();
}

}  // namespace ldp::shuffler_internal
