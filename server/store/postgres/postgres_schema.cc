// Migrations of the PostgreSQL store; see the header.
#include "server/store/postgres/postgres_schema.h"

#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/legacy_codec.h"
#include "server/store/postgres/postgres_connection.h"

namespace ldp::postgres_schema {
namespace {

// Times are unix nanoseconds (bigint), ids are the C++ uint64 ids (always
// < 2^63) and states the numeric values of StudyState / RoundState, as in
// the SQLite store, so rows mean the same in both.
//
// reports.xid is the writing transaction's id: PollReports follows new
// reports by it (see PostgresStore::PollReports); reports.writer names the
// store instance that wrote the row, whose own polls skip it. The ledger is
// updated in place at every charge; fillfactor 70 leaves room on each page for
// those updates to stay HOT (no index write per charge). id_blocks hands out id
// ranges to the servers (IdKind: 1 agents, 2 studies, 3 rounds).
constexpr const char* kV1 = R"sql(
CREATE TABLE agents(
  agent_id bigint PRIMARY KEY,
  credential_hash bytea NOT NULL,
  enrolled_at bigint NOT NULL,
  enrollment_batch bytea NOT NULL DEFAULT '');
CREATE TABLE studies(
  study_id bigint PRIMARY KEY,
  spec bytea NOT NULL,
  request_id text UNIQUE,
  state smallint NOT NULL,
  created_at bigint NOT NULL);
CREATE TABLE rounds(
  round_id bigint PRIMARY KEY,
  study_id bigint NOT NULL,
  state smallint NOT NULL,
  start_time bigint NOT NULL,
  deadline bigint NOT NULL,
  plan bytea NOT NULL);
CREATE TABLE reports(
  task_id bigint PRIMARY KEY,
  round_id bigint NOT NULL,
  agent_id bigint NOT NULL,
  report_id bytea NOT NULL,
  payload bytea NOT NULL,
  received_at bigint NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  writer bigint NOT NULL DEFAULT 0);
CREATE INDEX reports_xid ON reports(xid);
CREATE TABLE ledger(
  agent_id bigint,
  study_id bigint,
  spent_nanos bigint NOT NULL,
  cap_nanos bigint NOT NULL,
  PRIMARY KEY(agent_id, study_id)) WITH (fillfactor=70);
CREATE TABLE id_blocks(
  kind smallint PRIMARY KEY,
  next_id bigint NOT NULL);
INSERT INTO id_blocks(kind, next_id) VALUES (1, 1), (2, 1), (3, 1);
)sql";

// Enrollment quotas counted in the database, so that replicas together
// admit a token's quota once, not once each: one row per enrollment batch
// whose token has a quota, with how many agents the batch holds. A row is
// seeded from the agents table the first time a quota'd enrollment needs
// it (so a database that predates it keeps its count) and is kept exact by
// every agent insert after that (see kInsertAgents in
// postgres_statements.h).
constexpr const char* kV2 = R"sql(
CREATE TABLE enrollment_counts(
  batch bytea PRIMARY KEY,
  enrolled bigint NOT NULL CHECK (enrolled >= 0));
)sql";

// Retry-safe enrollment: the digest of the client's request id per agent
// (NULL for agents enrolled without one), unique, so that a retry, on any
// replica, finds the agent its first attempt stored. Adding a column with
// no default rewrites nothing; the index is built in the migration's
// transaction (CONCURRENTLY cannot run in one), which holds writes to
// agents for as long as one pass over the table takes.
constexpr const char* kV4 = R"sql(
ALTER TABLE agents ADD COLUMN enrollment_request bytea;
CREATE UNIQUE INDEX agents_enrollment_request ON agents(enrollment_request);
)sql";

// Which shard of a sharded store the database is (sharded_store.h): one
// row, written when a sharded store first opens it (ClaimShardPlacement).
// No row: a database of an unsharded store, or never opened as a shard.
constexpr const char* kV5 = R"sql(
CREATE TABLE shard_placement(
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  shard integer NOT NULL,
  shards integer NOT NULL);
)sql";

// Agents enrolled without a request id (NULL) leave the request index: a
// unique index keeps NULLs apart anyway, and every bulk enrollment paid an
// index entry per agent that no lookup could find. Lookups by request id
// (= ANY) still use it. Rebuilt in the migration's transaction, as in
// version 4.
constexpr const char* kV6 = R"sql(
DROP INDEX agents_enrollment_request;
CREATE UNIQUE INDEX agents_enrollment_request ON agents(enrollment_request)
  WHERE enrollment_request IS NOT NULL;
)sql";

// Each closed round's sufficient statistics of the reports this database
// holds (Store::SaveRoundStatistics): written once, after the round's
// close, and never changed.
constexpr const char* kV7 = R"sql(
CREATE TABLE round_statistics(
  round_id bigint PRIMARY KEY,
  statistics bytea NOT NULL);
)sql";

// Deltas (Store::PollDeltas): per upload transaction and round, the
// accumulator states of the reports it stored, written in that
// transaction, so that other servers merge one row instead of decoding
// every report. Followed by xid like reports, and skipped by writer. A
// delta_id is drawn at random by its writer; a repeat fails the
// transaction (no ON CONFLICT), since its reports would be counted twice.
//
// deltas_since holds the first transaction id whose reports are all
// counted by deltas: upgrades with a schema change run with every old
// server stopped (deploy/OPERATIONS.md, "Upgrading"), so every report
// stored with an xid at or past it was written by a server that writes
// deltas, and every earlier one must be counted from its payload.
constexpr const char* kV8 = R"sql(
CREATE TABLE report_deltas(
  delta_id bigint PRIMARY KEY,
  round_id bigint NOT NULL,
  statistics bytea NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  writer bigint NOT NULL DEFAULT 0);
CREATE INDEX report_deltas_xid ON report_deltas(xid);
CREATE TABLE deltas_since(
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  xid xid8 NOT NULL);
INSERT INTO deltas_since(xid) VALUES (pg_current_xact_id());
)sql";

// Deltas name the tasks they count (RoundStatistics.task_ids), so servers
// learn from them which tasks have a report. deltas_since.tasks_xid is
// the first transaction id whose deltas all do (by the argument of
// version 8): report rows from it on are never read by the servers that
// follow the store, and earlier ones only for their task ids (or, before
// deltas_since.xid, their payloads).
constexpr const char* kV9 = R"sql(
ALTER TABLE deltas_since ADD COLUMN tasks_xid xid8;
UPDATE deltas_since SET tasks_xid = pg_current_xact_id();
ALTER TABLE deltas_since ALTER COLUMN tasks_xid SET NOT NULL;
)sql";

using postgres_internal::Connection;
using postgres_internal::Params;
using postgres_internal::Result;

// Rewrites, in chunks, every blob of `table`.`column` (keyed by `key`) that
// reads as a legacy byte format (legacy_codec.h) into the current one;
// other blobs stay as they are. Only ids and blobs change: reports keep
// their xid, so followers see no new rows.
absl::Status RewriteLegacyBlobs(
    Connection& c, const char* table, const char* key, const char* column,
    std::optional<std::string> (*upgrade)(std::string_view)) {
  constexpr int kChunk = 4096;
  const std::string select =
      absl::StrCat("SELECT ", key, ", ", column, " FROM ", table, " WHERE ",
                   key, " > $1::int8 ORDER BY ", key, " LIMIT ", kChunk);
  const std::string update =
      absl::StrCat("UPDATE ", table, " AS t SET ", column,
                   " = u.blob FROM unnest($1::int8[], "
                   "$2::bytea[]) AS u(id, blob) WHERE t.",
                   key, " = u.id");
  int64_t last = -1;
  for (bool more = true; more;) {
    Params after;
    after.Int(last);
    ASSIGN_OR_RETURN(Result rows,
                     c.RunOnce("read legacy blobs", select, after));
    std::vector<int64_t> ids;
    std::vector<std::string> blobs;
    for (int i = 0; i < rows.rows(); ++i) {
      last = rows.Int(i, 0);
      if (std::optional<std::string> blob = upgrade(rows.Bytes(i, 1))) {
        ids.push_back(last);
        blobs.push_back(*std::move(blob));
      }
    }
    if (!ids.empty()) {
      const std::vector<std::string_view> views(blobs.begin(), blobs.end());
      Params batch;
      batch.IntArray(ids);
      batch.BytesArray(views);
      RETURN_IF_ERROR(
          c.RunOnce("rewrite legacy blobs", update, batch).status());
    }
    more = rows.rows() == kChunk;
  }
  return absl::OkStatus();
}

// Version 3: payloads and plans as storage.proto messages (storage_codec.h)
// instead of the hand-written byte formats (legacy_codec.h says why the
// rows are rewritten).
absl::Status RewriteLegacyPayloadsAndPlans(Connection& c) {
  RETURN_IF_ERROR(
      RewriteLegacyBlobs(c, "rounds", "round_id", "plan", &UpgradeLegacyPlan));
  return RewriteLegacyBlobs(c, "reports", "task_id", "payload",
                            &UpgradeLegacyPayload);
}

constexpr Migration kMigrations[] = {
    {1, kV1}, {2, kV2}, {3, "", &RewriteLegacyPayloadsAndPlans},
    {4, kV4}, {5, kV5}, {6, kV6},
    {7, kV7}, {8, kV8}, {9, kV9},
};

}  // namespace

absl::Span<const Migration> Migrations() { return kMigrations; }

int LatestVersion() { return kMigrations[std::size(kMigrations) - 1].version; }

namespace {

absl::Status MigrateLocked(Connection& c) {
  Params none;
  RETURN_IF_ERROR(c.RunOnce("migration lock",
                            absl::StrCat("SELECT pg_advisory_xact_lock(",
                                         kMigrationLockKey, ")"),
                            none)
                      .status());
  ASSIGN_OR_RETURN(
      Result exists,
      c.RunOnce("schema check",
                "SELECT to_regclass('schema_migrations') IS NOT NULL, "
                "(SELECT count(*) FROM pg_catalog.pg_class k "
                " JOIN pg_catalog.pg_namespace n ON n.oid = k.relnamespace "
                " WHERE n.nspname = current_schema() "
                " AND k.relkind IN ('r', 'p', 'v', 'm', 'f')), "
                "current_schema()",
                none));
  if (!exists.Bool(0, 0)) {
    if (exists.Int(0, 1) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "schema \"", std::string(exists.Bytes(0, 2)),
          "\" of the database holds tables but is not an LDP aggregator "
          "store (it has no schema_migrations table); give ldp-server a "
          "database of its own"));
    }
    RETURN_IF_ERROR(c.Exec("create schema_migrations",
                           "CREATE TABLE schema_migrations("
                           "version integer PRIMARY KEY, "
                           "applied_at timestamptz NOT NULL DEFAULT now())")
                        .status());
  }
  ASSIGN_OR_RETURN(
      Result versions,
      c.RunOnce("read schema_migrations",
                "SELECT version FROM schema_migrations ORDER BY version",
                none));
  absl::flat_hash_set<int64_t> applied;
  for (int i = 0; i < versions.rows(); ++i) {
    const int64_t version = versions.Int(i, 0);
    if (version > LatestVersion()) {
      return absl::FailedPreconditionError(
          absl::StrCat("the database's schema is at version ", version,
                       ", newer than this ldp-server knows (", LatestVersion(),
                       "); run a newer ldp-server on it"));
    }
    applied.insert(version);
  }
  for (const Migration& m : Migrations()) {
    if (applied.contains(m.version)) continue;
    const std::string what = absl::StrCat("schema migration ", m.version);
    if (*m.sql != '\0') RETURN_IF_ERROR(c.Exec(what.c_str(), m.sql).status());
    if (m.rewrite != nullptr) RETURN_IF_ERROR(m.rewrite(c));
    Params version;
    version.Int(m.version);
    RETURN_IF_ERROR(
        c.RunOnce(what.c_str(),
                  "INSERT INTO schema_migrations(version) VALUES($1::int4)",
                  version)
            .status());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Migrate(Connection& c) {
  RETURN_IF_ERROR(c.Exec("begin migrations", "BEGIN").status());
  absl::Status status = MigrateLocked(c);
  if (status.ok()) status = c.Exec("commit migrations", "COMMIT").status();
  if (!status.ok()) c.Abandon();
  return status;
}

absl::StatusOr<Eras> ReadEras(Connection& c) {
  Params none;
  ASSIGN_OR_RETURN(Result since,
                   c.RunOnce("read deltas_since",
                             "SELECT xid, tasks_xid FROM deltas_since", none));
  if (since.rows() != 1) {
    return absl::DataLossError("table deltas_since has no row");
  }
  return Eras{.deltas_since = static_cast<uint64_t>(since.Int(0, 0)),
              .tasks_since = static_cast<uint64_t>(since.Int(0, 1))};
}

}  // namespace ldp::postgres_schema
