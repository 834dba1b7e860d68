// AgentServiceImpl through an in-process gRPC server (service_fixture.h):
// enroll, poll and upload end to end; how a missing, malformed or foreign
// credential is refused; per-report acks for bad reports and the stream's
// end for bad bytes; and the transport policy the adapter owns (rate
// limits on a fake clock, the client-certificate requirement).
//
// Why here: the adapter's answers (codes, messages, acks in order, the
// retry trailer) are the agent's whole view of the server, and the
// integration tests cannot set its options or hold its clock.
#include "server/grpc/agent_service.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/grpc/rate_limiter.h"
#include "tests/integration/raw_stream.h"
#include "tests/server/grpc/service_fixture.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kAgentUploadMethod[] = "/ldp.v1.AgentService/UploadReports";

class AgentServiceTest : public GrpcServiceTest {};

// The ack codes of an upload, in order.
std::vector<int> AgentAckCodes(const AgentUploadResult& result) {
  std::vector<int> codes;
  for (const v1::ReportAck& ack : result.response.acks()) {
    codes.push_back(ack.code());
  }
  return codes;
}

TEST_F(AgentServiceTest, EnrollPollUploadAcksTheReportAndChargesTheLedger) {
  const uint64_t study = CreateColorStudy("agent-happy-path");
  const WireAgent agent = EnrollAgent();
  ASSERT_NE(agent.id, 0u);
  EXPECT_THAT(agent.token, StartsWith(absl::StrCat(agent.id, ".")));

  const v1::Task task = OnlyTask(agent);
  EXPECT_EQ(task.study_id(), study);
  EXPECT_NE(task.task_id(), 0u);
  EXPECT_GT(task.epsilon_nanos(), 0u);
  EXPECT_EQ(task.epsilon_nanos(), task.randomizer().epsilon_nanos());
  ASSERT_EQ(task.schema().fields_size(), 1);
  EXPECT_EQ(task.schema().fields(0).name(), "color");

  const v1::Report report = ColorReport(agent, task, 2, 'a');
  const AgentUploadResult upload =
      Upload(BearerOf(agent.token), {BatchOf({report})});
  ASSERT_TRUE(upload.status.ok()) << upload.status.error_message();
  ASSERT_EQ(upload.response.acks_size(), 1);
  EXPECT_EQ(upload.response.acks(0).report_id(), report.report_id());
  EXPECT_EQ(upload.response.acks(0).code(), 0)
      << upload.response.acks(0).message();

  v1::GetBudgetResponse budget;
  ASSERT_TRUE(GetBudgetCall(agent, &budget).ok());
  ASSERT_EQ(budget.entries_size(), 1);
  EXPECT_EQ(budget.entries(0).study_id(), study);
  EXPECT_EQ(budget.entries(0).spent_nanos(), task.epsilon_nanos());
  EXPECT_EQ(budget.entries(0).cap_nanos(), 1'000'000'000u);

  v1::GetTasksResponse after;
  ASSERT_TRUE(GetTasksCall(BearerOf(agent.token), agent.id, &after).ok());
  EXPECT_EQ(after.tasks_size(), 0);
  EXPECT_EQ(after.poll_after_seconds(), 10u);
}

TEST_F(AgentServiceTest, RetryIsAckedAndChargedOnceAndAConflictIsRefused) {
  const uint64_t study = CreateColorStudy("agent-retry");
  const WireAgent agent = EnrollAgent();
  const v1::Task task = OnlyTask(agent);
  const v1::Report report = ColorReport(agent, task, 1, 'r');
  const v1::Report conflicting = ColorReport(agent, task, 3, 'c');
  const AgentUploadResult upload =
      Upload(BearerOf(agent.token),
             {BatchOf({report}), BatchOf({report}), BatchOf({conflicting})});
  ASSERT_TRUE(upload.status.ok()) << upload.status.error_message();
  EXPECT_THAT(AgentAckCodes(upload),
              ::testing::ElementsAre(0, 0, grpc::StatusCode::ALREADY_EXISTS));

  v1::GetBudgetResponse budget;
  ASSERT_TRUE(GetBudgetCall(agent, &budget).ok());
  ASSERT_EQ(budget.entries_size(), 1);
  EXPECT_EQ(budget.entries(0).spent_nanos(), task.epsilon_nanos());
  EXPECT_EQ(GetStudy(study).status().num_reports(), 1u);
}

TEST_F(AgentServiceTest, MissingTokenIsUnauthenticatedAndSaysWhatToSend) {
  v1::GetTasksResponse response;
  const grpc::Status status = GetTasksCall("", 0, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("'authorization: Bearer <token>'"));
}

TEST_F(AgentServiceTest, NonBearerCredentialIsUnauthenticated) {
  const WireAgent agent = EnrollAgent();
  v1::GetTasksResponse response;
  const grpc::Status status =
      GetTasksCall("Basic " + agent.token, agent.id, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("must be 'Bearer <token>'"));
}

TEST_F(AgentServiceTest, WrongOrMalformedTokenIsUnauthenticated) {
  const WireAgent agent = EnrollAgent();
  const std::string forged = absl::StrCat(agent.id, ".", std::string(64, '0'));
  v1::GetTasksResponse response;
  grpc::Status status = GetTasksCall(BearerOf(forged), agent.id, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("wrong credential"));

  status = GetTasksCall(BearerOf("not-a-token"), 0, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("malformed bearer token"));
}

TEST_F(AgentServiceTest, UploadWithoutTokenEndsTheStreamUnauthenticated) {
  CreateColorStudy("agent-no-token");
  const WireAgent agent = EnrollAgent();
  const v1::Task task = OnlyTask(agent);
  const AgentUploadResult upload =
      Upload("", {BatchOf({ColorReport(agent, task, 0, 'n')})});
  EXPECT_EQ(upload.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(upload.response.acks_size(), 0);
  EXPECT_EQ(aggregator_->Stats().reports_stored, 0);
}

TEST_F(AgentServiceTest, RequestNamingAnotherAgentIsPermissionDenied) {
  const WireAgent alice = EnrollAgent();
  const WireAgent bob = EnrollAgent();
  v1::GetTasksResponse response;
  const grpc::Status status =
      GetTasksCall(BearerOf(alice.token), bob.id, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(),
              HasSubstr(absl::StrCat("request names agent ", bob.id,
                                     " but the credential belongs to agent ",
                                     alice.id)));
}

TEST_F(AgentServiceTest, BadReportsAreAckedOneByOneAndNothingIsCharged) {
  CreateColorStudy("agent-bad-reports");
  const WireAgent alice = EnrollAgent();
  const WireAgent bob = EnrollAgent();
  const v1::Task task = OnlyTask(alice);
  v1::Report old_version = ColorReport(alice, task, 0, '1');
  old_version.set_protocol_version(0);
  v1::Report short_id = ColorReport(alice, task, 0, '2');
  short_id.set_report_id("abc");
  v1::Report no_payload = ColorReport(alice, task, 0, '3');
  no_payload.clear_item();
  v1::Report foreign = ColorReport(alice, task, 0, '4');
  foreign.set_agent_id(bob.id);
  const v1::Report out_of_range = ColorReport(alice, task, 9, '5');
  const v1::Report bobs_task = ColorReport(alice, OnlyTask(bob), 0, '6');
  const AgentUploadResult upload = Upload(
      BearerOf(alice.token), {BatchOf({old_version, short_id, no_payload,
                                       foreign, out_of_range, bobs_task})});
  ASSERT_TRUE(upload.status.ok()) << upload.status.error_message();
  EXPECT_THAT(AgentAckCodes(upload),
              ::testing::ElementsAre(grpc::StatusCode::INVALID_ARGUMENT,
                                     grpc::StatusCode::INVALID_ARGUMENT,
                                     grpc::StatusCode::INVALID_ARGUMENT,
                                     grpc::StatusCode::PERMISSION_DENIED,
                                     grpc::StatusCode::INVALID_ARGUMENT,
                                     grpc::StatusCode::NOT_FOUND));
  EXPECT_THAT(upload.response.acks(0).message(), HasSubstr("protocol_version"));
  EXPECT_THAT(upload.response.acks(1).message(), HasSubstr("report_id"));
  v1::GetBudgetResponse budget;
  ASSERT_TRUE(GetBudgetCall(alice, &budget).ok());
  EXPECT_EQ(budget.entries_size(), 0);
}

TEST_F(AgentServiceTest, BytesThatAreNotABatchEndTheStreamInvalidArgument) {
  const WireAgent agent = EnrollAgent();
  const grpc::Status garbage =
      RawStream(channel_, kAgentUploadMethod, BearerOf(agent.token),
                {std::string("\xff\xff\xff\xff not a message")});
  EXPECT_EQ(garbage.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const AgentUploadResult empty =
      Upload(BearerOf(agent.token), {v1::UploadReportsRequest()});
  EXPECT_EQ(empty.status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// A server that admits agents with one enrollment token only.
class AgentEnrollmentTokenTest : public GrpcServiceTest {
 protected:
  AgentEnrollmentTokenTest() {
    aggregator_options_.enrollment_token = "fleet-enrollment-token";
  }
  grpc::Status EnrollWith(const std::string& token) {
    grpc::ClientContext context;
    PrepareContext(context, "");
    v1::EnrollRequest request;
    request.set_enrollment_token(token);
    v1::EnrollResponse response;
    return agent_stub_->Enroll(&context, request, &response);
  }
};

TEST_F(AgentEnrollmentTokenTest, WrongEnrollmentTokenIsUnauthenticated) {
  const grpc::Status wrong = EnrollWith("guessed");
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(wrong.error_message(), HasSubstr("wrong enrollment token"));
  EXPECT_TRUE(EnrollWith("fleet-enrollment-token").ok());
}

// One call per second per agent and per peer, on the fixture's fake clock.
class AgentRateLimitTest : public GrpcServiceTest {
 protected:
  AgentRateLimitTest()
      : agent_limiter_(
            *RateLimiter::Create(&clock_, {.per_second = 1, .burst = 1})),
        enroll_limiter_(
            *RateLimiter::Create(&clock_, {.per_second = 1, .burst = 1})) {
    agent_options_.agent_limiter = agent_limiter_.get();
    agent_options_.enroll_limiter = enroll_limiter_.get();
  }
  std::unique_ptr<RateLimiter> agent_limiter_;
  std::unique_ptr<RateLimiter> enroll_limiter_;
};

TEST_F(AgentRateLimitTest, PollOverTheLimitIsResourceExhaustedWithARetryHint) {
  const WireAgent agent = EnrollAgent();
  v1::GetTasksResponse response;
  ASSERT_TRUE(GetTasksCall(BearerOf(agent.token), agent.id, &response).ok());
  grpc::ClientContext context;
  const grpc::Status refused =
      GetTasksCall(BearerOf(agent.token), agent.id, &response, &context);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr(absl::StrCat("agent ", agent.id)));
  EXPECT_EQ(TrailerOf(context, "retry-after-ms"), "1000");
  clock_.Advance(absl::Seconds(1));
  EXPECT_TRUE(GetTasksCall(BearerOf(agent.token), agent.id, &response).ok());
}

TEST_F(AgentRateLimitTest, BatchOverTheLimitEndsTheStreamAfterEarlierCommits) {
  CreateColorStudy("agent-rate-limited-upload");
  const WireAgent agent = EnrollAgent();
  const v1::Task task = OnlyTask(agent);
  clock_.Advance(absl::Seconds(1));
  const v1::Report report = ColorReport(agent, task, 1, 'u');
  const AgentUploadResult upload =
      Upload(BearerOf(agent.token), {BatchOf({report}), BatchOf({report})});
  EXPECT_EQ(upload.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  clock_.Advance(absl::Seconds(1));
  v1::GetBudgetResponse budget;
  ASSERT_TRUE(GetBudgetCall(agent, &budget).ok());
  ASSERT_EQ(budget.entries_size(), 1);
  EXPECT_EQ(budget.entries(0).spent_nanos(), task.epsilon_nanos());
}

TEST_F(AgentRateLimitTest, EnrollLimitIsPerAddressNotPerConnection) {
  EnrollAgent();
  const std::unique_ptr<v1::AgentService::Stub> other =
      v1::AgentService::NewStub(NewChannel());
  grpc::ClientContext context;
  PrepareContext(context, "");
  v1::EnrollResponse response;
  const grpc::Status refused =
      other->Enroll(&context, v1::EnrollRequest(), &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("peer ipv4:127.0.0.1"));
  EXPECT_EQ(TrailerOf(context, "retry-after-ms"), "1000");
}

// Mutual TLS required, over a plaintext port: no caller can have a
// verified client certificate.
class AgentClientCertificateTest : public GrpcServiceTest {
 protected:
  AgentClientCertificateTest() {
    agent_options_.require_client_certificate = true;
  }
};

TEST_F(AgentClientCertificateTest, CallsWithoutACertificateAreUnauthenticated) {
  grpc::ClientContext context;
  PrepareContext(context, "");
  v1::EnrollResponse enrolled;
  const grpc::Status enroll =
      agent_stub_->Enroll(&context, v1::EnrollRequest(), &enrolled);
  EXPECT_EQ(enroll.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(enroll.error_message(), HasSubstr("client certificate"));

  // A genuine credential does not stand in for the certificate.
  absl::StatusOr<Enrollment> agent = aggregator_->Enroll("");
  ASSERT_OK(agent);
  v1::GetTasksResponse response;
  const grpc::Status poll =
      GetTasksCall(BearerOf(agent->bearer_token), agent->agent_id, &response);
  EXPECT_EQ(poll.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(poll.error_message(), HasSubstr("--tls_cert_file"));
}

}  // namespace
}  // namespace ldp::testing
