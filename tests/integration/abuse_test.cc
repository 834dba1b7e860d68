// Abuse against a real ldp-server on loopback: forged credentials, an agent
// calling the analyst API, replays, malformed and oversized payloads, reports
// for a closed round, unknown tasks and other agents' tasks. Each attempt must
// get its documented gRPC status (ack codes: agent_service.proto ReportAck;
// Aggregator::UploadReports) AND change nothing: the server's ledgers
// (GetAgentBudget), study counters (GetStudy) and estimates (GetEstimates) are
// compared before and after.
//
// Raw AgentService stubs are used throughout, because the client library
// (rightly) refuses to send most of this.
//
// NaN and ±inf: no report field is a double (ScalarPayload.level is a
// sint64 lattice index, types.proto), so a non-finite value cannot even be
// expressed on the wire; the nearest attacks, levels far outside the
// mechanism's range (±2^63), are tested instead.
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/abuse_fixture.h"

namespace ldp::testing {
namespace {

using ::absl::StatusCode;

TEST_F(AbuseTest, ForgedCredentialsAreUnauthenticated) {
  const Snapshot before = Take();
  const std::string zeros(64, '0');
  // Alice's secret, for tokens that reuse it under another id.
  const std::string alice_secret =
      alice_.token.substr(alice_.token.find('.') + 1);
  ASSERT_EQ(alice_secret.size(), 64u);
  std::string flipped = alice_secret;
  flipped[0] = flipped[0] == 'a' ? 'b' : 'a';
  const std::vector<std::string> forged = {
      Bearer(absl::StrCat(alice_.id, ".", zeros)),  // well-formed, wrong secret
      Bearer(absl::StrCat(alice_.id, ".", flipped)),     // one digit off
      Bearer(absl::StrCat(bob_.id, ".", alice_secret)),  // another agent's id
      Bearer(
          absl::StrCat(alice_.id, ".", alice_secret.substr(1))),  // 63 digits
      Bearer(absl::StrCat(999999, ".", alice_secret)),  // no such agent
      Bearer("garbage"),
      Bearer(server_.analyst_token()),  // analyst token
      "Basic " + alice_.token,          // wrong scheme
      "",                               // no credential
  };
  for (const std::string& authorization : forged) {
    SCOPED_TRACE(authorization);
    v1::GetTasksResponse tasks;
    EXPECT_EQ(GetTasks(authorization, alice_.id, &tasks).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(tasks.tasks_size(), 0);
    EXPECT_EQ(GetBudget(authorization, alice_.id).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    // Alice's own, valid report, under the forged credential.
    const UploadResult upload =
        Upload(authorization, {Batch({ItemReport(alice_, histogram_, 1)})});
    EXPECT_EQ(upload.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(upload.response.acks_size(), 0);
  }
  EXPECT_EQ(Take(), before);
  // Nothing was stored for Alice's task: her real credential still reports.
  ExpectAcks(Upload(Bearer(alice_.token),
                    {Batch({ItemReport(alice_, histogram_, 1)})}),
             {StatusCode::kOk});
}

TEST_F(AbuseTest, AgentCredentialOnTheAnalystApiIsPermissionDenied) {
  const Snapshot before = Take();
  const auto call = [&](const std::string& authorization, auto method,
                        const auto& request, auto* response) {
    grpc::ClientContext context;
    Authorize(context, authorization);
    return (analyst_stub_.get()->*method)(&context, request, response);
  };
  for (const RawAgent* agent : {&alice_, &carol_}) {
    const std::string token = Bearer(agent->token);
    SCOPED_TRACE(token);
    v1::CreateStudyRequest create;
    *create.mutable_spec() = MeanSpec();
    v1::Study study;
    EXPECT_EQ(
        call(token, &v1::AnalystService::Stub::CreateStudy, create, &study)
            .error_code(),
        grpc::StatusCode::PERMISSION_DENIED);
    v1::GetStudyRequest get_study;
    get_study.set_study_id(mean_);
    EXPECT_EQ(
        call(token, &v1::AnalystService::Stub::GetStudy, get_study, &study)
            .error_code(),
        grpc::StatusCode::PERMISSION_DENIED);
    v1::ListStudiesRequest list;
    v1::ListStudiesResponse listed;
    EXPECT_EQ(call(token, &v1::AnalystService::Stub::ListStudies, list, &listed)
                  .error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    v1::GetEstimatesRequest get_estimates;
    get_estimates.set_study_id(mean_);
    v1::GetEstimatesResponse estimates;
    EXPECT_EQ(call(token, &v1::AnalystService::Stub::GetEstimates,
                   get_estimates, &estimates)
                  .error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    v1::GetBudgetRequest get_budget;
    get_budget.set_agent_id(bob_.id);
    v1::GetBudgetResponse budget;
    EXPECT_EQ(call(token, &v1::AnalystService::Stub::GetAgentBudget, get_budget,
                   &budget)
                  .error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    v1::StartRoundRequest start;
    start.set_study_id(mean_);
    v1::Round round;
    EXPECT_EQ(call(token, &v1::AnalystService::Stub::StartRound, start, &round)
                  .error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
  }
  // A credential that is nobody's is UNAUTHENTICATED, not PERMISSION_DENIED.
  v1::ListStudiesRequest list;
  v1::ListStudiesResponse listed;
  EXPECT_EQ(call(Bearer(absl::StrCat(alice_.id, ".", std::string(64, '0'))),
                 &v1::AnalystService::Stub::ListStudies, list, &listed)
                .error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Take(), before);
  // No study was created.
  EXPECT_TRUE(call(Bearer(server_.analyst_token()),
                   &v1::AnalystService::Stub::ListStudies, list, &listed)
                  .ok());
  EXPECT_EQ(listed.studies_size(), 2);
}

TEST_F(AbuseTest, ReplaysAreCountedOnceAndConflictsAlreadyExist) {
  const Snapshot before = Take();
  const v1::Report report = ItemReport(bob_, histogram_, 3);
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({report})}), {StatusCode::kOk});
  const Snapshot charged = Take();
  EXPECT_NE(charged, before) << "the snapshot does not see an accepted report";
  auto budget = analyst_->GetAgentBudget(bob_.id);
  ASSERT_OK(budget);
  ASSERT_EQ(budget->entries_size(), 1);
  EXPECT_EQ(budget->entries(0).spent_nanos(),
            bob_.tasks[histogram_].epsilon_nanos());

  // The identical report again (a retry), alone, twice in one batch, and on
  // a second stream: acknowledged, neither counted nor charged again.
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({report})}), {StatusCode::kOk});
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({report, report})}),
             {StatusCode::kOk, StatusCode::kOk});
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({report}), Batch({report})}),
             {StatusCode::kOk, StatusCode::kOk});
  EXPECT_EQ(Take(), charged);

  // A different report for the same task: a new id, a new payload, or both.
  v1::Report new_id = ItemReport(bob_, histogram_, 3);
  v1::Report new_payload = report;
  new_payload.mutable_item()->set_item(0);
  v1::Report both = ItemReport(bob_, histogram_, 1);
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({new_id, new_payload, both})}),
             {StatusCode::kAlreadyExists, StatusCode::kAlreadyExists,
              StatusCode::kAlreadyExists});
  EXPECT_EQ(Take(), charged);

  // The same report_id reused for another task is a different report there:
  // judged on its own merits (bob's first mean report: stored once).
  v1::Report reused_id = ScalarReport(bob_, mean_, 7);
  reused_id.set_report_id(report.report_id());
  ExpectAcks(Upload(Bearer(bob_.token), {Batch({reused_id})}),
             {StatusCode::kOk});
  auto mean = analyst_->GetStudy(mean_);
  ASSERT_OK(mean);
  EXPECT_EQ(mean->status().num_reports(), 2u);  // Carol's and Bob's
}

TEST_F(AbuseTest, MalformedPayloadsAreInvalidArgument) {
  const Snapshot before = Take();
  const v1::Task& mean_task = bob_.tasks[mean_];
  ASSERT_TRUE(mean_task.randomizer().has_piecewise());
  const int64_t cells = mean_task.randomizer().piecewise().num_cells() == 0
                            ? 2048
                            : mean_task.randomizer().piecewise().num_cells();

  std::vector<v1::Report> bad;
  // Out of range for the task's domain or lattice.
  bad.push_back(ItemReport(bob_, histogram_, kCategories));
  bad.push_back(ItemReport(bob_, histogram_, UINT32_MAX));
  bad.push_back(ScalarReport(bob_, mean_, -1));
  bad.push_back(ScalarReport(bob_, mean_, cells));
  bad.push_back(ScalarReport(bob_, mean_, INT64_MAX));
  bad.push_back(ScalarReport(bob_, mean_, INT64_MIN));
  // The wrong payload kind for the task, or none.
  bad.push_back(ScalarReport(bob_, histogram_, 1));
  bad.push_back(ItemReport(bob_, mean_, 1));
  {
    v1::Report bits = Shell(bob_, histogram_);
    bits.mutable_bit_vector()->set_bit_length(kCategories);
    bits.mutable_bit_vector()->set_packed(std::string(1, '\x01'));
    bad.push_back(bits);
    v1::Report hashed = Shell(bob_, histogram_);
    hashed.mutable_hashed()->set_bucket(1);
    bad.push_back(hashed);
    bad.push_back(Shell(bob_, mean_));  // no payload
  }
  // A malformed envelope: wrong protocol version, a short report id.
  {
    v1::Report version = ItemReport(bob_, histogram_, 1);
    version.set_protocol_version(2);
    bad.push_back(version);
    v1::Report short_id = ItemReport(bob_, histogram_, 1);
    short_id.set_report_id("0123456789abcde");
    bad.push_back(short_id);
  }
  const UploadResult result = Upload(Bearer(bob_.token), {Batch(bad)});
  ExpectAcks(result,
             std::vector<StatusCode>(bad.size(), StatusCode::kInvalidArgument));
  EXPECT_EQ(Take(), before);

  // Too many reports in one message (the documented limit is 1000): every
  // one refused, even the valid ones among them.
  std::vector<v1::Report> many;
  for (int i = 0; i < 1001; ++i)
    many.push_back(ItemReport(bob_, histogram_, i % kCategories));
  ExpectAcks(
      Upload(Bearer(bob_.token), {Batch(many)}),
      std::vector<StatusCode>(many.size(), StatusCode::kInvalidArgument));
  EXPECT_EQ(Take(), before);

  // A message larger than the server's receive limit (--max_message_bytes,
  // 4 MiB by default): gRPC refuses it with RESOURCE_EXHAUSTED before any
  // parsing, and the stream ends.
  v1::Report huge = Shell(bob_, histogram_);
  huge.mutable_bit_vector()->set_bit_length(8 * (5 << 20));
  huge.mutable_bit_vector()->set_packed(std::string(5 << 20, '\xff'));
  const UploadResult oversized = Upload(Bearer(bob_.token), {Batch({huge})});
  EXPECT_EQ(oversized.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << oversized.status.error_message();
  EXPECT_EQ(Take(), before);

  // None of it used up Bob's tasks: his honest reports are still accepted.
  ExpectAcks(
      Upload(Bearer(bob_.token), {Batch({ItemReport(bob_, histogram_, 0),
                                         ScalarReport(bob_, mean_, 0)})}),
      {StatusCode::kOk, StatusCode::kOk});
}

// A report for another agent's task gets exactly what a report for an
// unknown task gets, so no caller learns which agent ids are enrolled. (A
// report naming another agent_id than the caller's own is
// PermissionDenied: that says nothing about the other agent.)
TEST_F(AbuseTest, OtherAgentsTasksLookExactlyLikeUnknownTasks) {
  const Snapshot before = Take();
  std::vector<v1::Report> reports;
  // Bob's real task id, with Bob swapped for an agent id nobody enrolled.
  const uint64_t bobs_id = bob_.tasks[histogram_].task_id();
  const uint64_t nobodys_id =
      (bobs_id & ~(uint64_t{0xffffffff} << 12)) | (uint64_t{0x7fffffff} << 12);
  for (uint64_t task_id : {uint64_t{0}, uint64_t{0x123456789}, ~uint64_t{0},
                           nobodys_id, bobs_id}) {
    v1::Report report = ItemReport(alice_, histogram_, 1);
    report.set_task_id(task_id);
    reports.push_back(report);
  }
  v1::Report as_bob = ScalarReport(bob_, mean_, 3);  // Alice claims Bob's id
  reports.push_back(as_bob);
  const UploadResult result = Upload(Bearer(alice_.token), {Batch(reports)});
  ExpectAcks(result, {StatusCode::kNotFound, StatusCode::kNotFound,
                      StatusCode::kNotFound, StatusCode::kNotFound,
                      StatusCode::kNotFound, StatusCode::kPermissionDenied});
  ASSERT_EQ(result.response.acks_size(), 6);
  const v1::UploadReportsResponse& response = result.response;
  // The same words too, but for the task id itself.
  const auto message = [&](int i) {
    std::string text = response.acks(i).message();
    const std::string id = absl::StrCat(reports[i].task_id());
    text.replace(text.find(id), id.size(), "<id>");
    return text;
  };
  EXPECT_EQ(message(3), message(4));
  EXPECT_EQ(message(1), message(4));
  // Reading another agent's tasks or budget is refused too.
  v1::GetTasksResponse tasks;
  EXPECT_EQ(GetTasks(Bearer(alice_.token), bob_.id, &tasks).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(GetBudget(Bearer(alice_.token), bob_.id).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Take(), before);
  // Bob's tasks are untouched.
  ExpectAcks(
      Upload(Bearer(bob_.token), {Batch({ItemReport(bob_, histogram_, 2),
                                         ScalarReport(bob_, mean_, 3)})}),
      {StatusCode::kOk, StatusCode::kOk});
}

TEST_F(AbuseTest, ReportsForAClosedRoundAreFailedPrecondition) {
  // A study whose only round closes by deadline one second after it opens.
  auto study = analyst_->CreateStudy(MeanSpec(/*round_seconds=*/1));
  ASSERT_OK(study);
  const uint64_t closing = study->study_id();
  RawAgent dave;
  ASSERT_NO_FATAL_FAILURE(Enroll(dave));
  ASSERT_TRUE(dave.tasks.contains(closing));
  const v1::Task& task = dave.tasks[closing];
  ASSERT_TRUE(task.has_deadline());
  const auto deadline =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(
          google::protobuf::util::TimeUtil::TimestampToMilliseconds(
              task.deadline())));
  // The deadline itself refuses, not the closing pass that
  // follows it (about once a second): 20 ms late is too late.
  std::this_thread::sleep_until(deadline + std::chrono::milliseconds(20));
  ExpectAcks(
      Upload(Bearer(dave.token), {Batch({ScalarReport(dave, closing, 10)})}),
      {StatusCode::kFailedPrecondition});
  std::this_thread::sleep_until(deadline + std::chrono::milliseconds(300));

  const auto closed_snapshot = [&] {
    Snapshot s = Take();
    auto info = analyst_->GetStudy(closing);
    EXPECT_OK(info);
    if (info.ok()) s.parts.push_back(info->status().ShortDebugString());
    auto estimates = analyst_->GetEstimates(closing);
    EXPECT_OK(estimates);
    if (estimates.ok()) s.parts.push_back(estimates->ShortDebugString());
    auto budget = analyst_->GetAgentBudget(dave.id);
    EXPECT_OK(budget);
    if (budget.ok()) s.parts.push_back(budget->ShortDebugString());
    return s;
  };
  const Snapshot before = closed_snapshot();
  auto estimates = analyst_->GetEstimates(closing);
  ASSERT_OK(estimates);
  EXPECT_EQ(estimates->round_state(), v1::ROUND_CLOSED_DEADLINE);

  ExpectAcks(
      Upload(Bearer(dave.token), {Batch({ScalarReport(dave, closing, 10)})}),
      {StatusCode::kFailedPrecondition});
  EXPECT_EQ(closed_snapshot(), before);
  // And the closed round's task is no longer offered.
  v1::GetTasksResponse tasks;
  ASSERT_TRUE(GetTasks(Bearer(dave.token), dave.id, &tasks).ok());
  for (const v1::Task& t : tasks.tasks()) EXPECT_NE(t.study_id(), closing);
}

}  // namespace
}  // namespace ldp::testing
