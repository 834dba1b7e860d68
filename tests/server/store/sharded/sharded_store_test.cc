// The sharded store against real PostgreSQL: two databases of the
// throwaway cluster of tests/postgres/with_postgres.sh, looked at behind
// the store's back. Which rows live where, what a shard's lane refuses,
// rounds closed on every shard, polls of reports and deltas and summaries
// merged, and the placement check that keeps a shard list from being
// reordered.
#include "server/store/sharded/sharded_store.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/server/store/store_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::FollowEveryReportRow;
using store_testing::PostgresTestDatabase;
using store_testing::Report;
using store_testing::SqlValue;
using testing::IsOkAndHolds;
using testing::StatusIs;

// The first agent id of a block of logical shard `logical` (ShardMap):
// logical < 128 is on shard 0 of two, the rest on shard 1.
constexpr uint64_t AgentOf(int logical) {
  return (ShardMap::kLogicalShards + logical) * ShardMap::kAgentBlock;
}

class ShardedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto& db : dbs_) {
      db.Create();
      if (HasFatalFailure()) return;
    }
  }

  std::unique_ptr<ShardedStore> Open(bool reversed = false) {
    std::vector<std::string> urls = {dbs_[0].url(), dbs_[1].url()};
    if (reversed) std::swap(urls[0], urls[1]);
    auto store = ShardedStore::Open({.urls = urls});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // A store with round 1 of study 1 open on every shard.
  std::unique_ptr<ShardedStore> OpenWithRound() {
    auto store = Open();
    if (store == nullptr) return nullptr;
    EXPECT_OK(store->Transact([](StoreTransaction& t) {
      RETURN_IF_ERROR(t.InsertStudy({.study_id = 1, .spec = "s"}).status());
      return t.InsertRound({.round_id = 1, .study_id = 1, .plan = "p"});
    }));
    return store;
  }

  static ReportRow ReportOf(uint64_t agent, uint64_t task) {
    ReportRow row = Report(task, static_cast<uint8_t>(task));
    row.agent_id = agent;
    return row;
  }

  static absl::StatusOr<AppendResult> AppendOn(Store& store, int shard,
                                               const ReportRow& row) {
    AppendResult result;
    RETURN_IF_ERROR(store.TransactShard(shard, [&](StoreTransaction& t) {
      ASSIGN_OR_RETURN(result, t.AppendReport(row));
      return absl::OkStatus();
    }));
    return result;
  }

  std::string Count(int db, const std::string& from_where) {
    return SqlValue(dbs_[db].url(), "SELECT count(*) FROM " + from_where);
  }

  PostgresTestDatabase dbs_[2];
};

TEST_F(ShardedStoreTest, RowsLiveOnTheirAgentsShardAndRoundsOnEvery) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  for (int logical : {3, 200}) {
    const uint64_t agent = AgentOf(logical);
    const int shard = logical < 128 ? 0 : 1;
    ASSERT_EQ(store->shard_map()->ShardOfAgent(agent), shard);
    ASSERT_OK(store->TransactShard(shard, [&](StoreTransaction& t) {
      return t.InsertAgent({.agent_id = agent});
    }));
    ASSERT_THAT(AppendOn(*store, shard, ReportOf(agent, agent << 12)),
                IsOkAndHolds(::testing::Field(&AppendResult::outcome,
                                              AppendOutcome::kStored)));
  }
  for (int db : {0, 1}) {
    const std::string own = absl::StrCat(" WHERE (agent_id / 1024) % 256 ",
                                         db == 0 ? "<" : ">=", " 128");
    EXPECT_EQ(Count(db, "agents"), "1");
    EXPECT_EQ(Count(db, "agents" + own), "1");
    EXPECT_EQ(Count(db, "reports" + own), "1");
    EXPECT_EQ(Count(db, "ledger" + own), "1");
    EXPECT_EQ(Count(db, "rounds WHERE state = 1"), "1");
  }
  EXPECT_EQ(Count(0, "studies"), "1");
  EXPECT_EQ(Count(1, "studies"), "0");
  int visited = 0;
  ASSERT_OK(store->ForEachReport([&](const ReportRow&) {
    ++visited;
    return absl::OkStatus();
  }));
  EXPECT_EQ(visited, 2);
}

TEST_F(ShardedStoreTest, AShardsLaneRefusesOtherShardsRowsAndTheCatalog) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(AppendOn(*store, 0, ReportOf(AgentOf(200), 1)),
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_THAT(
      store->TransactShard(1,
                           [](StoreTransaction& t) {
                             return t.InsertAgent({.agent_id = AgentOf(3)});
                           }),
      StatusIs(absl::StatusCode::kInternal));
  EXPECT_THAT(
      store->TransactShard(1,
                           [](StoreTransaction& t) {
                             return t.InsertRound(
                                 {.round_id = 2, .study_id = 1, .plan = "p"});
                           }),
      StatusIs(absl::StatusCode::kInternal));
  for (int db : {0, 1}) {
    EXPECT_EQ(Count(db, "reports"), "0");
    EXPECT_EQ(Count(db, "agents"), "0");
    EXPECT_EQ(Count(db, "rounds"), "1");
  }
}

TEST_F(ShardedStoreTest, AClosedRoundRefusesReportsOnEveryShard) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  auto close = [&] {
    bool closed = false;
    EXPECT_OK(store->Transact([&](StoreTransaction& t) {
      ASSIGN_OR_RETURN(closed, t.CloseRound(1, RoundState::kClosedDeadline));
      return absl::OkStatus();
    }));
    return closed;
  };
  EXPECT_TRUE(close());
  EXPECT_FALSE(close());
  EXPECT_THAT(AppendOn(*store, 0, ReportOf(AgentOf(3), 1)),
              IsOkAndHolds(::testing::Field(&AppendResult::outcome,
                                            AppendOutcome::kRoundClosed)));
  EXPECT_THAT(AppendOn(*store, 1, ReportOf(AgentOf(200), 2)),
              IsOkAndHolds(::testing::Field(&AppendResult::outcome,
                                            AppendOutcome::kRoundClosed)));
  EXPECT_EQ(Count(1, "rounds WHERE state = 3"), "1");
}

// Each shard's statistics of a closed round are its own: its reports only,
// stored and read back on it.
TEST_F(ShardedStoreTest, RoundStatisticsLiveOnTheShardTheyCount) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->num_report_databases(), 2);
  ASSERT_OK(AppendOn(*store, 0, ReportOf(AgentOf(3), 1)));
  ASSERT_OK(AppendOn(*store, 1, ReportOf(AgentOf(200), 2)));
  ASSERT_OK(AppendOn(*store, 1, ReportOf(AgentOf(201), 3)));
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    return t.CloseRound(1, RoundState::kClosedDeadline).status();
  }));
  for (int shard = 0; shard < 2; ++shard) {
    std::vector<uint64_t> tasks;
    ASSERT_OK(
        store->ForEachClosedRoundReport(shard, 1, [&](const ReportRow& row) {
          tasks.push_back(row.task_id);
          return absl::OkStatus();
        }));
    const std::vector<uint64_t> want =
        shard == 0 ? std::vector<uint64_t>{1} : std::vector<uint64_t>{2, 3};
    EXPECT_EQ(tasks, want);
  }
  ASSERT_OK(store->SaveRoundStatistics(1, 1, "second"));
  const std::vector<std::optional<std::string>> stored = {std::nullopt,
                                                          "second"};
  EXPECT_THAT(store->LoadRoundStatistics(1), IsOkAndHolds(stored));
  EXPECT_EQ(Count(1, "round_statistics"), "1");
  EXPECT_EQ(Count(0, "round_statistics"), "0");
  EXPECT_THAT(store->SaveRoundStatistics(2, 1, "none"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Closing an interactive study's round waits, inside the closing
// transaction, for the shards' lanes to finish what they have: an append
// there meeting the close must not wait for that transaction in turn.
TEST_F(ShardedStoreTest, AnAppendMeetingACloseIsRefusedWithoutWaiting) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<AppendResult> during = absl::UnknownError("not run");
  ASSERT_OK(store->Transact([&](StoreTransaction& t) {
    RETURN_IF_ERROR(t.CloseRound(1, RoundState::kClosedQuorum).status());
    std::thread lane(
        [&] { during = AppendOn(*store, 1, ReportOf(AgentOf(200), 5)); });
    lane.join();
    return absl::OkStatus();
  }));
  EXPECT_THAT(during,
              IsOkAndHolds(::testing::Field(&AppendResult::outcome,
                                            AppendOutcome::kRoundClosed)));
  EXPECT_EQ(Count(1, "reports"), "0");
}

TEST_F(ShardedStoreTest, PollsMergeEveryShardWithACursorEach) {
  auto writer = OpenWithRound();
  ASSERT_NE(writer, nullptr);
  for (auto& db : dbs_) FollowEveryReportRow(db.url());
  auto reader = Open();
  ASSERT_NE(reader, nullptr);
  ASSERT_OK(AppendOn(*writer, 0, ReportOf(AgentOf(3), 11)).status());
  ASSERT_OK(AppendOn(*writer, 1, ReportOf(AgentOf(200), 12)).status());
  ReportCursor cursor;
  std::vector<uint64_t> tasks;
  auto poll = [&] {
    tasks.clear();
    return reader->PollReports(&cursor, [&](const ReportRow& row) {
      tasks.push_back(row.task_id);
      return absl::OkStatus();
    });
  };
  ASSERT_OK(poll());
  EXPECT_THAT(tasks, ::testing::UnorderedElementsAre(11, 12));
  EXPECT_EQ(cursor.size(), 2u);
  ASSERT_OK(AppendOn(*writer, 1, ReportOf(AgentOf(201), 13)).status());
  ASSERT_OK(poll());
  EXPECT_THAT(tasks, ::testing::Contains(13));
  EXPECT_THAT(tasks, ::testing::Not(::testing::Contains(11)));
}

// A delta lives beside the reports it counts, on its agent's shard, and
// a poll follows each shard's with a cursor of its own.
TEST_F(ShardedStoreTest, DeltasLiveOnTheirAgentsShardAndArePolledFromEach) {
  auto writer = OpenWithRound();
  auto reader = Open();
  ASSERT_NE(writer, nullptr);
  ASSERT_NE(reader, nullptr);
  auto delta = [](uint64_t id, uint64_t agent) {
    return DeltaRow{.delta_id = id,
                    .round_id = 1,
                    .agent_id = agent,
                    .statistics = absl::StrCat("delta ", id)};
  };
  auto append_on = [&](int shard, const DeltaRow& row) {
    return writer->TransactShard(
        shard, [&](StoreTransaction& t) { return t.AppendDelta(row); });
  };
  ASSERT_OK(append_on(0, delta(1, AgentOf(3))));
  ASSERT_OK(append_on(1, delta(2, AgentOf(200))));
  EXPECT_THAT(append_on(0, delta(9, AgentOf(200))),
              StatusIs(absl::StatusCode::kInternal));
  // Through every database: to the agent's shard.
  ASSERT_OK(writer->Transact([&](StoreTransaction& t) {
    return t.AppendDelta(delta(3, AgentOf(201)));
  }));
  EXPECT_EQ(Count(0, "report_deltas"), "1");
  EXPECT_EQ(Count(1, "report_deltas"), "2");
  EXPECT_EQ(Count(1, "report_deltas WHERE delta_id = 3"), "1");

  ReportCursor cursor;
  std::vector<uint64_t> ids;
  auto poll = [&] {
    ids.clear();
    return reader->PollDeltas(&cursor, [&](const DeltaRow& row) {
      ids.push_back(row.delta_id);
      EXPECT_EQ(row.statistics, absl::StrCat("delta ", row.delta_id));
      return absl::OkStatus();
    });
  };
  ASSERT_OK(poll());
  EXPECT_THAT(ids, ::testing::UnorderedElementsAre(1, 2, 3));
  EXPECT_EQ(cursor.size(), 2u);
  ASSERT_OK(poll());
  EXPECT_THAT(ids, ::testing::IsEmpty());
  ASSERT_OK(append_on(0, delta(4, AgentOf(4))));
  ASSERT_OK(poll());
  EXPECT_THAT(ids, ::testing::ElementsAre(4));
}

TEST_F(ShardedStoreTest, LedgerSummariesAddUpOverShards) {
  auto store = OpenWithRound();
  ASSERT_NE(store, nullptr);
  ReportRow big = ReportOf(AgentOf(200), 2);
  big.epsilon_nanos = 700'000'000;
  ASSERT_OK(AppendOn(*store, 0, ReportOf(AgentOf(3), 1)).status());
  ASSERT_OK(AppendOn(*store, 1, big).status());
  absl::StatusOr<std::vector<LedgerSummary>> merged = store->SummarizeLedger();
  ASSERT_OK(merged);
  const std::vector<LedgerSummary>& summaries = *merged;
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].num_agents, 2);
  EXPECT_EQ(summaries[0].max_spent_nanos, 700'000'000);
  EXPECT_THAT(store->GetLedger(AgentOf(200), 1),
              IsOkAndHolds(::testing::ElementsAre(
                  ::testing::Field(&LedgerEntry::spent_nanos, 700'000'000))));
}

TEST_F(ShardedStoreTest, AgentIdsStayInOneBlockOfThePlacementsShard) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const ShardMap& map = *store->shard_map();
  for (uint64_t placement : {0u, 5u, 130u}) {
    absl::StatusOr<uint64_t> first_call =
        store->ReserveAgentIds(placement, 1000);
    absl::StatusOr<uint64_t> second_call =
        store->ReserveAgentIds(placement, 100);
    ASSERT_OK(first_call);
    ASSERT_OK(second_call);
    const uint64_t a = *first_call;
    const uint64_t b = *second_call;
    for (uint64_t first : {a, b}) {
      EXPECT_EQ(ShardMap::LogicalOfAgent(first),
                ShardMap::LogicalOfPlacement(placement));
      EXPECT_EQ(map.ShardOfAgent(first), map.ShardOfPlacement(placement));
    }
    EXPECT_EQ(a % ShardMap::kAgentBlock, 0u);
    // No block holds id 0, which names no agent.
    EXPECT_GE(a, ShardMap::kAgentBlock * ShardMap::kLogicalShards);
    // 100 more do not fit in the first block's 24 left: a new block.
    EXPECT_EQ(b % ShardMap::kAgentBlock, 0u);
    EXPECT_NE(a, b);
  }
  EXPECT_THAT(store->ReserveAgentIds(std::nullopt, 1025),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(store->ReserveIds(IdKind::kAgent, 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Unplaced enrollments go round the logical shards, so both databases.
  std::vector<int> per_shard(2, 0);
  for (int i = 0; i < ShardMap::kLogicalShards; ++i) {
    absl::StatusOr<uint64_t> id = store->ReserveAgentIds(std::nullopt, 1);
    ASSERT_OK(id);
    ++per_shard[map.ShardOfAgent(*id)];
  }
  EXPECT_EQ(per_shard[0], 128);
  EXPECT_EQ(per_shard[1], 128);
}

TEST_F(ShardedStoreTest, AShardListInAnotherOrderIsRefused) {
  ASSERT_NE(Open(), nullptr);
  auto reversed = ShardedStore::Open({.urls = {dbs_[1].url(), dbs_[0].url()}});
  EXPECT_THAT(reversed, StatusIs(absl::StatusCode::kFailedPrecondition,
                                 ::testing::HasSubstr("shard 2 of 2")));
  EXPECT_THAT(PostgresStore::Open({.url = dbs_[1].url()}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(ShardedStoreTest, AnUnshardedDatabaseWithAgentsCannotBecomeAShard) {
  {
    auto single = PostgresStore::Open({.url = dbs_[0].url()});
    ASSERT_OK(single);
    ASSERT_OK((*single)->Transact(
        [](StoreTransaction& t) { return t.InsertAgent({.agent_id = 7}); }));
  }
  EXPECT_THAT(ShardedStore::Open({.urls = {dbs_[0].url(), dbs_[1].url()}}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::HasSubstr("unsharded")));
  EXPECT_THAT(ShardedStore::Open({.urls = {dbs_[0].url()}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SplitShardUrlsTest, SplitsAtWhitespaceNotAtCommas) {
  EXPECT_THAT(
      SplitShardUrls(" postgresql://a,b/db\tpostgresql://c/db\n"),
      ::testing::ElementsAre("postgresql://a,b/db", "postgresql://c/db"));
}

}  // namespace
}  // namespace ldp
