// RelayServiceImpl through an in-process gRPC server (service_fixture.h):
// batch enrollment, batch polls and the relayed upload stream each answer
// per item (one agent's bad token does not fail its neighbours), batches
// over the aggregator's per-call limit are refused, and the relay's
// transport policy (enroll limit per call, client certificate) holds.
//
// Why here: a relay carries many agents' calls in one message, so the
// per-item codes, their order and the shared question table are the
// adapter's own work; the integration test sees them only end to end.
#include "server/grpc/relay_service.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/grpc/rate_limiter.h"
#include "tests/integration/raw_stream.h"
#include "tests/server/grpc/service_fixture.h"

namespace ldp::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kRelayUploadMethod[] = "/ldp.v1.RelayService/UploadReports";

// At most four items per call, so that the limit is cheap to pass.
class RelayServiceTest : public GrpcServiceTest {
 protected:
  RelayServiceTest() { aggregator_options_.max_reports_per_call = 4; }

  grpc::Status EnrollBatchCall(uint32_t count,
                               v1::EnrollBatchResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::EnrollBatchRequest request;
    request.set_count(count);
    return relay_stub_->EnrollBatch(&context, request, response);
  }
  grpc::Status PollBatch(const std::vector<std::string>& tokens,
                         v1::GetTasksBatchResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::GetTasksBatchRequest request;
    for (const std::string& token : tokens) {
      request.add_agents()->set_bearer_token(token);
    }
    return relay_stub_->GetTasksBatch(&context, request, response);
  }
  // Sends each request on one stream, reading its response before the
  // next; returns the responses read and the stream's status.
  grpc::Status RelayUpload(const std::vector<v1::RelayUploadRequest>& requests,
                           std::vector<v1::RelayUploadResponse>* responses) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    auto stream = relay_stub_->UploadReports(&context);
    for (const v1::RelayUploadRequest& request : requests) {
      v1::RelayUploadResponse response;
      if (!stream->Write(request) || !stream->Read(&response)) break;
      responses->push_back(response);
    }
    stream->WritesDone();
    return stream->Finish();
  }
  static v1::RelayedReport Relayed(const std::string& token,
                                   const v1::Report& report) {
    v1::RelayedReport relayed;
    relayed.set_bearer_token(token);
    *relayed.mutable_report() = report;
    return relayed;
  }
};

std::vector<int> RelayAckCodes(const v1::RelayUploadResponse& response) {
  std::vector<int> codes;
  for (const v1::ReportAck& ack : response.acks()) codes.push_back(ack.code());
  return codes;
}

TEST_F(RelayServiceTest, EnrollBatchMintsDistinctWorkingCredentials) {
  v1::EnrollBatchResponse response;
  const grpc::Status status = EnrollBatchCall(3, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.agents_size(), 3);
  std::set<uint64_t> ids;
  for (const v1::EnrollResponse& agent : response.agents()) {
    ids.insert(agent.agent_id());
    EXPECT_THAT(
        aggregator_->AuthenticateAgent(agent.credential().bearer_token()),
        IsOkAndHolds(agent.agent_id()));
  }
  EXPECT_EQ(ids.size(), 3u);
}

TEST_F(RelayServiceTest, EnrollBatchOfNoneOrTooManyIsInvalidArgument) {
  v1::EnrollBatchResponse response;
  EXPECT_EQ(EnrollBatchCall(0, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(EnrollBatchCall(5, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(response.agents_size(), 0);
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 0);
}

TEST_F(RelayServiceTest, PollAnswersEachAgentInOrderWithOneSharedQuestion) {
  const uint64_t study = CreateColorStudy("relay-poll");
  const WireAgent alice = EnrollAgent();
  const WireAgent bob = EnrollAgent();
  v1::GetTasksBatchResponse response;
  ASSERT_TRUE(PollBatch({alice.token, "bogus", bob.token}, &response).ok());
  ASSERT_EQ(response.questions_size(), 1);
  EXPECT_EQ(response.questions(0).study_id(), study);
  EXPECT_EQ(response.questions(0).task_id(), 0u);
  ASSERT_EQ(response.agents_size(), 3);

  const v1::AgentTasks& refused = response.agents(1);
  EXPECT_EQ(refused.code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.message(), HasSubstr("malformed bearer token"));
  EXPECT_EQ(refused.agent_id(), 0u);
  EXPECT_EQ(refused.tasks_size(), 0);
  for (int i : {0, 2}) {
    const v1::AgentTasks& tasks = response.agents(i);
    EXPECT_EQ(tasks.code(), 0) << tasks.message();
    EXPECT_EQ(tasks.agent_id(), i == 0 ? alice.id : bob.id);
    ASSERT_EQ(tasks.tasks_size(), 1);
    EXPECT_EQ(tasks.tasks(0).question(), 0u);
    EXPECT_EQ(tasks.tasks(0).task_id(),
              OnlyTask(i == 0 ? alice : bob).task_id());
  }
}

TEST_F(RelayServiceTest, PollOverTheLimitIsInvalidArgument) {
  v1::GetTasksBatchResponse response;
  const grpc::Status status =
      PollBatch(std::vector<std::string>(5, "bogus"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("at most 4 agents per call"));
}

TEST_F(RelayServiceTest, UploadAcksEachRelayedReportOnItsOwn) {
  const uint64_t study = CreateColorStudy("relay-upload");
  const WireAgent alice = EnrollAgent();
  const WireAgent bob = EnrollAgent();
  const v1::Report alices = ColorReport(alice, OnlyTask(alice), 0, 'a');
  const v1::Report bobs = ColorReport(bob, OnlyTask(bob), 3, 'b');
  v1::RelayUploadRequest first;
  *first.add_reports() = Relayed(alice.token, alices);
  *first.add_reports() = Relayed("bogus", bobs);
  *first.add_reports() = Relayed(bob.token, alices);  // names alice
  *first.add_reports() = Relayed(bob.token, bobs);
  v1::RelayUploadRequest retry;
  *retry.add_reports() = Relayed(alice.token, alices);

  std::vector<v1::RelayUploadResponse> responses;
  const grpc::Status status = RelayUpload({first, retry}, &responses);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_THAT(RelayAckCodes(responses[0]),
              ElementsAre(0, grpc::StatusCode::UNAUTHENTICATED,
                          grpc::StatusCode::PERMISSION_DENIED, 0));
  EXPECT_EQ(responses[0].acks(1).report_id(), bobs.report_id());
  EXPECT_EQ(responses[0].acks(3).report_id(), bobs.report_id());
  EXPECT_THAT(RelayAckCodes(responses[1]), ElementsAre(0));
  EXPECT_EQ(GetStudy(study).status().num_reports(), 2u);
}

TEST_F(RelayServiceTest, UploadOverTheLimitRefusesEveryReport) {
  CreateColorStudy("relay-upload-limit");
  const WireAgent alice = EnrollAgent();
  const v1::Task task = OnlyTask(alice);
  v1::RelayUploadRequest request;
  for (char id = 'a'; id < 'f'; ++id) {
    *request.add_reports() =
        Relayed(alice.token, ColorReport(alice, task, 0, id));
  }
  std::vector<v1::RelayUploadResponse> responses;
  ASSERT_TRUE(RelayUpload({request}, &responses).ok());
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_EQ(responses[0].acks_size(), 5);
  for (const v1::ReportAck& ack : responses[0].acks()) {
    EXPECT_EQ(ack.code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(ack.message(), HasSubstr("at most 4 reports per call"));
  }
  EXPECT_EQ(aggregator_->Stats().reports_stored, 0);
}

TEST_F(RelayServiceTest, EmptyOrUnparsableMessageEndsTheStream) {
  std::vector<v1::RelayUploadResponse> responses;
  const grpc::Status empty =
      RelayUpload({v1::RelayUploadRequest()}, &responses);
  EXPECT_EQ(empty.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(empty.error_message(), HasSubstr("at least one report"));
  EXPECT_TRUE(responses.empty());
  const grpc::Status garbage = RawStream(channel_, kRelayUploadMethod, "",
                                         {std::string("\xff\xff\xff junk", 8)});
  EXPECT_EQ(garbage.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// One EnrollBatch per second per peer, on the fixture's fake clock.
class RelayEnrollLimitTest : public GrpcServiceTest {
 protected:
  RelayEnrollLimitTest()
      : enroll_limiter_(
            *RateLimiter::Create(&clock_, {.per_second = 1, .burst = 1})) {
    relay_options_.enroll_limiter = enroll_limiter_.get();
  }
  grpc::Status EnrollThree(grpc::ClientContext& context) {
    PrepareContext(context, "");
    v1::EnrollBatchRequest request;
    request.set_count(3);
    v1::EnrollBatchResponse response;
    return relay_stub_->EnrollBatch(&context, request, &response);
  }
  std::unique_ptr<RateLimiter> enroll_limiter_;
};

TEST_F(RelayEnrollLimitTest, EnrollLimitIsChargedOncePerCall) {
  grpc::ClientContext first, second;
  ASSERT_TRUE(EnrollThree(first).ok());
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 3);
  const grpc::Status refused = EnrollThree(second);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(TrailerOf(second, "retry-after-ms"), "1000");
  clock_.Advance(absl::Seconds(1));
  grpc::ClientContext third;
  EXPECT_TRUE(EnrollThree(third).ok());
}

// Mutual TLS required, over a plaintext port.
class RelayClientCertificateTest : public GrpcServiceTest {
 protected:
  RelayClientCertificateTest() {
    relay_options_.require_client_certificate = true;
  }
};

TEST_F(RelayClientCertificateTest, EveryMethodRefusesARelayWithoutOne) {
  grpc::ClientContext enroll_context;
  PrepareContext(enroll_context, "");
  v1::EnrollBatchRequest enroll;
  enroll.set_count(1);
  v1::EnrollBatchResponse enrolled;
  const grpc::Status status =
      relay_stub_->EnrollBatch(&enroll_context, enroll, &enrolled);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("client certificate"));

  grpc::ClientContext poll_context;
  PrepareContext(poll_context, "");
  v1::GetTasksBatchResponse polled;
  EXPECT_EQ(
      relay_stub_
          ->GetTasksBatch(&poll_context, v1::GetTasksBatchRequest(), &polled)
          .error_code(),
      grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(RawStream(channel_, kRelayUploadMethod, "", {}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(aggregator_->Stats().agents_enrolled, 0);
}

}  // namespace
}  // namespace ldp::testing
