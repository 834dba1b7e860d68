#include "server/sqlite_store.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

constexpr int64_t kCap = 1'000'000'000;

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "ldp_store_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/ldp.db";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<SqliteStore> Open() {
    auto store = SqliteStore::Open({.path = path_});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  static ReportRow Report(uint64_t task_id, uint8_t id_byte,
                          int64_t epsilon_nanos = 400'000'000,
                          std::string payload = "payload") {
    ReportRow row{.task_id = task_id,
                  .round_id = 1,
                  .study_id = 1,
                  .agent_id = 7,
                  .payload = std::move(payload),
                  .epsilon_nanos = epsilon_nanos,
                  .cap_nanos = kCap,
                  .received_at = absl::FromUnixSeconds(100)};
    row.report_id.fill(id_byte);
    return row;
  }

  static AppendResult Append(Store& store, const ReportRow& row) {
    AppendResult result;
    EXPECT_OK(store.Transact([&](StoreTransaction& t) -> absl::Status {
      absl::StatusOr<AppendResult> appended = t.AppendReport(row);
      if (!appended.ok()) return appended.status();
      result = *appended;
      return absl::OkStatus();
    }));
    return result;
  }

  static int CountReports(Store& store) {
    int count = 0;
    EXPECT_OK(store.ForEachReport([&](const ReportRow&) {
      ++count;
      return absl::OkStatus();
    }));
    return count;
  }

  static int64_t Spent(Store& store) {
    absl::StatusOr<std::vector<LedgerEntry>> ledger = store.GetLedger(7, 1);
    EXPECT_OK(ledger);
    return !ledger.ok() || ledger->empty() ? 0 : ledger->front().spent_nanos;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(SqliteStoreTest, StoresAReportAndChargesItOnce) {
  auto store = Open();
  const AppendResult result = Append(*store, Report(11, 1));
  EXPECT_EQ(result.outcome, AppendOutcome::kStored);
  EXPECT_EQ(result.spent_nanos, 400'000'000);
  EXPECT_TRUE(result.first_charge);
  const AppendResult second = Append(*store, Report(12, 2));
  EXPECT_EQ(second.outcome, AppendOutcome::kStored);
  EXPECT_EQ(second.spent_nanos, 800'000'000);
  EXPECT_FALSE(second.first_charge);
  EXPECT_EQ(CountReports(*store), 2);
  absl::StatusOr<std::vector<LedgerEntry>> ledger = store->GetLedger(7, 0);
  ASSERT_OK(ledger);
  ASSERT_EQ(ledger->size(), 1u);
  EXPECT_EQ((*ledger)[0].study_id, 1u);
  EXPECT_EQ((*ledger)[0].cap_nanos, kCap);
  EXPECT_EQ((*ledger)[0].spent_nanos, 800'000'000);
}

TEST_F(SqliteStoreTest, IdenticalRetryIsAcceptedWithoutASecondCharge) {
  auto store = Open();
  Append(*store, Report(11, 1));
  const AppendResult retry = Append(*store, Report(11, 1));
  EXPECT_EQ(retry.outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(retry.spent_nanos, 400'000'000);
  EXPECT_EQ(Spent(*store), 400'000'000);
  EXPECT_EQ(CountReports(*store), 1);
}

TEST_F(SqliteStoreTest, ADifferentReportForTheSameTaskConflicts) {
  auto store = Open();
  Append(*store, Report(11, 1));
  EXPECT_EQ(Append(*store, Report(11, 2)).outcome, AppendOutcome::kConflict);
  EXPECT_EQ(Append(*store, Report(11, 1, 400'000'000, "other")).outcome,
            AppendOutcome::kConflict);
  EXPECT_EQ(Spent(*store), 400'000'000);
  EXPECT_EQ(CountReports(*store), 1);
}

TEST_F(SqliteStoreTest, NeverChargesBeyondTheCapAndStoresNothingThen) {
  auto store = Open();
  EXPECT_EQ(Append(*store, Report(1, 1)).outcome, AppendOutcome::kStored);
  EXPECT_EQ(Append(*store, Report(2, 2)).outcome, AppendOutcome::kStored);
  const AppendResult over = Append(*store, Report(3, 3));
  EXPECT_EQ(over.outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(over.spent_nanos, 800'000'000);
  // Exactly up to the cap is fine.
  EXPECT_EQ(Append(*store, Report(4, 4, 200'000'000)).outcome,
            AppendOutcome::kStored);
  EXPECT_EQ(Append(*store, Report(5, 5, 1)).outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(Spent(*store), kCap);
  EXPECT_EQ(CountReports(*store), 3);
  // A charge larger than the cap on its own, and a negative one.
  EXPECT_EQ(Append(*store, Report(6, 6, kCap + 1)).outcome,
            AppendOutcome::kOverCap);
  EXPECT_EQ(Append(*store, Report(7, 7, -1)).outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(CountReports(*store), 3);
  // A zero charge (a repeated question, server/ledger_charge.h) is stored
  // even at the cap, and changes no spend.
  EXPECT_EQ(Append(*store, Report(10, 10, 0)).outcome, AppendOutcome::kStored);
  EXPECT_EQ(Spent(*store), kCap);
  EXPECT_EQ(CountReports(*store), 4);
}

TEST_F(SqliteStoreTest, AFailedTransactionLeavesNoTrace) {
  auto store = Open();
  EXPECT_THAT(store->Transact([&](StoreTransaction& t) -> absl::Status {
    EXPECT_OK(t.AppendReport(Report(1, 1)));
    EXPECT_OK(t.InsertAgent({.agent_id = 7}));
    return absl::AbortedError("caller gave up");
  }),
              StatusIs(absl::StatusCode::kAborted));
  EXPECT_EQ(CountReports(*store), 0);
  EXPECT_EQ(Spent(*store), 0);
  int agents = 0;
  EXPECT_OK(store->ForEachAgent([&](const AgentRow&) {
    ++agents;
    return absl::OkStatus();
  }));
  EXPECT_EQ(agents, 0);
  // The store is usable afterwards.
  EXPECT_EQ(Append(*store, Report(1, 1)).outcome, AppendOutcome::kStored);
}

TEST_F(SqliteStoreTest, ARepeatedRequestIdReturnsTheFirstStudy) {
  auto store = Open();
  uint64_t first = 0, second = 0, third = 0;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    first = *t.InsertStudy({.study_id = 1, .spec = "a", .request_id = "r"});
    second = *t.InsertStudy({.study_id = 2, .spec = "b", .request_id = "r"});
    third = *t.InsertStudy({.study_id = 3, .spec = "c"});
    return absl::OkStatus();
  }));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 1u);
  EXPECT_EQ(third, 3u);
  absl::StatusOr<std::vector<StudyRow>> studies = store->LoadStudies();
  ASSERT_OK(studies);
  ASSERT_EQ(studies->size(), 2u);
  EXPECT_EQ((*studies)[0].request_id, "r");
  EXPECT_EQ((*studies)[1].request_id, "");
}

TEST_F(SqliteStoreTest, EverythingSurvivesReopening) {
  CredentialHash hash;
  for (int i = 0; i < 32; ++i) hash[i] = static_cast<uint8_t>(i * 7);
  {
    auto store = Open();
    ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
      EXPECT_OK(t.InsertAgent({.agent_id = 7,
                               .credential_hash = hash,
                               .enrolled_at = absl::FromUnixSeconds(5)}));
      EXPECT_OK(t.InsertStudy({.study_id = 1,
                               .spec = std::string("spec\0bytes", 10),
                               .created_at = absl::FromUnixSeconds(6)}));
      EXPECT_OK(t.InsertRound({.round_id = 1,
                               .study_id = 1,
                               .start_time = absl::FromUnixSeconds(6),
                               .deadline = absl::FromUnixSeconds(66),
                               .plan = "plan"}));
      EXPECT_OK(t.SetRoundState(1, RoundState::kClosedQuorum));
      EXPECT_OK(t.SetStudyState(1, StudyState::kClosed));
      return absl::OkStatus();
    }));
    Append(*store, Report(uint64_t{1} << 63 | 5, 9));  // high bit survives
  }
  auto store = Open();
  AgentRow agent;
  ASSERT_OK(store->ForEachAgent([&](const AgentRow& a) {
    agent = a;
    return absl::OkStatus();
  }));
  EXPECT_EQ(agent.agent_id, 7u);
  EXPECT_EQ(agent.credential_hash, hash);
  EXPECT_EQ(agent.enrolled_at, absl::FromUnixSeconds(5));
  absl::StatusOr<std::vector<StudyRow>> studies = store->LoadStudies();
  ASSERT_OK(studies);
  ASSERT_EQ(studies->size(), 1u);
  EXPECT_EQ((*studies)[0].spec, std::string("spec\0bytes", 10));
  EXPECT_EQ((*studies)[0].state, StudyState::kClosed);
  absl::StatusOr<std::vector<RoundRow>> rounds = store->LoadRounds();
  ASSERT_OK(rounds);
  ASSERT_EQ(rounds->size(), 1u);
  EXPECT_EQ((*rounds)[0].state, RoundState::kClosedQuorum);
  EXPECT_EQ((*rounds)[0].deadline, absl::FromUnixSeconds(66));
  EXPECT_EQ((*rounds)[0].plan, "plan");
  ReportRow report;
  ASSERT_OK(store->ForEachReport([&](const ReportRow& r) {
    report = r;
    return absl::OkStatus();
  }));
  EXPECT_EQ(report.task_id, uint64_t{1} << 63 | 5);
  EXPECT_EQ(report.agent_id, 7u);
  EXPECT_EQ(report.report_id, Report(0, 9).report_id);
  EXPECT_EQ(report.payload, "payload");
  EXPECT_EQ(report.received_at, absl::FromUnixSeconds(100));
  absl::StatusOr<std::vector<LedgerSummary>> summary = store->SummarizeLedger();
  ASSERT_OK(summary);
  ASSERT_EQ(summary->size(), 1u);
  EXPECT_EQ((*summary)[0].num_agents, 1);
  EXPECT_EQ((*summary)[0].max_spent_nanos, 400'000'000);
}

// A process killed with SIGKILL right after commits returned keeps every one
// of them, and loses the transaction it had not committed.
TEST_F(SqliteStoreTest, CommittedReportsSurviveSigkill) {
  // "fast" style forks without re-running SetUp, so the child writes to
  // this test's database; no threads exist yet.
  GTEST_FLAG_SET(death_test_style, "fast");
  constexpr int kCommitted = 50;
  EXPECT_EXIT(
      {
        auto store = SqliteStore::Open({.path = path_});
        if (!store.ok()) _exit(1);
        for (int i = 1; i <= kCommitted; ++i) {
          absl::Status status = (*store)->Transact([&](StoreTransaction& t) {
            return t.AppendReport(Report(i, 1, 1)).status();
          });
          if (!status.ok()) _exit(2);
        }
        (void)(*store)->Transact([&](StoreTransaction& t) {
          (void)t.AppendReport(Report(kCommitted + 1, 1, 1));
          raise(SIGKILL);  // mid-transaction
          return absl::OkStatus();
        });
        _exit(3);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  auto store = Open();
  EXPECT_EQ(CountReports(*store), kCommitted);
  EXPECT_EQ(Spent(*store), kCommitted);
}

TEST_F(SqliteStoreTest, RefusesDatabasesThatAreNotItsOwn) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "CREATE TABLE other(x)", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THAT(SqliteStore::Open({.path = path_}),
              StatusIs(absl::StatusCode::kFailedPrecondition));

  const std::string newer = dir_ + "/newer.db";
  ASSERT_EQ(sqlite3_open(newer.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THAT(SqliteStore::Open({.path = newer}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// A file written by the first release (schema version 1: no enrollment
// batch column) is migrated at open, its rows kept.
TEST_F(SqliteStoreTest, MigratesAVersionOneDatabaseInPlace) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE agents(agent_id INTEGER PRIMARY KEY, credential_hash BLOB "
      "NOT NULL, enrolled_at INTEGER NOT NULL);"
      "CREATE TABLE studies(study_id INTEGER PRIMARY KEY, spec BLOB NOT NULL, "
      "request_id TEXT UNIQUE, state INTEGER NOT NULL, created_at INTEGER NOT "
      "NULL);"
      "CREATE TABLE rounds(round_id INTEGER PRIMARY KEY, study_id INTEGER NOT "
      "NULL, state INTEGER NOT NULL, start_time INTEGER NOT NULL, deadline "
      "INTEGER NOT NULL, plan BLOB NOT NULL);"
      "CREATE TABLE reports(task_id INTEGER PRIMARY KEY, round_id INTEGER NOT "
      "NULL, agent_id INTEGER NOT NULL, report_id BLOB NOT NULL, payload BLOB "
      "NOT NULL, received_at INTEGER NOT NULL);"
      "CREATE TABLE ledger(agent_id INTEGER NOT NULL, study_id INTEGER NOT "
      "NULL, spent_nanos INTEGER NOT NULL, cap_nanos INTEGER NOT NULL, "
      "PRIMARY KEY(agent_id, study_id)) WITHOUT ROWID;"
      "INSERT INTO agents VALUES(7, zeroblob(32), 5);"
      "PRAGMA user_version=1;";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = Open();
  std::vector<AgentRow> agents;
  ASSERT_OK(store->ForEachAgent([&](const AgentRow& row) {
    agents.push_back(row);
    return absl::OkStatus();
  }));
  ASSERT_EQ(agents.size(), 1u);
  EXPECT_EQ(agents[0].agent_id, 7u);
  EXPECT_EQ(agents[0].enrollment_batch, "");
  // Migrated once: the new column takes writes, and reopening is a no-op.
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    return t.InsertAgent({.agent_id = 8, .enrollment_batch = "batch"});
  }));
  store.reset();
  EXPECT_OK(SqliteStore::Open({.path = path_}));
}

// A commit that leaves more than checkpoint_pages in the log wakes the
// store's checkpoint thread (the writer no longer checkpoints inside a
// commit), and what it copies is the committed data.
TEST_F(SqliteStoreTest, CheckpointsRunOnTheirOwnThread) {
  constexpr int kReports = 400;
  {
    auto store = SqliteStore::Open({.path = path_, .checkpoint_pages = 8});
    ASSERT_OK(store);
    for (int i = 1; i <= kReports; i += 4) {
      ASSERT_OK((*store)->Transact([&](StoreTransaction& t) -> absl::Status {
        for (int j = i; j < i + 4; ++j) {
          // 2 KiB each: about 200 pages of log in all.
          RETURN_IF_ERROR(
              t.AppendReport(Report(j, 1, 1, std::string(2048, 'p'))).status());
        }
        return absl::OkStatus();
      }));
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while ((*store)->checkpoints() == 0 && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_GE((*store)->checkpoints(), 1);
    EXPECT_EQ(CountReports(**store), kReports);
  }
  auto unthreaded = SqliteStore::Open({.path = path_, .checkpoint_pages = 0});
  ASSERT_OK(unthreaded);
  EXPECT_EQ(CountReports(**unthreaded), kReports);
  EXPECT_EQ(Spent(**unthreaded), kReports);
  EXPECT_EQ((*unthreaded)->checkpoints(), 0);
}

TEST_F(SqliteStoreTest, RejectsBadOptions) {
  EXPECT_THAT(SqliteStore::Open({.path = path_, .checkpoint_pages = -1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = ""}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = path_, .cache_kib = 1}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SqliteStore::Open({.path = dir_ + "/missing/dir/x.db"}),
              StatusIs(absl::StatusCode::kInternal));
}

}  // namespace
}  // namespace ldp
