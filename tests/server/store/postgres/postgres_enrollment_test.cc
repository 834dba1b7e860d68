// What only the PostgreSQL store does for retry-safe enrollment: replicas
// enrolling under one request at once take turns on the request's lock, so
// the second finds the first's agent once it commits; and migration 4
// adds the request column to a database that has agents already.
//
// Why its own file: postgres_store_test.cc holds the store's other
// replica tests; this binary links both (tests/CMakeLists.txt).
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/store/postgres/postgres_schema.h"
#include "server/store/postgres/postgres_store.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::Sql;
using store_testing::SqlValue;

class PostgresEnrollmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    database_.Create();
    if (HasFatalFailure()) return;
    url_ = database_.url();
  }
  std::unique_ptr<PostgresStore> Open() {
    auto store = PostgresStore::Open({.url = url_});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  store_testing::PostgresTestDatabase database_;
  std::string url_;
};

AgentRow RequestedAgent(uint64_t id, const std::string& request) {
  AgentRow row{.agent_id = id,
               .enrollment_batch = "batch",
               .enrollment_request = request};
  row.credential_hash.fill(static_cast<uint8_t>(id));
  return row;
}

// Replica A looks, inserts and holds its transaction open; replica B,
// enrolling under the same request meanwhile, waits for A's commit and
// then finds A's agent (a READ COMMITTED lookup after the lock), so it
// writes nothing of its own.
TEST_F(PostgresEnrollmentTest, ReplicasEnrollingUnderOneRequestTakeTurns) {
  auto a = Open();
  auto b = Open();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const std::string request(32, 'r');
  const std::vector<std::string> requests = {request};
  absl::Notification inserted;
  absl::Time a_committing;
  std::thread first([&] {
    EXPECT_OK(a->Transact([&](StoreTransaction& t) -> absl::Status {
      ASSIGN_OR_RETURN(std::vector<AgentRow> found,
                       t.FindEnrolledAgents(requests));
      EXPECT_TRUE(found.empty());
      RETURN_IF_ERROR(t.InsertAgent(RequestedAgent(1, request)));
      if (!inserted.HasBeenNotified()) inserted.Notify();
      absl::SleepFor(absl::Milliseconds(300));
      a_committing = absl::Now();
      return absl::OkStatus();
    }));
  });
  inserted.WaitForNotification();
  std::vector<AgentRow> seen_by_b;
  absl::Time b_found;
  ASSERT_OK(b->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(seen_by_b, t.FindEnrolledAgents(requests));
    b_found = absl::Now();
    if (seen_by_b.empty()) return t.InsertAgent(RequestedAgent(2, request));
    return absl::OkStatus();
  }));
  first.join();
  ASSERT_EQ(seen_by_b.size(), 1u);
  EXPECT_EQ(seen_by_b[0].agent_id, 1u);
  EXPECT_EQ(seen_by_b[0].enrollment_request, request);
  EXPECT_GE(b_found, a_committing);
  EXPECT_EQ(SqlValue(url_, "SELECT count(*) FROM agents"), "1");
}

// A database at version 3 (no request column) with an agent in it: the
// migration keeps the agent, with no request, and new agents have theirs.
TEST_F(PostgresEnrollmentTest, MigrationFourAddsRequestsToExistingAgents) {
  ASSERT_NE(Open(), nullptr);
  Sql(url_,
      "DROP INDEX agents_enrollment_request; "
      "ALTER TABLE agents DROP COLUMN enrollment_request; "
      "DELETE FROM schema_migrations WHERE version = 4; "
      "INSERT INTO agents(agent_id, credential_hash, enrolled_at, "
      "enrollment_batch) VALUES (7, '\\x00'::bytea, 0, 'old'::bytea)");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(SqlValue(url_, "SELECT max(version) FROM schema_migrations"),
            absl::StrCat(postgres_schema::LatestVersion()));
  EXPECT_EQ(SqlValue(url_,
                     "SELECT count(*) FROM agents "
                     "WHERE agent_id = 7 AND enrollment_request IS NULL"),
            "1");
  const std::string request(32, 'n');
  ASSERT_OK(store->Transact([&](StoreTransaction& t) {
    return t.InsertAgent(RequestedAgent(8, request));
  }));
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    const std::vector<std::string> requests = {request};
    ASSIGN_OR_RETURN(std::vector<AgentRow> found,
                     t.FindEnrolledAgents(requests));
    EXPECT_EQ(found.size(), 1u);
    return absl::OkStatus();
  }));
  EXPECT_EQ(SqlValue(url_,
                     "SELECT count(*) FROM pg_indexes "
                     "WHERE indexname = 'agents_enrollment_request'"),
            "1");
}

}  // namespace
}  // namespace ldp
