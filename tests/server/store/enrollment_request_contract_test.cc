// The Store contract for retry-safe enrollment (store.h: AgentRow's
// enrollment_request and FindEnrolledAgents), over SQLite and PostgreSQL
// (store_backends.h): agents are found by the digest of the request that
// created them, within the transaction that stored them and after a
// reopen; agents without one may be many; a digest stored twice fails the
// transaction and leaves nothing of it.
//
// Why its own file: the contract suite is one binary, split by subject;
// the aggregator's use of these calls is in enrollment_retry_test.cc.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/store/store_backends.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using store_testing::BackendNames;
using store_testing::Backends;

template <typename Backend>
class EnrollmentRequestContractTest
    : public store_testing::StoreContractTest<Backend> {};
TYPED_TEST_SUITE(EnrollmentRequestContractTest, Backends, BackendNames);

// A 32-byte digest, `byte` repeated.
std::string RequestDigest(char byte) { return std::string(32, byte); }

AgentRow RequestAgent(uint64_t id, std::string request,
                      std::string batch = "b") {
  AgentRow row{.agent_id = id,
               .enrolled_at = absl::FromUnixSeconds(100),
               .enrollment_batch = std::move(batch),
               .enrollment_request = std::move(request)};
  row.credential_hash.fill(static_cast<uint8_t>(id));
  return row;
}

std::vector<uint64_t> AgentIdsOf(std::vector<AgentRow> rows) {
  std::vector<uint64_t> ids;
  for (const AgentRow& row : rows) ids.push_back(row.agent_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::StatusOr<std::vector<AgentRow>> FindEnrolled(
    Store& store, const std::vector<std::string>& requests) {
  absl::StatusOr<std::vector<AgentRow>> found;
  absl::Status status = store.Transact([&](StoreTransaction& t) {
    found = t.FindEnrolledAgents(requests);
    return found.status();
  });
  if (!status.ok()) return status;
  return found;
}

int CountStoredAgents(Store& store) {
  int count = 0;
  EXPECT_OK(store.ForEachAgent([&](const AgentRow&) {
    ++count;
    return absl::OkStatus();
  }));
  return count;
}

TYPED_TEST(EnrollmentRequestContractTest, FindsAgentsByTheirRequest) {
  auto store = this->Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Transact([](StoreTransaction& t) -> absl::Status {
    const std::vector<AgentRow> rows = {RequestAgent(1, RequestDigest('a')),
                                        RequestAgent(2, RequestDigest('b')),
                                        RequestAgent(3, RequestDigest('c')),
                                        RequestAgent(4, "")};
    RETURN_IF_ERROR(t.InsertAgents(rows));
    // Seen inside the transaction that stored them.
    absl::StatusOr<std::vector<AgentRow>> found =
        t.FindEnrolledAgents({RequestDigest('b')});
    RETURN_IF_ERROR(found.status());
    EXPECT_EQ(AgentIdsOf(*found), std::vector<uint64_t>{2});
    return absl::OkStatus();
  }));
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    return t.InsertAgent(
        RequestAgent(5, "", ""));  // no request: NULL may repeat
  }));
  auto one = FindEnrolled(*store, {RequestDigest('a')});
  ASSERT_OK(one);
  ASSERT_EQ(one->size(), 1u);
  const AgentRow& row = one->front();
  EXPECT_EQ(row.agent_id, 1u);
  EXPECT_EQ(row.credential_hash, RequestAgent(1, "").credential_hash);
  EXPECT_EQ(row.enrollment_batch, "b");
  EXPECT_EQ(row.enrollment_request, RequestDigest('a'));
  EXPECT_THAT(FindEnrolled(*store, {RequestDigest('c'), RequestDigest('x'),
                                    RequestDigest('a')}),
              testing::IsOkAndHolds(::testing::SizeIs(2)));
  EXPECT_THAT(FindEnrolled(*store, {RequestDigest('x')}),
              testing::IsOkAndHolds(::testing::IsEmpty()));

  // Durable: a store opened again finds them.
  store.reset();
  store = this->Open();
  ASSERT_NE(store, nullptr);
  auto all = FindEnrolled(
      *store, {RequestDigest('a'), RequestDigest('b'), RequestDigest('c')});
  ASSERT_OK(all);
  EXPECT_EQ(AgentIdsOf(*all), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(CountStoredAgents(*store), 5);
}

// The UNIQUE index is the last guard: the registry looks first, so a
// second row for one request is a bug, and its transaction stores nothing.
TYPED_TEST(EnrollmentRequestContractTest, ARequestStoredTwiceFailsItsCommit) {
  auto store = this->Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Transact([](StoreTransaction& t) {
    return t.InsertAgent(RequestAgent(1, RequestDigest('a')));
  }));
  EXPECT_FALSE(store
                   ->Transact([](StoreTransaction& t) -> absl::Status {
                     RETURN_IF_ERROR(
                         t.InsertAgent(RequestAgent(2, RequestDigest('z'))));
                     return t.InsertAgent(RequestAgent(3, RequestDigest('a')));
                   })
                   .ok());
  EXPECT_FALSE(store
                   ->Transact([](StoreTransaction& t) {
                     const std::vector<AgentRow> rows = {
                         RequestAgent(4, RequestDigest('y')),
                         RequestAgent(5, RequestDigest('y'))};
                     return t.InsertAgents(rows);
                   })
                   .ok());
  EXPECT_EQ(CountStoredAgents(*store), 1);
  EXPECT_THAT(FindEnrolled(*store, {RequestDigest('z'), RequestDigest('y')}),
              testing::IsOkAndHolds(::testing::IsEmpty()));
}

// Agents inserted under a quota carry their requests too, and a batch of
// more than one statement's worth (SQLite inserts 64 rows at a time).
TYPED_TEST(EnrollmentRequestContractTest, QuotaAndLargeBatchesKeepRequests) {
  auto store = this->Open();
  ASSERT_NE(store, nullptr);
  std::vector<AgentRow> rows;
  std::vector<std::string> digests;
  for (int i = 0; i < 130; ++i) {
    std::string digest = RequestDigest('q');
    digest[0] = static_cast<char>(i);
    digests.push_back(digest);
    rows.push_back(RequestAgent(100 + i, digest, "quota"));
  }
  QuotaDecision decision;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    absl::StatusOr<QuotaDecision> d = t.InsertAgentsWithinQuota(rows, 200);
    RETURN_IF_ERROR(d.status());
    decision = *d;
    return absl::OkStatus();
  }));
  EXPECT_TRUE(decision.admitted);
  auto found = FindEnrolled(*store, digests);
  ASSERT_OK(found);
  ASSERT_EQ(found->size(), rows.size());
  for (const AgentRow& row : *found) {
    EXPECT_EQ(row.enrollment_request[0], static_cast<char>(row.agent_id - 100));
  }
}

}  // namespace
}  // namespace ldp
