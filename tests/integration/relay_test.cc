// The relay API of a real ldp-server (bulk mode): a relay enrolls,
// polls and uploads for many agents over one connection, and every item is
// still checked as its agent's own call would be — a wrong token is
// UNAUTHENTICATED, a report naming another agent PERMISSION_DENIED, an
// identical retry acknowledged but charged once, a different second report
// ALREADY_EXISTS — while a server started without --relay_service does not
// offer the service at all.
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/agent_client/relay_client.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "tests/integration/color_study.h"
#include "tests/integration/raw_stream.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr int kAgents = 40;

TEST(Relay, OffUnlessTheServerIsAskedFor) {
  ServerProcess server;
  ASSERT_OK(server.Start());
  RelayClient relay(v1::RelayService::NewStub(server.NewChannel()),
                    absl::Seconds(30));
  EXPECT_THAT(relay.EnrollBatch("", 1),
              StatusIs(absl::StatusCode::kUnimplemented));
}

class RelayTest : public ::testing::Test {
 protected:
  RelayTest() : server_({"--relay_service"}) {}
  void SetUp() override {
    ASSERT_OK(server_.Start());
    stub_ = v1::RelayService::NewStub(server_.NewChannel());
    relay_ = std::make_unique<RelayClient>(stub_, absl::Seconds(30));
    AnalystClient analyst(server_);
    absl::StatusOr<v1::Study> study = analyst.CreateStudy(ColorStudy("relay"));
    ASSERT_OK(study);
    study_id_ = study->study_id();
  }

  ServerProcess server_;
  std::shared_ptr<v1::RelayService::Stub> stub_;
  std::unique_ptr<RelayClient> relay_;
  uint64_t study_id_ = 0;
};

TEST_F(RelayTest, EveryItemIsCheckedAsItsAgentsOwnCall) {
  absl::StatusOr<std::vector<RelayedAgent>> agents =
      relay_->EnrollBatch("", kAgents);
  ASSERT_OK(agents);
  std::set<uint64_t> ids;
  for (const RelayedAgent& agent : *agents) ids.insert(agent.agent_id);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kAgents));
  EXPECT_THAT(relay_->EnrollBatch("", 1001),
              StatusIs(absl::StatusCode::kInvalidArgument));

  // One question for all: sent once; a forged token fails alone.
  v1::GetTasksBatchRequest request;
  for (const RelayedAgent& agent : *agents) {
    request.add_agents()->set_bearer_token(agent.bearer_token);
  }
  request.add_agents()->set_bearer_token(
      absl::StrCat(agents->front().agent_id, ".", std::string(64, '0')));
  v1::GetTasksBatchResponse raw;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_->GetTasksBatch(&context, request, &raw).ok());
  EXPECT_EQ(raw.questions_size(), 1);
  ASSERT_EQ(raw.agents_size(), kAgents + 1);
  EXPECT_EQ(raw.agents(kAgents).code(),
            static_cast<int>(absl::StatusCode::kUnauthenticated));

  std::vector<const RelayedAgent*> polled;
  for (const RelayedAgent& agent : *agents) polled.push_back(&agent);
  auto batches = relay_->GetTasksBatch(polled);
  ASSERT_OK(batches);
  std::vector<RelayedTaskReport> reports;
  for (int k = 0; k < kAgents; ++k) {
    ASSERT_OK((*batches)[k]);
    ASSERT_EQ((*batches)[k]->tasks.size(), 1u);
    const Task& task = (*batches)[k]->tasks[0].task;
    EXPECT_EQ(task.study_id, study_id_);
    reports.push_back({.agent = &(*agents)[k],
                       .report = {.task_id = task.task_id,
                                  .report_id = {},
                                  .payload = FrequencyReport{ItemReport{
                                      .item = static_cast<uint32_t>(k % 4)}}}});
    reports.back().report.report_id[0] = static_cast<uint8_t>(k + 1);
  }
  // Agent 1's report sent with agent 0's token; one with a forged token.
  std::vector<RelayedTaskReport> bad = {reports[1], reports[2]};
  bad[0].agent = &(*agents)[0];
  RelayedAgent forged{.agent_id = (*agents)[2].agent_id,
                      .bearer_token = absl::StrCat((*agents)[2].agent_id, ".",
                                                   std::string(64, 'f'))};
  bad[1].agent = &forged;

  auto stream = relay_->OpenUploadStream();
  absl::StatusOr<std::vector<absl::Status>> acks = stream->Send(bad);
  ASSERT_OK(acks);
  ASSERT_EQ(acks->size(), 2u);
  // Another agent's task is answered as an unknown task is (no oracle of
  // who is enrolled).
  EXPECT_THAT((*acks)[0], StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT((*acks)[1], StatusIs(absl::StatusCode::kUnauthenticated));

  acks = stream->Send(reports);
  ASSERT_OK(acks);
  for (const absl::Status& ack : *acks) EXPECT_OK(ack);
  // The same reports again on a second stream: identical retries, OK and
  // not charged again; a different report for a task: ALREADY_EXISTS.
  auto second = relay_->OpenUploadStream();
  std::vector<RelayedTaskReport> again = {reports[0], reports[3]};
  again[1].report.report_id[1] = 9;
  acks = second->Send(again);
  ASSERT_OK(acks);
  EXPECT_OK((*acks)[0]);
  EXPECT_THAT((*acks)[1], StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_OK(stream->Close());
  EXPECT_OK(second->Close());

  AnalystClient analyst(server_);
  absl::StatusOr<v1::Study> study = analyst.GetStudy(study_id_);
  ASSERT_OK(study);
  EXPECT_EQ(study->status().num_reports(), static_cast<uint64_t>(kAgents));
  EXPECT_EQ(study->status().num_agents(), static_cast<uint64_t>(kAgents));
  absl::StatusOr<v1::GetBudgetResponse> budget =
      analyst.GetAgentBudget((*agents)[0].agent_id);
  ASSERT_OK(budget);
  ASSERT_EQ(budget->entries_size(), 1);
  EXPECT_EQ(budget->entries(0).spent_nanos(), 1'000'000'000u);
}

// Bytes on the relay's upload stream that are not a RelayUploadRequest (or
// carry no report) end it with INVALID_ARGUMENT, as on the agents' own stream,
// and count nothing.
TEST_F(RelayTest, GarbageOnTheUploadStreamIsInvalidArgument) {
  for (const std::string& garbage :
       {std::string("not protobuf at all"),
        std::string("\xff\xff\xff\xff\xff", 5), std::string()}) {
    const grpc::Status status =
        RawStream(server_.NewChannel(), "/ldp.v1.RelayService/UploadReports",
                  "", {garbage});
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << status.error_message();
    EXPECT_FALSE(status.error_message().empty());
  }
  AnalystClient analyst(server_);
  absl::StatusOr<v1::Study> study = analyst.GetStudy(study_id_);
  ASSERT_OK(study);
  EXPECT_EQ(study->status().num_reports(), 0u);
}

}  // namespace
}  // namespace ldp::testing
