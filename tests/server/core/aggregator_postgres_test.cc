// Two aggregators in one process, each on its own PostgresStore over one
// database (two replicas without gRPC, so the TSan job sees the follower
// thread meet the writer), and again each on a ShardedStore over two
// databases (then the shards' writer threads meet too): run through
// tests/postgres/with_postgres.sh.
//
// What the database must decide rather than a replica's memory: an agent
// enrolled on one replica authenticates on the other; a report sent to
// both is stored, charged and counted once; a round one replica closed
// refuses reports at the other even before it has heard of the close; and
// both give the same estimates.
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/base/status_macros.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/core/aggregator.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/sharded/sharded_store.h"
#include "tests/server/core/test_studies.h"
#include "tests/server/store/postgres/postgres_test_database.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::MakeStudy;
using testing::MeanQuestion;
using testing::SeededGenerator;
using testing::StatusIs;

constexpr int64_t kNano = kNanosPerEpsilon;
constexpr char kAnalystToken[] = "analyst-secret-0123456789";

// The parameter: whether the replicas' store is two shards.
class SharedStoreTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    const char* url = std::getenv("LDP_TEST_POSTGRES_URL");
    ASSERT_NE(url, nullptr) << "run through tests/postgres/with_postgres.sh";
    url_ = url;
    if (GetParam()) {
      for (auto& shard : shards_) {
        shard.Create();
        if (HasFatalFailure()) return;
      }
      url_ = shards_[0].url() + " " + shards_[1].url();
    }
    a_ = Start(url_, absl::Milliseconds(20));
    // B follows only when an analyst asks: what it has not heard of yet,
    // the database must still get right.
    b_ = Start(url_, absl::Hours(1));
    ASSERT_NE(a_, nullptr);
    ASSERT_NE(b_, nullptr);
  }

  // A replica on `db`: one URL, or the shards' URLs separated by spaces.
  std::unique_ptr<Aggregator> Start(const std::string& db,
                                    absl::Duration follow,
                                    std::vector<EnrollmentQuota> quotas = {}) {
    absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(db);
    EXPECT_OK(store);
    if (!store.ok()) return nullptr;
    auto aggregator =
        Aggregator::Create({.clock = &clock_,
                            .analyst_token = kAnalystToken,
                            .enrollment_quotas = std::move(quotas),
                            .follow_interval = follow},
                           *std::move(store));
    EXPECT_OK(aggregator);
    return aggregator.ok() ? *std::move(aggregator) : nullptr;
  }

  TaskReport Answer(const TaskAssignment& assignment, double x) {
    auto mechanism = TaskMechanism::Create(assignment.MakeTask());
    EXPECT_OK(mechanism);
    TaskReport report{
        .task_id = assignment.task_id,
        .payload = (*mechanism)
                       ->Randomize(Record{.values = {{"x", x},
                                                     {"bucket", int64_t{0}},
                                                     {"y", 0.0}}},
                                   gen_)};
    for (uint8_t& byte : report.report_id) byte = static_cast<uint8_t>(gen_());
    return report;
  }

  // The agent's one task in `study_id` (the other test's study may be
  // open too).
  static absl::StatusOr<std::unique_ptr<Store>> OpenStore(
      const std::string& db) {
    std::vector<std::string> urls = SplitShardUrls(db);
    if (urls.size() > 1) {
      ASSIGN_OR_RETURN(std::unique_ptr<ShardedStore> store,
                       ShardedStore::Open({.urls = std::move(urls)}));
      return std::unique_ptr<Store>(std::move(store));
    }
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = db}));
    return std::unique_ptr<Store>(std::move(store));
  }

  static std::vector<TaskAssignment> TasksOf(
      absl::StatusOr<std::vector<TaskAssignment>> tasks, uint64_t study_id) {
    EXPECT_OK(tasks);
    std::vector<TaskAssignment> mine;
    if (!tasks.ok()) return mine;
    for (TaskAssignment& task : *tasks) {
      if (task.question->study_id == study_id) mine.push_back(std::move(task));
    }
    return mine;
  }

  static absl::StatusOr<std::vector<Enrollment>> EnrollMany(
      Aggregator& replica, const std::string& token, int count,
      const EnrollRetry& retry = {}) {
    absl::StatusOr<std::vector<Enrollment>> result;
    absl::Notification done;
    replica.EnrollManyAsync(token, count, retry,
                            [&](absl::StatusOr<std::vector<Enrollment>> e) {
                              result = std::move(e);
                              done.Notify();
                            });
    done.WaitForNotification();
    return result;
  }

  // Declared before the replicas, so the databases outlive them.
  store_testing::PostgresTestDatabase shards_[2];
  std::string url_;
  FakeClock clock_;
  SeededGenerator gen_{8};
  std::unique_ptr<Aggregator> a_;
  std::unique_ptr<Aggregator> b_;
};

TEST_P(SharedStoreTest, TwoReplicasCountEveryAgentOnceAndAgree) {
  constexpr int kAgentsEach = 150;
  const StudySpec spec = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  absl::StatusOr<StudyInfo> study = a_->CreateStudy(spec, "req-1");
  ASSERT_OK(study);
  // The same request id at B: the same study, not a second one.
  absl::StatusOr<StudyInfo> again = b_->CreateStudy(spec, "req-1");
  ASSERT_OK(again);
  EXPECT_EQ(again->study_id, study->study_id);

  // Enrolled on one replica each; every third agent also sends its report
  // to the other replica, from another thread, at the same time.
  std::vector<std::thread> threads;
  for (Aggregator* home : {a_.get(), b_.get()}) {
    Aggregator* other = home == a_.get() ? b_.get() : a_.get();
    for (int i = 0; i < kAgentsEach; ++i) {
      absl::StatusOr<Enrollment> agent = home->Enroll("");
      ASSERT_OK(agent);
      // The other replica knows it by its token, from the database.
      ASSERT_THAT(other->AuthenticateAgent(agent->bearer_token),
                  testing::IsOkAndHolds(agent->agent_id));
      const std::vector<TaskAssignment> tasks =
          TasksOf(home->GetTasks(agent->agent_id), study->study_id);
      ASSERT_EQ(tasks.size(), 1u);
      const TaskReport report = Answer(tasks[0], i % 2 == 0 ? 0.5 : -0.25);
      if (i % 3 == 0) {
        threads.emplace_back([other, id = agent->agent_id, report] {
          EXPECT_THAT(other->UploadReports(id, {report}),
                      ::testing::ElementsAre(absl::OkStatus()));
        });
      }
      EXPECT_THAT(home->UploadReports(agent->agent_id, {report}),
                  ::testing::ElementsAre(absl::OkStatus()));
    }
  }
  for (std::thread& t : threads) t.join();

  absl::StatusOr<RoundEstimates> from_a = a_->GetEstimates(study->study_id);
  absl::StatusOr<RoundEstimates> from_b = b_->GetEstimates(study->study_id);
  ASSERT_OK(from_a);
  ASSERT_OK(from_b);
  const auto& ea = std::get<ScalarEstimate>(from_a->questions[0].estimate);
  const auto& eb = std::get<ScalarEstimate>(from_b->questions[0].estimate);
  EXPECT_EQ(ea.num_reports, 2 * kAgentsEach);
  EXPECT_EQ(eb.num_reports, 2 * kAgentsEach);
  EXPECT_EQ(ea.value, eb.value);
  EXPECT_EQ(ea.standard_error, eb.standard_error);
  // An agent enrolled at A: its budget, charged once, read at B.
  absl::StatusOr<Enrollment> fresh = a_->Enroll("");
  ASSERT_OK(fresh);
  const std::vector<TaskAssignment> fresh_tasks =
      TasksOf(a_->GetTasks(fresh->agent_id), study->study_id);
  ASSERT_EQ(fresh_tasks.size(), 1u);
  const TaskReport fresh_report = Answer(fresh_tasks[0], 0.0);
  EXPECT_THAT(a_->UploadReports(fresh->agent_id, {fresh_report}),
              ::testing::ElementsAre(absl::OkStatus()));
  EXPECT_THAT(b_->UploadReports(fresh->agent_id, {fresh_report}),
              ::testing::ElementsAre(absl::OkStatus()));
  absl::StatusOr<std::vector<LedgerEntry>> budget =
      b_->GetBudget(fresh->agent_id, study->study_id);
  ASSERT_OK(budget);
  ASSERT_EQ(budget->size(), 1u);
  EXPECT_EQ((*budget)[0].spent_nanos, kNano);
  EXPECT_THAT(b_->GetBudget(999'999, 0), StatusIs(absl::StatusCode::kNotFound));

  for (Aggregator* replica : {a_.get(), b_.get()}) {
    absl::StatusOr<StudyInfo> info = replica->GetStudy(study->study_id);
    ASSERT_OK(info);
    EXPECT_EQ(info->num_agents, 2 * kAgentsEach + 1);
    EXPECT_EQ(info->max_spent_nanos, kNano);  // nobody charged twice
  }
}

TEST_P(SharedStoreTest, ARoundClosedOnOneReplicaRefusesReportsOnTheOther) {
  StudySpec quorum = MakeStudy(kNano, {MeanQuestion("m", "x", -1, 1)});
  quorum.quorum = 2;
  absl::StatusOr<StudyInfo> study = a_->CreateStudy(std::move(quorum));
  ASSERT_OK(study);
  ASSERT_OK(b_->GetStudy(study->study_id));  // B learns of the open round
  // B's agent gets its task while the round is open.
  absl::StatusOr<Enrollment> late = b_->Enroll("");
  ASSERT_OK(late);
  const std::vector<TaskAssignment> late_tasks =
      TasksOf(b_->GetTasks(late->agent_id), study->study_id);
  ASSERT_EQ(late_tasks.size(), 1u);
  // Two reports at A reach the quorum: A closes the round.
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Enrollment> agent = a_->Enroll("");
    ASSERT_OK(agent);
    const std::vector<TaskAssignment> tasks =
        TasksOf(a_->GetTasks(agent->agent_id), study->study_id);
    ASSERT_EQ(tasks.size(), 1u);
    EXPECT_THAT(a_->UploadReports(agent->agent_id, {Answer(tasks[0], 0.1)}),
                ::testing::ElementsAre(absl::OkStatus()));
  }
  absl::StatusOr<StudyInfo> closed = a_->GetStudy(study->study_id);
  ASSERT_OK(closed);
  ASSERT_EQ(closed->rounds.size(), 1u);
  EXPECT_NE(closed->rounds[0].state, RoundState::kOpen);
  // B has not followed since, yet the database refuses the report.
  EXPECT_THAT(
      b_->UploadReports(late->agent_id, {Answer(late_tasks[0], 0.1)}),
      ::testing::ElementsAre(StatusIs(absl::StatusCode::kFailedPrecondition)));
  absl::StatusOr<RoundEstimates> at_b = b_->GetEstimates(study->study_id);
  ASSERT_OK(at_b);
  EXPECT_NE(at_b->state, RoundState::kOpen);
  EXPECT_EQ(std::get<ScalarEstimate>(at_b->questions[0].estimate).num_reports,
            2);
}

// Enrollment quotas: each replica counting its own enrollments would let
// N replicas admit N times a token's quota. The database counts: two
// replicas enrolling with one token from several threads at once admit
// the quota exactly once, and a restart keeps the count.
TEST_P(SharedStoreTest, TwoReplicasTogetherAdmitATokensQuotaOnce) {
  constexpr int kQuota = 40;
  constexpr int kThreadsEach = 3;
  constexpr int kAttemptsEach = 25;  // per thread: 150 attempts in all
  const std::string token = "quota-token-0123456789";
  std::unique_ptr<Aggregator> c =
      Start(url_, absl::Hours(1), {{token, kQuota}});
  std::unique_ptr<Aggregator> d =
      Start(url_, absl::Hours(1), {{token, kQuota}});
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  std::atomic<int> admitted{0}, exhausted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2 * kThreadsEach; ++t) {
    Aggregator* replica = t % 2 == 0 ? c.get() : d.get();
    threads.emplace_back([&, replica] {
      for (int i = 0; i < kAttemptsEach; ++i) {
        absl::StatusOr<Enrollment> agent = replica->Enroll(token);
        if (agent.ok()) {
          ++admitted;
          continue;
        }
        EXPECT_THAT(agent, StatusIs(absl::StatusCode::kResourceExhausted,
                                    ::testing::HasSubstr("has 0 left")));
        ++exhausted;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(admitted.load(), kQuota);
  EXPECT_EQ(exhausted.load(), 2 * kThreadsEach * kAttemptsEach - kQuota);
  for (Aggregator* replica : {c.get(), d.get()}) {
    EXPECT_THAT(replica->Enroll(token),
                StatusIs(absl::StatusCode::kResourceExhausted));
    EXPECT_THAT(EnrollMany(*replica, token, 2),
                StatusIs(absl::StatusCode::kResourceExhausted));
  }

  // Restarted with the quota raised by 3: both replicas load the count of
  // 40, and together they admit 3 more, not 3 each.
  c.reset();
  d.reset();
  c = Start(url_, absl::Hours(1), {{token, kQuota + 3}});
  d = Start(url_, absl::Hours(1), {{token, kQuota + 3}});
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  ASSERT_OK(c->Enroll(token));
  // D's own count still says 3 left: the database refuses the relay's
  // batch of 3, all of it, with what is really left.
  EXPECT_THAT(EnrollMany(*d, token, 3),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       ::testing::HasSubstr("admits 43 agents and has 2 left, "
                                            "fewer than the 3 asked for")));
  absl::StatusOr<std::vector<Enrollment>> two = EnrollMany(*d, token, 2);
  ASSERT_OK(two);
  EXPECT_EQ(two->size(), 2u);
  EXPECT_OK(c->AuthenticateAgent(two->back().bearer_token));
  for (Aggregator* replica : {c.get(), d.get()}) {
    EXPECT_THAT(replica->Enroll(token),
                StatusIs(absl::StatusCode::kResourceExhausted,
                         ::testing::HasSubstr("has 0 left")));
  }
}

// One request sent to both replicas at once (a client that gave up on one
// and tried the other while its first call was still queued): the request's
// lock makes one wait for the other, so both answer the same agents with
// the same tokens, counted once against the quota.
TEST_P(SharedStoreTest, ARequestSentToBothReplicasEnrollsItsAgentsOnce) {
  constexpr int kRounds = 10;
  const std::string token = "retry-token-0123456789";
  std::unique_ptr<Aggregator> c =
      Start(url_, absl::Hours(1), {{token, 3 * kRounds}});
  std::unique_ptr<Aggregator> d =
      Start(url_, absl::Hours(1), {{token, 3 * kRounds}});
  ASSERT_NE(c, nullptr);
  ASSERT_NE(d, nullptr);
  for (int round = 0; round < kRounds; ++round) {
    const std::string id = absl::StrCat("request-id-of-round-", round);
    absl::StatusOr<std::vector<Enrollment>> on_c, on_d;
    std::thread tc(
        [&] { on_c = EnrollMany(*c, token, 3, {.request_id = id}); });
    std::thread td(
        [&] { on_d = EnrollMany(*d, token, 3, {.request_id = id}); });
    tc.join();
    td.join();
    ASSERT_OK(on_c);
    ASSERT_OK(on_d);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ((*on_c)[i].agent_id, (*on_d)[i].agent_id) << round;
      EXPECT_EQ((*on_c)[i].bearer_token, (*on_d)[i].bearer_token) << round;
      EXPECT_OK(c->AuthenticateAgent((*on_d)[i].bearer_token));
      EXPECT_OK(d->AuthenticateAgent((*on_c)[i].bearer_token));
    }
  }
  // 3 agents a round, counted once: the quota is used up exactly, and the
  // requests are still answered.
  EXPECT_THAT(c->Enroll(token), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_OK(EnrollMany(*d, token, 3, {.request_id = "request-id-of-round-0"}));
}

INSTANTIATE_TEST_SUITE_P(Store, SharedStoreTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "TwoShards" : "OneDatabase";
                         });

}  // namespace
}  // namespace ldp
