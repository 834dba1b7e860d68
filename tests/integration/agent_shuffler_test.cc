// The real ldp-agent binary on a shuffled study, against a scripted
// AgentService and a fake ShufflerService, both on loopback. With
// --shuffler, the shuffled task's report reaches the shuffler alone, sealed
// so that the server's key opens it to a report with no agent id, while the
// study's plain task still goes to the server. Without --shuffler the
// shuffled task is refused, with a log line saying why, and costs nothing.
// A shuffler off loopback without --shuffler_ca_file, or one that is the
// server itself, stops the agent before it sends anything.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"
#include "tests/integration/agent_process.h"
#include "tests/integration/fake_agent_service.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

// A shuffler that keeps every submission and acknowledges it.
class RecordingShuffler final : public v1::ShufflerService::Service {
 public:
  grpc::Status Submit(grpc::ServerContext* context,
                      const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (context->client_metadata().count("authorization") > 0) {
      ++with_credential_;
    }
    for (const v1::ShuffleSubmission& submission : request->submissions()) {
      received_.push_back(submission);
      response->add_acks()->set_code(0);
    }
    return grpc::Status::OK;
  }
  std::vector<v1::ShuffleSubmission> Received() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  int CallsWithCredential() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return with_credential_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<v1::ShuffleSubmission> received_;
  int with_credential_ = 0;
};

class AgentShufflerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &shuffler_port_);
    builder.RegisterService(&shuffler_);
    shuffler_server_ = builder.BuildAndStart();
    ASSERT_NE(shuffler_server_, nullptr);
    ASSERT_GT(shuffler_port_, 0);
    // Every poll: the shuffled study's task, with a ticket for the caller,
    // and another study's plain task.
    server_.service().SetTaskScript([this](uint64_t agent_id, int) {
      return std::vector<v1::Task>{
          ShuffledFor(ColorTask(1, 1001, 3), agent_id, keys_),
          ColorTask(2, 2001, 4)};
    });
  }
  void TearDown() override { shuffler_server_->Shutdown(); }

  // Runs one ldp-agent cycle with `flags`; its exit status.
  int RunOnce(AgentProcess& agent, std::vector<std::string> flags) {
    flags.insert(flags.end(), {"--once", "--send_window_ms=10"});
    EXPECT_TRUE(
        agent.Start(server_.address(), "token", R"({"color": "c1"})", flags)
            .ok());
    return agent.Wait(absl::Seconds(60)).value_or(-1);
  }

  std::string ShufflerAddress() const {
    return absl::StrCat("127.0.0.1:", shuffler_port_);
  }

  FakeServer server_;
  RecordingShuffler shuffler_;
  std::unique_ptr<grpc::Server> shuffler_server_;
  int shuffler_port_ = 0;
  ShuffleKeys keys_ = NewShuffleKeys();
};

TEST_F(AgentShufflerTest, ShuffledReportsLeaveSealedForTheShufflerOnly) {
  AgentProcess agent;
  ASSERT_EQ(RunOnce(agent, {"--shuffler=" + ShufflerAddress()}), 0)
      << agent.Log();
  const std::vector<v1::Report> at_server = server_.service().Received();
  ASSERT_EQ(at_server.size(), 1u) << agent.Log();
  EXPECT_EQ(at_server[0].task_id(), 2001u);
  const std::vector<v1::ShuffleSubmission> at_shuffler = shuffler_.Received();
  ASSERT_EQ(at_shuffler.size(), 1u) << agent.Log();
  EXPECT_EQ(shuffler_.CallsWithCredential(), 0);
  absl::StatusOr<v1::Report> opened = OpenSubmission(keys_, at_shuffler[0]);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->agent_id(), 0u);
  EXPECT_EQ(opened->task_id(), TestShuffledTaskId());
  // Both tasks were charged, ε 0.5 each, and both reports settled.
  const StateFileSpend spend = ParseStateFileSpend(agent.ReadStateFile());
  EXPECT_EQ(spend.lifetime_nanos, 2 * kHalfEpsilonNanos);
  EXPECT_EQ(agent.ReadStateFile().find(" pending "), std::string::npos);
}

TEST_F(AgentShufflerTest, WithoutAShufflerTheTaskIsRefusedAndCostsNothing) {
  AgentProcess agent;
  ASSERT_EQ(RunOnce(agent, {}), 0) << agent.Log();
  EXPECT_THAT(agent.Log(), HasSubstr("no shuffler"));
  const std::vector<v1::Report> at_server = server_.service().Received();
  ASSERT_EQ(at_server.size(), 1u) << agent.Log();
  EXPECT_EQ(at_server[0].task_id(), 2001u);
  EXPECT_TRUE(shuffler_.Received().empty());
  const StateFileSpend spend = ParseStateFileSpend(agent.ReadStateFile());
  EXPECT_EQ(spend.lifetime_nanos, kHalfEpsilonNanos);
}

TEST_F(AgentShufflerTest, APlaintextShufflerOffLoopbackStopsTheAgent) {
  AgentProcess off_loopback;
  EXPECT_EQ(RunOnce(off_loopback, {"--shuffler=192.0.2.1:443"}), 1);
  EXPECT_THAT(off_loopback.Log(), HasSubstr("--shuffler_ca_file"));
  AgentProcess ca_alone;
  EXPECT_EQ(RunOnce(ca_alone, {"--shuffler_ca_file=/nonexistent.pem"}), 1);
  EXPECT_THAT(ca_alone.Log(), HasSubstr("needs --shuffler"));
  AgentProcess the_server;
  EXPECT_EQ(RunOnce(the_server, {"--shuffler=" + server_.address()}), 1);
  EXPECT_THAT(the_server.Log(), HasSubstr("--shuffler names --server"));
  EXPECT_TRUE(server_.service().Received().empty());
  EXPECT_TRUE(shuffler_.Received().empty());
}

}  // namespace
}  // namespace ldp::testing
