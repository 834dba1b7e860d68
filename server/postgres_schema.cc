// Migrations of the PostgreSQL store; see the header.
#include "server/postgres_schema.h"

#include <iterator>

namespace ldp::postgres_schema {
namespace {

// Times are unix nanoseconds (bigint), ids are the C++ uint64 ids (always
// < 2^63) and states the numeric values of StudyState / RoundState, as in
// the SQLite store, so rows mean the same in both.
//
// reports.xid is the writing transaction's id: PollReports follows new
// reports by it (see PostgresStore::PollReports); reports.writer names the
// store instance that wrote the row, whose own polls skip it. The ledger is updated in
// place at every charge; fillfactor 70 leaves room on each page for those
// updates to stay HOT (no index write per charge). id_blocks hands out id
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
// every agent insert after that (see PostgresStore's kInsertAgents).
constexpr const char* kV2 = R"sql(
CREATE TABLE enrollment_counts(
  batch bytea PRIMARY KEY,
  enrolled bigint NOT NULL CHECK (enrolled >= 0));
)sql";

constexpr Migration kMigrations[] = {
    {1, kV1},
    {2, kV2},
};

}  // namespace

absl::Span<const Migration> Migrations() { return kMigrations; }

int LatestVersion() { return kMigrations[std::size(kMigrations) - 1].version; }

}  // namespace ldp::postgres_schema
