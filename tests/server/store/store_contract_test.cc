// The Store contract (server/store/store.h), one typed suite run over every
// store: SQLite and PostgreSQL must answer each call alike.
//
// Why one binary for both stores: the contract is what the aggregator
// relies on whichever store it runs on, so it is written once and each store
// is a type parameter. The binary is registered with ldp_postgres_test (as
// server_store_contract_postgres_test, so that the TSan job, which picks
// tests named *postgres*, wraps it too): ctest runs it through
// tests/postgres/with_postgres.sh, and each PostgreSQL test gets a database
// of its own on that throwaway cluster. The SQLite half needs no server:
// --gtest_filter='*/Sqlite.*' runs it alone.
//
// What only one store does stays in its own file: SQLite's file format,
// checkpoints and migrations (sqlite_store_test.cc); PostgreSQL's replicas,
// polling, id blocks, quotas, closed rounds and lost connections
// (postgres_store_test.cc).
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/server/store/store_backends.h"
#include "tests/server/store/store_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::Append;
using store_testing::AppendBatch;
using store_testing::CountReports;
using store_testing::kCap;
using store_testing::Report;
using store_testing::Spent;
using testing::IsOkAndHolds;
using testing::StatusIs;

using store_testing::BackendNames;
using store_testing::Backends;
using store_testing::StoreContractTest;

TYPED_TEST_SUITE(StoreContractTest, Backends, BackendNames);

TYPED_TEST(StoreContractTest, StoresAReportAndChargesItOnce) {
  auto store = this->Open();
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
  EXPECT_THAT(store->GetLedger(7, 2), IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(store->GetLedger(8, 0), IsOkAndHolds(::testing::IsEmpty()));
}

TYPED_TEST(StoreContractTest, IdenticalRetryIsAcceptedWithoutASecondCharge) {
  auto store = this->Open();
  Append(*store, Report(11, 1));
  const AppendResult retry = Append(*store, Report(11, 1));
  EXPECT_EQ(retry.outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(retry.spent_nanos, 400'000'000);
  EXPECT_FALSE(retry.first_charge);
  EXPECT_EQ(Spent(*store), 400'000'000);
  EXPECT_EQ(CountReports(*store), 1);
}

TYPED_TEST(StoreContractTest, ADifferentReportForTheSameTaskConflicts) {
  auto store = this->Open();
  Append(*store, Report(11, 1));
  EXPECT_EQ(Append(*store, Report(11, 2)).outcome, AppendOutcome::kConflict);
  EXPECT_EQ(Append(*store, Report(11, 1, 400'000'000, "other")).outcome,
            AppendOutcome::kConflict);
  ReportRow other_agent = Report(11, 1);
  other_agent.agent_id = 8;
  EXPECT_EQ(Append(*store, other_agent).outcome, AppendOutcome::kConflict);
  EXPECT_EQ(Spent(*store), 400'000'000);
  EXPECT_EQ(Spent(*store, 8), 0);
  EXPECT_EQ(CountReports(*store), 1);
}

TYPED_TEST(StoreContractTest, NeverChargesBeyondTheCapAndStoresNothingThen) {
  auto store = this->Open();
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
  // A zero charge (a repeated question, server/rounds/ledger_charge.h) is
  // stored even at the cap, and changes no spend.
  EXPECT_EQ(Append(*store, Report(10, 10, 0)).outcome, AppendOutcome::kStored);
  EXPECT_EQ(Spent(*store), kCap);
  EXPECT_EQ(CountReports(*store), 4);
  // A fresh agent whose very first charge is over the cap: no ledger row.
  ReportRow greedy = Report(8, 8, kCap + 1);
  greedy.agent_id = 9;
  const AppendResult refused = Append(*store, greedy);
  EXPECT_EQ(refused.outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(refused.spent_nanos, 0);
  EXPECT_THAT(store->GetLedger(9, 0), IsOkAndHolds(::testing::IsEmpty()));
}

TYPED_TEST(StoreContractTest, AFailedTransactionLeavesNoTrace) {
  auto store = this->Open();
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

// Enough rows for a store that inserts them in groups (SQLite: 64 per
// statement) to use whole groups and a remainder; every field comes back.
TYPED_TEST(StoreContractTest, AnEnrollmentBatchStoresEveryAgent) {
  auto store = this->Open();
  std::vector<AgentRow> rows;
  for (uint64_t id = 100; id < 100 + 2 * 64 + 5; ++id) {
    AgentRow row{.agent_id = id,
                 .enrolled_at = absl::FromUnixSeconds(static_cast<int64_t>(id)),
                 .enrollment_batch = absl::StrCat("batch-", id % 3)};
    row.credential_hash[0] = static_cast<uint8_t>(id);
    row.credential_hash[31] = static_cast<uint8_t>(id >> 1);
    rows.push_back(row);
  }
  ASSERT_OK(store->Transact(
      [&](StoreTransaction& t) { return t.InsertAgents(rows); }));
  std::vector<AgentRow> stored;
  ASSERT_OK(store->ForEachAgent([&](const AgentRow& row) {
    stored.push_back(row);
    return absl::OkStatus();
  }));
  ASSERT_EQ(stored.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(stored[i].agent_id, rows[i].agent_id);
    EXPECT_EQ(stored[i].credential_hash, rows[i].credential_hash);
    EXPECT_EQ(stored[i].enrolled_at, rows[i].enrolled_at);
    EXPECT_EQ(stored[i].enrollment_batch, rows[i].enrollment_batch);
  }
}

// A repeated agent id in the second group fails the whole batch: none of
// it, the first group included, is stored.
TYPED_TEST(StoreContractTest, AnEnrollmentBatchWithARepeatedIdStoresNothing) {
  auto store = this->Open();
  std::vector<AgentRow> rows;
  for (uint64_t id = 1; id <= 2 * 64; ++id) rows.push_back({.agent_id = id});
  rows[100].agent_id = 3;
  EXPECT_FALSE(
      store->Transact([&](StoreTransaction& t) { return t.InsertAgents(rows); })
          .ok());
  int agents = 0;
  EXPECT_OK(store->ForEachAgent([&](const AgentRow&) {
    ++agents;
    return absl::OkStatus();
  }));
  EXPECT_EQ(agents, 0);
}

TYPED_TEST(StoreContractTest, ARepeatedRequestIdReturnsTheFirstStudy) {
  auto store = this->Open();
  uint64_t first = 0, second = 0, third = 0;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(
        first, t.InsertStudy({.study_id = 1, .spec = "a", .request_id = "r"}));
    ASSIGN_OR_RETURN(
        second, t.InsertStudy({.study_id = 2, .spec = "b", .request_id = "r"}));
    ASSIGN_OR_RETURN(third, t.InsertStudy({.study_id = 3, .spec = "c"}));
    return absl::OkStatus();
  }));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 1u);
  EXPECT_EQ(third, 3u);
  absl::StatusOr<std::vector<StudyRow>> studies = store->LoadStudies();
  ASSERT_OK(studies);
  ASSERT_EQ(studies->size(), 2u);
  EXPECT_EQ((*studies)[0].request_id, "r");
  EXPECT_EQ((*studies)[0].spec, "a");
  EXPECT_EQ((*studies)[1].request_id, "");
}

TYPED_TEST(StoreContractTest, EverythingSurvivesReopening) {
  CredentialHash hash;
  for (int i = 0; i < 32; ++i) hash[i] = static_cast<uint8_t>(i * 7);
  {
    auto store = this->Open();
    Append(*store, Report(uint64_t{1} << 63 | 5, 9));  // high bit survives
    ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
      EXPECT_OK(t.InsertAgent({.agent_id = 7,
                               .credential_hash = hash,
                               .enrolled_at = absl::FromUnixSeconds(5),
                               .enrollment_batch = std::string("b\0t", 3)}));
      EXPECT_OK(t.InsertStudy({.study_id = 1,
                               .spec = std::string("spec\0bytes", 10),
                               .created_at = absl::FromUnixSeconds(6)}));
      EXPECT_OK(t.InsertRound({.round_id = 2,
                               .study_id = 1,
                               .start_time = absl::FromUnixSeconds(6),
                               .deadline = absl::FromUnixSeconds(66),
                               .plan = "plan"}));
      EXPECT_OK(t.SetRoundState(2, RoundState::kClosedQuorum));
      EXPECT_OK(t.SetStudyState(1, StudyState::kClosed));
      return absl::OkStatus();
    }));
  }
  auto store = this->Open();
  AgentRow agent;
  ASSERT_OK(store->ForEachAgent([&](const AgentRow& a) {
    agent = a;
    return absl::OkStatus();
  }));
  EXPECT_EQ(agent.agent_id, 7u);
  EXPECT_EQ(agent.credential_hash, hash);
  EXPECT_EQ(agent.enrolled_at, absl::FromUnixSeconds(5));
  EXPECT_EQ(agent.enrollment_batch, std::string("b\0t", 3));
  absl::StatusOr<std::vector<StudyRow>> studies = store->LoadStudies();
  ASSERT_OK(studies);
  ASSERT_EQ(studies->size(), 1u);
  EXPECT_EQ((*studies)[0].spec, std::string("spec\0bytes", 10));
  EXPECT_EQ((*studies)[0].state, StudyState::kClosed);
  EXPECT_EQ((*studies)[0].created_at, absl::FromUnixSeconds(6));
  absl::StatusOr<std::vector<RoundRow>> rounds = store->LoadRounds();
  ASSERT_OK(rounds);
  ASSERT_EQ(rounds->size(), 2u);
  EXPECT_EQ((*rounds)[0].round_id, 1u);
  EXPECT_EQ((*rounds)[0].state, RoundState::kOpen);
  EXPECT_EQ((*rounds)[1].state, RoundState::kClosedQuorum);
  EXPECT_EQ((*rounds)[1].start_time, absl::FromUnixSeconds(6));
  EXPECT_EQ((*rounds)[1].deadline, absl::FromUnixSeconds(66));
  EXPECT_EQ((*rounds)[1].plan, "plan");
  ReportRow report;
  ASSERT_OK(store->ForEachReport([&](const ReportRow& r) {
    report = r;
    return absl::OkStatus();
  }));
  EXPECT_EQ(report.task_id, uint64_t{1} << 63 | 5);
  EXPECT_EQ(report.round_id, 1u);
  EXPECT_EQ(report.agent_id, 7u);
  EXPECT_EQ(report.report_id, Report(0, 9).report_id);
  EXPECT_EQ(report.payload, "payload");
  EXPECT_EQ(report.received_at, absl::FromUnixSeconds(100));
  absl::StatusOr<std::vector<LedgerSummary>> summary = store->SummarizeLedger();
  ASSERT_OK(summary);
  ASSERT_EQ(summary->size(), 1u);
  EXPECT_EQ((*summary)[0].study_id, 1u);
  EXPECT_EQ((*summary)[0].num_agents, 1);
  EXPECT_EQ((*summary)[0].max_spent_nanos, 400'000'000);
}

// A process killed with SIGKILL right after commits returned keeps every one
// of them, and loses the transaction it had not committed.
TYPED_TEST(StoreContractTest, CommittedReportsSurviveSigkill) {
  // Creates round 1; closed again, so that no store thread is running when
  // "fast" style forks (without re-running SetUp: the child writes to this
  // test's database).
  ASSERT_NE(this->Open(), nullptr);
  GTEST_FLAG_SET(death_test_style, "fast");
  constexpr int kCommitted = 50;
  EXPECT_EXIT(
      {
        absl::StatusOr<std::unique_ptr<Store>> store = this->backend_.Open();
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
  auto store = this->Open();
  EXPECT_EQ(CountReports(*store), kCommitted);
  EXPECT_EQ(Spent(*store), kCommitted);
}

// ---- Batches (AppendReports) ----------------------------------------------

TYPED_TEST(StoreContractTest, ABatchDecidesRepeatsOfATaskAsOneByOneWould) {
  auto store = this->Open();
  Append(*store, Report(20, 5));
  const std::vector<AppendResult> results = AppendBatch(
      *store, {Report(10, 1), Report(10, 1), Report(10, 2), Report(11, 3),
               Report(20, 5), Report(20, 6), Report(10, 1, 400'000'000, "x")});
  ASSERT_EQ(results.size(), 7u);
  EXPECT_EQ(results[0].outcome, AppendOutcome::kStored);
  EXPECT_EQ(results[0].spent_nanos, 800'000'000);
  EXPECT_FALSE(results[0].first_charge);
  EXPECT_EQ(results[1].outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(results[2].outcome, AppendOutcome::kConflict);
  // 400 + 400 + 400 > cap: the second new task does not fit.
  EXPECT_EQ(results[3].outcome, AppendOutcome::kOverCap);
  EXPECT_EQ(results[3].spent_nanos, 800'000'000);
  EXPECT_EQ(results[4].outcome, AppendOutcome::kIdenticalRetry);
  EXPECT_EQ(results[5].outcome, AppendOutcome::kConflict);
  EXPECT_EQ(results[6].outcome, AppendOutcome::kConflict);
  for (const AppendResult& r : results) {
    if (r.outcome != AppendOutcome::kStored) {
      EXPECT_FALSE(r.first_charge);
    }
  }
  EXPECT_EQ(CountReports(*store), 2);
  EXPECT_EQ(Spent(*store), 800'000'000);
}

// Batches long enough for a store that writes groups of reports at once
// (SQLite: 64 first charges in three statements, rolled back to a savepoint
// when any row was there already). Group 1 is all first charges; group 2
// holds a retry of a stored report; group 3 holds an agent already charged,
// so its reports must be taken back out before going row by row; the tail
// is row by row. Every decision must be the one-by-one decision.
TYPED_TEST(StoreContractTest, LongBatchesDecideAsOneByOneWould) {
  auto store = this->Open();
  auto of_agent = [](uint64_t task_id, uint64_t agent_id) {
    ReportRow row = Report(task_id, 5);
    row.agent_id = agent_id;
    return row;
  };
  Append(*store, of_agent(1000, 500));
  Append(*store, of_agent(1001, 600));
  std::vector<ReportRow> rows;
  for (uint64_t i = 0; i < 3 * 64 + 7; ++i)
    rows.push_back(of_agent(2000 + i, 1 + i));
  rows[70] = of_agent(1000, 500);  // group 2: an identical retry
  rows[140].agent_id = 600;        // group 3: a second charge
  const std::vector<AppendResult> results = AppendBatch(*store, rows);
  ASSERT_EQ(results.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i == 70) {
      EXPECT_EQ(results[i].outcome, AppendOutcome::kIdenticalRetry);
    } else if (i == 140) {
      EXPECT_EQ(results[i].outcome, AppendOutcome::kStored);
      EXPECT_EQ(results[i].spent_nanos, 800'000'000);
      EXPECT_FALSE(results[i].first_charge);
    } else {
      EXPECT_EQ(results[i].outcome, AppendOutcome::kStored) << "row " << i;
      EXPECT_EQ(results[i].spent_nanos, 400'000'000) << "row " << i;
      EXPECT_TRUE(results[i].first_charge) << "row " << i;
    }
  }
  EXPECT_EQ(CountReports(*store), 2 + static_cast<int>(rows.size()) - 1);
  EXPECT_EQ(Spent(*store, 600), 800'000'000);
  EXPECT_EQ(Spent(*store, 1), 400'000'000);
  EXPECT_EQ(Spent(*store, 142), 400'000'000);
  // The whole batch again: every row an identical retry, nothing charged.
  for (const AppendResult& r : AppendBatch(*store, rows)) {
    EXPECT_EQ(r.outcome, AppendOutcome::kIdenticalRetry);
  }
  EXPECT_EQ(Spent(*store, 600), 800'000'000);
  EXPECT_EQ(Spent(*store, 1), 400'000'000);
}

TYPED_TEST(StoreContractTest, ABatchPastTheCapStoresWhatFitsInOrder) {
  auto store = this->Open();
  std::vector<ReportRow> rows;
  // Agent 7: 300 + 300 + 300 fit, 300 does not, 100 does, 1 does not.
  for (const int64_t eps : {300, 300, 300, 300, 100, 1}) {
    rows.push_back(Report(rows.size() + 1, 1, eps == 1 ? 1 : eps * 1'000'000));
  }
  // Agent 8 in the same batch, well within its cap, and a non-positive
  // charge.
  for (int i = 0; i < 3; ++i) {
    ReportRow row = Report(100 + i, 2, 100'000'000);
    row.agent_id = 8;
    rows.push_back(row);
  }
  rows.push_back(Report(200, 3, -5));
  const std::vector<AppendResult> results = AppendBatch(*store, rows);
  const AppendOutcome kStored = AppendOutcome::kStored;
  const AppendOutcome kOverCap = AppendOutcome::kOverCap;
  const std::vector<AppendOutcome> expected = {
      kStored,  kStored, kStored, kOverCap, kStored,
      kOverCap, kStored, kStored, kStored,  kOverCap};
  ASSERT_EQ(results.size(), expected.size());
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].outcome, expected[i]) << "row " << i;
  }
  EXPECT_EQ(results[0].spent_nanos, 300'000'000);
  EXPECT_TRUE(results[0].first_charge);
  EXPECT_EQ(results[1].spent_nanos, 600'000'000);
  EXPECT_FALSE(results[1].first_charge);
  EXPECT_EQ(results[2].spent_nanos, 900'000'000);
  EXPECT_EQ(results[3].spent_nanos, 900'000'000);
  EXPECT_EQ(results[4].spent_nanos, kCap);
  EXPECT_EQ(results[5].spent_nanos, kCap);
  EXPECT_TRUE(results[6].first_charge);
  EXPECT_EQ(results[6].spent_nanos, 100'000'000);
  EXPECT_FALSE(results[7].first_charge);
  EXPECT_EQ(results[8].spent_nanos, 300'000'000);
  EXPECT_EQ(Spent(*store, 7), kCap);
  EXPECT_EQ(Spent(*store, 8), 300'000'000);
  EXPECT_EQ(CountReports(*store), 7);
}

}  // namespace
}  // namespace ldp
