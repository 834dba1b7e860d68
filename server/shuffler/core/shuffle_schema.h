// The shuffler database's schema, versioned with PRAGMA user_version so a
// later release can migrate it and an older one refuses a newer file.
#ifndef LDP_SERVER_SHUFFLER_CORE_SHUFFLE_SCHEMA_H_
#define LDP_SERVER_SHUFFLER_CORE_SHUFFLE_SCHEMA_H_

#include "absl/status/status.h"
#include "server/shuffler/core/sqlite_db.h"

namespace ldp::shuffler_internal {

// Creates the tables in an empty file; FAILED_PRECONDITION for a file that
// holds other tables or a newer schema.
absl::Status EnsureShuffleSchema(SqliteDb& db);

}  // namespace ldp::shuffler_internal

#endif  // LDP_SERVER_SHUFFLER_CORE_SHUFFLE_SCHEMA_H_
