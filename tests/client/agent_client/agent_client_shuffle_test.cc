// AgentClient on a shuffled study, against an in-process AgentService and
// ShufflerService: a shuffled task's report goes to the shuffler alone,
// without the agent's bearer token, in the same cycle as the server's
// reports; without a shuffler the task is refused and nothing is sent; a
// submission that failed is resent byte for byte on the next cycle.
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "client/agent_client/agent_client.h"
#include "client/core/agent_state_store.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kPeerAgentId = 77;

// The server's side: hands out `tasks`, records and acknowledges reports.
class ShufflePeerAgentService final : public v1::AgentService::Service {
 public:
  std::vector<v1::Task> tasks;
  std::vector<v1::Report> received;

  grpc::Status GetTasks(grpc::ServerContext*, const v1::GetTasksRequest*,
                        v1::GetTasksResponse* response) override {
    for (const v1::Task& task : tasks) *response->add_tasks() = task;
    return grpc::Status::OK;
  }
  grpc::Status GetBudget(grpc::ServerContext*, const v1::GetBudgetRequest*,
                         v1::GetBudgetResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status UploadReports(grpc::ServerContext*,
                             grpc::ServerReader<v1::UploadReportsRequest>* in,
                             v1::UploadReportsResponse* response) override {
    v1::UploadReportsRequest request;
    while (in->Read(&request)) {
      for (const v1::Report& report : request.reports()) {
        received.push_back(report);
        response->add_acks()->set_report_id(report.report_id());
      }
    }
    return grpc::Status::OK;
  }
};

// The shuffler: records every submission's bytes and whether the call
// carried a credential; fails calls while `failures` lasts.
class ShufflePeerShuffler final : public v1::ShufflerService::Service {
 public:
  std::deque<grpc::Status> failures;
  std::vector<std::string> submissions;
  int calls_with_authorization = 0;
  int ack_code = 0;

  grpc::Status Submit(grpc::ServerContext* context,
                      const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (context->client_metadata().count("authorization") > 0) {
      ++calls_with_authorization;
    }
    for (const v1::ShuffleSubmission& s : request->submissions()) {
      submissions.push_back(s.SerializeAsString());
    }
    if (!failures.empty()) {
      const grpc::Status failure = failures.front();
      failures.pop_front();
      return failure;
    }
    for (int i = 0; i < request->submissions_size(); ++i) {
      response->add_acks()->set_code(ack_code);
    }
    return grpc::Status::OK;
  }

 private:
  std::mutex mutex_;
};

class AgentClientShuffleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.RegisterService(&server_);
    builder.RegisterService(&shuffler_);
    peer_ = builder.BuildAndStart();
    ASSERT_NE(peer_, nullptr);
    channel_ = peer_->InProcessChannel(grpc::ChannelArguments());
    auto client =
        AgentClient::CreateForChannel({.max_attempts = 1,
                                       .send_window = absl::ZeroDuration(),
                                       .sleep = [](absl::Duration) {}},
                                      channel_, gen_);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    client_->set_credential({kPeerAgentId, "bearer-secret"});
    auto agent = Agent::Create({.record_json = R"({"color": "c0"})"},
                               std::make_unique<MemoryAgentStateStore>(), gen_);
    ASSERT_TRUE(agent.ok()) << agent.status();
    agent_ = *std::move(agent);
    server_.tasks = {testing::ShuffledFor(testing::ColorTask(1, 1001, 3),
                                          kPeerAgentId, keys_),
                     testing::ColorTask(2, 2001, 4)};
  }
  void TearDown() override { peer_->Shutdown(); }

  void UseShuffler() {
    client_->set_shuffler(v1::ShufflerService::NewStub(channel_));
  }

  std::mt19937_64 gen_{99};
  ShufflePeerAgentService server_;
  ShufflePeerShuffler shuffler_;
  std::unique_ptr<grpc::Server> peer_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<AgentClient> client_;
  std::unique_ptr<Agent> agent_;
  testing::ShuffleKeys keys_ = testing::NewShuffleKeys();
};

TEST_F(AgentClientShuffleTest, ShuffledReportsGoToTheShufflerAlone) {
  UseShuffler();
  const CycleResult result = client_->RunOnce(*agent_);
  EXPECT_TRUE(result.refusals.empty());
  EXPECT_EQ(result.answered_fresh, 2);
  EXPECT_EQ(result.reports_sent, 1);
  EXPECT_EQ(result.reports_accepted, 1);
  EXPECT_EQ(result.sealed_sent, 1);
  EXPECT_EQ(result.sealed_accepted, 1);
  EXPECT_TRUE(result.submit_status.ok()) << result.submit_status;
  ASSERT_EQ(server_.received.size(), 1u);
  EXPECT_EQ(server_.received[0].task_id(), 2001u);
  ASSERT_EQ(shuffler_.submissions.size(), 1u);
  EXPECT_EQ(shuffler_.calls_with_authorization, 0);
  absl::StatusOr<v1::Report> opened =
      testing::OpenSubmissionBytes(keys_, shuffler_.submissions[0]);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->agent_id(), 0u);
  EXPECT_EQ(opened->task_id(), testing::TestShuffledTaskId());
  EXPECT_TRUE(agent_->PendingSealed().empty());
  EXPECT_EQ(agent_->total_spent_nanos(), 2 * testing::kHalfEpsilonNanos);
}

TEST_F(AgentClientShuffleTest, WithoutAShufflerTheTaskIsRefused) {
  const CycleResult result = client_->RunOnce(*agent_);
  ASSERT_EQ(result.refusals.size(), 1u);
  EXPECT_THAT(std::string(result.refusals[0].message()),
              HasSubstr("no shuffler"));
  EXPECT_EQ(result.sealed_sent, 0);
  ASSERT_EQ(server_.received.size(), 1u);
  EXPECT_EQ(server_.received[0].task_id(), 2001u);
  EXPECT_TRUE(shuffler_.submissions.empty());
  EXPECT_EQ(agent_->total_spent_nanos(), testing::kHalfEpsilonNanos);
}

TEST_F(AgentClientShuffleTest, AFailedSubmissionIsResentByteForByte) {
  UseShuffler();
  shuffler_.failures.push_back(grpc::Status(grpc::UNAVAILABLE, "restarting"));
  CycleResult result = client_->RunOnce(*agent_);
  EXPECT_EQ(result.submit_status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(agent_->PendingSealed().size(), 1u);
  shuffler_.ack_code = 6;  // ALREADY_EXISTS: the first try got through
  result = client_->RunOnce(*agent_);
  EXPECT_TRUE(result.submit_status.ok()) << result.submit_status;
  EXPECT_EQ(result.sealed_accepted, 1);
  ASSERT_EQ(shuffler_.submissions.size(), 2u);
  EXPECT_EQ(shuffler_.submissions[0], shuffler_.submissions[1]);
  EXPECT_TRUE(agent_->PendingSealed().empty());
  EXPECT_EQ(agent_->total_spent_nanos(), 2 * testing::kHalfEpsilonNanos);
}

}  // namespace
}  // namespace ldp
