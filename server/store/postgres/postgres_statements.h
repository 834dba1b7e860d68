// The PostgreSQL store's SQL: every statement it prepares, by name.
//
// Why one table: the statements carry the store's guarantees across
// replicas (idempotent writes, the cap as a conditional upsert under the
// ledger row's lock, reports only into open rounds), and reading them side
// by side is how one checks that they agree. The code that runs them is in
// postgres_transaction.cc, postgres_append.cc and postgres_store.cc.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_STATEMENTS_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_STATEMENTS_H_

#include "server/store/postgres/postgres_connection.h"

namespace ldp::postgres_internal {

// ---- Statements of the writer -------------------------------------------

// Every write is idempotent, because a commit lost with the connection is
// ambiguous and Transact then runs the body again: a re-sent row finds its
// own earlier copy and changes nothing.
//
// Every agent insert also adds what it inserted to its batch's row of
// enrollment_counts, if the batch has one (a token with a quota): the
// count stays exact whichever path, or server, enrolls the agent.
//
// An empty enrollment_request is stored as NULL (the UNIQUE index lets
// NULLs repeat). Its conflicts are not caught: FindEnrolledAgents's lock
// and lookup come first, so a duplicate here is a bug that should fail the
// transaction rather than be skipped.
inline constexpr Statement kInsertAgent = {"ldp_insert_agent",
                                           R"sql(
WITH ins AS (
  INSERT INTO agents(agent_id, credential_hash, enrolled_at, enrollment_batch,
                     enrollment_request)
  VALUES($1, $2, $3, $4, NULLIF($5, ''::bytea))
  ON CONFLICT (agent_id) DO NOTHING
  RETURNING enrollment_batch
)
UPDATE enrollment_counts c SET enrolled = c.enrolled + 1
FROM ins WHERE c.batch = ins.enrollment_batch
)sql"};
// The ids are fresh from ReserveIds, so only a re-run of this very batch
// (after a lost COMMIT) can find them taken, and then all of them: one
// probe for the first id replaces a speculative insertion per row.
inline constexpr Statement kInsertAgents = {"ldp_insert_agents",
                                            R"sql(
WITH ins AS (
  INSERT INTO agents(agent_id, credential_hash, enrolled_at, enrollment_batch,
                     enrollment_request)
  SELECT a, h, t, b, NULLIF(r, ''::bytea)
  FROM unnest($1::int8[], $2::bytea[], $3::int8[], $4::bytea[], $5::bytea[])
    AS u(a, h, t, b, r)
  WHERE NOT EXISTS (SELECT 1 FROM agents WHERE agent_id = ($1::int8[])[1])
  RETURNING enrollment_batch
)
UPDATE enrollment_counts c SET enrolled = c.enrolled + n.agents
FROM (SELECT enrollment_batch, count(*) AS agents FROM ins GROUP BY 1) n
WHERE c.batch = n.enrollment_batch
)sql"};
// Enrollment quotas (InsertAgentsWithinQuota). The batch's count row is
// created, when missing, from the agents the batch already has; the
// scalar subquery runs only then. Two servers seeding at once: the second
// waits on the first's key and then does nothing.
inline constexpr Statement kSeedEnrollmentCount = {
    "ldp_seed_enrollment_count",
    "INSERT INTO enrollment_counts(batch, enrolled) "
    "SELECT $1, (SELECT count(*) FROM agents WHERE enrollment_batch = $1) "
    "WHERE NOT EXISTS (SELECT 1 FROM enrollment_counts WHERE batch = $1) "
    "ON CONFLICT (batch) DO NOTHING"};
// Locks the batch's count row until commit: every server's quota'd
// enrollment of the batch waits here for the one before it to commit or
// roll back, then reads its count (READ COMMITTED re-reads the row after
// the wait). Also whether the first new agent is stored already: a re-run
// after a lost COMMIT, whose agents are in and counted.
inline constexpr Statement kLockEnrollmentCount = {
    "ldp_lock_enrollment_count",
    "SELECT c.enrolled, EXISTS(SELECT 1 FROM agents WHERE agent_id = $2) "
    "FROM enrollment_counts c WHERE c.batch = $1 FOR UPDATE"};
// Retry-safe enrollment (FindEnrolledAgents): a transaction-scoped
// advisory lock named by the first 8 bytes of the request's first digest,
// so every server's enrollment under one request waits for the one before
// it to commit or roll back; then, in a statement of its own (READ
// COMMITTED: a fresh snapshot, taken after the wait), the agents stored
// under the request's digests. Another request sharing the lock only
// waits its turn.
inline constexpr Statement kLockEnrollmentRequest = {
    "ldp_lock_enrollment_request", "SELECT pg_advisory_xact_lock($1)"};
inline constexpr Statement kFindEnrolledAgents = {
    "ldp_find_enrolled_agents",
    "SELECT agent_id, credential_hash, enrolled_at, enrollment_batch, "
    "enrollment_request FROM agents "
    "WHERE enrollment_request = ANY($1::bytea[])"};
// No conflict target: neither a repeated request id nor a re-run of the
// same insert (study_id) writes anything.
inline constexpr Statement kInsertStudy = {
    "ldp_insert_study",
    "INSERT INTO studies(study_id, spec, request_id, state, created_at) "
    "VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING study_id"};
inline constexpr Statement kFindStudy = {
    "ldp_find_study", "SELECT study_id FROM studies WHERE request_id = $1"};
inline constexpr Statement kSetStudyState = {
    "ldp_set_study_state", "UPDATE studies SET state = $1 WHERE study_id = $2"};
inline constexpr Statement kInsertRound = {
    "ldp_insert_round",
    "INSERT INTO rounds(round_id, study_id, state, start_time, deadline, plan) "
    "VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT (round_id) DO NOTHING"};
// Only an open round closes: replicas racing to close one round all
// succeed, and the first one's state stays. The row lock this takes waits
// for batches holding the round FOR SHARE; a batch that comes while it is
// held finds the round closing and refuses its reports at once (SKIP
// LOCKED), so nothing that waits for a shard's batches from inside a
// closing transaction waits on itself.
inline constexpr Statement kSetRoundState = {
    "ldp_set_round_state",
    "UPDATE rounds SET state = $1 WHERE round_id = $2 AND state = 1"};
// The same, saying whether this transaction closed it: the replica whose
// UPDATE found the round open is the one that plans what follows.
inline constexpr Statement kCloseRound = {
    "ldp_close_round",
    "UPDATE rounds SET state = $1 WHERE round_id = $2 AND state = 1 "
    "RETURNING round_id"};

// The batch append, one statement. The sub-statements of one WITH all see
// the snapshot taken at its start and not one another's writes; only
// RETURNING passes rows between them. So:
//  - input: the batch (one row per task: the caller dedupes), numbered.
//  - open_rounds locks the batch's rounds that are open FOR SHARE until
//    commit (a concurrent close waits for us; a round a close holds is
//    skipped, as closed).
//  - ins inserts the reports of open rounds in task order (replicas lock
//    tasks in the same order: no deadlock between their batches); a task
//    that already has a report, committed or being committed by another
//    replica (ON CONFLICT waits for it), is skipped.
//  - charge sums what ins inserted per (agent, study) and adds it to the
//    ledger only if the whole group fits: a new row within the cap, or an
//    update that ON CONFLICT applies to the latest committed spend, under
//    the row's lock. No RETURNING row: the group did not fit, and the
//    caller takes its reports back out and redoes them one at a time.
// The charge is checked as "ε ≤ cap − spent" so that no sum overflows.
inline constexpr Statement kAppendBatch = {"ldp_append_batch",
                                           R"sql(
WITH input AS (
  SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::int8[],
                       $5::bytea[], $6::bytea[], $7::int8[], $8::int8[],
                       $9::int8[])
    WITH ORDINALITY AS t(task_id, round_id, study_id, agent_id, report_id,
                         payload, eps, cap, received_at, ord)
), open_rounds AS (
  SELECT round_id FROM rounds
  WHERE round_id = ANY($2::int8[]) AND state = 1
  ORDER BY round_id FOR SHARE SKIP LOCKED
), ins AS (
  INSERT INTO reports(task_id, round_id, agent_id, report_id, payload,
                      received_at, writer)
  SELECT task_id, round_id, agent_id, report_id, payload, received_at, $10
  FROM input WHERE round_id IN (SELECT round_id FROM open_rounds)
  ORDER BY task_id
  ON CONFLICT (task_id) DO NOTHING
  RETURNING task_id
), charge AS (
  INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos)
  SELECT i.agent_id, i.study_id, sum(i.eps), min(i.cap)
  FROM input i JOIN ins USING (task_id)
  GROUP BY 1, 2 HAVING sum(i.eps) <= min(i.cap)
  ORDER BY 1, 2
  ON CONFLICT (agent_id, study_id) DO UPDATE
    SET spent_nanos = l.spent_nanos + excluded.spent_nanos
    WHERE excluded.spent_nanos <=
          least(l.cap_nanos, excluded.cap_nanos) - l.spent_nanos
  RETURNING agent_id, study_id, spent_nanos
)
SELECT i.ord,
       i.round_id IN (SELECT round_id FROM open_rounds),
       ins.task_id IS NOT NULL,
       c.spent_nanos
FROM input i
LEFT JOIN ins ON ins.task_id = i.task_id
LEFT JOIN charge c ON c.agent_id = i.agent_id AND c.study_id = i.study_id
)sql"};

inline constexpr Statement kDeleteReports = {
    "ldp_delete_reports", "DELETE FROM reports WHERE task_id = ANY($1)"};
inline constexpr Statement kStoredReports = {
    "ldp_stored_reports",
    "SELECT task_id, report_id, payload, agent_id FROM reports "
    "WHERE task_id = ANY($1)"};
inline constexpr Statement kLedgerSpent = {
    "ldp_ledger_spent",
    "SELECT p.agent_id, p.study_id, l.spent_nanos "
    "FROM unnest($1::int8[], $2::int8[]) AS p(agent_id, study_id) "
    "JOIN ledger l USING (agent_id, study_id)"};

// One report at a time (the slow path; see AppendOne): the same checks as
// the batch.
inline constexpr Statement kAppendOne = {"ldp_append_one",
                                         R"sql(
WITH open_round AS (
  SELECT round_id FROM rounds WHERE round_id = $2 AND state = 1
  FOR SHARE SKIP LOCKED
), ins AS (
  INSERT INTO reports(task_id, round_id, agent_id, report_id, payload,
                      received_at, writer)
  SELECT $1, $2, $3, $4, $5, $6, $7 FROM open_round
  ON CONFLICT (task_id) DO NOTHING
  RETURNING task_id
)
SELECT EXISTS(SELECT 1 FROM open_round), EXISTS(SELECT 1 FROM ins)
)sql"};
inline constexpr Statement kChargeOne = {
    "ldp_charge_one",
    "INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos) "
    "SELECT $1, $2, $3, $4 WHERE $3 <= $4 "
    "ON CONFLICT (agent_id, study_id) DO UPDATE "
    "SET spent_nanos = l.spent_nanos + excluded.spent_nanos "
    "WHERE excluded.spent_nanos <= "
    "least(l.cap_nanos, excluded.cap_nanos) - l.spent_nanos "
    "RETURNING spent_nanos"};
// The stored report of a task (if any) and the agent's spend, in one row.
inline constexpr Statement kStoredOne = {
    "ldp_stored_one",
    "SELECT (SELECT spent_nanos FROM ledger "
    "        WHERE agent_id = $2 AND study_id = $3), "
    "       r.report_id, r.payload, r.agent_id "
    "FROM (SELECT 1) one LEFT JOIN reports r ON r.task_id = $1"};
// Takes an over-cap report back out; answers the agent's spend.
inline constexpr Statement kRemoveOne = {
    "ldp_remove_one",
    "WITH gone AS (DELETE FROM reports WHERE task_id = $1) "
    "SELECT (SELECT spent_nanos FROM ledger "
    "        WHERE agent_id = $2 AND study_id = $3)"};

// A delta (Transaction::AppendDelta), the one write that is not
// idempotent: its writer draws a new delta_id for every run of a body, so
// a repeated id is a bug (or a collision) that must fail the transaction
// rather than have its reports counted by two deltas, or by none.
inline constexpr Statement kInsertDelta = {
    "ldp_insert_delta",
    "INSERT INTO report_deltas(delta_id, round_id, statistics, writer) "
    "VALUES($1, $2, $3, $4)"};

// ---- Statements of the small calls ------------------------------------------

inline constexpr Statement kReserveIds = {
    "ldp_reserve_ids",
    "UPDATE id_blocks SET next_id = next_id + $2 WHERE kind = $1 "
    "RETURNING next_id - $2"};
// $1: the counter's kind, $2: its first value + $3, $3: the stride.
inline constexpr Statement kReserveAgentBlock = {
    "ldp_reserve_agent_block",
    "INSERT INTO id_blocks(kind, next_id) VALUES($1, $2) "
    "ON CONFLICT (kind) DO UPDATE SET next_id = id_blocks.next_id + $3 "
    "RETURNING next_id - $3"};
inline constexpr Statement kFindAgent = {
    "ldp_find_agent",
    "SELECT agent_id, credential_hash, enrolled_at, enrollment_batch "
    "FROM agents WHERE agent_id = $1"};
inline constexpr Statement kLedgerAll = {
    "ldp_ledger_all",
    "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
    "WHERE agent_id = $1 ORDER BY study_id"};
inline constexpr Statement kLedgerOne = {
    "ldp_ledger_one",
    "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
    "WHERE agent_id = $1 AND study_id = $2"};
// Round statistics (Store::SaveRoundStatistics): the round's state on
// this database first, since its reports are final only once it is closed
// here; then one insert that leaves a row another server stored alone.
inline constexpr Statement kRoundState = {
    "ldp_round_state", "SELECT state FROM rounds WHERE round_id = $1"};
inline constexpr Statement kSaveRoundStatistics = {
    "ldp_save_round_statistics",
    "INSERT INTO round_statistics(round_id, statistics) VALUES ($1, $2) "
    "ON CONFLICT (round_id) DO NOTHING"};
inline constexpr Statement kLoadRoundStatistics = {
    "ldp_load_round_statistics",
    "SELECT statistics FROM round_statistics WHERE round_id = $1"};

}  // namespace ldp::postgres_internal

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_STATEMENTS_H_
