// The PostgreSQL store's schema, as an ordered list of migrations, and
// the code that applies them at open.
//
// Why migrations rather than one CREATE script: several servers share one
// database and are upgraded one at a time, so the schema must move forward
// in recorded steps (table schema_migrations) that a newer binary applies
// once and an older binary can recognise as "newer than I know" and refuse.
// A released migration is never edited: a change is a new, higher version.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_SCHEMA_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_SCHEMA_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace ldp::postgres_internal {
class Connection;
}  // namespace ldp::postgres_internal

namespace ldp::postgres_schema {

struct Migration {
  int version = 0;  // ≥ 1, strictly increasing along the list
  const char* sql = nullptr;
  // Run after `sql` in the same transaction, when the change is to rows
  // rather than tables (nullptr: none).
  absl::Status (*rewrite)(postgres_internal::Connection& c) = nullptr;
};

// Every migration this binary knows, in the order they are applied.
absl::Span<const Migration> Migrations();

// The highest version in Migrations().
int LatestVersion();

// Key of the transaction-scoped advisory lock that serializes migrations,
// so replicas starting together neither race nor fail on each other's
// CREATE TABLE. Advisory locks are per database; the value only has to be
// one no other application on the database uses ("LDPSCHEM" in ASCII).
inline constexpr int64_t kMigrationLockKey = 0x4C44505343484D;

// Applies the migrations `c`'s database lacks, in one transaction under
// the advisory lock: replicas starting together apply each migration once,
// and a failed migration leaves nothing behind. FailedPrecondition for a
// database with a newer schema than this binary knows, or with tables of
// something else.
absl::Status Migrate(postgres_internal::Connection& c);

// Where a migrated database's reports changed how they are counted, as
// transaction ids (table deltas_since).
struct Eras {
  // Reports stored by a transaction with this id or a later one are
  // counted by a delta (Store::PollDeltas), earlier ones only by their
  // payload (version 8).
  uint64_t deltas_since = 0;
  // From this id on, the deltas also name their reports' tasks, so the
  // report rows need not be read (version 9).
  uint64_t tasks_since = 0;
};
absl::StatusOr<Eras> ReadEras(postgres_internal::Connection& c);

}  // namespace ldp::postgres_schema

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_SCHEMA_H_
