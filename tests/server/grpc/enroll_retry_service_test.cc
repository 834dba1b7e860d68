// Retry-safe enrollment on the wire (EnrollRequest.request_id and
// EnrollBatchRequest.request_id), through an in-process server
// (service_fixture.h): the same request again gets the same agent and
// bearer token, stored once; an id of the wrong length is INVALID_ARGUMENT
// and the same id with another CSR or count FAILED_PRECONDITION; and the
// real AgentClient, whose first reply is lost on the way back, retries into
// the agent the server stored, not a second one.
//
// Why here: the adapters must carry the id (and the CSR) to the aggregator
// untouched; the rules themselves are tested in the core
// (enrollment_retry_test.cc).
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "client/agent_client/agent_client.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/client_interceptor.h"
#include "gtest/gtest.h"
#include "tests/server/grpc/service_fixture.h"
#include "tests/testing/sqlite_query.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

// Turns the first Enroll reply's OK into UNAVAILABLE after the server
// answered it: the reply a network or a server crash lost.
class LoseFirstEnrollReply final : public grpc::experimental::Interceptor {
 public:
  LoseFirstEnrollReply(grpc::experimental::ClientRpcInfo* info,
                       std::atomic<int>* enrolls)
      : enroll_(std::string(info->method()) == "/ldp.v1.AgentService/Enroll"),
        enrolls_(enrolls) {}
  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    if (enroll_ &&
        methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::POST_RECV_STATUS)) {
      grpc::Status* status = methods->GetRecvStatus();
      if (++*enrolls_ == 1 && status->ok()) {
        *status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "reply lost");
      }
    }
    methods->Proceed();
  }

 private:
  const bool enroll_;
  std::atomic<int>* enrolls_;
};

class LoseFirstEnrollReplyFactory final
    : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo* info) override {
    return new LoseFirstEnrollReply(info, &enrolls);
  }
  std::atomic<int> enrolls{0};
};

class EnrollRetryServiceTest : public GrpcServiceTest {
 protected:
  grpc::Status EnrollCall(const std::string& request_id,
                          const std::string& csr_pem,
                          v1::EnrollResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::EnrollRequest request;
    request.set_request_id(request_id);
    request.set_csr_pem(csr_pem);
    return agent_stub_->Enroll(&context, request, response);
  }
  grpc::Status EnrollBatchCall(uint32_t count, const std::string& request_id,
                               v1::EnrollBatchResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::EnrollBatchRequest request;
    request.set_count(count);
    request.set_request_id(request_id);
    return relay_stub_->EnrollBatch(&context, request, response);
  }
  int64_t StoredAgents() const {
    return QuerySqliteInt(dir_.path() + "/ldp.db",
                          "SELECT count(*) FROM agents");
  }
};

TEST_F(EnrollRetryServiceTest, TheSameRequestGetsTheSameAgentStoredOnce) {
  const std::string id(32, 'w');
  v1::EnrollResponse first, second;
  ASSERT_TRUE(EnrollCall(id, "", &first).ok());
  const grpc::Status status = EnrollCall(id, "", &second);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(second.agent_id(), first.agent_id());
  EXPECT_EQ(second.credential().bearer_token(),
            first.credential().bearer_token());
  EXPECT_EQ(StoredAgents(), 1);
  v1::GetBudgetResponse budget;
  EXPECT_TRUE(GetBudgetCall({.id = second.agent_id(),
                             .token = second.credential().bearer_token()},
                            &budget)
                  .ok());
}

TEST_F(EnrollRetryServiceTest, AnIdOfTheWrongLengthSaysWhatToSend) {
  v1::EnrollResponse response;
  const grpc::Status status = EnrollCall(std::string(8, 'x'), "", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("16 to 64 bytes"));
  v1::EnrollBatchResponse batch;
  EXPECT_EQ(EnrollBatchCall(2, std::string(65, 'x'), &batch).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(StoredAgents(), 0);
}

TEST_F(EnrollRetryServiceTest, TheSameIdWithAnotherCsrIsFailedPrecondition) {
  const std::string id(32, 'c');
  v1::EnrollResponse first, other;
  ASSERT_TRUE(
      EnrollCall(id, "-----BEGIN CERTIFICATE REQUEST----- a", &first).ok());
  EXPECT_EQ(EnrollCall(id, "-----BEGIN CERTIFICATE REQUEST----- b", &other)
                .error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(StoredAgents(), 1);
}

TEST_F(EnrollRetryServiceTest, ABatchRetryGetsTheSameAgentsInOrder) {
  const std::string id(32, 'b');
  v1::EnrollBatchResponse first, retry, other;
  ASSERT_TRUE(EnrollBatchCall(3, id, &first).ok());
  ASSERT_TRUE(EnrollBatchCall(3, id, &retry).ok());
  ASSERT_EQ(retry.agents_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(retry.agents(i).agent_id(), first.agents(i).agent_id());
    EXPECT_EQ(retry.agents(i).credential().bearer_token(),
              first.agents(i).credential().bearer_token());
  }
  EXPECT_EQ(EnrollBatchCall(2, id, &other).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(StoredAgents(), 3);
}

// The real client: its first Enroll commits on the server but the reply
// is lost; the client's retry (same request id) gets that agent.
TEST_F(EnrollRetryServiceTest, AClientRetryAfterALostReplyGetsTheStoredAgent) {
  auto factory = std::make_unique<LoseFirstEnrollReplyFactory>();
  std::atomic<int>& enrolls = factory->enrolls;
  std::vector<
      std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      factories;
  factories.push_back(std::move(factory));
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto channel = grpc::experimental::CreateCustomChannelWithInterceptors(
      target_, grpc::InsecureChannelCredentials(), args, std::move(factories));
  std::mt19937_64 gen(5);
  auto client = AgentClient::CreateForChannel(
      {.max_attempts = 3, .sleep = [](absl::Duration) {}}, channel, gen);
  ASSERT_OK(client);
  const absl::StatusOr<AgentCredential> credential = (*client)->Enroll("");
  ASSERT_OK(credential);
  EXPECT_EQ(enrolls.load(), 2);  // the lost reply, then the retry
  EXPECT_EQ(StoredAgents(), 1);
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 1);
  EXPECT_THAT(aggregator_->AuthenticateAgent(credential->bearer_token),
              IsOkAndHolds(credential->agent_id));
}

}  // namespace
}  // namespace ldp::testing
