// PostgreSQL store; see the header.
//
// Every statement is sent with binary parameters and asks for binary
// results: ids and times travel as 8 big-endian bytes and blobs as they
// are, with no text escaping of payloads either way.
#include "server/postgres_store.h"

#include <libpq-fe.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "server/append_decision.h"
#include "server/postgres_schema.h"

namespace ldp {
namespace {

// Type OIDs of the parameters we send (pg_type.h is a server header).
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8ArrayOid = 1016;
constexpr Oid kByteaArrayOid = 1001;

// Reads per FETCH of a streaming load: large enough that round trips do
// not dominate, small enough that one fetch of reports stays a few MiB.
constexpr int kFetchRows = 10'000;
// Loads and the small calls are retried this often after a lost
// connection; Transact uses the configured max_retries.
constexpr int kReadRetries = 5;
// A statement stuck behind a lock (say, of a replica hung mid-transaction)
// fails instead of stalling the writer for good.
constexpr const char* kStatementTimeout = "SET statement_timeout = '60s'";

int64_t Nanos(absl::Time t) { return absl::ToUnixNanos(t); }
absl::Time FromNanos(int64_t n) { return absl::FromUnixNanos(n); }
int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

void PutBig32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  }
}
void PutBig64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  }
}
uint64_t GetBig(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}

std::string_view AsBytes(const ReportId& id) {
  return {reinterpret_cast<const char*>(id.data()), id.size()};
}
std::string_view AsBytes(const CredentialHash& hash) {
  return {reinterpret_cast<const char*>(hash.data()), hash.size()};
}

// Errors worth running a transaction (or a read) again for carry this
// payload: serialization failures, deadlocks, lost connections.
constexpr const char* kRetryablePayload = "ldp.postgres/retryable";

absl::Status Retryable(absl::Status status) {
  status.SetPayload(kRetryablePayload, absl::Cord("1"));
  return status;
}

bool IsRetryable(const absl::Status& status) {
  return status.GetPayload(kRetryablePayload).has_value();
}

// The status as callers see it: the marker is ours alone.
absl::Status Final(absl::Status status) {
  status.ErasePayload(kRetryablePayload);
  return status;
}

void Backoff(int attempt) {
  absl::SleepFor(std::min(absl::Milliseconds(10) * (1 << std::min(attempt, 7)),
                          absl::Seconds(1)));
}

// libpq's messages end in a newline and may span lines; ours are one line.
std::string TrimMessage(const char* message) {
  return absl::StrReplaceAll(
      absl::StripTrailingAsciiWhitespace(message == nullptr ? "" : message),
      {{"\n\t", " "}, {"\n", "; "}});
}

}  // namespace

bool IsPostgresUrl(absl::string_view text) {
  return absl::StartsWith(text, "postgresql://") ||
         absl::StartsWith(text, "postgres://");
}

std::string RedactPostgresUrl(std::string_view url) {
  std::string out(url);
  // The password of the userinfo: scheme://user:password@host...
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = std::min(out.find_first_of("/?", start), out.size());
    const size_t at = out.rfind('@', end - 1);
    if (at != std::string::npos && at >= start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) {
        out.erase(colon, at - colon);
      }
    }
  }
  // password=... in the query string (or a key=value connection string).
  for (size_t pos = 0; (pos = out.find("password=", pos)) != std::string::npos;) {
    const bool at_key = pos == 0 || out[pos - 1] == '?' || out[pos - 1] == '&' ||
                        out[pos - 1] == ' ';
    if (!at_key) {
      pos += 9;
      continue;
    }
    const size_t end = std::min(out.find_first_of("& ", pos), out.size());
    out.replace(pos + 9, end - pos - 9, "redacted");
    pos += 9 + 8;
  }
  return out;
}

namespace postgres_internal {

// One PGresult, freed when it goes out of scope. Results are binary.
class Result {
 public:
  Result() = default;
  explicit Result(PGresult* result) : result_(result) {}
  Result(Result&& other) noexcept
      : result_(std::exchange(other.result_, nullptr)) {}
  Result& operator=(Result&& other) noexcept {
    std::swap(result_, other.result_);
    return *this;
  }
  ~Result() {
    if (result_ != nullptr) PQclear(result_);
  }

  int rows() const { return PQntuples(result_); }
  bool IsNull(int row, int col) const {
    return PQgetisnull(result_, row, col) != 0;
  }
  std::string_view Bytes(int row, int col) const {
    return {PQgetvalue(result_, row, col),
            static_cast<size_t>(PQgetlength(result_, row, col))};
  }
  // smallint, integer, bigint or xid8, by its binary width.
  int64_t Int(int row, int col) const {
    const std::string_view v = Bytes(row, col);
    switch (v.size()) {
      case 2:
        return static_cast<int16_t>(GetBig(v.data(), 2));
      case 4:
        return static_cast<int32_t>(GetBig(v.data(), 4));
      case 8:
        return static_cast<int64_t>(GetBig(v.data(), 8));
      default:
        return 0;
    }
  }
  bool Bool(int row, int col) const {
    const std::string_view v = Bytes(row, col);
    return !v.empty() && v[0] != 0;
  }
  const PGresult* get() const { return result_; }

 private:
  PGresult* result_ = nullptr;
};

// Parameters of one statement, all in binary format.
class Params {
 public:
  Params& Int(int64_t v) {
    std::string& out = Add(kInt8Oid);
    PutBig64(out, static_cast<uint64_t>(v));
    return *this;
  }
  Params& Bytes(std::string_view v) {
    Add(kByteaOid).assign(v);
    return *this;
  }
  // Empty → SQL NULL (request ids: "" means none, and UNIQUE ignores NULLs).
  Params& TextOrNull(std::string_view v) {
    Add(kTextOid).assign(v);
    if (v.empty()) null_.back() = true;
    return *this;
  }
  // PostgreSQL's binary array format: dimensions, a has-nulls flag, the
  // element type, each dimension's length and lower bound, then every
  // element as a 4-byte length and its bytes.
  Params& IntArray(absl::Span<const int64_t> v) {
    std::string& out = Add(kInt8ArrayOid);
    out.reserve(20 + v.size() * 12);
    ArrayHeader(out, kInt8Oid, v.size());
    for (const int64_t x : v) {
      PutBig32(out, 8);
      PutBig64(out, static_cast<uint64_t>(x));
    }
    return *this;
  }
  Params& BytesArray(absl::Span<const std::string_view> v) {
    std::string& out = Add(kByteaArrayOid);
    size_t size = 20;
    for (const std::string_view x : v) size += 4 + x.size();
    out.reserve(size);
    ArrayHeader(out, kByteaOid, v.size());
    for (const std::string_view x : v) {
      PutBig32(out, static_cast<uint32_t>(x.size()));
      out.append(x);
    }
    return *this;
  }

  int size() const { return static_cast<int>(values_.size()); }
  const Oid* types() const { return types_.data(); }
  // Pointers into the values, valid until the next Add.
  void Finish() {
    pointers_.clear();
    lengths_.clear();
    for (size_t i = 0; i < values_.size(); ++i) {
      pointers_.push_back(null_[i] ? nullptr : values_[i].data());
      lengths_.push_back(static_cast<int>(values_[i].size()));
    }
    formats_.assign(values_.size(), 1);
  }
  const char* const* values() const { return pointers_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  std::string& Add(Oid type) {
    types_.push_back(type);
    null_.push_back(false);
    return values_.emplace_back();
  }
  static void ArrayHeader(std::string& out, Oid element, size_t count) {
    PutBig32(out, 1);  // dimensions
    PutBig32(out, 0);  // no NULL elements
    PutBig32(out, element);
    PutBig32(out, static_cast<uint32_t>(count));
    PutBig32(out, 1);  // lower bound
  }

  std::vector<std::string> values_;
  std::vector<Oid> types_;
  std::vector<bool> null_;
  std::vector<const char*> pointers_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// A statement prepared once per connection, under `name`.
struct Statement {
  const char* name;
  const char* sql;
};

// One libpq connection. Not thread-safe: each user holds its own mutex.
class Connection {
 public:
  Connection(std::string url, std::string redacted_url)
      : url_(std::move(url)), redacted_url_(std::move(redacted_url)) {}
  ~Connection() { Close(); }

  bool healthy() const {
    return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK;
  }

  // (Re)connects, trying until `deadline` (at least once).
  absl::Status Connect(absl::Time deadline) {
    absl::Duration wait = absl::Milliseconds(100);
    for (;;) {
      Close();
      const absl::Duration left = deadline - absl::Now();
      // libpq's connect_timeout is whole seconds, at least 2.
      const int64_t seconds = std::clamp<int64_t>(
          absl::ToInt64Seconds(absl::Ceil(left, absl::Seconds(1))), 2, 10);
      const std::string timeout = absl::StrCat(seconds);
      // Defaults before the URL, which may override them (libpq applies
      // keywords in order).
      const char* keywords[] = {"application_name", "connect_timeout",
                                "dbname", nullptr};
      const char* values[] = {"ldp-server", timeout.c_str(), url_.c_str(),
                              nullptr};
      conn_ = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
      if (healthy()) {
        PGresult* set = PQexec(conn_, kStatementTimeout);
        const bool ok = PQresultStatus(set) == PGRES_COMMAND_OK;
        PQclear(set);
        if (ok) return absl::OkStatus();
      }
      const std::string message =
          conn_ == nullptr ? "out of memory" : TrimMessage(PQerrorMessage(conn_));
      if (absl::Now() + wait >= deadline) {
        Close();
        return Retryable(absl::UnavailableError(
            absl::StrCat("cannot connect to PostgreSQL at ", redacted_url_,
                         ": ", message)));
      }
      absl::SleepFor(wait);
      wait = std::min(wait * 2, absl::Seconds(1));
    }
  }

  void Close() {
    if (conn_ != nullptr) PQfinish(conn_);
    conn_ = nullptr;
    prepared_.clear();
  }

  // A command without parameters or rows (BEGIN, COMMIT, migrations: may
  // hold several statements).
  absl::StatusOr<Result> Exec(const char* what, const char* sql) {
    if (!healthy()) return Lost(what);
    Result result(PQexec(conn_, sql));
    return Check(std::move(result), what);
  }

  // A statement prepared on first use on this connection.
  absl::StatusOr<Result> Run(const Statement& s, Params& params) {
    if (!healthy()) return Lost(s.name);
    if (!prepared_.contains(s.name)) {
      Result prepared(
          PQprepare(conn_, s.name, s.sql, params.size(), params.types()));
      RETURN_IF_ERROR(Check(std::move(prepared), s.name).status());
      prepared_.insert(s.name);
    }
    params.Finish();
    Result result(PQexecPrepared(conn_, s.name, params.size(), params.values(),
                                 params.lengths(), params.formats(),
                                 /*resultFormat=*/1));
    return Check(std::move(result), s.name);
  }

  // A one-off statement, with binary results.
  absl::StatusOr<Result> RunOnce(const char* what, const std::string& sql,
                                 Params& params) {
    if (!healthy()) return Lost(what);
    params.Finish();
    Result result(PQexecParams(conn_, sql.c_str(), params.size(),
                               params.types(), params.values(),
                               params.lengths(), params.formats(),
                               /*resultFormat=*/1));
    return Check(std::move(result), what);
  }

  // Rolls back whatever transaction is open; a connection that cannot be
  // brought back to idle is closed (the next use reconnects).
  void Abandon() {
    if (!healthy()) return;
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      PQclear(PQexec(conn_, "ROLLBACK"));
    }
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) Close();
  }

 private:
  absl::Status Lost(const char* what) {
    return Retryable(absl::UnavailableError(absl::StrCat(
        "PostgreSQL ", what, ": not connected to ", redacted_url_)));
  }

  absl::StatusOr<Result> Check(Result result, const char* what) {
    // A null result (out of memory, lost connection) is PGRES_FATAL_ERROR.
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
      return result;
    }
    return Error(result.get(), what);
  }

  absl::Status Error(const PGresult* r, const char* what) {
    const char* state =
        r == nullptr ? nullptr : PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const std::string code = state == nullptr ? "" : state;
    const char* primary =
        r == nullptr ? nullptr : PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    std::string message = absl::StrCat(
        "PostgreSQL ", what, ": ",
        primary != nullptr ? primary : TrimMessage(PQerrorMessage(conn_)));
    if (!code.empty()) absl::StrAppend(&message, " (SQLSTATE ", code, ")");
    if (!healthy()) {
      Close();
      return Retryable(absl::UnavailableError(
          absl::StrCat(message, "; lost the connection to ", redacted_url_)));
    }
    if (code == "40001" || code == "40P01") {
      return Retryable(absl::AbortedError(message));
    }
    if (absl::StartsWith(code, "08") || code == "57P01" || code == "57P02" ||
        code == "57P03") {
      Close();
      return Retryable(absl::UnavailableError(message));
    }
    if (code == "57014") return absl::DeadlineExceededError(message);
    if (absl::StartsWith(code, "53")) {
      return absl::ResourceExhaustedError(message);
    }
    return absl::InternalError(message);
  }

  const std::string url_;
  const std::string redacted_url_;
  PGconn* conn_ = nullptr;
  absl::flat_hash_set<const char*> prepared_;
};

}  // namespace postgres_internal

using postgres_internal::Connection;
using postgres_internal::Params;
using postgres_internal::Result;
using postgres_internal::Statement;

namespace {

// ---- Schema migrations ------------------------------------------------

absl::Status MigrateLocked(Connection& c) {
  Params none;
  RETURN_IF_ERROR(
      c.RunOnce("migration lock",
                absl::StrCat("SELECT pg_advisory_xact_lock(",
                             postgres_schema::kMigrationLockKey, ")"),
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
    RETURN_IF_ERROR(
        c.Exec("create schema_migrations",
               "CREATE TABLE schema_migrations("
               "version integer PRIMARY KEY, "
               "applied_at timestamptz NOT NULL DEFAULT now())")
            .status());
  }
  ASSIGN_OR_RETURN(
      Result versions,
      c.RunOnce("read schema_migrations",
                "SELECT version FROM schema_migrations ORDER BY version", none));
  absl::flat_hash_set<int64_t> applied;
  for (int i = 0; i < versions.rows(); ++i) {
    const int64_t version = versions.Int(i, 0);
    if (version > postgres_schema::LatestVersion()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the database's schema is at version ", version,
          ", newer than this ldp-server knows (", postgres_schema::LatestVersion(),
          "); run a newer ldp-server on it"));
    }
    applied.insert(version);
  }
  for (const postgres_schema::Migration& m : postgres_schema::Migrations()) {
    if (applied.contains(m.version)) continue;
    const std::string what = absl::StrCat("schema migration ", m.version);
    RETURN_IF_ERROR(c.Exec(what.c_str(), m.sql).status());
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

// One transaction under the advisory lock: replicas starting together
// apply each migration once, and a failed migration leaves nothing behind.
absl::Status Migrate(Connection& c) {
  RETURN_IF_ERROR(c.Exec("begin migrations", "BEGIN").status());
  absl::Status status = MigrateLocked(c);
  if (status.ok()) status = c.Exec("commit migrations", "COMMIT").status();
  if (!status.ok()) c.Abandon();
  return status;
}

// ---- Statements of the writer -------------------------------------------

// Every write is idempotent, because a commit lost with the connection is
// ambiguous and Transact then runs the body again: a re-sent row finds its
// own earlier copy and changes nothing.
//
// Every agent insert also adds what it inserted to its batch's row of
// enrollment_counts, if the batch has one (a token with a quota): the
// count stays exact whichever path, or server, enrolls the agent.
constexpr Statement kInsertAgent = {
    "ldp_insert_agent",
    R"sql(
WITH ins AS (
  INSERT INTO agents(agent_id, credential_hash, enrolled_at, enrollment_batch)
  VALUES($1, $2, $3, $4) ON CONFLICT (agent_id) DO NOTHING
  RETURNING enrollment_batch
)
UPDATE enrollment_counts c SET enrolled = c.enrolled + 1
FROM ins WHERE c.batch = ins.enrollment_batch
)sql"};
// The ids are fresh from ReserveIds, so only a re-run of this very batch
// (after a lost COMMIT) can find them taken, and then all of them: one
// probe for the first id replaces a speculative insertion per row.
constexpr Statement kInsertAgents = {
    "ldp_insert_agents",
    R"sql(
WITH ins AS (
  INSERT INTO agents(agent_id, credential_hash, enrolled_at, enrollment_batch)
  SELECT * FROM unnest($1::int8[], $2::bytea[], $3::int8[], $4::bytea[])
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
constexpr Statement kSeedEnrollmentCount = {
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
constexpr Statement kLockEnrollmentCount = {
    "ldp_lock_enrollment_count",
    "SELECT c.enrolled, EXISTS(SELECT 1 FROM agents WHERE agent_id = $2) "
    "FROM enrollment_counts c WHERE c.batch = $1 FOR UPDATE"};
// No conflict target: neither a repeated request id nor a re-run of the
// same insert (study_id) writes anything.
constexpr Statement kInsertStudy = {
    "ldp_insert_study",
    "INSERT INTO studies(study_id, spec, request_id, state, created_at) "
    "VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING study_id"};
constexpr Statement kFindStudy = {
    "ldp_find_study", "SELECT study_id FROM studies WHERE request_id = $1"};
constexpr Statement kSetStudyState = {
    "ldp_set_study_state", "UPDATE studies SET state = $1 WHERE study_id = $2"};
constexpr Statement kInsertRound = {
    "ldp_insert_round",
    "INSERT INTO rounds(round_id, study_id, state, start_time, deadline, plan) "
    "VALUES($1, $2, $3, $4, $5, $6) ON CONFLICT (round_id) DO NOTHING"};
// Only an open round closes: replicas racing to close one round all
// succeed, and the first one's state stays. The row lock this takes waits
// for batches holding the round FOR SHARE, and they for it.
constexpr Statement kSetRoundState = {
    "ldp_set_round_state",
    "UPDATE rounds SET state = $1 WHERE round_id = $2 AND state = 1"};

// The batch append, one statement. The sub-statements of one WITH all see
// the snapshot taken at its start and not one another's writes; only
// RETURNING passes rows between them. So:
//  - input: the batch (one row per task: the caller dedupes), numbered.
//  - open_rounds locks the batch's rounds that are open FOR SHARE until
//    commit (a concurrent close waits for us, or we see it closed).
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
constexpr Statement kAppendBatch = {
    "ldp_append_batch",
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
  ORDER BY round_id FOR SHARE
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

constexpr Statement kDeleteReports = {
    "ldp_delete_reports", "DELETE FROM reports WHERE task_id = ANY($1)"};
constexpr Statement kStoredReports = {
    "ldp_stored_reports",
    "SELECT task_id, report_id, payload, agent_id FROM reports "
    "WHERE task_id = ANY($1)"};
constexpr Statement kLedgerSpent = {
    "ldp_ledger_spent",
    "SELECT p.agent_id, p.study_id, l.spent_nanos "
    "FROM unnest($1::int8[], $2::int8[]) AS p(agent_id, study_id) "
    "JOIN ledger l USING (agent_id, study_id)"};

// One report at a time (the slow path; see AppendOne): the same checks as
// the batch.
constexpr Statement kAppendOne = {
    "ldp_append_one",
    R"sql(
WITH open_round AS (
  SELECT round_id FROM rounds WHERE round_id = $2 AND state = 1 FOR SHARE
), ins AS (
  INSERT INTO reports(task_id, round_id, agent_id, report_id, payload,
                      received_at, writer)
  SELECT $1, $2, $3, $4, $5, $6, $7 FROM open_round
  ON CONFLICT (task_id) DO NOTHING
  RETURNING task_id
)
SELECT EXISTS(SELECT 1 FROM open_round), EXISTS(SELECT 1 FROM ins)
)sql"};
constexpr Statement kChargeOne = {
    "ldp_charge_one",
    "INSERT INTO ledger AS l (agent_id, study_id, spent_nanos, cap_nanos) "
    "SELECT $1, $2, $3, $4 WHERE $3 <= $4 "
    "ON CONFLICT (agent_id, study_id) DO UPDATE "
    "SET spent_nanos = l.spent_nanos + excluded.spent_nanos "
    "WHERE excluded.spent_nanos <= "
    "least(l.cap_nanos, excluded.cap_nanos) - l.spent_nanos "
    "RETURNING spent_nanos"};
// The stored report of a task (if any) and the agent's spend, in one row.
constexpr Statement kStoredOne = {
    "ldp_stored_one",
    "SELECT (SELECT spent_nanos FROM ledger "
    "        WHERE agent_id = $2 AND study_id = $3), "
    "       r.report_id, r.payload, r.agent_id "
    "FROM (SELECT 1) one LEFT JOIN reports r ON r.task_id = $1"};
// Takes an over-cap report back out; answers the agent's spend.
constexpr Statement kRemoveOne = {
    "ldp_remove_one",
    "WITH gone AS (DELETE FROM reports WHERE task_id = $1) "
    "SELECT (SELECT spent_nanos FROM ledger "
    "        WHERE agent_id = $2 AND study_id = $3)"};

// ---- Statements of the small calls ------------------------------------------

constexpr Statement kReserveIds = {
    "ldp_reserve_ids",
    "UPDATE id_blocks SET next_id = next_id + $2 WHERE kind = $1 "
    "RETURNING next_id - $2"};
constexpr Statement kFindAgent = {
    "ldp_find_agent",
    "SELECT agent_id, credential_hash, enrolled_at, enrollment_batch "
    "FROM agents WHERE agent_id = $1"};
constexpr Statement kLedgerAll = {
    "ldp_ledger_all",
    "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
    "WHERE agent_id = $1 ORDER BY study_id"};
constexpr Statement kLedgerOne = {
    "ldp_ledger_one",
    "SELECT study_id, cap_nanos, spent_nanos FROM ledger "
    "WHERE agent_id = $1 AND study_id = $2"};

struct GroupKey {
  uint64_t agent_id;
  uint64_t study_id;
  bool operator==(const GroupKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const GroupKey& k) {
    return H::combine(std::move(h), k.agent_id, k.study_id);
  }
};
GroupKey KeyOf(const ReportRow& row) { return {row.agent_id, row.study_id}; }

struct StoredReport {
  std::string report_id;
  std::string payload;
  uint64_t agent_id = 0;
};

StoredReportView ViewOf(const StoredReport& stored) {
  return {.report_id = stored.report_id,
          .payload = stored.payload,
          .agent_id = stored.agent_id};
}
StoredReportView ViewOf(const ReportRow& row) {
  return {.report_id = AsBytes(row.report_id),
          .payload = row.payload,
          .agent_id = row.agent_id};
}

absl::Status CheckReportId(std::string_view id, uint64_t task_id,
                           ReportId& out) {
  if (id.size() != out.size()) {
    return absl::DataLossError(absl::StrCat(
        "report for task ", task_id, " has a malformed report id"));
  }
  std::memcpy(out.data(), id.data(), id.size());
  return absl::OkStatus();
}

// What InsertAgentsWithinQuota needs of its caller.
absl::Status CheckQuotaCall(absl::Span<const AgentRow> rows,
                            int64_t max_agents) {
  if (rows.empty() || rows.front().enrollment_batch.empty() ||
      max_agents < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "InsertAgentsWithinQuota needs agents of a non-empty enrollment "
        "batch and max_agents >= 1 (got ", rows.size(), " agents, max_agents ",
        max_agents, ")"));
  }
  for (const AgentRow& row : rows) {
    if (row.enrollment_batch != rows.front().enrollment_batch) {
      return absl::InvalidArgumentError(
          "InsertAgentsWithinQuota: every agent of one call must be of one "
          "enrollment batch");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<AgentRow> AgentFromRow(const Result& r, int row) {
  AgentRow agent{.agent_id = static_cast<uint64_t>(r.Int(row, 0)),
                 .enrolled_at = FromNanos(r.Int(row, 2))};
  const std::string_view hash = r.Bytes(row, 1);
  if (hash.size() != agent.credential_hash.size()) {
    return absl::DataLossError(absl::StrCat(
        "agent ", agent.agent_id, " has a malformed credential hash"));
  }
  std::memcpy(agent.credential_hash.data(), hash.data(), hash.size());
  agent.enrollment_batch = std::string(r.Bytes(row, 3));
  return agent;
}

}  // namespace

// A random positive id per store instance (and per failed transaction):
// which rows a poll may skip. Not secret; OpenSSL's generator is simply
// the one at hand.
int64_t NewWriterId() {
  uint64_t id = 0;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(&id), sizeof(id)) != 1) {
    id = static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
  }
  return static_cast<int64_t>((id >> 1) | 1);
}

// ---- Transactions -------------------------------------------------------

class PostgresStore::Transaction final : public StoreTransaction {
 public:
  // `writer`: the store's id, stamped on every report row it writes.
  Transaction(Connection& c, int64_t writer) : c_(c), writer_(writer) {}

  // The first storage error of this transaction. PostgreSQL refuses every
  // later statement until the rollback, so Transact decides from this one
  // whether running the body again can help.
  const absl::Status& failure() const { return failure_; }

  absl::Status InsertAgent(const AgentRow& row) override {
    Params p;
    p.Int(Signed(row.agent_id))
        .Bytes(AsBytes(row.credential_hash))
        .Int(Nanos(row.enrolled_at))
        .Bytes(row.enrollment_batch);
    return Run(kInsertAgent, p).status();
  }

  // A relay's batch of enrollments in one round trip.
  absl::Status InsertAgents(absl::Span<const AgentRow> rows) override {
    std::vector<int64_t> ids, times;
    std::vector<std::string_view> hashes, batches;
    ids.reserve(rows.size());
    times.reserve(rows.size());
    hashes.reserve(rows.size());
    batches.reserve(rows.size());
    for (const AgentRow& row : rows) {
      ids.push_back(Signed(row.agent_id));
      hashes.push_back(AsBytes(row.credential_hash));
      times.push_back(Nanos(row.enrolled_at));
      batches.push_back(row.enrollment_batch);
    }
    Params p;
    p.IntArray(ids).BytesArray(hashes).IntArray(times).BytesArray(batches);
    return Run(kInsertAgents, p).status();
  }

  // The count and the insert are one transaction, under the batch's count
  // row lock: a quota is never passed whatever the servers' interleaving.
  // The lock is held until commit, so a group commit that enrolls agents
  // of two quota'd batches can deadlock with another server's taking them
  // in the other order; PostgreSQL then aborts one, which Transact runs
  // again.
  absl::StatusOr<QuotaDecision> InsertAgentsWithinQuota(
      absl::Span<const AgentRow> rows, int64_t max_agents) override {
    RETURN_IF_ERROR(CheckQuotaCall(rows, max_agents));
    const std::string& batch = rows.front().enrollment_batch;
    Params seed;
    seed.Bytes(batch);
    RETURN_IF_ERROR(Run(kSeedEnrollmentCount, seed).status());
    Params lock;
    lock.Bytes(batch).Int(Signed(rows.front().agent_id));
    ASSIGN_OR_RETURN(Result counted, Run(kLockEnrollmentCount, lock));
    if (counted.rows() != 1) {
      return absl::InternalError(
          "PostgreSQL enrollment quota: the batch's count row is missing "
          "right after it was created");
    }
    const int64_t enrolled = counted.Int(0, 0);
    const int64_t asked = static_cast<int64_t>(rows.size());
    if (counted.Bool(0, 1)) {
      return QuotaDecision{.enrolled_before = enrolled - asked};
    }
    if (asked > max_agents - enrolled) {
      return QuotaDecision{.admitted = false, .enrolled_before = enrolled};
    }
    RETURN_IF_ERROR(InsertAgents(rows));
    return QuotaDecision{.enrolled_before = enrolled};
  }

  absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override {
    Params p;
    p.Int(Signed(row.study_id))
        .Bytes(row.spec)
        .TextOrNull(row.request_id)
        .Int(static_cast<int64_t>(row.state))
        .Int(Nanos(row.created_at));
    ASSIGN_OR_RETURN(Result inserted, Run(kInsertStudy, p));
    if (inserted.rows() == 1 || row.request_id.empty()) return row.study_id;
    Params find;
    find.TextOrNull(row.request_id);
    ASSIGN_OR_RETURN(Result found, Run(kFindStudy, find));
    // Not found: the conflict was on study_id, i.e. this very insert ran
    // before (a re-run after a lost commit).
    if (found.rows() == 0) return row.study_id;
    return static_cast<uint64_t>(found.Int(0, 0));
  }

  absl::Status SetStudyState(uint64_t study_id, StudyState state) override {
    Params p;
    p.Int(static_cast<int64_t>(state)).Int(Signed(study_id));
    return Run(kSetStudyState, p).status();
  }

  absl::Status InsertRound(const RoundRow& row) override {
    Params p;
    p.Int(Signed(row.round_id))
        .Int(Signed(row.study_id))
        .Int(static_cast<int64_t>(row.state))
        .Int(Nanos(row.start_time))
        .Int(Nanos(row.deadline))
        .Bytes(row.plan);
    return Run(kInsertRound, p).status();
  }

  absl::Status SetRoundState(uint64_t round_id, RoundState state) override {
    Params p;
    p.Int(static_cast<int64_t>(state)).Int(Signed(round_id));
    return Run(kSetRoundState, p).status();
  }

  absl::StatusOr<AppendResult> AppendReport(const ReportRow& row) override {
    const ReportRow* rows[] = {&row};
    AppendResult result;
    RETURN_IF_ERROR(AppendReports(rows, absl::MakeSpan(&result, 1)));
    return result;
  }

  // The results are those of AppendReport on each row in turn, with one
  // liberty: a row that stores nothing (retry, conflict, closed round)
  // reports the agent's spend at the end of the batch, not at its place in
  // it. Stored rows report their running spend exactly, and first_charge
  // is set on the row that created the ledger entry.
  absl::Status AppendReports(absl::Span<const ReportRow* const> rows,
                             absl::Span<AppendResult> results) override {
    const size_t n = rows.size();
    // The batch statement takes the first row of each task with a positive
    // charge. Repeats of a task within the batch, and non-positive charges
    // (which SQLite still checks against a stored report first), are
    // decided after it.
    std::vector<size_t> batch, later;
    batch.reserve(n);
    absl::flat_hash_map<uint64_t, size_t> first_of_task;
    first_of_task.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const bool first = first_of_task.try_emplace(rows[i]->task_id, i).second;
      (first && rows[i]->epsilon_nanos > 0 ? batch : later).push_back(i);
    }
    std::vector<bool> decided(n, false);
    std::vector<bool> needs_spend(n, false);
    std::vector<size_t> one_by_one;
    absl::flat_hash_map<uint64_t, StoredReport> stored;
    if (!batch.empty()) {
      RETURN_IF_ERROR(
          RunBatch(rows, batch, results, decided, needs_spend, one_by_one,
                   stored));
    }
    // Groups over their cap and races, one at a time in input order.
    std::sort(one_by_one.begin(), one_by_one.end());
    for (const size_t i : one_by_one) {
      ASSIGN_OR_RETURN(results[i], AppendOne(*rows[i]));
      decided[i] = true;
    }
    for (const size_t i : later) {
      const ReportRow& row = *rows[i];
      const size_t first = first_of_task.at(row.task_id);
      if (first != i && decided[first]) {
        const AppendOutcome outcome = results[first].outcome;
        if (outcome == AppendOutcome::kStored) {
          results[i] = DecideAppend(row, {.stored = ViewOf(*rows[first])});
          needs_spend[i] = true;
          decided[i] = true;
          continue;
        }
        auto it = stored.find(row.task_id);
        if (it != stored.end() && (outcome == AppendOutcome::kIdenticalRetry ||
                                   outcome == AppendOutcome::kConflict)) {
          results[i] = DecideAppend(row, {.stored = ViewOf(it->second)});
          needs_spend[i] = true;
          decided[i] = true;
          continue;
        }
      }
      // The first of its task was refused (cap, closed round) or is this
      // row: exactly as AppendReport would.
      ASSIGN_OR_RETURN(results[i], AppendOne(row));
      decided[i] = true;
    }
    return FillSpend(rows, results, needs_spend);
  }

 private:
  absl::StatusOr<Result> Run(const Statement& s, Params& p) {
    if (!failure_.ok()) return failure_;
    absl::StatusOr<Result> result = c_.Run(s, p);
    if (!result.ok()) failure_ = result.status();
    return result;
  }

  // The batch statement over rows[batch[k]], then what its answers imply:
  // stored rows are decided; rows of groups that did not fit go to
  // one_by_one (their reports taken back out); rows whose task already
  // had a report are compared with it.
  absl::Status RunBatch(absl::Span<const ReportRow* const> rows,
                        const std::vector<size_t>& batch,
                        absl::Span<AppendResult> results,
                        std::vector<bool>& decided,
                        std::vector<bool>& needs_spend,
                        std::vector<size_t>& one_by_one,
                        absl::flat_hash_map<uint64_t, StoredReport>& stored) {
    const size_t m = batch.size();
    std::vector<int64_t> task(m), round(m), study(m), agent(m), eps(m), cap(m),
        received(m);
    std::vector<std::string_view> report_id(m), payload(m);
    for (size_t k = 0; k < m; ++k) {
      const ReportRow& row = *rows[batch[k]];
      task[k] = Signed(row.task_id);
      round[k] = Signed(row.round_id);
      study[k] = Signed(row.study_id);
      agent[k] = Signed(row.agent_id);
      report_id[k] = AsBytes(row.report_id);
      payload[k] = row.payload;
      eps[k] = row.epsilon_nanos;
      cap[k] = row.cap_nanos;
      received[k] = Nanos(row.received_at);
    }
    Params p;
    p.IntArray(task)
        .IntArray(round)
        .IntArray(study)
        .IntArray(agent)
        .BytesArray(report_id)
        .BytesArray(payload)
        .IntArray(eps)
        .IntArray(cap)
        .IntArray(received)
        .Int(writer_);
    ASSIGN_OR_RETURN(Result r, Run(kAppendBatch, p));
    if (r.rows() != static_cast<int>(m)) {
      return absl::InternalError(
          absl::StrCat("PostgreSQL append: ", r.rows(), " answers for ", m,
                       " reports"));
    }
    std::vector<bool> open(m), inserted(m);
    std::vector<std::optional<int64_t>> group_spent(m);
    for (int j = 0; j < r.rows(); ++j) {
      const int64_t ord = r.Int(j, 0);
      if (ord < 1 || ord > static_cast<int64_t>(m)) {
        return absl::InternalError("PostgreSQL append: answer out of range");
      }
      const size_t k = static_cast<size_t>(ord - 1);
      open[k] = r.Bool(j, 1);
      inserted[k] = r.Bool(j, 2);
      if (!r.IsNull(j, 3)) group_spent[k] = r.Int(j, 3);
    }

    // Charged groups: their spend before the batch is the final spend less
    // what the batch added; stored rows then count up from it in order.
    absl::flat_hash_map<GroupKey, int64_t> running;
    std::vector<int64_t> refused_tasks;
    std::vector<int64_t> existing_tasks;
    for (size_t k = 0; k < m; ++k) {
      if (inserted[k] && group_spent[k].has_value()) {
        running[KeyOf(*rows[batch[k]])] = *group_spent[k];
      }
    }
    for (size_t k = 0; k < m; ++k) {
      if (inserted[k] && group_spent[k].has_value()) {
        running[KeyOf(*rows[batch[k]])] -= rows[batch[k]]->epsilon_nanos;
      }
    }
    for (size_t k = 0; k < m; ++k) {
      const size_t i = batch[k];
      const ReportRow& row = *rows[i];
      if (inserted[k]) {
        if (!group_spent[k].has_value()) {
          refused_tasks.push_back(Signed(row.task_id));
          one_by_one.push_back(i);
          continue;
        }
        int64_t& spent = running[KeyOf(row)];
        results[i] = DecideAppend(row, {.spent_nanos = spent, .charged = true});
        spent += row.epsilon_nanos;
        decided[i] = true;
      } else {
        existing_tasks.push_back(Signed(row.task_id));
      }
    }
    if (!refused_tasks.empty()) {
      Params remove;
      remove.IntArray(refused_tasks);
      RETURN_IF_ERROR(Run(kDeleteReports, remove).status());
    }
    if (existing_tasks.empty()) return absl::OkStatus();

    // Tasks that were not inserted: already stored (retry or conflict), or
    // their round is not open.
    Params tasks;
    tasks.IntArray(existing_tasks);
    ASSIGN_OR_RETURN(Result found, Run(kStoredReports, tasks));
    for (int j = 0; j < found.rows(); ++j) {
      stored[static_cast<uint64_t>(found.Int(j, 0))] = {
          .report_id = std::string(found.Bytes(j, 1)),
          .payload = std::string(found.Bytes(j, 2)),
          .agent_id = static_cast<uint64_t>(found.Int(j, 3))};
    }
    for (size_t k = 0; k < m; ++k) {
      if (inserted[k]) continue;
      const size_t i = batch[k];
      const ReportRow& row = *rows[i];
      auto it = stored.find(row.task_id);
      if (it != stored.end()) {
        results[i] = DecideAppend(row, {.stored = ViewOf(it->second)});
      } else if (!open[k]) {
        results[i] = DecideAppend(row, {.round_open = false});
      } else {
        // Open round, not inserted, yet no report: the one in the way was
        // taken back out since. Decide it alone.
        one_by_one.push_back(i);
        continue;
      }
      needs_spend[i] = true;
      decided[i] = true;
    }
    return absl::OkStatus();
  }

  // Sets spent_nanos of the rows marked, from the ledger as it is now.
  absl::Status FillSpend(absl::Span<const ReportRow* const> rows,
                         absl::Span<AppendResult> results,
                         const std::vector<bool>& needs_spend) {
    absl::flat_hash_map<GroupKey, int64_t> spend;
    std::vector<int64_t> agents, studies;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!needs_spend[i]) continue;
      if (spend.try_emplace(KeyOf(*rows[i]), 0).second) {
        agents.push_back(Signed(rows[i]->agent_id));
        studies.push_back(Signed(rows[i]->study_id));
      }
    }
    if (agents.empty()) return absl::OkStatus();
    Params p;
    p.IntArray(agents).IntArray(studies);
    ASSIGN_OR_RETURN(Result r, Run(kLedgerSpent, p));
    for (int j = 0; j < r.rows(); ++j) {
      spend[{static_cast<uint64_t>(r.Int(j, 0)),
             static_cast<uint64_t>(r.Int(j, 1))}] = r.Int(j, 2);
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      if (needs_spend[i]) results[i].spent_nanos = spend[KeyOf(*rows[i])];
    }
    return absl::OkStatus();
  }

  // One report, as the SQLite store does it: insert (the task's primary
  // key dedupes), then charge, and take the report back out if the charge
  // does not fit. A task that already has a report is a retry or a
  // conflict even if its round has closed since.
  absl::StatusOr<AppendResult> AppendOne(const ReportRow& row) {
    Params p;
    p.Int(Signed(row.task_id))
        .Int(Signed(row.round_id))
        .Int(Signed(row.agent_id))
        .Bytes(AsBytes(row.report_id))
        .Bytes(row.payload)
        .Int(Nanos(row.received_at))
        .Int(writer_);
    ASSIGN_OR_RETURN(Result appended, Run(kAppendOne, p));
    const bool open = appended.Bool(0, 0);
    const bool inserted = appended.Bool(0, 1);
    if (!inserted) {
      Params q;
      q.Int(Signed(row.task_id)).Int(Signed(row.agent_id)).Int(
          Signed(row.study_id));
      ASSIGN_OR_RETURN(Result found, Run(kStoredOne, q));
      AppendFacts facts{.round_open = open,
                        .spent_nanos = found.IsNull(0, 0) ? 0 : found.Int(0, 0)};
      if (!found.IsNull(0, 1)) {
        facts.stored = StoredReportView{
            .report_id = found.Bytes(0, 1),
            .payload = found.Bytes(0, 2),
            .agent_id = static_cast<uint64_t>(found.Int(0, 3))};
      }
      if (facts.stored.has_value() || !open) return DecideAppend(row, facts);
      return absl::InternalError(absl::StrCat(
          "PostgreSQL append: task ", row.task_id,
          " was neither inserted nor found"));
    }
    // A repeated question (server/ledger_charge.h) is stored at no charge.
    if (row.epsilon_nanos == 0) return DecideAppend(row, {});
    if (row.epsilon_nanos > 0) {
      Params charge;
      charge.Int(Signed(row.agent_id))
          .Int(Signed(row.study_id))
          .Int(row.epsilon_nanos)
          .Int(row.cap_nanos);
      ASSIGN_OR_RETURN(Result charged, Run(kChargeOne, charge));
      if (charged.rows() == 1) {
        // The ledger answers the spend after this charge.
        return DecideAppend(
            row, {.spent_nanos = charged.Int(0, 0) - row.epsilon_nanos,
                  .charged = true});
      }
    }
    Params remove;
    remove.Int(Signed(row.task_id)).Int(Signed(row.agent_id)).Int(
        Signed(row.study_id));
    ASSIGN_OR_RETURN(Result removed, Run(kRemoveOne, remove));
    return DecideAppend(
        row, {.spent_nanos = removed.IsNull(0, 0) ? 0 : removed.Int(0, 0)});
  }

  Connection& c_;
  const int64_t writer_;
  absl::Status failure_;
};

// ---- The store ------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    const PostgresStoreOptions& options) {
  if (!IsPostgresUrl(options.url)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the PostgreSQL URL must look like postgresql://user@host:port/db, "
        "got \"",
        RedactPostgresUrl(options.url), "\""));
  }
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(options.url.c_str(), &parse_error);
  if (parsed == nullptr) {
    const std::string message =
        parse_error == nullptr ? "out of memory" : TrimMessage(parse_error);
    PQfreemem(parse_error);
    return absl::InvalidArgumentError(
        absl::StrCat("bad PostgreSQL URL \"", RedactPostgresUrl(options.url),
                     "\": ", message));
  }
  // libpq checks the port only when connecting, which Open would retry.
  std::string bad_port;
  for (const PQconninfoOption* o = parsed; o->keyword != nullptr; ++o) {
    if (std::string_view(o->keyword) != "port" || o->val == nullptr) continue;
    for (const absl::string_view port : absl::StrSplit(o->val, ',')) {
      int number = 0;
      if (!port.empty() &&
          (!absl::SimpleAtoi(port, &number) || number < 1 || number > 65535)) {
        bad_port = std::string(port.data(), port.size());
      }
    }
  }
  PQconninfoFree(parsed);
  if (!bad_port.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad port \"", bad_port, "\" in the PostgreSQL URL \"",
                     RedactPostgresUrl(options.url), "\""));
  }
  if (options.max_retries < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_retries must be >= 0, got ", options.max_retries));
  }
  if (options.connect_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("connect_timeout must be positive, got ",
                     absl::FormatDuration(options.connect_timeout)));
  }
  const std::string redacted = RedactPostgresUrl(options.url);
  const absl::Time deadline = absl::Now() + options.connect_timeout;
  std::unique_ptr<PostgresStore> store(new PostgresStore());
  store->max_retries_ = options.max_retries;
  store->writer_id_ = NewWriterId();
  {
    absl::MutexLock lock(&store->writer_mutex_);
    store->writer_ = std::make_unique<Connection>(options.url, redacted);
    RETURN_IF_ERROR(Final(store->writer_->Connect(deadline)));
    RETURN_IF_ERROR(Final(Migrate(*store->writer_)));
  }
  {
    absl::MutexLock lock(&store->reader_mutex_);
    store->reader_ = std::make_unique<Connection>(options.url, redacted);
    RETURN_IF_ERROR(Final(store->reader_->Connect(deadline)));
  }
  absl::MutexLock lock(&store->misc_mutex_);
  store->misc_ = std::make_unique<Connection>(options.url, redacted);
  RETURN_IF_ERROR(Final(store->misc_->Connect(deadline)));
  return store;
}

PostgresStore::~PostgresStore() = default;

absl::Status PostgresStore::Transact(
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  absl::MutexLock lock(&writer_mutex_);
  Connection& c = *writer_;
  for (int attempt = 0;; ++attempt) {
    absl::Status status;
    if (!c.healthy()) status = c.Connect(absl::Now());
    if (status.ok()) {
      status = c.Exec("begin", "BEGIN ISOLATION LEVEL READ COMMITTED").status();
    }
    if (status.ok()) {
      Transaction transaction(c, writer_id_.load());
      status = body(transaction);
      // A failed statement aborts the transaction whatever the body made
      // of its error; if the cause is transient, running again can help.
      const absl::Status& failure = transaction.failure();
      if (!failure.ok() && (status.ok() || IsRetryable(failure))) {
        status = failure;
      }
      if (status.ok()) {
        absl::StatusOr<Result> commit = c.Exec("commit", "COMMIT");
        // A lost COMMIT is ambiguous: the body runs again, and its
        // idempotent writes find what the first run committed, if it did.
        if (commit.ok()) return absl::OkStatus();
        status = commit.status();
      }
    }
    c.Abandon();
    if (!IsRetryable(status) || attempt >= max_retries_) {
      // A lost COMMIT may have committed after all, and the caller counts
      // nothing of a failed transaction. Such rows carry this writer id,
      // which polls skip; so take a new id and have the next poll read
      // everything not written under it (callers dedupe by task id).
      writer_id_ = NewWriterId();
      rescan_ = true;
      if (!IsRetryable(status)) return Final(status);
      return absl::UnavailableError(
          absl::StrCat("PostgreSQL transaction failed ", attempt + 1,
                       " times; last: ", status.message()));
    }
    Backoff(attempt);
  }
}

absl::Status PostgresStore::Read(
    const std::string& query, bool revisit_ok, uint64_t* snapshot_xmin,
    absl::FunctionRef<absl::Status(const Result&, int)> visit,
    absl::FunctionRef<void()> restart) {
  absl::MutexLock lock(&reader_mutex_);
  Connection& c = *reader_;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) restart();
    bool visited = false;
    absl::Status status = [&]() -> absl::Status {
      if (!c.healthy()) RETURN_IF_ERROR(c.Connect(absl::Now()));
      RETURN_IF_ERROR(
          c.Exec("begin read",
                 "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
              .status());
      Params none;
      if (snapshot_xmin != nullptr) {
        // The first statement takes the transaction's snapshot: this one.
        ASSIGN_OR_RETURN(
            Result xmin,
            c.RunOnce("snapshot",
                      "SELECT pg_snapshot_xmin(pg_current_snapshot())", none));
        *snapshot_xmin = static_cast<uint64_t>(xmin.Int(0, 0));
        // Following changes reads the newest rows by their xid. Until
        // autovacuum has analyzed the table, the planner guesses that a
        // third of it qualifies, and for a cursor it then picks a scan of
        // the whole table on every poll; the xid index is always right.
        RETURN_IF_ERROR(
            c.Exec("no seqscan", "SET LOCAL enable_seqscan = off").status());
      }
      RETURN_IF_ERROR(
          c.Exec("declare cursor",
                 absl::StrCat("DECLARE ldp_read NO SCROLL CURSOR FOR ", query)
                     .c_str())
              .status());
      const std::string fetch =
          absl::StrCat("FETCH FORWARD ", kFetchRows, " FROM ldp_read");
      for (;;) {
        ASSIGN_OR_RETURN(Result rows, c.RunOnce("fetch", fetch, none));
        for (int i = 0; i < rows.rows(); ++i) {
          visited = true;
          RETURN_IF_ERROR(visit(rows, i));
        }
        if (rows.rows() < kFetchRows) break;
      }
      return c.Exec("commit read", "COMMIT").status();
    }();
    if (status.ok()) return status;
    c.Abandon();
    if (!IsRetryable(status) || (visited && !revisit_ok) ||
        attempt >= kReadRetries) {
      return Final(status);
    }
    Backoff(attempt);
  }
}

absl::Status PostgresStore::ForEachAgent(
    absl::FunctionRef<absl::Status(const AgentRow&)> visit) {
  return Read(
      "SELECT agent_id, credential_hash, enrolled_at, enrollment_batch "
      "FROM agents ORDER BY agent_id",
      /*revisit_ok=*/false, nullptr,
      [&](const Result& r, int i) -> absl::Status {
        ASSIGN_OR_RETURN(const AgentRow agent, AgentFromRow(r, i));
        return visit(agent);
      },
      [] {});
}

absl::StatusOr<std::vector<StudyRow>> PostgresStore::LoadStudies() {
  std::vector<StudyRow> studies;
  RETURN_IF_ERROR(Read(
      "SELECT study_id, spec, request_id, state, created_at FROM studies "
      "ORDER BY study_id",
      /*revisit_ok=*/true, nullptr,
      [&](const Result& r, int i) -> absl::Status {
        studies.push_back({.study_id = static_cast<uint64_t>(r.Int(i, 0)),
                           .spec = std::string(r.Bytes(i, 1)),
                           .request_id = r.IsNull(i, 2)
                                             ? std::string()
                                             : std::string(r.Bytes(i, 2)),
                           .state = static_cast<StudyState>(r.Int(i, 3)),
                           .created_at = FromNanos(r.Int(i, 4))});
        return absl::OkStatus();
      },
      [&] { studies.clear(); }));
  return studies;
}

absl::StatusOr<std::vector<RoundRow>> PostgresStore::LoadRounds() {
  std::vector<RoundRow> rounds;
  RETURN_IF_ERROR(Read(
      "SELECT round_id, study_id, state, start_time, deadline, plan "
      "FROM rounds ORDER BY round_id",
      /*revisit_ok=*/true, nullptr,
      [&](const Result& r, int i) -> absl::Status {
        rounds.push_back({.round_id = static_cast<uint64_t>(r.Int(i, 0)),
                          .study_id = static_cast<uint64_t>(r.Int(i, 1)),
                          .state = static_cast<RoundState>(r.Int(i, 2)),
                          .start_time = FromNanos(r.Int(i, 3)),
                          .deadline = FromNanos(r.Int(i, 4)),
                          .plan = std::string(r.Bytes(i, 5))});
        return absl::OkStatus();
      },
      [&] { rounds.clear(); }));
  return rounds;
}

namespace {

absl::Status VisitReport(const Result& r, int i, ReportRow& report,
                         absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  report.task_id = static_cast<uint64_t>(r.Int(i, 0));
  report.round_id = static_cast<uint64_t>(r.Int(i, 1));
  report.agent_id = static_cast<uint64_t>(r.Int(i, 2));
  RETURN_IF_ERROR(CheckReportId(r.Bytes(i, 3), report.task_id, report.report_id));
  report.payload.assign(r.Bytes(i, 4));
  report.received_at = FromNanos(r.Int(i, 5));
  return visit(report);
}

}  // namespace

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

// Exact change-following with the writers' transaction ids (reports.xid).
// In one REPEATABLE READ snapshot we read X, the snapshot's xmin, and every
// report whose writing transaction's id is ≥ the cursor; the next cursor
// is X. Nothing is missed: every transaction with an id below X had ended
// when the snapshot was taken, so what it committed is visible to this
// poll; one still running then, or started since, has an id ≥ X, so the
// next poll reads its reports once it commits. Reports of transactions
// with ids ≥ X that this poll saw are read again by the next one: callers
// dedupe by task id.
absl::Status PostgresStore::PollReports(
    uint64_t* cursor, absl::FunctionRef<absl::Status(const ReportRow&)> visit) {
  uint64_t xmin = 0;
  ReportRow report;
  // This store's own rows are skipped: its caller counted them when their
  // transaction committed (or counts them from the retry that finds them).
  const uint64_t from = rescan_.exchange(false) ? 0 : *cursor;
  RETURN_IF_ERROR(Read(
      absl::StrCat("SELECT task_id, round_id, agent_id, report_id, payload, "
                   "received_at FROM reports WHERE xid >= '",
                   from, "'::xid8 AND writer <> ", writer_id_.load()),
      /*revisit_ok=*/true, &xmin,
      [&](const Result& r, int i) { return VisitReport(r, i, report, visit); },
      [] {}));
  *cursor = xmin;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<LedgerSummary>> PostgresStore::SummarizeLedger() {
  std::vector<LedgerSummary> summaries;
  RETURN_IF_ERROR(Read(
      "SELECT study_id, count(*), max(spent_nanos) FROM ledger "
      "GROUP BY study_id ORDER BY study_id",
      /*revisit_ok=*/true, nullptr,
      [&](const Result& r, int i) -> absl::Status {
        summaries.push_back({.study_id = static_cast<uint64_t>(r.Int(i, 0)),
                             .num_agents = r.Int(i, 1),
                             .max_spent_nanos = r.Int(i, 2)});
        return absl::OkStatus();
      },
      [&] { summaries.clear(); }));
  return summaries;
}

namespace {

// Runs one autocommit statement on `c`, reconnecting after a lost
// connection a few times.
absl::StatusOr<Result> RunWithRetries(Connection& c, const Statement& s,
                                      Params& params) {
  for (int attempt = 0;; ++attempt) {
    absl::Status status;
    if (!c.healthy()) status = c.Connect(absl::Now());
    if (status.ok()) {
      absl::StatusOr<Result> result = c.Run(s, params);
      if (result.ok()) return result;
      status = result.status();
    }
    if (!IsRetryable(status) || attempt >= kReadRetries) return Final(status);
    Backoff(attempt);
  }
}

}  // namespace

absl::StatusOr<uint64_t> PostgresStore::ReserveIds(IdKind kind, int64_t count) {
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReserveIds: count must be >= 1, got ", count));
  }
  Params p;
  p.Int(static_cast<int64_t>(kind)).Int(count);
  absl::MutexLock lock(&misc_mutex_);
  // A retry after a lost connection may skip a block that was reserved
  // but never answered: ids are forfeited, never shared.
  ASSIGN_OR_RETURN(Result r, RunWithRetries(*misc_, kReserveIds, p));
  if (r.rows() != 1) {
    return absl::DataLossError(absl::StrCat(
        "table id_blocks has no row for id kind ", static_cast<int>(kind)));
  }
  return static_cast<uint64_t>(r.Int(0, 0));
}

absl::StatusOr<std::optional<AgentRow>> PostgresStore::FindAgent(
    uint64_t agent_id) {
  Params p;
  p.Int(Signed(agent_id));
  absl::MutexLock lock(&misc_mutex_);
  ASSIGN_OR_RETURN(Result r, RunWithRetries(*misc_, kFindAgent, p));
  if (r.rows() == 0) return std::nullopt;
  ASSIGN_OR_RETURN(AgentRow agent, AgentFromRow(r, 0));
  return agent;
}

absl::StatusOr<std::vector<LedgerEntry>> PostgresStore::GetLedger(
    uint64_t agent_id, uint64_t study_id) {
  Params p;
  p.Int(Signed(agent_id));
  if (study_id != 0) p.Int(Signed(study_id));
  absl::MutexLock lock(&misc_mutex_);
  ASSIGN_OR_RETURN(
      Result r,
      RunWithRetries(*misc_, study_id == 0 ? kLedgerAll : kLedgerOne, p));
  std::vector<LedgerEntry> entries;
  for (int i = 0; i < r.rows(); ++i) {
    entries.push_back({.study_id = static_cast<uint64_t>(r.Int(i, 0)),
                       .cap_nanos = r.Int(i, 1),
                       .spent_nanos = r.Int(i, 2)});
  }
  return entries;
}

}  // namespace ldp
