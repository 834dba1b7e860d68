// AnalystServiceImpl through an in-process gRPC server (service_fixture.h):
// the analyst credential gate (none, wrong, an agent's), CreateStudy,
// GetStudy, ListStudies, GetRound, GetEstimates and GetAgentBudget
// round-trips against the aggregator's state, and the codes of bad
// requests.
//
// Why here: the adapter renders studies, rounds and estimates to wire
// messages and parses CreateStudy itself (a raw method); a wrong field or
// a swallowed status is only visible through the wire API.
#include "server/grpc/analyst_service.h"

#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/integration/raw_stream.h"
#include "tests/server/grpc/service_fixture.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kCreateStudyMethod[] = "/ldp.v1.AnalystService/CreateStudy";

class AnalystServiceTest : public GrpcServiceTest {
 protected:
  grpc::Status GetStudyCall(const std::string& authorization, uint64_t study_id,
                            v1::Study* study) {
    grpc::ClientContext context;
    PrepareContext(context, authorization);
    v1::GetStudyRequest request;
    request.set_study_id(study_id);
    return analyst_stub_->GetStudy(&context, request, study);
  }
  grpc::Status GetEstimatesCall(uint64_t study_id,
                                v1::GetEstimatesResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, BearerOf(kServiceAnalystToken));
    v1::GetEstimatesRequest request;
    request.set_study_id(study_id);
    return analyst_stub_->GetEstimates(&context, request, response);
  }
  grpc::Status GetRoundCall(uint64_t study_id, uint64_t round_id,
                            v1::Round* round) {
    grpc::ClientContext context;
    PrepareContext(context, BearerOf(kServiceAnalystToken));
    v1::GetRoundRequest request;
    request.set_study_id(study_id);
    request.set_round_id(round_id);
    return analyst_stub_->GetRound(&context, request, round);
  }
  grpc::Status StartRoundCall(const v1::StartRoundRequest& request) {
    grpc::ClientContext context;
    PrepareContext(context, BearerOf(kServiceAnalystToken));
    v1::Round round;
    return analyst_stub_->StartRound(&context, request, &round);
  }
  grpc::Status ListStudiesCall(const std::string& authorization,
                               const std::string& page_token,
                               v1::ListStudiesResponse* response) {
    grpc::ClientContext context;
    PrepareContext(context, authorization);
    v1::ListStudiesRequest request;
    request.set_page_token(page_token);
    return analyst_stub_->ListStudies(&context, request, response);
  }
  // An enrolled agent that has reported color `item` in the color study.
  WireAgent ReportColor(uint32_t item, char id_byte) {
    const WireAgent agent = EnrollAgent();
    const v1::Task task = OnlyTask(agent);
    const AgentUploadResult upload =
        Upload(BearerOf(agent.token),
               {BatchOf({ColorReport(agent, task, item, id_byte)})});
    EXPECT_TRUE(upload.status.ok()) << upload.status.error_message();
    EXPECT_EQ(upload.response.acks_size(), 1);
    for (const v1::ReportAck& ack : upload.response.acks()) {
      EXPECT_EQ(ack.code(), 0) << ack.message();
    }
    return agent;
  }
};

TEST_F(AnalystServiceTest, CallsWithoutTheAnalystTokenAreUnauthenticated) {
  v1::Study study;
  grpc::Status status = CreateStudyCall("", ColorStudy("no-token"), &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("authorization: Bearer"));
  status = CreateStudyCall(BearerOf("wrong-analyst-token-0000"),
                           ColorStudy("wrong-token"), &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("wrong analyst token"));
  EXPECT_TRUE(aggregator_->ListStudies(10).studies.empty());

  const uint64_t id = CreateColorStudy("exists");
  EXPECT_EQ(GetStudyCall("", id, &study).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  v1::ListStudiesResponse list;
  EXPECT_EQ(ListStudiesCall("", "", &list).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list.studies_size(), 0);
}

TEST_F(AnalystServiceTest, AgentCredentialIsPermissionDenied) {
  const uint64_t id = CreateColorStudy("agent-calls-analyst");
  const WireAgent agent = EnrollAgent();
  v1::Study study;
  const grpc::Status status = GetStudyCall(BearerOf(agent.token), id, &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("agent credential cannot call the analyst API"));
}

TEST_F(AnalystServiceTest, CreatedStudyRoundTripsThroughGetStudy) {
  v1::Study created;
  const grpc::Status status = CreateStudyCall(
      BearerOf(kServiceAnalystToken), ColorStudy("round-trip"), &created);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_NE(created.study_id(), 0u);
  EXPECT_EQ(created.spec().display_name(), "round-trip");
  EXPECT_EQ(created.spec().epsilon_cap_nanos(), 1'000'000'000u);
  ASSERT_EQ(created.spec().questions_size(), 1);
  EXPECT_EQ(created.spec().questions(0).question_id(), "colors");
  EXPECT_EQ(created.status().state(), v1::STUDY_ACTIVE);
  EXPECT_EQ(created.status().round_ids_size(), 1);
  EXPECT_EQ(created.create_time().seconds(), absl::ToUnixSeconds(clock_.Now()));

  const v1::Study fetched = GetStudy(created.study_id());
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(created, fetched))
      << "created: " << created.ShortDebugString()
      << "\nfetched: " << fetched.ShortDebugString();
}

TEST_F(AnalystServiceTest, RepeatedRequestIdReturnsTheFirstStudy) {
  v1::Study first, second;
  ASSERT_TRUE(CreateStudyCall(BearerOf(kServiceAnalystToken),
                              ColorStudy("first"), &first, "request-1")
                  .ok());
  ASSERT_TRUE(CreateStudyCall(BearerOf(kServiceAnalystToken),
                              ColorStudy("second"), &second, "request-1")
                  .ok());
  EXPECT_EQ(second.study_id(), first.study_id());
  EXPECT_EQ(second.spec().display_name(), "first");
  v1::ListStudiesResponse list;
  ASSERT_TRUE(ListStudiesCall(BearerOf(kServiceAnalystToken), "", &list).ok());
  ASSERT_EQ(list.studies_size(), 1);
  EXPECT_EQ(list.studies(0).study_id(), first.study_id());
}

TEST_F(AnalystServiceTest, EstimatesRoundAndBudgetReflectTheAckedReports) {
  const uint64_t id = CreateColorStudy("estimates");
  const WireAgent alice = ReportColor(0, 'a');
  ReportColor(1, 'b');
  const v1::Study study = GetStudy(id);
  EXPECT_EQ(study.status().num_reports(), 2u);
  EXPECT_EQ(study.status().num_agents(), 2u);
  EXPECT_GT(study.status().max_spent_nanos(), 0u);

  v1::GetEstimatesResponse estimates;
  ASSERT_TRUE(GetEstimatesCall(id, &estimates).ok());
  EXPECT_EQ(estimates.round_id(), study.status().round_ids(0));
  EXPECT_EQ(estimates.round_state(), v1::ROUND_OPEN);
  ASSERT_EQ(estimates.estimates_size(), 1);
  EXPECT_EQ(estimates.estimates(0).question_id(), "colors");
  const v1::HistogramEstimate& histogram = estimates.estimates(0).histogram();
  EXPECT_EQ(histogram.num_reports(), 2);
  EXPECT_EQ(histogram.frequencies_size(), 4);
  EXPECT_EQ(histogram.labels_size(), 4);
  EXPECT_EQ(histogram.mechanism(), "grr");

  v1::Round round;
  ASSERT_TRUE(GetRoundCall(id, 0, &round).ok());
  EXPECT_EQ(round.round_id(), study.status().round_ids(0));
  EXPECT_EQ(round.state(), v1::ROUND_OPEN);
  ASSERT_EQ(round.progress_size(), 1);
  EXPECT_EQ(round.progress(0).num_reports(), 2u);

  grpc::ClientContext context;
  PrepareContext(context, BearerOf(kServiceAnalystToken));
  v1::GetBudgetRequest request;
  request.set_agent_id(alice.id);
  v1::GetBudgetResponse budget;
  ASSERT_TRUE(analyst_stub_->GetAgentBudget(&context, request, &budget).ok());
  ASSERT_EQ(budget.entries_size(), 1);
  EXPECT_EQ(budget.entries(0).spent_nanos(), study.status().max_spent_nanos());
}

TEST_F(AnalystServiceTest, RoundPastItsDeadlineIsClosedAndRefusesReports) {
  const uint64_t id = CreateColorStudy("deadline");
  const WireAgent agent = EnrollAgent();
  const v1::Task task = OnlyTask(agent);
  clock_.Advance(absl::Hours(2));
  v1::GetEstimatesResponse estimates;
  ASSERT_TRUE(GetEstimatesCall(id, &estimates).ok());
  EXPECT_EQ(estimates.round_state(), v1::ROUND_CLOSED_DEADLINE);
  const AgentUploadResult late = Upload(
      BearerOf(agent.token), {BatchOf({ColorReport(agent, task, 0, 'l')})});
  ASSERT_TRUE(late.status.ok()) << late.status.error_message();
  ASSERT_EQ(late.response.acks_size(), 1);
  EXPECT_EQ(late.response.acks(0).code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(AnalystServiceTest, MalformedRequestsAreInvalidArgument) {
  v1::StudySpec no_questions = ColorStudy("no-questions");
  no_questions.clear_questions();
  v1::Study study;
  EXPECT_EQ(
      CreateStudyCall(BearerOf(kServiceAnalystToken), no_questions, &study)
          .error_code(),
      grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(
      RawStream(channel_, kCreateStudyMethod, BearerOf(kServiceAnalystToken),
                {std::string("\xff\xff\xff\xff garbage", 12)})
          .error_code(),
      grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(aggregator_->ListStudies(10).studies.empty());

  v1::ListStudiesResponse list;
  const grpc::Status page =
      ListStudiesCall(BearerOf(kServiceAnalystToken), "abc", &list);
  EXPECT_EQ(page.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(page.error_message(), HasSubstr("not one this server returned"));

  v1::StartRoundRequest with_questions;
  with_questions.set_study_id(CreateColorStudy("start-round"));
  *with_questions.add_questions() = ColorStudy("q").questions(0);
  EXPECT_EQ(StartRoundCall(with_questions).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(AnalystServiceTest, UnknownStudyIsNotFoundAndAFixedStudyCannotAdvance) {
  v1::Study study;
  const grpc::Status missing =
      GetStudyCall(BearerOf(kServiceAnalystToken), 999, &study);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(missing.error_message(), HasSubstr("999"));

  const uint64_t id = CreateColorStudy("noninteractive");
  v1::Round round;
  EXPECT_EQ(GetRoundCall(id, 999, &round).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::StartRoundRequest advance;
  advance.set_study_id(id);
  EXPECT_EQ(StartRoundCall(advance).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace ldp::testing
