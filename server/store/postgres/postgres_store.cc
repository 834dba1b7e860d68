// PostgreSQL store; see the header.
//
// Every statement is sent with binary parameters and asks for binary
// results: ids and times travel as 8 big-endian bytes and blobs as they
// are, with no text escaping of payloads either way (postgres_connection.h).
// This file opens the store, runs transactions and loads; the reads of
// reports and deltas are in postgres_report_reads.cc, the writes in
// postgres_transaction.cc and postgres_append.cc, the SQL in
// postgres_statements.h.
#include "server/store/postgres/postgres_store.h"

#include <libpq-fe.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "server/store/postgres/postgres_connection.h"
#include "server/store/postgres/postgres_schema.h"
#include "server/store/postgres/postgres_shard_placement.h"
#include "server/store/postgres/postgres_statements.h"
#include "server/store/postgres/postgres_transaction.h"

namespace ldp {

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
  for (size_t pos = 0;
       (pos = out.find("password=", pos)) != std::string::npos;) {
    const bool at_key = pos == 0 || out[pos - 1] == '?' ||
                        out[pos - 1] == '&' || out[pos - 1] == ' ';
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

using postgres_internal::AgentFromRow;
using postgres_internal::Backoff;
using postgres_internal::Connection;
using postgres_internal::Final;
using postgres_internal::FromNanos;
using postgres_internal::IsRetryable;
using postgres_internal::kFindAgent;
using postgres_internal::kLedgerAll;
using postgres_internal::kLedgerOne;
using postgres_internal::kLoadRoundStatistics;
using postgres_internal::kReadRetries;
using postgres_internal::kReserveAgentBlock;
using postgres_internal::kReserveIds;
using postgres_internal::kSaveRoundStatistics;
using postgres_internal::Params;
using postgres_internal::Result;
using postgres_internal::RunWithRetries;
using postgres_internal::Signed;
using postgres_internal::Transaction;
using postgres_internal::TrimMessage;

namespace {

// Reads per FETCH of a streaming load: large enough that round trips do
// not dominate, small enough that one fetch of reports stays a few MiB.
constexpr int kFetchRows = 10'000;

// A random positive id per store instance (and per failed transaction):
// which rows a poll may skip. Not secret; the system generator is simply
// the one at hand, and the clock stands in should it fail.
int64_t NewWriterId() {
  const uint64_t id = RandomWord().value_or(
      static_cast<uint64_t>(absl::ToUnixNanos(absl::Now())));
  return static_cast<int64_t>((id >> 1) | 1);
}

// What Open can tell of the options without a server. libpq checks the
// port only when connecting, which Open would retry: so it is checked here.
absl::Status CheckOptions(const PostgresStoreOptions& options) {
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
    return absl::InvalidArgumentError(
        absl::StrCat("max_retries must be >= 0, got ", options.max_retries));
  }
  if (options.connect_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("connect_timeout must be positive, got ",
                     absl::FormatDuration(options.connect_timeout)));
  }
  return absl::OkStatus();
}

}  // namespace

// ---- The store ------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(
    const PostgresStoreOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  const std::string redacted = RedactPostgresUrl(options.url);
  const absl::Time deadline = absl::Now() + options.connect_timeout;
  std::unique_ptr<PostgresStore> store(new PostgresStore());
  store->max_retries_ = options.max_retries;
  store->writer_id_ = NewWriterId();
  {
    absl::MutexLock lock(&store->writer_mutex_);
    store->writer_ = std::make_unique<Connection>(options.url, redacted);
    RETURN_IF_ERROR(Final(store->writer_->Connect(deadline)));
    RETURN_IF_ERROR(Final(postgres_schema::Migrate(*store->writer_)));
    absl::StatusOr<postgres_schema::Eras> eras =
        postgres_schema::ReadEras(*store->writer_);
    if (!eras.ok()) return Final(eras.status());
    store->deltas_since_ = eras->deltas_since;
    store->tasks_since_ = eras->tasks_since;
  }
  {
    absl::MutexLock lock(&store->reader_mutex_);
    store->reader_ = std::make_unique<Connection>(options.url, redacted);
    RETURN_IF_ERROR(Final(store->reader_->Connect(deadline)));
  }
  absl::MutexLock lock(&store->misc_mutex_);
  store->misc_ = std::make_unique<Connection>(options.url, redacted);
  RETURN_IF_ERROR(Final(store->misc_->Connect(deadline)));
  RETURN_IF_ERROR(Final(
      postgres_internal::ClaimShardPlacement(*store->misc_, options.shard)));
  return store;
}

PostgresStore::~PostgresStore() = default;

void PostgresStore::RenewWriterId() {
  writer_id_ = NewWriterId();
  rescan_reports_ = true;
  rescan_deltas_ = true;
}

absl::Status PostgresStore::Transact(
    absl::FunctionRef<absl::Status(StoreTransaction&)> body) {
  absl::MutexLock lock(&writer_mutex_);
  Connection& c = *writer_;
  for (int attempt = 0;; ++attempt) {
    absl::Status status;
    bool committing = false;
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
        committing = true;
        absl::StatusOr<Result> commit = c.Exec("commit", "COMMIT");
        // A lost COMMIT is ambiguous: the body runs again, and its
        // idempotent writes find what the first run committed, if it did.
        if (commit.ok()) return absl::OkStatus();
        status = commit.status();
      }
    }
    c.Abandon();
    // A failed COMMIT may have committed after all (a lost reply), and
    // then nothing counts its rows: the caller counts what a later attempt
    // returns, in which those reports are identical retries that its delta
    // leaves out, or nothing if every attempt fails. The rows carry this
    // writer id, which this store's polls skip; so the next attempt writes
    // under a new one, and the next polls read everything not written
    // under it, from the start (callers dedupe by task and delta id). Any
    // earlier failure rolled everything back.
    if (committing) RenewWriterId();
    if (!IsRetryable(status) || attempt >= max_retries_) {
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
      RETURN_IF_ERROR(c.Exec("begin read",
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

absl::Status PostgresStore::SaveRoundStatistics(int database, uint64_t round_id,
                                                std::string_view statistics) {
  if (database != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("no database ", database, " in a store on one database"));
  }
  Params p;
  p.Int(Signed(round_id)).Bytes(statistics);
  absl::MutexLock lock(&misc_mutex_);
  return RunWithRetries(*misc_, kSaveRoundStatistics, p).status();
}

absl::StatusOr<std::vector<std::optional<std::string>>>
PostgresStore::LoadRoundStatistics(uint64_t round_id) {
  Params p;
  p.Int(Signed(round_id));
  absl::MutexLock lock(&misc_mutex_);
  ASSIGN_OR_RETURN(Result r, RunWithRetries(*misc_, kLoadRoundStatistics, p));
  std::vector<std::optional<std::string>> statistics(1);
  if (r.rows() == 1) statistics[0] = std::string(r.Bytes(0, 0));
  return statistics;
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

absl::StatusOr<uint64_t> PostgresStore::ReserveAgentBlock(int logical) {
  if (logical < 0 || logical >= ShardMap::kLogicalShards) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReserveAgentBlock: no logical shard ", logical));
  }
  // Logical shard l's blocks are l, l + 256, l + 512, ... (ShardMap); its
  // counter is id_blocks row 100 + l, created at its first use and
  // answering l + 256 first: block l itself is skipped, so that no block
  // holds id 0.
  constexpr int64_t kStride = int64_t{ShardMap::kLogicalShards} *
                              static_cast<int64_t>(ShardMap::kAgentBlock);
  Params p;
  p.Int(100 + logical)
      .Int(static_cast<int64_t>(logical) * ShardMap::kAgentBlock + 2 * kStride)
      .Int(kStride);
  absl::MutexLock lock(&misc_mutex_);
  ASSIGN_OR_RETURN(Result r, RunWithRetries(*misc_, kReserveAgentBlock, p));
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
