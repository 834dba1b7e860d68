// A database's shard placement; see the header.
#include "server/store/postgres/postgres_shard_placement.h"

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "server/store/postgres/postgres_connection.h"

namespace ldp::postgres_internal {
namespace {

// Insert-if-absent and read back, in one statement: servers opening one
// database together agree on the first placement written.
constexpr Statement kClaimPlacement = {
    "ldp_claim_shard_placement",
    "WITH claim AS (INSERT INTO shard_placement(shard, shards) "
    "SELECT $1::int4, $2::int4 WHERE $2::int4 > 1 "
    "AND NOT EXISTS (SELECT 1 FROM agents) "
    "ON CONFLICT (only_row) DO NOTHING RETURNING shard, shards) "
    "SELECT shard::int8, shards::int8 FROM claim UNION ALL "
    "SELECT shard::int8, shards::int8 FROM shard_placement "
    "UNION ALL SELECT -1, (SELECT count(*) FROM "
    "(SELECT 1 FROM agents LIMIT 1) a) LIMIT 1"};

std::string Name(int64_t shard, int64_t shards) {
  if (shards <= 1) return "the only database of an unsharded store";
  return absl::StrCat("shard ", shard + 1, " of ", shards);
}

}  // namespace

absl::Status ClaimShardPlacement(Connection& c, ShardPosition position) {
  Params p;
  p.Int(position.shard).Int(position.shards);
  ASSIGN_OR_RETURN(Result r, RunWithRetries(c, kClaimPlacement, p));
  // One row: the placement claimed or found; else (-1, whether the
  // database holds agents).
  const int64_t shard = r.Int(0, 0);
  const int64_t value = r.Int(0, 1);
  const std::string asked = Name(position.shard, position.shards);
  if (shard >= 0) {
    if (shard == position.shard && value == position.shards) {
      return absl::OkStatus();
    }
    return absl::FailedPreconditionError(
        absl::StrCat("this database is ", Name(shard, value),
                     " of a sharded store, but "
                     "was given as ",
                     asked,
                     "; list every shard's URL in --db, in the "
                     "order they were first given"));
  }
  if (position.shards > 1 && value > 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "this database holds agents of an unsharded store and cannot become ",
        asked, ": its agents would be looked for on other shards"));
  }
  return absl::OkStatus();
}

}  // namespace ldp::postgres_internal
