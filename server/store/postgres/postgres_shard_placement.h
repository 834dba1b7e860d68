// The check that a database is the shard it is opened as.
//
// Why: a sharded store finds an agent's rows by the agent id alone
// (shard_map.h), so a shard list given in another order, or with a shard
// more or less, would look for agents where they are not and enroll new
// ones beside them. Each database records, at its first open as a shard,
// which shard of how many it is, and is refused as anything else.
#ifndef LDP_SERVER_STORE_POSTGRES_POSTGRES_SHARD_PLACEMENT_H_
#define LDP_SERVER_STORE_POSTGRES_POSTGRES_SHARD_PLACEMENT_H_

#include "absl/status/status.h"
#include "server/store/shard_map.h"

namespace ldp::postgres_internal {

class Connection;

// Records `position` in a database that has no placement yet (a store on
// one database records nothing); FailedPrecondition for a database placed
// otherwise, or holding agents but never placed, opened as one of several.
absl::Status ClaimShardPlacement(Connection& c, ShardPosition position);

}  // namespace ldp::postgres_internal

#endif  // LDP_SERVER_STORE_POSTGRES_POSTGRES_SHARD_PLACEMENT_H_
