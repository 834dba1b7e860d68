// The PostgreSQL store's deltas (StoreTransaction::AppendDelta,
// Store::PollDeltas) and what they change in PollReports: followed by
// other instances only, never when rolled back, a repeated id failing its
// transaction, the report rows that deltas name left out of the polls
// (and the payloads of those that deltas count), and a delta whose COMMIT
// reply was lost found by its own writer. Part of server_postgres_store_test,
// through tests/postgres/with_postgres.sh.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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
using store_testing::CountReports;
using store_testing::Report;
using store_testing::Spent;
using store_testing::SqlValue;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;
using testing::StatusIs;
using ::testing::UnorderedElementsAre;

DeltaRow Delta(uint64_t delta_id, std::string statistics) {
  return {.delta_id = delta_id,
          .round_id = 1,
          .agent_id = 7,
          .statistics = std::move(statistics)};
}

std::vector<DeltaRow> PollDeltas(Store& store, ReportCursor* cursor) {
  std::vector<DeltaRow> deltas;
  EXPECT_OK(store.PollDeltas(cursor, [&](const DeltaRow& row) {
    deltas.push_back(row);
    return absl::OkStatus();
  }));
  return deltas;
}

std::vector<uint64_t> DeltaIds(Store& store, ReportCursor* cursor) {
  std::vector<uint64_t> ids;
  for (const DeltaRow& row : PollDeltas(store, cursor)) {
    ids.push_back(row.delta_id);
  }
  return ids;
}

std::vector<ReportRow> PollReports(Store& store, ReportCursor* cursor,
                                   absl::Span<const uint64_t> without = {}) {
  std::vector<ReportRow> reports;
  EXPECT_OK(store.PollReports(cursor, without, [&](const ReportRow& row) {
    reports.push_back(row);
    return absl::OkStatus();
  }));
  return reports;
}

auto ReportIs(uint64_t task_id, bool in_delta, std::string payload) {
  return ::testing::AllOf(Field(&ReportRow::task_id, task_id),
                          Field(&ReportRow::in_delta, in_delta),
                          Field(&ReportRow::payload, payload));
}

// A TCP proxy in front of the test's server that can lose the reply to a
// COMMIT: armed, it passes the next COMMIT on, waits for the server to
// answer it (so the transaction did commit) and then closes that
// connection instead of passing the answer back, as a network cut at the
// worst moment would.
class CommitReplyCutter {
 public:
  explicit CommitReplyCutter(int upstream_port) : upstream_(upstream_port) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr = Loopback(0);
    socklen_t size = sizeof(addr);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
            0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &size) !=
            0) {
      ADD_FAILURE() << "the proxy cannot listen";
      return;
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~CommitReplyCutter() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    absl::MutexLock lock(&mutex_);
    for (std::thread& pump : pumps_) pump.join();
    close(listener_);
  }

  int port() const { return port_; }
  void LoseTheNextCommitReply() { armed_ = true; }
  int cut() const { return cut_.load(); }

 private:
  static sockaddr_in Loopback(int port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
  }

  void Accept() {
    while (!stop_) {
      pollfd p{.fd = listener_, .events = POLLIN};
      if (poll(&p, 1, 50) <= 0) continue;
      const int client = accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      const int server = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr = Loopback(upstream_);
      if (connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
          0) {
        close(client);
        close(server);
        continue;
      }
      absl::MutexLock lock(&mutex_);
      pumps_.emplace_back([this, client, server] { Pump(client, server); });
    }
  }

  // Passes bytes both ways until either side closes.
  void Pump(int client, int server) {
    // A simple-protocol Query message of "COMMIT": 'Q', length 11, text.
    static constexpr std::string_view kCommit(
        "Q\0\0\0\x0b"
        "COMMIT\0",
        12);
    char buffer[65536];
    bool cutting = false;
    std::string answer;
    while (!stop_) {
      pollfd p[2] = {{.fd = client, .events = POLLIN},
                     {.fd = server, .events = POLLIN}};
      if (poll(p, 2, 50) <= 0) continue;
      if (p[0].revents != 0) {
        const ssize_t n = read(client, buffer, sizeof(buffer));
        if (n <= 0) break;
        const std::string_view sent(buffer, static_cast<size_t>(n));
        if (sent.find(kCommit) != std::string_view::npos &&
            armed_.exchange(false)) {
          cutting = true;
        }
        if (write(server, buffer, static_cast<size_t>(n)) != n) break;
      }
      if (p[1].revents != 0) {
        const ssize_t n = read(server, buffer, sizeof(buffer));
        if (n <= 0) break;
        if (cutting) {
          // CommandComplete "COMMIT": committed; the client never hears.
          answer.append(buffer, static_cast<size_t>(n));
          if (answer.find("COMMIT") != std::string::npos) {
            ++cut_;
            break;
          }
          continue;
        }
        if (write(client, buffer, static_cast<size_t>(n)) != n) break;
      }
    }
    close(client);
    close(server);
  }

  const int upstream_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> armed_{false};
  std::atomic<int> cut_{0};
  std::thread acceptor_;
  absl::Mutex mutex_;
  std::vector<std::thread> pumps_ ABSL_GUARDED_BY(mutex_);
};

class PostgresDeltasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    database_.Create();
    if (HasFatalFailure()) return;
  }

  // A store on `url` (this test's database by default), with round 1 open.
  std::unique_ptr<PostgresStore> Open(std::string url = "") {
    auto store =
        PostgresStore::Open({.url = url.empty() ? database_.url() : url});
    EXPECT_OK(store);
    if (!store.ok()) return nullptr;
    EXPECT_OK((*store)->Transact([](StoreTransaction& t) {
      return t.InsertRound({.round_id = 1, .study_id = 1, .plan = "p"});
    }));
    return *std::move(store);
  }

  std::string Sql(const std::string& sql) {
    return SqlValue(database_.url(), sql);
  }

  store_testing::PostgresTestDatabase database_;
};

TEST_F(PostgresDeltasTest, ACommittedDeltaIsFollowedByOtherInstancesOnly) {
  auto a = Open();
  auto b = Open();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const std::string bytes("st\0ats", 6);
  ASSERT_OK(a->Transact([&](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.AppendReport(Report(1, 1)).status());
    return t.AppendDelta(Delta(41, bytes));
  }));
  ReportCursor cursor_b;
  const std::vector<DeltaRow> polled = PollDeltas(*b, &cursor_b);
  ASSERT_EQ(polled.size(), 1u);
  EXPECT_EQ(polled[0].delta_id, 41u);
  EXPECT_EQ(polled[0].round_id, 1u);
  EXPECT_EQ(polled[0].agent_id, 0u);
  EXPECT_EQ(polled[0].statistics, bytes);
  ASSERT_EQ(cursor_b.size(), 1u);
  EXPECT_GT(cursor_b.front(), 0u);
  EXPECT_THAT(DeltaIds(*b, &cursor_b), IsEmpty());
  ReportCursor cursor_a;
  EXPECT_THAT(DeltaIds(*a, &cursor_a), IsEmpty());  // its own

  // Rolled back: never followed. Nothing of a transaction that failed
  // before its COMMIT can have committed, so a keeps its writer id and
  // still skips its own delta 41.
  EXPECT_THAT(a->Transact([&](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.AppendDelta(Delta(42, "gone")));
    return absl::FailedPreconditionError("changed its mind");
  }),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(Sql("SELECT count(*) FROM report_deltas"), "1");
  EXPECT_THAT(DeltaIds(*b, &cursor_b), IsEmpty());
  EXPECT_THAT(DeltaIds(*a, &cursor_a), IsEmpty());
  ReportCursor from_start;
  EXPECT_THAT(DeltaIds(*Open(), &from_start), ElementsAre(41));
}

TEST_F(PostgresDeltasTest, ARepeatedDeltaIdFailsItsWholeTransaction) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.AppendReport(Report(1, 1)).status());
    return t.AppendDelta(Delta(7, "first"));
  }));
  EXPECT_THAT(store->Transact([&](StoreTransaction& t) -> absl::Status {
    RETURN_IF_ERROR(t.AppendReport(Report(2, 2)).status());
    return t.AppendDelta(Delta(7, "second"));
  }),
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(Sql("SELECT count(*) FROM report_deltas"), "1");
  EXPECT_EQ(Sql("SELECT convert_from(statistics, 'UTF8') FROM report_deltas"),
            "first");
  EXPECT_EQ(CountReports(*store), 1);
  EXPECT_EQ(Spent(*store), 400'000'000);
}

// Three eras of reports, as a database upgraded from schema 7 holds them:
// before deltas_since, counted only by their payload; then counted by
// deltas that do not name them, polled without payload; from tasks_since
// on, named by their deltas and never polled. Loads for folding read
// every payload.
TEST_F(PostgresDeltasTest, PollsReadOnlyTheReportRowsThatNoDeltaNames) {
  auto writer = Open();
  ASSERT_NE(writer, nullptr);
  Append(*writer, Report(1, 1, 1));
  {
    auto follower = Open();
    ReportCursor cursor;
    EXPECT_THAT(PollReports(*follower, &cursor), IsEmpty());
  }
  // A store reads both marks when it opens.
  Sql("UPDATE deltas_since SET xid = pg_current_xact_id()");
  Append(*writer, Report(2, 2, 1));
  Sql("UPDATE deltas_since SET tasks_xid = pg_current_xact_id()");
  Append(*writer, Report(3, 3, 1));
  auto follower = Open();
  ASSERT_NE(follower, nullptr);
  ReportCursor cursor;
  EXPECT_THAT(PollReports(*follower, &cursor),
              UnorderedElementsAre(ReportIs(1, false, "payload"),
                                   ReportIs(2, true, "")));
  Append(*writer, Report(4, 4, 1));
  EXPECT_THAT(PollReports(*follower, &cursor), IsEmpty());
  ReportCursor again;
  const uint64_t closed[] = {1};
  EXPECT_THAT(
      PollReports(*follower, &again, closed),
      UnorderedElementsAre(ReportIs(1, false, ""), ReportIs(2, true, "")));
  std::vector<ReportRow> loaded;
  ASSERT_OK(follower->ForEachReport([&](const ReportRow& row) {
    loaded.push_back(row);
    return absl::OkStatus();
  }));
  EXPECT_THAT(loaded, ElementsAre(ReportIs(1, false, "payload"),
                                  ReportIs(2, false, "payload"),
                                  ReportIs(3, false, "payload"),
                                  ReportIs(4, false, "payload")));
}

// A COMMIT that landed though its reply was lost: the re-run finds its
// reports stored (identical retries) and writes a delta of its own, and
// the first run's delta, which nobody has counted, is polled by the very
// instance that wrote it, under the writer id it gave up.
TEST_F(PostgresDeltasTest, ADeltaWhoseCommitReplyWasLostIsPolledByItsWriter) {
  const std::string& url = database_.url();
  const size_t colon = url.rfind(':');
  const size_t slash = url.find('/', colon);
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(url.substr(colon + 1, slash - colon - 1), &port))
      << url;
  CommitReplyCutter proxy(port);
  auto store = Open(
      absl::StrCat(url.substr(0, colon + 1), proxy.port(), url.substr(slash)));
  ASSERT_NE(store, nullptr);
  ReportCursor deltas, reports;
  EXPECT_THAT(DeltaIds(*store, &deltas), IsEmpty());
  EXPECT_THAT(PollReports(*store, &reports), IsEmpty());

  proxy.LoseTheNextCommitReply();
  std::vector<AppendOutcome> outcomes;
  ASSERT_OK(store->Transact([&](StoreTransaction& t) -> absl::Status {
    ASSIGN_OR_RETURN(const AppendResult result, t.AppendReport(Report(1, 1)));
    outcomes.push_back(result.outcome);
    return t.AppendDelta(Delta(100 + outcomes.size(), "run"));
  }));
  EXPECT_EQ(proxy.cut(), 1);
  EXPECT_THAT(outcomes, ElementsAre(AppendOutcome::kStored,
                                    AppendOutcome::kIdenticalRetry));
  EXPECT_EQ(Sql("SELECT count(DISTINCT writer) FROM report_deltas"), "2");
  // Delta 102 is the re-run's, which the caller counted; 101 is not.
  EXPECT_THAT(DeltaIds(*store, &deltas), ElementsAre(101));
  // The report's row is named by its delta, so no poll reads it.
  EXPECT_THAT(PollReports(*store, &reports), IsEmpty());
  EXPECT_THAT(DeltaIds(*store, &deltas), IsEmpty());
}

}  // namespace
}  // namespace ldp
