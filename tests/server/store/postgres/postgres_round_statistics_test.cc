// The PostgreSQL store's round statistics (Store::SaveRoundStatistics and
// its reads): a closed round's reports only, in task order, and the
// statistics the first server stored staying. Part of
// server_postgres_store_test, through tests/postgres/with_postgres.sh.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/postgres/postgres_store.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/server/store/store_testing.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::Append;
using store_testing::Report;
using testing::IsOkAndHolds;
using testing::StatusIs;

class PostgresRoundStatisticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    database_.Create();
    if (HasFatalFailure()) return;
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open({.url = database_.url()});
    ASSERT_OK(store);
    store_ = *std::move(store);
    ASSERT_OK(store_->Transact([](StoreTransaction& t) {
      RETURN_IF_ERROR(t.InsertRound({.round_id = 1, .study_id = 1}));
      return t.InsertRound({.round_id = 2, .study_id = 1});
    }));
  }

  absl::StatusOr<std::vector<uint64_t>> TasksOf(int database,
                                                uint64_t round_id) {
    std::vector<uint64_t> tasks;
    absl::Status status = store_->ForEachClosedRoundReport(
        database, round_id, [&](const ReportRow& row) {
          tasks.push_back(row.task_id);
          return absl::OkStatus();
        });
    if (!status.ok()) return status;
    return tasks;
  }

  store_testing::PostgresTestDatabase database_;
  std::unique_ptr<PostgresStore> store_;
};

TEST_F(PostgresRoundStatisticsTest, ReadsAClosedRoundsReportsInTaskOrder) {
  EXPECT_EQ(store_->num_report_databases(), 1);
  ReportRow later = Report(9, 9, 100'000'000);
  ReportRow earlier = Report(4, 4, 100'000'000);
  ReportRow other_round = Report(6, 6, 100'000'000);
  other_round.round_id = 2;
  for (const ReportRow& row : {later, earlier, other_round}) {
    ASSERT_EQ(Append(*store_, row).outcome, AppendOutcome::kStored);
  }
  // Open: its reports are not final yet.
  EXPECT_THAT(TasksOf(0, 1), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(TasksOf(0, 77), StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(store_->Transact([](StoreTransaction& t) {
    return t.CloseRound(1, RoundState::kClosedQuorum).status();
  }));
  EXPECT_THAT(TasksOf(0, 1), IsOkAndHolds(std::vector<uint64_t>{4, 9}));
  EXPECT_THAT(TasksOf(1, 1), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(PostgresRoundStatisticsTest, TheFirstStatisticsStoredStay) {
  using Stored = std::vector<std::optional<std::string>>;
  EXPECT_THAT(store_->LoadRoundStatistics(1),
              IsOkAndHolds(Stored{std::nullopt}));
  ASSERT_OK(store_->SaveRoundStatistics(0, 1, std::string("first\0", 6)));
  ASSERT_OK(store_->SaveRoundStatistics(0, 1, "second"));
  EXPECT_THAT(store_->LoadRoundStatistics(1),
              IsOkAndHolds(Stored{std::string("first\0", 6)}));
  EXPECT_THAT(store_->LoadRoundStatistics(2),
              IsOkAndHolds(Stored{std::nullopt}));
  EXPECT_THAT(store_->SaveRoundStatistics(1, 1, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
