// The gRPC adapters' fixture: an Aggregator over SQLite in a fresh
// directory, on a FakeClock, with AgentService, AnalystService and
// RelayService registered on an in-process gRPC server (loopback TCP, so
// that peer addresses are real), and generated stubs to call them.
//
// Why in process: the integration tests drive a real ldp-server, which
// hides the adapters' options (rate limiters on a fake clock, client
// certificates, small batch limits) and the aggregator's state behind a
// process boundary. Here a test sets the options it needs in its fixture's
// constructor, calls the wire API, and checks the aggregator directly.
#ifndef LDP_TESTS_SERVER_GRPC_SERVICE_FIXTURE_H_
#define LDP_TESTS_SERVER_GRPC_SERVICE_FIXTURE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"
#include "server/core/aggregator.h"
#include "server/grpc/agent_service.h"
#include "server/grpc/analyst_service.h"
#include "server/grpc/relay_service.h"
#include "server/store/sqlite/sqlite_store.h"
#include "tests/integration/color_study.h"
#include "tests/server/grpc/trailers.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp::testing {

inline constexpr char kServiceAnalystToken[] = "analyst-token-for-grpc-tests";

inline std::string BearerOf(const std::string& token) {
  return "Bearer " + token;
}

// `authorization` is the metadata value ("" sends none). The deadline only
// keeps a broken server from hanging the suite.
inline void PrepareContext(grpc::ClientContext& context,
                           const std::string& authorization) {
  if (!authorization.empty()) {
    context.AddMetadata("authorization", authorization);
  }
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(60));
}

// One enrolled agent as the wire sees it.
struct WireAgent {
  uint64_t id = 0;
  std::string token;
};

struct AgentUploadResult {
  grpc::Status status;
  v1::UploadReportsResponse response;
};

class GrpcServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer(); }
  void TearDown() override { StopServer(); }

  void StartServer() {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open({.path = dir_.path() + "/ldp.db"});
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Aggregator>> aggregator =
        Aggregator::Create(aggregator_options_, *std::move(store));
    ASSERT_OK(aggregator);
    aggregator_ = *std::move(aggregator);
    agent_service_ =
        std::make_unique<AgentServiceImpl>(aggregator_.get(), agent_options_);
    analyst_service_ = std::make_unique<AnalystServiceImpl>(aggregator_.get());
    relay_service_ =
        std::make_unique<RelayServiceImpl>(aggregator_.get(), relay_options_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(agent_service_.get());
    builder.RegisterService(analyst_service_.get());
    builder.RegisterService(relay_service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(port, 0);
    target_ = absl::StrCat("127.0.0.1:", port);
    channel_ = NewChannel();
    agent_stub_ = v1::AgentService::NewStub(channel_);
    analyst_stub_ = v1::AnalystService::NewStub(channel_);
    relay_stub_ = v1::RelayService::NewStub(channel_);
  }

  // Every call finishes before the services go, and they before the
  // aggregator whose writer thread completes their uploads.
  void StopServer() {
    if (server_ != nullptr) server_->Shutdown();
    server_.reset();
    relay_service_.reset();
    analyst_service_.reset();
    agent_service_.reset();
    aggregator_.reset();
  }

  // A channel on its own connection (a fresh client port): gRPC otherwise
  // shares one connection among channels to the same target.
  std::shared_ptr<grpc::Channel> NewChannel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(target_,
                                     grpc::InsecureChannelCredentials(), args);
  }

  // ---- Analyst calls ------------------------------------------------------
  grpc::Status CreateStudyCall(const std::string& authorization,
                               const v1::StudySpec& spec, v1::Study* study,
                               const std::string& request_id = "") {
    grpc::ClientContext context;
    PrepareContext(context, authorization);
    v1::CreateStudyRequest request;
    *request.mutable_spec() = spec;
    request.set_request_id(request_id);
    return analyst_stub_->CreateStudy(&context, request, study);
  }
  // The color study (tests/integration/color_study.h): one GRR histogram
  // over four colors, ε cap 1, a one-hour round.
  uint64_t CreateColorStudy(const std::string& name) {
    v1::Study study;
    const grpc::Status status = CreateStudyCall(BearerOf(kServiceAnalystToken),
                                                ColorStudy(name), &study);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return study.study_id();
  }
  v1::Study GetStudy(uint64_t study_id) {
    grpc::ClientContext context;
    PrepareContext(context, BearerOf(kServiceAnalystToken));
    v1::GetStudyRequest request;
    request.set_study_id(study_id);
    v1::Study study;
    const grpc::Status status =
        analyst_stub_->GetStudy(&context, request, &study);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return study;
  }

  // ---- Agent calls --------------------------------------------------------
  WireAgent EnrollAgent() {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::EnrollResponse response;
    const grpc::Status status =
        agent_stub_->Enroll(&context, v1::EnrollRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {.id = response.agent_id(),
            .token = response.credential().bearer_token()};
  }
  grpc::Status GetTasksCall(const std::string& authorization, uint64_t agent_id,
                            v1::GetTasksResponse* response,
                            grpc::ClientContext* context = nullptr) {
    grpc::ClientContext local;
    if (context == nullptr) context = &local;
    PrepareContext(*context, authorization);
    v1::GetTasksRequest request;
    request.set_agent_id(agent_id);
    return agent_stub_->GetTasks(context, request, response);
  }
  // The agent's only task (the color study's), or an empty one.
  v1::Task OnlyTask(const WireAgent& agent) {
    v1::GetTasksResponse response;
    const grpc::Status status =
        GetTasksCall(BearerOf(agent.token), agent.id, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.tasks_size(), 1);
    return response.tasks_size() == 1 ? response.tasks(0) : v1::Task();
  }
  AgentUploadResult Upload(
      const std::string& authorization,
      const std::vector<v1::UploadReportsRequest>& batches) {
    grpc::ClientContext context;
    PrepareContext(context, authorization);
    AgentUploadResult result;
    auto writer = agent_stub_->UploadReports(&context, &result.response);
    for (const v1::UploadReportsRequest& batch : batches) {
      if (!writer->Write(batch)) break;
    }
    writer->WritesDone();
    result.status = writer->Finish();
    return result;
  }
  grpc::Status GetBudgetCall(const WireAgent& agent,
                             v1::GetBudgetResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, BearerOf(agent.token));
    v1::GetBudgetRequest request;
    request.set_agent_id(agent.id);
    return agent_stub_->GetBudget(&context, request, response);
  }

  // ---- Reports ------------------------------------------------------------
  // A GRR report of `agent` on `task` answering color `item`; its 16-byte
  // report id is `id_byte` repeated.
  static v1::Report ColorReport(const WireAgent& agent, const v1::Task& task,
                                uint32_t item, char id_byte) {
    v1::Report report;
    report.set_protocol_version(1);
    report.set_task_id(task.task_id());
    report.set_agent_id(agent.id);
    report.set_report_id(std::string(16, id_byte));
    report.mutable_item()->set_item(item);
    return report;
  }
  static v1::UploadReportsRequest BatchOf(
      const std::vector<v1::Report>& reports) {
    v1::UploadReportsRequest batch;
    for (const v1::Report& report : reports) *batch.add_reports() = report;
    return batch;
  }

  FakeClock clock_;
  TempDirectory dir_;
  // Set in a derived fixture's constructor to take effect at SetUp.
  AggregatorOptions aggregator_options_{.clock = &clock_,
                                        .analyst_token = kServiceAnalystToken};
  AgentServiceOptions agent_options_;
  RelayServiceOptions relay_options_;

  std::unique_ptr<Aggregator> aggregator_;
  std::unique_ptr<AgentServiceImpl> agent_service_;
  std::unique_ptr<AnalystServiceImpl> analyst_service_;
  std::unique_ptr<RelayServiceImpl> relay_service_;
  std::unique_ptr<grpc::Server> server_;
  std::string target_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::AgentService::Stub> agent_stub_;
  std::unique_ptr<v1::AnalystService::Stub> analyst_stub_;
  std::unique_ptr<v1::RelayService::Stub> relay_stub_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_GRPC_SERVICE_FIXTURE_H_
