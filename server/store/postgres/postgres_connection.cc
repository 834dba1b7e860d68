// The PostgreSQL wire layer; see the header.
#include "server/store/postgres/postgres_connection.h"

#include <algorithm>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/base/status_macros.h"

namespace ldp::postgres_internal {
namespace {

// A statement stuck behind a lock (say, of a replica hung mid-transaction)
// fails instead of stalling the writer for good.
constexpr const char* kStatementTimeout = "SET statement_timeout = '60s'";

constexpr const char* kRetryablePayload = "ldp.postgres/retryable";

}  // namespace

absl::Status Retryable(absl::Status status) {
  status.SetPayload(kRetryablePayload, absl::Cord("1"));
  return status;
}

bool IsRetryable(const absl::Status& status) {
  return status.GetPayload(kRetryablePayload).has_value();
}

absl::Status Final(absl::Status status) {
  status.ErasePayload(kRetryablePayload);
  return status;
}

void Backoff(int attempt) {
  absl::SleepFor(std::min(absl::Milliseconds(10) * (1 << std::min(attempt, 7)),
                          absl::Seconds(1)));
}

std::string TrimMessage(const char* message) {
  return absl::StrReplaceAll(
      absl::StripTrailingAsciiWhitespace(message == nullptr ? "" : message),
      {{"\n\t", " "}, {"\n", "; "}});
}

absl::Status Connection::Connect(absl::Time deadline) {
  absl::Duration wait = absl::Milliseconds(100);
  for (;;) {
    Close();
    const absl::Duration left = deadline - absl::Now();
    // libpq's connect_timeout is whole seconds, at least 2.
    const int64_t seconds = std::clamp<int64_t>(
        absl::ToInt64Seconds(absl::Ceil(left, absl::Seconds(1))), 2, 10);
    const std::string timeout = absl::StrCat(seconds);
    // Defaults before the URL, which may override them (libpq applies
    // keywords in order). read-write: of the hosts a URL lists (a primary
    // and its standbys), only the primary takes the connection, so after a
    // failover the reconnect finds the new one.
    const char* keywords[] = {"application_name", "connect_timeout",
                              "target_session_attrs", "dbname", nullptr};
    const char* values[] = {"ldp-server", timeout.c_str(), "read-write",
                            url_.c_str(), nullptr};
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
      return Retryable(absl::UnavailableError(absl::StrCat(
          "cannot connect to PostgreSQL at ", redacted_url_, ": ", message)));
    }
    absl::SleepFor(wait);
    wait = std::min(wait * 2, absl::Seconds(1));
  }
}

void Connection::Close() {
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  prepared_.clear();
}

absl::StatusOr<Result> Connection::Exec(const char* what, const char* sql) {
  if (!healthy()) return Lost(what);
  Result result(PQexec(conn_, sql));
  return Check(std::move(result), what);
}

absl::StatusOr<Result> Connection::Run(const Statement& s, Params& params) {
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

absl::StatusOr<Result> Connection::RunOnce(const char* what,
                                           const std::string& sql,
                                           Params& params) {
  if (!healthy()) return Lost(what);
  params.Finish();
  Result result(PQexecParams(conn_, sql.c_str(), params.size(), params.types(),
                             params.values(), params.lengths(),
                             params.formats(),
                             /*resultFormat=*/1));
  return Check(std::move(result), what);
}

void Connection::Abandon() {
  if (!healthy()) return;
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    PQclear(PQexec(conn_, "ROLLBACK"));
  }
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) Close();
}

absl::Status Connection::Lost(const char* what) {
  return Retryable(absl::UnavailableError(
      absl::StrCat("PostgreSQL ", what, ": not connected to ", redacted_url_)));
}

absl::StatusOr<Result> Connection::Check(Result result, const char* what) {
  // A null result (out of memory, lost connection) is PGRES_FATAL_ERROR.
  const ExecStatusType status = PQresultStatus(result.get());
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
    return result;
  }
  return Error(result.get(), what);
}

absl::Status Connection::Error(const PGresult* r, const char* what) {
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
  // 25006: a write on a server that is (now) a standby, as when the
  // primary this connection reached was demoted; a new connection finds
  // the primary.
  if (absl::StartsWith(code, "08") || code == "57P01" || code == "57P02" ||
      code == "57P03" || code == "25006") {
    Close();
    return Retryable(absl::UnavailableError(message));
  }
  if (code == "57014") return absl::DeadlineExceededError(message);
  if (absl::StartsWith(code, "53")) {
    return absl::ResourceExhaustedError(message);
  }
  return absl::InternalError(message);
}

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

}  // namespace ldp::postgres_internal
