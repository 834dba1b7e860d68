// The SQLite store's schema (versioned with PRAGMA user_version) and the
// connection settings it relies on.
//
// Why apart from the store: a file written by an older release must open
// with its rows kept, so the schema moves forward in recorded migrations
// that are never edited once released; they, and the settings that make a
// commit durable (WAL, synchronous=FULL), are one concern the store's
// reads and writes build on.
#ifndef LDP_SERVER_STORE_SQLITE_SQLITE_SCHEMA_H_
#define LDP_SERVER_STORE_SQLITE_SQLITE_SCHEMA_H_

#include <sqlite3.h>

#include "absl/status/status.h"

namespace ldp::sqlite_internal {

// WAL mode, synchronous=FULL and the checkpoint and cache settings, with
// `cache_kib` of page cache. FailedPrecondition when the file cannot use
// WAL.
absl::Status Configure(sqlite3* db, int cache_kib);

// Applies the migrations the database lacks, all in one transaction.
// FailedPrecondition for a newer schema than this binary knows, or for a
// file that holds tables of something else.
absl::Status EnsureSchema(sqlite3* db);

}  // namespace ldp::sqlite_internal

#endif  // LDP_SERVER_STORE_SQLITE_SQLITE_SCHEMA_H_
