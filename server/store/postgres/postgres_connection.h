// The PostgreSQL store's wire layer: one libpq connection, the binary
// parameters it sends and the binary results it reads, and which errors
// are worth running a transaction again for.
//
// Why apart from the store: the store's logic (transactions, the append
// path, loads and polls) reads as SQL and rows; the byte formats, the
// prepare-on-first-use and the mapping of SQLSTATEs to absl codes are one
// concern below it, shared by all of them.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_CONNECTION_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_CONNECTION_H_

#include <libpq-fe.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "server/store/store.h"

namespace ldp::postgres_internal {

// Type OIDs of the parameters we send (pg_type.h is a server header).
inline constexpr Oid kInt8Oid = 20;
inline constexpr Oid kTextOid = 25;
inline constexpr Oid kByteaOid = 17;
inline constexpr Oid kInt8ArrayOid = 1016;
inline constexpr Oid kByteaArrayOid = 1001;

// Loads and the small calls are retried this often after a lost
// connection; Transact uses the configured max_retries.
inline constexpr int kReadRetries = 5;

// Ids and times travel as 8 big-endian bytes.
inline int64_t Nanos(absl::Time t) { return absl::ToUnixNanos(t); }
inline absl::Time FromNanos(int64_t n) { return absl::FromUnixNanos(n); }
inline int64_t Signed(uint64_t v) { return static_cast<int64_t>(v); }

inline void PutBig32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  }
}
inline void PutBig64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((v >> shift) & 0xff));
  }
}
inline uint64_t GetBig(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(p[i]);
  return v;
}

inline std::string_view AsBytes(const ReportId& id) {
  return {reinterpret_cast<const char*>(id.data()), id.size()};
}
inline std::string_view AsBytes(const CredentialHash& hash) {
  return {reinterpret_cast<const char*>(hash.data()), hash.size()};
}

// Errors worth running a transaction (or a read) again for carry a payload
// that marks them: serialization failures, deadlocks, lost connections.
absl::Status Retryable(absl::Status status);
bool IsRetryable(const absl::Status& status);
// The status as callers see it: the marker is ours alone.
absl::Status Final(absl::Status status);
// Sleeps before attempt `attempt` + 1: 10 ms doubling up to 1 s.
void Backoff(int attempt);
// libpq's messages end in a newline and may span lines; ours are one line.
std::string TrimMessage(const char* message);

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
  absl::Status Connect(absl::Time deadline);
  void Close();

  // A command without parameters or rows (BEGIN, COMMIT, migrations: may
  // hold several statements).
  absl::StatusOr<Result> Exec(const char* what, const char* sql);
  // A statement prepared on first use on this connection.
  absl::StatusOr<Result> Run(const Statement& s, Params& params);
  // A one-off statement, with binary results.
  absl::StatusOr<Result> RunOnce(const char* what, const std::string& sql,
                                 Params& params);

  // Rolls back whatever transaction is open; a connection that cannot be
  // brought back to idle is closed (the next use reconnects).
  void Abandon();

 private:
  absl::Status Lost(const char* what);
  absl::StatusOr<Result> Check(Result result, const char* what);
  absl::Status Error(const PGresult* r, const char* what);

  const std::string url_;
  const std::string redacted_url_;
  PGconn* conn_ = nullptr;
  absl::flat_hash_set<const char*> prepared_;
};

// Runs one autocommit statement on `c`, reconnecting after a lost
// connection a few times.
absl::StatusOr<Result> RunWithRetries(Connection& c, const Statement& s,
                                      Params& params);

}  // namespace ldp::postgres_internal

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_CONNECTION_H_
