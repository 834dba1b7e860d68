// What only the PostgreSQL store does, against a real server: the throwaway
// cluster of tests/postgres/with_postgres.sh (ctest runs this binary
// through it), a database of its own per test. Migrations, replicas on one
// database, polling, id blocks, enrollment quotas, closed rounds, batches
// checked against the SQLite store, lost connections. The Store contract
// both stores keep is store_contract_test.cc.
#include "server/store/postgres/postgres_store.h"

#include <libpq-fe.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/legacy_codec.h"
#include "server/store/postgres/postgres_schema.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/store/storage_codec.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/server/store/store_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::Append;
using store_testing::AppendBatch;
using store_testing::CountReports;
using store_testing::FollowEveryReportRow;
using store_testing::Report;
using store_testing::Spent;
using store_testing::Sql;
using store_testing::SqlValue;
using store_testing::WithDatabase;
using testing::IsOkAndHolds;
using testing::StatusIs;

class PostgresStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    database_.Create();
    if (HasFatalFailure()) return;
    admin_url_ = database_.admin_url();
    db_ = database_.name();
    url_ = database_.url();
  }

  // A store on this test's database, with round 1 open.
  std::unique_ptr<PostgresStore> Open() {
    auto store = PostgresStore::Open({.url = url_});
    EXPECT_OK(store);
    if (!store.ok()) return nullptr;
    EXPECT_OK((*store)->Transact([](StoreTransaction& t) {
      return t.InsertRound({.round_id = 1, .study_id = 1, .plan = "p"});
    }));
    return *std::move(store);
  }

  // Ends every connection to this test's database but the caller's, and
  // waits until they are gone.
  void KillConnections() {
    Sql(url_,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()");
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline &&
           SqlValue(url_,
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid()") != "0") {
      absl::SleepFor(absl::Milliseconds(5));
    }
  }

  store_testing::PostgresTestDatabase database_;
  std::string admin_url_;
  std::string db_;
  std::string url_;
};

TEST(PostgresUrlTest, RedactsPasswords) {
  EXPECT_EQ(RedactPostgresUrl("postgresql://ldp:s3cret@db:5432/ldp"),
            "postgresql://ldp@db:5432/ldp");
  EXPECT_EQ(RedactPostgresUrl("postgresql://ldp@db/ldp?password=s3cret&x=1"),
            "postgresql://ldp@db/ldp?password=redacted&x=1");
  EXPECT_EQ(RedactPostgresUrl("postgresql://db/ldp"), "postgresql://db/ldp");
  // Everything that might be the password goes, up to the last '@'.
  EXPECT_EQ(RedactPostgresUrl("postgresql://a:b@c@d/e"), "postgresql://a@d/e");
}

TEST_F(PostgresStoreTest, AppliesMigrationsOnceAndReopeningIsANoOp) {
  auto first = Open();
  ASSERT_NE(first, nullptr);
  const std::string applied =
      SqlValue(url_,
               "SELECT string_agg(version || ' ' || applied_at, ',' "
               "ORDER BY version) FROM schema_migrations");
  EXPECT_THAT(applied, ::testing::StartsWith("1 "));
  EXPECT_EQ(SqlValue(url_, "SELECT count(*) FROM schema_migrations"),
            absl::StrCat(postgres_schema::LatestVersion()));
  EXPECT_EQ(SqlValue(url_,
                     "SELECT string_agg(kind || ':' || next_id, ',' "
                     "ORDER BY kind) FROM id_blocks"),
            "1:1,2:1,3:1");
  // Agents enrolled without a request id stay out of the request index.
  EXPECT_EQ(SqlValue(url_,
                     "SELECT pg_get_expr(indpred, indrelid) FROM pg_index "
                     "WHERE indexrelid = "
                     "'agents_enrollment_request'::regclass"),
            "(enrollment_request IS NOT NULL)");
  first.reset();
  // Two replicas starting together on the migrated database, then again.
  std::vector<absl::StatusOr<std::unique_ptr<PostgresStore>>> stores(2);
  std::thread a([&] { stores[0] = PostgresStore::Open({.url = url_}); });
  std::thread b([&] { stores[1] = PostgresStore::Open({.url = url_}); });
  a.join();
  b.join();
  EXPECT_OK(stores[0]);
  EXPECT_OK(stores[1]);
  EXPECT_EQ(SqlValue(url_,
                     "SELECT string_agg(version || ' ' || applied_at, "
                     "',' ORDER BY version) FROM schema_migrations"),
            applied);
}

// Migration 3 rewrites payloads and plans of the hand-written formats
// (legacy_codec.h) into storage.proto messages and leaves other blobs (here
// Open()'s plan "p") alone. The rows are put back as a database of schema
// 2 held them, and migration 3 runs again.
TEST_F(PostgresStoreTest, MigrationThreeRewritesLegacyPayloadsAndPlans) {
  ASSERT_NE(Open(), nullptr);
  // A version-2 plan: sample splitting, one OUE question at ε = 0.5 over 4
  // items; and payloads of versions 1 (item 5) and 2 (8 bits 0x5).
  const std::string plan_hex =
      "020000018094ebdc03010100000000000000e03f040000000000000000000000000000"
      "00000000000000";
  const std::string item_hex = "010005";
  const std::string bits_hex =
      "0201080105000000"
      "00000000";
  Sql(url_,
      "INSERT INTO rounds(round_id, study_id, state, start_time, "
      "deadline, plan) VALUES (2, 1, 0, 0, 0, '\\x" +
          plan_hex + "')");
  Sql(url_,
      "INSERT INTO reports(task_id, round_id, agent_id, report_id, "
      "payload, received_at) VALUES "
      "(10, 2, 1, '\\x00', '\\x" +
          item_hex +
          "', 0), "
          "(11, 2, 2, '\\x00', '\\x" +
          bits_hex +
          "', 0), "
          "(12, 2, 3, '\\x00', '\\x0909', 0)");
  // More rows than one chunk of the rewrite (4096).
  Sql(url_,
      "INSERT INTO reports(task_id, round_id, agent_id, report_id, "
      "payload, received_at) SELECT g, 2, g, '\\x00', '\\x" +
          item_hex + "', 0 FROM generate_series(100, 5099) AS g");
  const std::string xids =
      SqlValue(url_,
               "SELECT string_agg(xid::text, ',' ORDER BY task_id) "
               "FROM reports");
  Sql(url_, "DELETE FROM schema_migrations WHERE version = 3");
  ASSERT_OK(PostgresStore::Open({.url = url_}));

  absl::StatusOr<PlanDecisions> plan =
      DecodeLegacyPlan(absl::HexStringToBytes(plan_hex));
  ASSERT_OK(plan);
  ASSERT_EQ(plan->questions.size(), 1u);
  EXPECT_EQ(
      std::get<FrequencyOracleSpec>(plan->questions[0].randomizer).domain_size,
      4u);
  const auto hex = [](const std::string& bytes) {
    return absl::BytesToHexString(bytes);
  };
  EXPECT_EQ(SqlValue(url_,
                     "SELECT encode(plan, 'hex') FROM rounds "
                     "WHERE round_id = 2"),
            hex(EncodePlan(*plan)));
  EXPECT_EQ(SqlValue(url_,
                     "SELECT encode(plan, 'hex') FROM rounds "
                     "WHERE round_id = 1"),
            hex("p"));
  const std::string item =
      hex(EncodePayload(FrequencyReport(ItemReport{.item = 5})));
  EXPECT_EQ(SqlValue(url_,
                     "SELECT count(*) FROM reports WHERE task_id >= 100 "
                     "AND encode(payload, 'hex') = '" +
                         item + "'"),
            "5000");
  EXPECT_EQ(SqlValue(url_,
                     "SELECT string_agg(encode(payload, 'hex'), ',' "
                     "ORDER BY task_id) FROM reports WHERE task_id < 100"),
            absl::StrCat(
                hex(EncodePayload(FrequencyReport(ItemReport{.item = 5}))), ",",
                hex(EncodePayload(FrequencyReport(
                    BitVectorReport{.words = {5}, .num_bits = 8}))),
                ",0909"));
  // Followers see no new reports: the rows keep their xid.
  EXPECT_EQ(SqlValue(url_,
                     "SELECT string_agg(xid::text, ',' ORDER BY "
                     "task_id) FROM reports"),
            xids);
  EXPECT_EQ(SqlValue(url_, "SELECT count(*) FROM schema_migrations"),
            absl::StrCat(postgres_schema::LatestVersion()));
}

TEST_F(PostgresStoreTest, ReplicasStartingTogetherMigrateOnce) {
  std::vector<absl::StatusOr<std::unique_ptr<PostgresStore>>> stores(3);
  std::vector<std::thread> threads;
  for (auto& store : stores) {
    threads.emplace_back([&] { store = PostgresStore::Open({.url = url_}); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& store : stores) EXPECT_OK(store);
  EXPECT_EQ(SqlValue(url_, "SELECT count(*) FROM schema_migrations"),
            absl::StrCat(postgres_schema::LatestVersion()));
  EXPECT_EQ(SqlValue(url_, "SELECT count(*) FROM id_blocks"), "3");
}

TEST_F(PostgresStoreTest, RefusesANewerSchemaAndForeignTables) {
  ASSERT_NE(Open(), nullptr);
  Sql(url_, "INSERT INTO schema_migrations(version) VALUES (999)");
  absl::StatusOr<std::unique_ptr<PostgresStore>> newer =
      PostgresStore::Open({.url = url_});
  EXPECT_THAT(newer, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(std::string(newer.status().message()),
              ::testing::HasSubstr("999"));

  const std::string other = db_ + "_other";
  Sql(admin_url_, "CREATE DATABASE " + other);
  Sql(WithDatabase(admin_url_, other), "CREATE TABLE agents(x int)");
  EXPECT_THAT(PostgresStore::Open({.url = WithDatabase(admin_url_, other)}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  Sql(admin_url_, "DROP DATABASE " + other + " WITH (FORCE)");
}

TEST_F(PostgresStoreTest, RejectsBadOptionsAndReportsAnUnreachableDatabase) {
  EXPECT_THAT(PostgresStore::Open({.url = ""}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PostgresStore::Open({.url = "mysql://db/x"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PostgresStore::Open({.url = "postgresql://db:notaport/x"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PostgresStore::Open({.url = url_, .max_retries = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PostgresStore::Open(
                  {.url = url_, .connect_timeout = absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Port 1 refuses at once; the message names the server, not the password.
  absl::StatusOr<std::unique_ptr<PostgresStore>> unreachable =
      PostgresStore::Open({.url = "postgresql://ldp:s3cret@127.0.0.1:1/ldp",
                           .connect_timeout = absl::Milliseconds(300)});
  EXPECT_THAT(unreachable, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(std::string(unreachable.status().message()),
              ::testing::HasSubstr("127.0.0.1:1"));
  EXPECT_THAT(std::string(unreachable.status().message()),
              ::testing::Not(::testing::HasSubstr("s3cret")));
}

// Every write is idempotent: a body run again after a lost commit finds
// the studies its first run inserted, with or without a request id.
TEST_F(PostgresStoreTest, AStudyInsertRunAgainFindsItsOwnRow) {
  auto store = Open();
  uint64_t first = 0, third = 0, again = 0, again_first = 0;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(
        first, t.InsertStudy({.study_id = 1, .spec = "a", .request_id = "r"}));
    ASSIGN_OR_RETURN(third, t.InsertStudy({.study_id = 3, .spec = "c"}));
    // The same inserts again (a re-run after a lost commit).
    ASSIGN_OR_RETURN(again, t.InsertStudy({.study_id = 3, .spec = "c"}));
    ASSIGN_OR_RETURN(
        again_first,
        t.InsertStudy({.study_id = 1, .spec = "a", .request_id = "r"}));
    return absl::OkStatus();
  }));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(third, 3u);
  EXPECT_EQ(again, 3u);
  EXPECT_EQ(again_first, 1u);
  absl::StatusOr<std::vector<StudyRow>> studies = store->LoadStudies();
  ASSERT_OK(studies);
  ASSERT_EQ(studies->size(), 2u);
}

// ---- Batches -------------------------------------------------------------

TEST_F(PostgresStoreTest, ReportsToARoundThatIsNotOpenAreRefused) {
  auto store = Open();
  Append(*store, Report(1, 1, 100));
  ASSERT_OK(store->Transact([](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.InsertRound({.round_id = 2, .study_id = 1}));
    RETURN_IF_ERROR(t.SetRoundState(2, RoundState::kClosedDeadline));
    // Only an open round changes state: the first close stays.
    return t.SetRoundState(2, RoundState::kClosedEarly);
  }));
  std::vector<ReportRow> rows = {Report(1, 1, 100), Report(2, 2, 100),
                                 Report(3, 3, 100), Report(4, 4, 100)};
  rows[1].round_id = 2;   // closed
  rows[2].round_id = 99;  // not stored at all
  const std::vector<AppendResult> results = AppendBatch(*store, rows);
  EXPECT_EQ(results[0].outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(results[1].outcome, AppendOutcome::kRoundClosed);
  EXPECT_EQ(results[2].outcome, AppendOutcome::kRoundClosed);
  EXPECT_EQ(results[3].outcome, AppendOutcome::kStored);
  EXPECT_EQ(results[3].spent_nanos, 200);
  EXPECT_EQ(results[1].spent_nanos, 200);
  // Closing round 1 now: a retry of a stored report is still a retry.
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    return t.SetRoundState(1, RoundState::kClosedQuorum);
  }));
  EXPECT_EQ(Append(*store, Report(4, 4, 100)).outcome,
            AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(Append(*store, Report(5, 5, 100)).outcome,
            AppendOutcome::kRoundClosed);
  EXPECT_EQ(CountReports(*store), 2);
  EXPECT_EQ(Spent(*store), 200);
  absl::StatusOr<std::vector<RoundRow>> rounds = store->LoadRounds();
  ASSERT_OK(rounds);
  ASSERT_EQ(rounds->size(), 2u);
  EXPECT_EQ((*rounds)[0].state, RoundState::kClosedQuorum);
  EXPECT_EQ((*rounds)[1].state, RoundState::kClosedDeadline);
}

// Two replicas closing one round: only the first one's CloseRound says it
// closed it, so only that one plans an interactive study's next round.
TEST_F(PostgresStoreTest, OnlyTheReplicaThatClosesARoundIsToldItDid) {
  auto a = Open();
  auto b = Open();
  ASSERT_OK(a->Transact([](StoreTransaction& t) {
    return t.InsertRound({.round_id = 7, .study_id = 1});
  }));
  bool closed_by_a = false;
  bool closed_by_b = true;
  ASSERT_OK(a->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(closed_by_a, t.CloseRound(7, RoundState::kClosedQuorum));
    return absl::OkStatus();
  }));
  ASSERT_OK(b->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(closed_by_b, t.CloseRound(7, RoundState::kClosedDeadline));
    return absl::OkStatus();
  }));
  EXPECT_TRUE(closed_by_a);
  EXPECT_FALSE(closed_by_b);
  absl::StatusOr<std::vector<RoundRow>> rounds = a->LoadRounds();
  ASSERT_OK(rounds);
  for (const RoundRow& round : *rounds) {
    if (round.round_id == 7) EXPECT_EQ(round.state, RoundState::kClosedQuorum);
  }
}

// Random batches through both stores: SQLite's one-by-one loop is the
// oracle for outcomes, first charges and the spend of stored rows.
TEST_F(PostgresStoreTest, BatchesAgreeWithTheSqliteStore) {
  auto store = Open();
  std::string dir = ::testing::TempDir() + "ldp_pg_oracle_XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  auto oracle = SqliteStore::Open({.path = dir + "/oracle.db"});
  ASSERT_OK(oracle);
  std::mt19937_64 random(20240611);
  for (int seed = 0; seed < 30; ++seed) {
    const uint64_t base = static_cast<uint64_t>(seed) * 1000;
    for (int batch = 0; batch < 3; ++batch) {
      std::vector<ReportRow> rows;
      for (int i = 0; i < 25; ++i) {
        // A task fixes its agent, study and charge, as task ids do.
        const uint64_t task = base + 1 + random() % 40;
        ReportRow row = Report(task, static_cast<uint8_t>(1 + random() % 2));
        row.agent_id = base + 1 + task % 3;
        row.study_id = 1 + task % 2;
        row.cap_nanos = row.study_id == 1 ? 1000 : 1500;
        row.epsilon_nanos =
            task % 11 == 0 ? 0 : 1 + static_cast<int64_t>(task * 7919 % 300);
        row.payload = std::string(1, random() % 4 == 0 ? 'b' : 'a');
        rows.push_back(row);
      }
      const std::vector<AppendResult> got = AppendBatch(*store, rows);
      const std::vector<AppendResult> want = AppendBatch(**oracle, rows);
      for (size_t i = 0; i < rows.size(); ++i) {
        SCOPED_TRACE(absl::StrCat("seed ", seed, " batch ", batch, " row ", i,
                                  " task ", rows[i].task_id));
        EXPECT_EQ(got[i].outcome, want[i].outcome);
        EXPECT_EQ(got[i].first_charge, want[i].first_charge);
        if (want[i].outcome == AppendOutcome::kStored) {
          EXPECT_EQ(got[i].spent_nanos, want[i].spent_nanos);
        }
      }
    }
    for (uint64_t agent = base + 1; agent <= base + 3; ++agent) {
      EXPECT_THAT(store->GetLedger(agent, 0),
                  IsOkAndHolds(::testing::Pointwise(
                      ::testing::Truly([](const auto& pair) {
                        const auto& [a, b] = pair;
                        return a.study_id == b.study_id &&
                               a.cap_nanos == b.cap_nanos &&
                               a.spent_nanos == b.spent_nanos;
                      }),
                      *(*oracle)->GetLedger(agent, 0))));
    }
  }
  EXPECT_EQ(CountReports(*store), CountReports(**oracle));
  oracle->reset();
  std::filesystem::remove_all(dir);
}

// Many fetches: loads and polls stream in chunks.
TEST_F(PostgresStoreTest, LoadsStreamLargeTables) {
  auto store = Open();
  constexpr int kReports = 25'000;
  for (int first = 1; first <= kReports; first += 1000) {
    std::vector<ReportRow> rows;
    for (int task = first; task < first + 1000; ++task) {
      ReportRow row = Report(task, 1, 1);
      row.agent_id = static_cast<uint64_t>(task);
      rows.push_back(row);
    }
    for (const AppendResult& r : AppendBatch(*store, rows)) {
      ASSERT_EQ(r.outcome, AppendOutcome::kStored);
    }
  }
  uint64_t last = 0;
  int count = 0;
  ASSERT_OK(store->ForEachReport([&](const ReportRow& row) {
    EXPECT_GT(row.task_id, last);
    last = row.task_id;
    ++count;
    return absl::OkStatus();
  }));
  EXPECT_EQ(count, kReports);
  // Another instance (say this replica restarted) polls them all, where
  // no delta names them.
  FollowEveryReportRow(url_);
  auto reader = Open();
  ReportCursor cursor;
  count = 0;
  ASSERT_OK(reader->PollReports(&cursor, [&](const ReportRow&) {
    ++count;
    return absl::OkStatus();
  }));
  EXPECT_EQ(count, kReports);
  absl::StatusOr<std::vector<LedgerSummary>> summary = store->SummarizeLedger();
  ASSERT_OK(summary);
  ASSERT_EQ(summary->size(), 1u);
  EXPECT_EQ((*summary)[0].num_agents, kReports);
  EXPECT_EQ((*summary)[0].max_spent_nanos, 1);
  // A visitor's error stops the load and comes back as is.
  count = 0;
  EXPECT_THAT(store->ForEachReport([&](const ReportRow&) {
    return ++count == 5 ? absl::CancelledError("enough") : absl::OkStatus();
  }),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_EQ(count, 5);
  EXPECT_EQ(CountReports(*store), kReports);
}

// ---- Several replicas on one database ------------------------------------

TEST_F(PostgresStoreTest,
       TwoReplicasAppendingTheSameReportsStoreAndChargeOnce) {
  auto a = Open();
  auto b = Open();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  constexpr int kAgents = 300;
  constexpr int kPerAgent = 8;
  constexpr int64_t kEps = 1000;
  std::vector<ReportRow> all;
  for (int agent = 1; agent <= kAgents; ++agent) {
    for (int j = 0; j < kPerAgent; ++j) {
      ReportRow row = Report(static_cast<uint64_t>(agent * 100 + j), 1, kEps);
      row.agent_id = static_cast<uint64_t>(agent);
      all.push_back(row);
    }
  }
  // Different batch boundaries and orders on each replica.
  auto run = [&](PostgresStore& store, bool reverse, size_t batch_size,
                 std::vector<AppendResult>& outcomes) {
    std::vector<ReportRow> rows = all;
    if (reverse) std::reverse(rows.begin(), rows.end());
    for (size_t first = 0; first < rows.size(); first += batch_size) {
      const size_t end = std::min(rows.size(), first + batch_size);
      std::vector<ReportRow> batch(rows.begin() + first, rows.begin() + end);
      for (const AppendResult& r : AppendBatch(store, batch)) {
        outcomes.push_back(r);
      }
    }
  };
  std::vector<AppendResult> outcomes_a, outcomes_b;
  std::thread ta([&] { run(*a, false, 150, outcomes_a); });
  std::thread tb([&] { run(*b, true, 110, outcomes_b); });
  ta.join();
  tb.join();
  int stored = 0, retries = 0, first_charges = 0;
  for (const auto* outcomes : {&outcomes_a, &outcomes_b}) {
    for (const AppendResult& r : *outcomes) {
      if (r.outcome == AppendOutcome::kStored) ++stored;
      if (r.outcome == AppendOutcome::kIdenticalRetry) ++retries;
      if (r.first_charge) ++first_charges;
    }
  }
  EXPECT_EQ(stored, kAgents * kPerAgent);
  EXPECT_EQ(retries, kAgents * kPerAgent);
  EXPECT_EQ(first_charges, kAgents);
  EXPECT_EQ(CountReports(*a), kAgents * kPerAgent);
  for (int agent = 1; agent <= kAgents; agent += 37) {
    EXPECT_EQ(Spent(*b, agent), kPerAgent * kEps) << "agent " << agent;
  }
  absl::StatusOr<std::vector<LedgerSummary>> summary = a->SummarizeLedger();
  ASSERT_OK(summary);
  ASSERT_EQ(summary->size(), 1u);
  EXPECT_EQ((*summary)[0].num_agents, kAgents);
  EXPECT_EQ((*summary)[0].max_spent_nanos, kPerAgent * kEps);
}

TEST_F(PostgresStoreTest, TwoReplicasChargingOneAgentNeverPassTheCap) {
  auto a = Open();
  auto b = Open();
  // 40 different tasks of one agent, 100 each against a cap of 1,000:
  // whichever replica stores them, exactly ten fit.
  auto run = [&](PostgresStore& store, uint64_t first_task, int* stored) {
    for (uint64_t task = first_task; task < first_task + 20; task += 4) {
      std::vector<ReportRow> rows;
      for (uint64_t t = task; t < task + 4; ++t) {
        ReportRow row = Report(t, 1, 100);
        row.cap_nanos = 1000;
        rows.push_back(row);
      }
      for (const AppendResult& r : AppendBatch(store, rows)) {
        if (r.outcome == AppendOutcome::kStored) ++*stored;
      }
    }
  };
  int stored_a = 0, stored_b = 0;
  std::thread ta([&] { run(*a, 1, &stored_a); });
  std::thread tb([&] { run(*b, 101, &stored_b); });
  ta.join();
  tb.join();
  EXPECT_EQ(stored_a + stored_b, 10);
  EXPECT_EQ(CountReports(*a), 10);
  EXPECT_EQ(Spent(*a), 1000);
}

TEST_F(PostgresStoreTest, ReservedIdsNeverOverlap) {
  auto a = Open();
  auto b = Open();
  std::vector<std::pair<uint64_t, uint64_t>> blocks_a, blocks_b;
  auto run = [](PostgresStore& store, int seed,
                std::vector<std::pair<uint64_t, uint64_t>>& blocks) {
    std::mt19937 random(seed);
    for (int i = 0; i < 200; ++i) {
      const int64_t count = 1 + random() % 50;
      absl::StatusOr<uint64_t> first = store.ReserveIds(IdKind::kAgent, count);
      ASSERT_OK(first);
      blocks.emplace_back(*first, *first + static_cast<uint64_t>(count));
    }
  };
  std::thread ta([&] { run(*a, 1, blocks_a); });
  std::thread tb([&] { run(*b, 2, blocks_b); });
  ta.join();
  tb.join();
  std::vector<std::pair<uint64_t, uint64_t>> all = blocks_a;
  all.insert(all.end(), blocks_b.begin(), blocks_b.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), 400u);
  EXPECT_EQ(all.front().first, 1u);
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_EQ(all[i - 1].second, all[i].first);  // no overlap, no gap
  }
  // Each kind counts on its own.
  EXPECT_THAT(a->ReserveIds(IdKind::kStudy, 1), IsOkAndHolds(1u));
  EXPECT_THAT(b->ReserveIds(IdKind::kStudy, 3), IsOkAndHolds(2u));
  EXPECT_THAT(a->ReserveIds(IdKind::kRound, 1), IsOkAndHolds(1u));
  EXPECT_THAT(a->ReserveIds(IdKind::kRound, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(PostgresStoreTest, FindsAgentsAnotherReplicaEnrolled) {
  auto a = Open();
  auto b = Open();
  EXPECT_THAT(b->FindAgent(42), IsOkAndHolds(::testing::Eq(std::nullopt)));
  CredentialHash hash;
  hash.fill(0xab);
  const AgentRow row{.agent_id = 42,
                     .credential_hash = hash,
                     .enrolled_at = absl::FromUnixNanos(123'456'789),
                     .enrollment_batch = "batch"};
  ASSERT_OK(a->Transact([&](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.InsertAgent(row));
    return t.InsertAgent(row);  // a re-run finds its own row
  }));
  absl::StatusOr<std::optional<AgentRow>> found = b->FindAgent(42);
  ASSERT_OK(found);
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->agent_id, 42u);
  EXPECT_EQ((*found)->credential_hash, hash);
  EXPECT_EQ((*found)->enrolled_at, absl::FromUnixNanos(123'456'789));
  EXPECT_EQ((*found)->enrollment_batch, "batch");
}

// Enrolls `count` agents of `batch`, ids from `first_id`, within
// `max_agents`, in one transaction.
absl::StatusOr<QuotaDecision> EnrollWithin(Store& store,
                                           const std::string& batch,
                                           uint64_t first_id, int count,
                                           int64_t max_agents) {
  std::vector<AgentRow> rows;
  for (int i = 0; i < count; ++i) {
    rows.push_back({.agent_id = first_id + i, .enrollment_batch = batch});
  }
  QuotaDecision decision;
  RETURN_IF_ERROR(store.Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(decision, t.InsertAgentsWithinQuota(rows, max_agents));
    return absl::OkStatus();
  }));
  return decision;
}

// Four replicas enrolling with one token at once: the database's count,
// not each replica's, decides, so exactly the quota gets in.
TEST_F(PostgresStoreTest, ReplicasTogetherNeverPassAnEnrollmentQuota) {
  constexpr int kQuota = 50;
  constexpr int kAttemptsEach = 30;
  std::vector<std::unique_ptr<PostgresStore>> stores;
  for (int i = 0; i < 4; ++i) stores.push_back(Open());
  std::atomic<int> admitted{0}, refused{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      for (int i = 0; i < kAttemptsEach; ++i) {
        absl::StatusOr<QuotaDecision> decision =
            EnrollWithin(*stores[r], "token", 1000 * (r + 1) + i, 1, kQuota);
        ASSERT_OK(decision);
        ++(decision->admitted ? admitted : refused);
        if (!decision->admitted) {
          EXPECT_EQ(decision->enrolled_before, kQuota);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(admitted.load(), kQuota);
  EXPECT_EQ(refused.load(), 4 * kAttemptsEach - kQuota);
  EXPECT_EQ(SqlValue(url_,
                     "SELECT count(*) FROM agents "
                     "WHERE enrollment_batch = 'token'::bytea"),
            absl::StrCat(kQuota));
  EXPECT_EQ(SqlValue(url_, "SELECT enrolled FROM enrollment_counts"),
            absl::StrCat(kQuota));
}

// A database whose agents predate the count (schema version 1) keeps its
// count; agents inserted without a quota count too; a whole call that does
// not fit writes nothing.
TEST_F(PostgresStoreTest, AnEnrollmentQuotaCountsAgentsStoredBefore) {
  auto store = Open();
  Sql(url_,
      "INSERT INTO agents(agent_id, credential_hash, enrolled_at, "
      "enrollment_batch) SELECT i, '\\x00'::bytea, 0, 'old'::bytea "
      "FROM generate_series(1, 3) i");
  Sql(url_, "INSERT INTO agents VALUES (4, '\\x00'::bytea, 0, 'other'::bytea)");
  absl::StatusOr<QuotaDecision> decision =
      EnrollWithin(*store, "old", 10, 3, 5);
  ASSERT_OK(decision);
  EXPECT_FALSE(decision->admitted);
  EXPECT_EQ(decision->enrolled_before, 3);
  decision = EnrollWithin(*store, "old", 20, 2, 5);
  ASSERT_OK(decision);
  EXPECT_TRUE(decision->admitted);
  EXPECT_EQ(decision->enrolled_before, 3);
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    const AgentRow rows[] = {{.agent_id = 30, .enrollment_batch = "old"}};
    return t.InsertAgents(rows);
  }));
  decision = EnrollWithin(*store, "old", 40, 1, 6);
  ASSERT_OK(decision);
  EXPECT_FALSE(decision->admitted);
  EXPECT_EQ(decision->enrolled_before, 6);
  EXPECT_EQ(SqlValue(url_,
                     "SELECT string_agg(agent_id::text, ',' ORDER BY "
                     "agent_id) FROM agents WHERE agent_id >= 10"),
            "20,21,30");
  EXPECT_THAT(EnrollWithin(*store, "", 50, 1, 6),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(EnrollWithin(*store, "old", 50, 1, 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// Transact runs a body again after a lost COMMIT; the agents the first run
// stored are found, admitted and not counted twice.
TEST_F(PostgresStoreTest, AnEnrollmentRunAgainIsCountedOnce) {
  auto store = Open();
  absl::StatusOr<QuotaDecision> first = EnrollWithin(*store, "b", 1, 2, 2);
  ASSERT_OK(first);
  EXPECT_TRUE(first->admitted);
  absl::StatusOr<QuotaDecision> again = EnrollWithin(*store, "b", 1, 2, 2);
  ASSERT_OK(again);
  EXPECT_TRUE(again->admitted);
  EXPECT_EQ(again->enrolled_before, 0);
  EXPECT_EQ(SqlValue(url_, "SELECT enrolled FROM enrollment_counts"), "2");
  absl::StatusOr<QuotaDecision> more = EnrollWithin(*store, "b", 3, 1, 2);
  ASSERT_OK(more);
  EXPECT_FALSE(more->admitted);
}

// Every report here is stored after schema 8: a delta counts it (had its
// writer appended one), so it comes without its payload. The tests that
// poll report rows run on databases whose deltas name no tasks
// (FollowEveryReportRow), where every row is followed.
absl::flat_hash_set<uint64_t> Poll(Store& store, ReportCursor* cursor) {
  absl::flat_hash_set<uint64_t> tasks;
  EXPECT_OK(store.PollReports(cursor, [&](const ReportRow& row) {
    EXPECT_EQ(row.round_id, 1u);
    EXPECT_TRUE(row.in_delta);
    EXPECT_EQ(row.payload, "");
    tasks.insert(row.task_id);
    return absl::OkStatus();
  }));
  return tasks;
}

TEST_F(PostgresStoreTest, PollingMissesNoCommit) {
  ASSERT_NE(Open(), nullptr);
  FollowEveryReportRow(url_);
  auto a = Open();
  auto b = Open();
  Append(*a, Report(1, 1, 1));
  Append(*b, Report(2, 1, 1));
  // Each instance's polls skip what it wrote itself (its caller counted
  // that at commit) and bring what the other wrote.
  ReportCursor cursor;
  EXPECT_THAT(Poll(*b, &cursor), ::testing::UnorderedElementsAre(1));
  ASSERT_EQ(cursor.size(), 1u);
  EXPECT_GT(cursor.front(), 0u);
  ReportCursor cursor_a;
  EXPECT_THAT(Poll(*a, &cursor_a), ::testing::UnorderedElementsAre(2));
  Append(*a, Report(3, 1, 1));
  Append(*b, Report(4, 1, 1));
  const absl::flat_hash_set<uint64_t> next = Poll(*a, &cursor_a);
  EXPECT_TRUE(next.contains(4));
  EXPECT_FALSE(next.contains(3));
  EXPECT_TRUE(Poll(*b, &cursor).contains(3));

  // A transaction that began writing before the next poll commits after
  // it, behind a later one: the poll after its commit still reads it.
  absl::Notification appended, go;
  std::atomic<int> runs = 0;
  std::thread writer([&] {
    EXPECT_OK(a->Transact([&](StoreTransaction& t) -> absl::Status {
      RETURN_IF_ERROR(t.AppendReport(Report(5, 1, 1)).status());
      if (runs++ == 0) {
        appended.Notify();
        go.WaitForNotification();
      }
      return absl::OkStatus();
    }));
  });
  appended.WaitForNotification();
  // Another agent: the open transaction holds agent 7's ledger row.
  ReportRow other = Report(6, 1, 1);
  other.agent_id = 8;
  Append(*b, other);
  auto c = Open();  // a third replica follows both
  ReportCursor cursor_c;
  const absl::flat_hash_set<uint64_t> during = Poll(*c, &cursor_c);
  EXPECT_TRUE(during.contains(6));
  EXPECT_FALSE(during.contains(5));
  go.Notify();
  writer.join();
  EXPECT_TRUE(Poll(*c, &cursor_c).contains(5));
  EXPECT_EQ(runs, 1);
}

// ---- Lost connections and restarts ------------------------------------------

TEST_F(PostgresStoreTest, ReconnectsAfterItsConnectionsAreKilled) {
  auto store = Open();
  EXPECT_EQ(Append(*store, Report(1, 1)).outcome, AppendOutcome::kStored);
  KillConnections();
  // The next transaction reconnects; the committed report is a retry.
  const AppendResult retry = Append(*store, Report(1, 1));
  EXPECT_EQ(retry.outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(retry.spent_nanos, 400'000'000);
  EXPECT_EQ(Append(*store, Report(2, 2)).outcome, AppendOutcome::kStored);
  KillConnections();
  EXPECT_EQ(CountReports(*store), 2);
  EXPECT_EQ(Spent(*store), 800'000'000);
  EXPECT_THAT(store->ReserveIds(IdKind::kRound, 1), IsOkAndHolds(1u));
  KillConnections();
  FollowEveryReportRow(url_);
  auto other = Open();
  ReportCursor cursor;
  EXPECT_EQ(Poll(*other, &cursor).size(), 2u);
  KillConnections();
  EXPECT_EQ(Poll(*other, &cursor).size(), 0u);
  EXPECT_THAT(store->FindAgent(7), IsOkAndHolds(::testing::Eq(std::nullopt)));
}

TEST_F(PostgresStoreTest, ATransactionCutOffBeforeItsCommitRunsAgain) {
  auto store = Open();
  int runs = 0;
  std::vector<AppendOutcome> outcomes;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(const AppendResult result, t.AppendReport(Report(1, 1)));
    outcomes.push_back(result.outcome);
    if (runs++ == 0) KillConnections();  // the commit will find it gone
    return absl::OkStatus();
  }));
  EXPECT_EQ(runs, 2);
  EXPECT_THAT(outcomes, ::testing::ElementsAre(AppendOutcome::kStored,
                                               AppendOutcome::kStored));
  EXPECT_EQ(CountReports(*store), 1);
  EXPECT_EQ(Spent(*store), 400'000'000);
}

// After a transaction that finally failed (its commit may have landed
// unseen), the next poll reads everything again, this instance's own rows
// included: whatever it wrote is then counted once the caller dedupes.
TEST_F(PostgresStoreTest, AFailedTransactionMakesTheNextPollReadOwnRowsToo) {
  auto first = Open();  // creates round 1
  FollowEveryReportRow(url_);
  auto opened = PostgresStore::Open({.url = url_, .max_retries = 1});
  ASSERT_OK(opened);
  PostgresStore& store = **opened;
  EXPECT_EQ(Append(store, Report(1, 1)).outcome, AppendOutcome::kStored);
  ReportCursor cursor;
  EXPECT_TRUE(Poll(store, &cursor).empty());  // its own row
  EXPECT_THAT(store.Transact([&](StoreTransaction& t) -> absl::Status {
    (void)t.AppendReport(Report(2, 2));
    KillConnections();
    return absl::OkStatus();
  }),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(CountReports(store), 1);
  EXPECT_THAT(Poll(store, &cursor), ::testing::UnorderedElementsAre(1));
  EXPECT_TRUE(Poll(store, &cursor).empty());
}

TEST_F(PostgresStoreTest, OpenWaitsForADatabaseThatIsStillComingUp) {
  const char* pg_ctl = getenv("LDP_TEST_PGCTL");
  const char* pg_data = getenv("LDP_TEST_PGDATA");
  ASSERT_NE(pg_ctl, nullptr);
  ASSERT_NE(pg_data, nullptr);
  auto store = Open();
  Append(*store, Report(1, 1));
  const std::string ctl = absl::StrCat("'", pg_ctl, "' -D '", pg_data, "' ");
  ASSERT_EQ(system((ctl + "-m fast -w stop >/dev/null").c_str()), 0);
  // The old store fails while the server is down, and recovers after.
  EXPECT_THAT(store->GetLedger(7, 1), StatusIs(absl::StatusCode::kUnavailable));
  std::thread starter([&] {
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_EQ(
        system((ctl + "-l '" + pg_data + "/../server.log' -w start >/dev/null")
                   .c_str()),
        0);
  });
  auto reopened =
      PostgresStore::Open({.url = url_, .connect_timeout = absl::Seconds(60)});
  starter.join();
  ASSERT_OK(reopened);
  EXPECT_EQ(CountReports(**reopened), 1);
  EXPECT_EQ(Append(*store, Report(2, 2)).outcome, AppendOutcome::kStored);
  EXPECT_EQ(Spent(**reopened), 800'000'000);
}

}  // namespace
}  // namespace ldp
