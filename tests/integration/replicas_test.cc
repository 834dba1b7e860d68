// Two ldp-server replicas on one PostgreSQL database, run through
// tests/postgres/with_postgres.sh, which starts a throwaway cluster on
// loopback and names it in LDP_TEST_POSTGRES_URL.
//
// What must hold whichever replica each agent reaches: the database, not a
// replica's memory, decides what counts. So agents are split between the
// replicas, some send their report to both at once, one replica is
// SIGKILLed in the middle of an upload and its agents fail over, and then:
// every agent is charged exactly once, no report is counted twice or lost,
// the estimates are within 5 standard errors of the truth, and both
// replicas (and a restarted one) give byte-identical estimates.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "client/agent_client/relay_client.h"
#include "client/core/agent.h"
#include "client/core/agent_state_store.h"
#include "common/base/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "tests/integration/color_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int kBatch = 1000;  // the relay's most agents per call
constexpr int64_t kCapNanos = 1'000'000'000;  // the color study's ε = 1

// Colors r, g, b, y in proportions 4:3:2:1, by agent index.
int ColorOf(int64_t index) {
  const int slot = static_cast<int>(index % 10);
  return slot < 4 ? 0 : slot < 7 ? 1 : slot < 9 ? 2 : 3;
}

std::string DatabaseUrl() {
  const char* url = std::getenv("LDP_TEST_POSTGRES_URL");
  return url == nullptr ? "" : url;
}

constexpr char kAnalystToken[] = "replicas-test-analyst-token-0123456789";

// Both replicas accept one analyst token, from one file; AnalystClient
// reads it from each server's directory, so it is copied there too.
std::string TokenFile() {
  static const std::string* path = [] {
    auto* file = new std::string(absl::StrCat(
        ::testing::TempDir(), "/replicas_test_", getpid(), ".analyst_token"));
    std::ofstream(*file) << kAnalystToken << "\n";
    return file;
  }();
  return *path;
}

class Replica {
 public:
  Replica()
      : process_({absl::StrCat("--db=", DatabaseUrl()),
                  absl::StrCat("--analyst_token_file=", TokenFile()),
                  "--relay_service", "--follow_interval_ms=100",
                  // One test process is every agent here: no rate limits.
                  "--agent_rate_per_second=0", "--enroll_rate_per_peer=0"}) {
    std::ofstream(process_.directory() + "/ldp.db.analyst_token")
        << kAnalystToken << "\n";
  }
  ServerProcess& process() { return process_; }
  std::unique_ptr<RelayClient> NewRelay() {
    return std::make_unique<RelayClient>(
        v1::RelayService::NewStub(process_.NewChannel()), absl::Seconds(60));
  }

 private:
  ServerProcess process_;
};

// A batch of agents as a relay holds them: enrolled on one replica, each
// with its record, its answered report ready to send.
struct AgentBatch {
  int64_t first_index = 0;
  std::vector<RelayedAgent> agents;
  std::vector<RelayedTaskReport> reports;
};

absl::StatusOr<AgentBatch> EnrollAndAnswer(RelayClient& relay,
                                           int64_t first_index, int count,
                                           uint64_t study_id,
                                           SeededGenerator& gen) {
  AgentBatch batch;
  batch.first_index = first_index;
  ASSIGN_OR_RETURN(batch.agents, relay.EnrollBatch("", count));
  std::vector<const RelayedAgent*> polled;
  for (const RelayedAgent& agent : batch.agents) polled.push_back(&agent);
  ASSIGN_OR_RETURN(auto tasks, relay.GetTasksBatch(polled));
  for (int k = 0; k < count; ++k) {
    RETURN_IF_ERROR(tasks[k].status());
    ASSIGN_OR_RETURN(
        auto agent,
        Agent::Create(
            {.record =
                 Record{.values = {{"color",
                                    std::string(
                                        1, "rgby"[ColorOf(first_index + k)])}}},
             .max_epsilon_per_study_nanos = kCapNanos},
            std::make_unique<MemoryAgentStateStore>(), gen));
    int answered = 0;
    for (const AgentTask& task : tasks[k]->tasks) {
      if (task.task.study_id != study_id) continue;
      RETURN_IF_ERROR(agent->Answer(task).status());
      ++answered;
    }
    if (answered != 1) {
      return absl::InternalError(absl::StrCat(
          "agent ", first_index + k, " got ", answered, " tasks of the study"));
    }
    batch.reports.push_back(
        {.agent = nullptr, .report = agent->PendingReports().front()});
  }
  for (int k = 0; k < count; ++k) batch.reports[k].agent = &batch.agents[k];
  return batch;
}

// Sends `reports`; true if every one was acknowledged OK.
bool SendAll(RelayClient& relay, absl::Span<const RelayedTaskReport> reports) {
  auto stream = relay.OpenUploadStream();
  absl::StatusOr<std::vector<absl::Status>> acks = stream->Send(reports);
  if (!acks.ok()) return false;
  bool all = true;
  for (const absl::Status& ack : *acks) all = all && ack.ok();
  (void)stream->Close();
  return all;
}

class ReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(DatabaseUrl().empty())
        << "run this test through tests/postgres/with_postgres.sh (ctest does)";
    ASSERT_OK(a_.process().Start());
    ASSERT_OK(b_.process().Start());
  }

  uint64_t CreateStudyOnBoth(const std::string& name) {
    AnalystClient on_a(a_.process());
    absl::StatusOr<v1::Study> study = on_a.CreateStudy(ColorStudy(name));
    EXPECT_OK(study);
    if (!study.ok()) return 0;
    // B catches up on an analyst call: it has the study from now on.
    AnalystClient on_b(b_.process());
    EXPECT_OK(on_b.GetStudy(study->study_id()));
    return study->study_id();
  }

  // The checks of "counted once": status and estimates on one replica.
  void ExpectCountedOnce(ServerProcess& server, uint64_t study_id,
                         int64_t agents, std::string* estimate_bytes) {
    AnalystClient analyst(server);
    absl::StatusOr<v1::Study> study = analyst.GetStudy(study_id);
    ASSERT_OK(study);
    // Every agent charged (num_agents counts ledger rows), none twice
    // (the largest spend is one report's ε).
    EXPECT_EQ(study->status().num_agents(), static_cast<uint64_t>(agents));
    EXPECT_EQ(study->status().max_spent_nanos(),
              static_cast<uint64_t>(kCapNanos));
    EXPECT_EQ(study->status().num_reports(), static_cast<uint64_t>(agents));
    absl::StatusOr<v1::GetEstimatesResponse> estimates =
        analyst.GetEstimates(study_id);
    ASSERT_OK(estimates);
    ASSERT_EQ(estimates->estimates_size(), 1);
    const v1::HistogramEstimate& h = estimates->estimates(0).histogram();
    EXPECT_EQ(h.num_reports(), agents);
    const double truth[4] = {0.4, 0.3, 0.2, 0.1};
    ASSERT_EQ(h.frequencies_size(), 4);
    for (int c = 0; c < 4; ++c) {
      EXPECT_NEAR(h.frequencies(c), truth[c], 5 * h.standard_errors(c))
          << "color " << c;
    }
    estimates->SerializeToString(estimate_bytes);
  }

  Replica a_;
  Replica b_;
};

// 5·10^4 agents, half enrolled on each replica, every tenth also sending
// its report to the other replica at the same time.
TEST_F(ReplicasTest, AStudyThroughTwoReplicasCountsEveryAgentOnce) {
  constexpr int64_t kAgents = 50'000;
  const uint64_t study_id = CreateStudyOnBoth("two replicas");
  ASSERT_NE(study_id, 0u);
  std::atomic<int64_t> failures{0};
  std::atomic<int64_t> duplicates{0};
  // Thread r enrolls on replica r and sends duplicates to the other one.
  auto run = [&](int r) {
    Replica& home = r == 0 ? a_ : b_;
    Replica& other = r == 0 ? b_ : a_;
    auto relay = home.NewRelay();
    auto other_relay = other.NewRelay();
    SeededGenerator gen(1000 + r);
    for (int64_t first = r * kBatch; first < kAgents; first += 2 * kBatch) {
      absl::StatusOr<AgentBatch> batch =
          EnrollAndAnswer(*relay, first, kBatch, study_id, gen);
      if (!batch.ok()) {
        ADD_FAILURE() << batch.status();
        ++failures;
        return;
      }
      std::vector<RelayedTaskReport> twice;
      for (size_t k = 0; k < batch->reports.size(); k += 10) {
        twice.push_back(batch->reports[k]);
      }
      // The duplicates race the originals: sent from a second thread.
      std::thread echo([&] {
        if (!SendAll(*other_relay, twice)) ++failures;
        duplicates += static_cast<int64_t>(twice.size());
      });
      if (!SendAll(*relay, batch->reports)) ++failures;
      echo.join();
    }
  };
  std::thread on_a(run, 0);
  std::thread on_b(run, 1);
  on_a.join();
  on_b.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_EQ(duplicates.load(), kAgents / 10);

  std::string from_a, from_b;
  ExpectCountedOnce(a_.process(), study_id, kAgents, &from_a);
  ExpectCountedOnce(b_.process(), study_id, kAgents, &from_b);
  EXPECT_EQ(from_a, from_b) << "the replicas give different estimates";
}

// SIGKILL one replica while agents upload through it: they fail over to the
// other; nothing acknowledged is lost, nothing is counted twice.
TEST_F(ReplicasTest, KillingAReplicaMidRunLosesNoAcknowledgedReport) {
  constexpr int64_t kAgents = 20'000;
  constexpr int kBatches = kAgents / kBatch;
  const uint64_t study_id = CreateStudyOnBoth("failover");
  ASSERT_NE(study_id, 0u);
  // Enrolled and answered up front, alternately on each replica.
  std::vector<AgentBatch> batches;
  {
    auto on_a = a_.NewRelay();
    auto on_b = b_.NewRelay();
    SeededGenerator gen(7);
    for (int i = 0; i < kBatches; ++i) {
      absl::StatusOr<AgentBatch> batch =
          EnrollAndAnswer(i % 2 == 0 ? *on_a : *on_b, int64_t{i} * kBatch,
                          kBatch, study_id, gen);
      ASSERT_OK(batch);
      batches.push_back(*std::move(batch));
    }
  }
  std::atomic<int> sent_through_b{0};
  absl::Notification killed;
  std::atomic<int64_t> acknowledged{0};
  std::atomic<int64_t> failovers{0};
  // Each thread uploads its batches through its replica, and on any error
  // sends the same batch to A (B's agents authenticate there too).
  auto run = [&](int r) {
    auto home = r == 0 ? a_.NewRelay() : b_.NewRelay();
    auto fallback = a_.NewRelay();
    for (int i = r; i < kBatches; i += 2) {
      if (r == 1 && sent_through_b.load() == kBatches / 4) {
        // Half of B's batches are in: the next one goes out as B dies.
        std::thread kill([&] {
          absl::SleepFor(absl::Milliseconds(2));
          b_.process().Kill();
          killed.Notify();
        });
        if (!SendAll(*home, batches[i].reports)) {
          ++failovers;
          ASSERT_TRUE(SendAll(*fallback, batches[i].reports));
        }
        kill.join();
        home = a_.NewRelay();
      } else if (!SendAll(*home, batches[i].reports)) {
        ++failovers;
        ASSERT_TRUE(SendAll(*fallback, batches[i].reports));
      }
      if (r == 1) ++sent_through_b;
      acknowledged += kBatch;
    }
  };
  std::thread on_a(run, 0);
  std::thread on_b(run, 1);
  on_a.join();
  on_b.join();
  ASSERT_TRUE(killed.HasBeenNotified());
  ASSERT_EQ(acknowledged.load(), kAgents);
  std::string from_a;
  ExpectCountedOnce(a_.process(), study_id, kAgents, &from_a);

  // B comes back on the same database and agrees.
  ASSERT_OK(b_.process().Start());
  std::string from_b;
  ExpectCountedOnce(b_.process(), study_id, kAgents, &from_b);
  EXPECT_EQ(from_a, from_b);
  std::printf("failovers: %lld batches re-sent to the surviving replica\n",
              static_cast<long long>(failovers.load()));
}

// Enrollment quotas with replicas: both replicas read the same
// --enrollment_tokens_file, and the database counts the token's agents, so the
// two together admit its quota once, not once each, and then refuse it with
// RESOURCE_EXHAUSTED whichever one is asked.
TEST(ReplicasQuotaTest, TwoReplicasTogetherAdmitATokensQuotaOnce) {
  ASSERT_FALSE(DatabaseUrl().empty())
      << "run this test through tests/postgres/with_postgres.sh (ctest does)";
  constexpr int kQuota = 30;
  constexpr int kThreadsEach = 2;
  constexpr int kAttemptsEach = 25;  // per thread: 100 attempts in all
  const std::string token = "replicas-quota-token-0123456789";
  const std::string tokens = absl::StrCat(
      ::testing::TempDir(), "/replicas_test_", getpid(), ".enrollment_tokens");
  std::ofstream(tokens) << "# one device batch\n"
                        << token << " " << kQuota << "\n";
  const std::vector<std::string> flags = {
      absl::StrCat("--db=", DatabaseUrl()),
      absl::StrCat("--analyst_token_file=", TokenFile()),
      absl::StrCat("--enrollment_tokens_file=", tokens),
      "--enroll_rate_per_peer=0"};
  ServerProcess a(flags);
  ServerProcess b(flags);
  ASSERT_OK(a.Start());
  ASSERT_OK(b.Start());
  const auto enroll = [&](ServerProcess& server) {
    auto stub = v1::AgentService::NewStub(server.NewChannel());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    v1::EnrollRequest request;
    request.set_enrollment_token(token);
    v1::EnrollResponse response;
    return stub->Enroll(&context, request, &response);
  };
  std::atomic<int> admitted{0}, exhausted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2 * kThreadsEach; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kAttemptsEach; ++i) {
        const grpc::Status status = enroll(t % 2 == 0 ? a : b);
        if (status.ok()) {
          ++admitted;
        } else if (status.error_code() ==
                       grpc::StatusCode::RESOURCE_EXHAUSTED &&
                   status.error_message().find("enrollment token admits") !=
                       std::string::npos) {
          ++exhausted;
        } else {
          ADD_FAILURE() << status.error_code() << ": "
                        << status.error_message();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(admitted.load(), kQuota);
  EXPECT_EQ(exhausted.load(), 2 * kThreadsEach * kAttemptsEach - kQuota);
  // The next one, at either replica, and at one restarted (it loads the
  // count from the database).
  EXPECT_EQ(enroll(a).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(enroll(b).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  b.Kill();
  ASSERT_OK(b.Start());
  EXPECT_EQ(enroll(b).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace ldp::testing
