#include "client/agent_client/agent_client.h"

#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/core/agent_state_store.h"
#include "client/core/atomic_file.h"
#include "gmock/gmock.h"
#include "grpcpp/test/client_context_test_peer.h"
#include "gtest/gtest.h"
#include "proto/convert/report_convert.h"
#include "proto/convert/task_convert.h"
#include "tests/testing/statistics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

using testing::SeededGenerator;
using testing::StatusIs;

constexpr int64_t kOneEpsilon = kNanosPerEpsilon;

// A scripted AgentService: hands out tasks, records every message the
// client sends (serialized), and fails upload attempts on request.
class FakeAgentService : public v1::AgentService::StubInterface {
 public:
  std::vector<v1::Task> tasks;
  std::vector<v1::BudgetEntry> budget;
  // Finish() statuses for the next upload attempts (then OK).
  std::deque<grpc::Status> upload_failures;
  // Runs when an upload attempt's reports have all arrived.
  std::function<void()> on_upload;
  // Ack code per report (default OK).
  std::function<int(const v1::Report&)> ack_code = [](const v1::Report&) {
    return 0;
  };
  // Serialized reports of each upload attempt, in order.
  std::vector<std::vector<std::string>> upload_attempts;
  // Every request message the client sent, serialized, and its metadata.
  std::vector<std::string> sent_bytes;
  std::vector<std::multimap<std::string, std::string>> sent_metadata;
  std::vector<int> batch_sizes;
  int budget_calls = 0;
  // A misbehaving server: acks naming other reports, or too few acks.
  enum class AckMismatch { kNone, kWrongId, kMissing };
  AckMismatch ack_mismatch = AckMismatch::kNone;

  grpc::Status Enroll(grpc::ClientContext* context,
                      const v1::EnrollRequest& request,
                      v1::EnrollResponse* response) override {
    Record(context, request);
    if (request.enrollment_token() != "let-me-in") {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "wrong token");
    }
    response->set_agent_id(77);
    response->mutable_credential()->set_bearer_token("secret-token");
    return grpc::Status::OK;
  }
  grpc::Status GetTasks(grpc::ClientContext* context,
                        const v1::GetTasksRequest& request,
                        v1::GetTasksResponse* response) override {
    Record(context, request);
    for (const v1::Task& task : tasks) *response->add_tasks() = task;
    response->set_poll_after_seconds(30);
    return grpc::Status::OK;
  }
  grpc::Status GetBudget(grpc::ClientContext* context,
                         const v1::GetBudgetRequest& request,
                         v1::GetBudgetResponse* response) override {
    Record(context, request);
    ++budget_calls;
    for (const v1::BudgetEntry& entry : budget)
      *response->add_entries() = entry;
    return grpc::Status::OK;
  }

  void Record(grpc::ClientContext* context,
              const google::protobuf::Message& message) {
    sent_bytes.push_back(message.SerializeAsString());
    sent_metadata.push_back(
        grpc::testing::ClientContextTestPeer(context).GetSendInitialMetadata());
  }

 private:
  class Writer : public grpc::ClientWriterInterface<v1::UploadReportsRequest> {
   public:
    Writer(FakeAgentService* service, v1::UploadReportsResponse* response)
        : service_(service), response_(response) {
      service_->upload_attempts.emplace_back();
    }
    bool Write(const v1::UploadReportsRequest& request,
               grpc::WriteOptions) override {
      service_->sent_bytes.push_back(request.SerializeAsString());
      service_->batch_sizes.push_back(request.reports_size());
      for (const v1::Report& report : request.reports()) {
        service_->upload_attempts.back().push_back(report.SerializeAsString());
        reports_.push_back(report);
      }
      return true;
    }
    bool WritesDone() override { return true; }
    grpc::Status Finish() override {
      if (service_->on_upload) service_->on_upload();
      if (!service_->upload_failures.empty()) {
        grpc::Status status = service_->upload_failures.front();
        service_->upload_failures.pop_front();
        return status;
      }
      for (const v1::Report& report : reports_) {
        v1::ReportAck* ack = response_->add_acks();
        ack->set_report_id(report.report_id());
        ack->set_code(service_->ack_code(report));
      }
      if (service_->ack_mismatch == AckMismatch::kWrongId) {
        response_->mutable_acks(0)->set_report_id(std::string(16, 'x'));
      } else if (service_->ack_mismatch == AckMismatch::kMissing) {
        response_->mutable_acks()->RemoveLast();
      }
      return grpc::Status::OK;
    }

   private:
    FakeAgentService* service_;
    v1::UploadReportsResponse* response_;
    std::vector<v1::Report> reports_;
  };

  grpc::ClientWriterInterface<v1::UploadReportsRequest>* UploadReportsRaw(
      grpc::ClientContext* context,
      v1::UploadReportsResponse* response) override {
    sent_metadata.push_back(
        grpc::testing::ClientContextTestPeer(context).GetSendInitialMetadata());
    return new Writer(this, response);
  }
  // The client uses only the synchronous API.
  grpc::ClientAsyncResponseReaderInterface<v1::EnrollResponse>* AsyncEnrollRaw(
      grpc::ClientContext*, const v1::EnrollRequest&,
      grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<v1::EnrollResponse>*
  PrepareAsyncEnrollRaw(grpc::ClientContext*, const v1::EnrollRequest&,
                        grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<v1::GetTasksResponse>*
  AsyncGetTasksRaw(grpc::ClientContext*, const v1::GetTasksRequest&,
                   grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<v1::GetTasksResponse>*
  PrepareAsyncGetTasksRaw(grpc::ClientContext*, const v1::GetTasksRequest&,
                          grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncWriterInterface<v1::UploadReportsRequest>*
  AsyncUploadReportsRaw(grpc::ClientContext*, v1::UploadReportsResponse*,
                        grpc::CompletionQueue*, void*) override {
    return nullptr;
  }
  grpc::ClientAsyncWriterInterface<v1::UploadReportsRequest>*
  PrepareAsyncUploadReportsRaw(grpc::ClientContext*, v1::UploadReportsResponse*,
                               grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<v1::GetBudgetResponse>*
  AsyncGetBudgetRaw(grpc::ClientContext*, const v1::GetBudgetRequest&,
                    grpc::CompletionQueue*) override {
    return nullptr;
  }
  grpc::ClientAsyncResponseReaderInterface<v1::GetBudgetResponse>*
  PrepareAsyncGetBudgetRaw(grpc::ClientContext*, const v1::GetBudgetRequest&,
                           grpc::CompletionQueue*) override {
    return nullptr;
  }
};

RecordSchema Schema() {
  auto schema = RecordSchema::Create(
      {FieldSpec::Int("visits", 0, 1'000'000'000),
       FieldSpec::Real("income", 0, 1e6),
       FieldSpec::Categorical("city", {"paris", "zanzibar", "lima", "oslo"})});
  EXPECT_OK(schema);
  return *schema;
}

// Distinctive values, to look for in everything the client sends.
constexpr char kRecordJson[] =
    R"({"visits": 987654321, "income": 123456.789, "city": "zanzibar"})";

Task IncomeTask(uint64_t task_id, int64_t nanos, uint64_t study = 1) {
  auto query = Query::Create(expr::Field("income"), {0, 1e6}, Schema());
  EXPECT_OK(query);
  const double epsilon = static_cast<double>(nanos) / kNanosPerEpsilon;
  return Task{.study_id = study,
              .round_id = 1,
              .task_id = task_id,
              .epsilon_nanos = nanos,
              .question = StatisticalQueryTask{
                  .query = *query,
                  .mechanism = {.kind = RealMechanismKind::kPiecewise,
                                .epsilon = epsilon,
                                .bound = 5e5}}};
}

Task CityTask(uint64_t task_id, int64_t nanos, FrequencyOracleKind kind,
              uint64_t study = 1) {
  auto encoding =
      DomainEncoding::Create(FieldEncoding{.field = "city"}, Schema());
  EXPECT_OK(encoding);
  return Task{
      .study_id = study,
      .round_id = 1,
      .task_id = task_id,
      .epsilon_nanos = nanos,
      .question = HistogramTask{
          .encoding = *encoding,
          .oracle = {.kind = kind,
                     .epsilon = static_cast<double>(nanos) / kNanosPerEpsilon,
                     .domain_size = 4}}};
}

v1::Task Wire(const Task& task) {
  v1::Task proto;
  TaskToProto(task, Schema(), &proto);
  return proto;
}

struct Harness {
  std::shared_ptr<FakeAgentService> service =
      std::make_shared<FakeAgentService>();
  std::vector<absl::Duration> sleeps;
  std::unique_ptr<AgentClient> client;

  // Without `send_slot`, reports leave at once, so `sleeps` holds only the
  // retry backoff the tests look at.
  explicit Harness(SeededGenerator& gen, AgentClientOptions options = {},
                   bool send_slot = false) {
    if (!send_slot) options.send_window = absl::ZeroDuration();
    options.sleep = [this](absl::Duration d) { sleeps.push_back(d); };
    auto created = AgentClient::Create(options, service, gen);
    EXPECT_OK(created);
    client = std::move(*created);
    client->set_credential({.agent_id = 77, .bearer_token = "secret-token"});
  }
};

std::unique_ptr<Agent> MakeAgent(
    SeededGenerator& gen, std::unique_ptr<AgentStateStore> store = nullptr,
    int64_t cap = 2 * kOneEpsilon) {
  if (store == nullptr) store = std::make_unique<MemoryAgentStateStore>();
  auto agent = Agent::Create(
      {.record_json = kRecordJson, .max_epsilon_per_study_nanos = cap},
      std::move(store), gen);
  EXPECT_OK(agent);
  return std::move(*agent);
}

bool Contains(const std::string& haystack, const void* needle, size_t size) {
  return std::string_view(haystack).find(std::string_view(
             static_cast<const char*>(needle), size)) != std::string_view::npos;
}

// Invariant 1 over the wire: nothing the client sends contains the record's
// values, and each uploaded report is exactly the payload the Agent saved
// (which agent_test shows is TaskMechanism::Randomize's output) with only
// the report fields set.
// The wire steps ldp-loadtest's callback driver shares with AgentClient.
TEST(AgentClient, AnEnrollmentWithoutABearerTokenIsRefused) {
  v1::EnrollResponse response;
  response.set_agent_id(7);
  EXPECT_THAT(CredentialFromEnrollment(response),
              StatusIs(absl::StatusCode::kUnimplemented));
  response.mutable_credential()->set_bearer_token("");
  EXPECT_THAT(CredentialFromEnrollment(response),
              StatusIs(absl::StatusCode::kUnimplemented));
  response.mutable_credential()->set_bearer_token("7.secret");
  absl::StatusOr<AgentCredential> credential =
      CredentialFromEnrollment(response);
  ASSERT_OK(credential);
  EXPECT_EQ(credential->agent_id, 7u);
  EXPECT_EQ(credential->bearer_token, "7.secret");
}

TEST(AgentClient, ACallContextCarriesItsDeadlineAndOnlyAGivenToken) {
  const absl::Time before = absl::Now();
  std::unique_ptr<grpc::ClientContext> context =
      AgentCallContext("7.secret", absl::Seconds(30));
  const absl::Time deadline = absl::FromChrono(context->deadline());
  EXPECT_GE(deadline, before + absl::Seconds(30));
  EXPECT_LE(deadline, absl::Now() + absl::Seconds(30));
  const auto sent = grpc::testing::ClientContextTestPeer(context.get())
                        .GetSendInitialMetadata();
  ASSERT_EQ(sent.count("authorization"), 1u);
  EXPECT_EQ(sent.find("authorization")->second, "Bearer 7.secret");
  std::unique_ptr<grpc::ClientContext> anonymous =
      AgentCallContext("", absl::Seconds(1));
  EXPECT_EQ(grpc::testing::ClientContextTestPeer(anonymous.get())
                .GetSendInitialMetadata()
                .count("authorization"),
            0u);
}

TEST(AgentClient, SendsOnlyRandomizerOutputsNeverTheRecord) {
  SeededGenerator gen(1);
  Harness h(gen);
  auto agent = MakeAgent(gen);
  h.service->tasks = {
      Wire(IncomeTask(1, kOneEpsilon / 4)),
      Wire(CityTask(2, kOneEpsilon / 4,
                    FrequencyOracleKind::kGeneralizedRandomizedResponse)),
      Wire(CityTask(3, kOneEpsilon / 4,
                    FrequencyOracleKind::kOptimizedUnaryEncoding)),
      Wire(CityTask(4, kOneEpsilon / 4,
                    FrequencyOracleKind::kOptimizedLocalHashing))};
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_OK(result.upload_status);
  EXPECT_EQ(result.answered_fresh, 4);
  EXPECT_EQ(result.reports_accepted, 4);
  ASSERT_EQ(h.service->upload_attempts.size(), 1u);
  for (const std::string& bytes : h.service->upload_attempts[0]) {
    v1::Report report;
    ASSERT_TRUE(report.ParseFromString(bytes));
    auto parsed = ReportFromProto(report);
    ASSERT_OK(parsed);
    const StoredReport& saved = agent->state().reports.at(parsed->task_id);
    EXPECT_EQ(parsed->payload, saved.report.payload);
    EXPECT_EQ(parsed->report_id, saved.report.report_id);
    EXPECT_EQ(report.agent_id(), 77u);
    // Re-encoding the saved report gives exactly the bytes sent: nothing else
    // rode along.
    v1::Report expected;
    ReportToProto(saved.report, 77, &expected);
    EXPECT_EQ(bytes, expected.SerializeAsString());
  }
  const int64_t visits = 987654321;
  const double income = 123456.789;
  for (const std::string& bytes : h.service->sent_bytes) {
    EXPECT_FALSE(Contains(bytes, "zanzibar", 8));
    EXPECT_FALSE(Contains(bytes, &income, sizeof(income)));
    EXPECT_FALSE(Contains(bytes, &visits, 4));  // low 4 bytes, any encoding
  }
}

// A lost response after the server may have committed: the client retries
// with backoff and resends byte-identical reports (same report ids).
TEST(AgentClient, RetriesResendIdenticalBytes) {
  SeededGenerator gen(2);
  Harness h(gen);
  auto agent = MakeAgent(gen);
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon / 2)),
                      Wire(CityTask(2, kOneEpsilon / 2,
                                    FrequencyOracleKind::kSubsetSelection))};
  h.service->upload_failures = {
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "lost"),
      grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "slow")};
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_OK(result.upload_status);
  EXPECT_EQ(result.reports_accepted, 2);
  ASSERT_EQ(h.service->upload_attempts.size(), 3u);
  EXPECT_EQ(h.service->upload_attempts[0].size(), 2u);
  EXPECT_EQ(h.service->upload_attempts[1], h.service->upload_attempts[0]);
  EXPECT_EQ(h.service->upload_attempts[2], h.service->upload_attempts[0]);
  ASSERT_EQ(h.sleeps.size(), 2u);
  EXPECT_GE(h.sleeps[0], absl::Milliseconds(50));
  EXPECT_LE(h.sleeps[0], absl::Milliseconds(100));
  EXPECT_GE(h.sleeps[1], absl::Milliseconds(100));
  EXPECT_LE(h.sleeps[1], absl::Milliseconds(200));
  EXPECT_TRUE(agent->PendingReports().empty());
  EXPECT_EQ(agent->Budget(1)->spent_nanos, kOneEpsilon);
}

// The agent process dies before its upload is acknowledged; after a restart
// it sends the very same bytes, and never re-randomizes or re-charges.
TEST(AgentClient, ResendsIdenticalBytesAfterARestart) {
  testing::TempDirectory dir;
  SeededGenerator gen(3);
  std::vector<std::string> first_attempt;
  {
    Harness h(gen, {.max_attempts = 2});
    auto store = FileAgentStateStore::Create({.directory = dir.path()});
    ASSERT_OK(store);
    auto agent = MakeAgent(gen, std::move(*store));
    h.service->tasks = {
        Wire(CityTask(5, kOneEpsilon, FrequencyOracleKind::kHadamardResponse))};
    h.service->upload_failures = {
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "down"),
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "down")};
    const CycleResult result = h.client->RunOnce(*agent);
    EXPECT_THAT(result.upload_status, StatusIs(absl::StatusCode::kUnavailable));
    EXPECT_EQ(agent->PendingReports().size(), 1u);
    first_attempt = h.service->upload_attempts[0];
  }
  Harness h(gen);
  auto store = FileAgentStateStore::Create({.directory = dir.path()});
  ASSERT_OK(store);
  auto agent = MakeAgent(gen, std::move(*store));
  h.service->tasks = {
      Wire(CityTask(5, kOneEpsilon, FrequencyOracleKind::kHadamardResponse))};
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_OK(result.upload_status);
  EXPECT_EQ(result.answered_again, 1);
  ASSERT_EQ(h.service->upload_attempts.size(), 1u);
  EXPECT_EQ(h.service->upload_attempts[0], first_attempt);
  EXPECT_EQ(agent->Budget(1)->spent_nanos, kOneEpsilon);
  EXPECT_TRUE(agent->PendingReports().empty());
}

// When the first byte of a report reaches the server, its charge is already
// in the agent's state file.
TEST(AgentClient, BudgetIsOnDiskBeforeAReportIsSent) {
  testing::TempDirectory dir;
  SeededGenerator gen(4);
  Harness h(gen);
  auto store = FileAgentStateStore::Create({.directory = dir.path()});
  ASSERT_OK(store);
  const std::string path = (*store)->path();
  auto agent = MakeAgent(gen, std::move(*store));
  h.service->tasks = {
      Wire(IncomeTask(1, kOneEpsilon / 2)),
      Wire(CityTask(2, kOneEpsilon,
                    FrequencyOracleKind::kSymmetricUnaryEncoding))};
  int checks = 0;
  h.service->on_upload = [&] {
    auto text = ReadFileIfExists(path);
    ASSERT_OK(text);
    ASSERT_TRUE(text->has_value());
    auto on_disk = ParseAgentState(**text);
    ASSERT_OK(on_disk);
    EXPECT_EQ(on_disk->studies.at(1).spent_nanos, 3 * kOneEpsilon / 2);
    for (const std::string& bytes : h.service->upload_attempts.back()) {
      v1::Report report;
      ASSERT_TRUE(report.ParseFromString(bytes));
      auto parsed = ReportFromProto(report);
      ASSERT_OK(parsed);
      ASSERT_EQ(on_disk->reports.count(parsed->task_id), 1u);
      EXPECT_EQ(on_disk->reports.at(parsed->task_id).report.payload,
                parsed->payload);
      ++checks;
    }
  };
  ASSERT_OK(h.client->RunOnce(*agent).upload_status);
  EXPECT_EQ(checks, 2);
}

TEST(AgentClient, RefusesOverCapAndMalformedTasksAndSendsNothingForThem) {
  SeededGenerator gen(5);
  Harness h(gen);
  auto agent = MakeAgent(gen, nullptr, /*cap=*/kOneEpsilon);
  v1::Task mismatched = Wire(IncomeTask(3, kOneEpsilon / 4));
  mismatched.set_epsilon_nanos(kOneEpsilon / 8);  // charge ≠ randomizer's ε
  h.service->tasks = {
      Wire(IncomeTask(1, kOneEpsilon)),
      Wire(CityTask(2, kOneEpsilon / 2,
                    FrequencyOracleKind::kGeneralizedRandomizedResponse)),
      mismatched};
  const CycleResult result = h.client->RunOnce(*agent);
  EXPECT_EQ(result.tasks_received, 3);
  EXPECT_EQ(result.answered_fresh, 1);
  ASSERT_EQ(result.refusals.size(), 2u);
  EXPECT_THAT(result.refusals[0], StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(result.refusals[1],
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(result.reports_sent, 1);
  ASSERT_EQ(h.service->upload_attempts.size(), 1u);
  ASSERT_EQ(h.service->upload_attempts[0].size(), 1u);
  v1::Report sent;
  ASSERT_TRUE(sent.ParseFromString(h.service->upload_attempts[0][0]));
  EXPECT_EQ(sent.task_id(), 1u);
}

TEST(AgentClient, TakesALowerCapFromTheServersLedger) {
  SeededGenerator gen(6);
  Harness h(gen);
  auto agent = MakeAgent(gen);  // own cap 2 ε
  v1::BudgetEntry entry;
  entry.set_study_id(1);
  entry.set_cap_nanos(kOneEpsilon / 2);
  h.service->budget = {entry};
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon))};
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_EQ(result.refusals.size(), 1u);
  EXPECT_THAT(result.refusals[0],
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(h.service->budget_calls, 1);
  EXPECT_TRUE(h.service->upload_attempts.empty());
}

TEST(AgentClient, AnswersARepeatedQuestionWithTheSamePayloadBytesForFree) {
  SeededGenerator gen(7);
  Harness h(gen);
  auto agent = MakeAgent(gen, nullptr, /*cap=*/kOneEpsilon);
  Task first =
      CityTask(1, kOneEpsilon, FrequencyOracleKind::kOptimizedUnaryEncoding);
  Task repeat = first;
  repeat.task_id = 2;
  repeat.round_id = 2;
  h.service->tasks = {Wire(first), Wire(repeat)};
  const CycleResult result = h.client->RunOnce(*agent);
  EXPECT_EQ(result.answered_fresh, 1);
  EXPECT_EQ(result.answered_from_memo, 1);
  ASSERT_EQ(h.service->upload_attempts[0].size(), 2u);
  v1::Report a, b;
  ASSERT_TRUE(a.ParseFromString(h.service->upload_attempts[0][0]));
  ASSERT_TRUE(b.ParseFromString(h.service->upload_attempts[0][1]));
  EXPECT_EQ(a.bit_vector().SerializeAsString(),
            b.bit_vector().SerializeAsString());
  EXPECT_NE(a.report_id(), b.report_id());
  EXPECT_EQ(agent->Budget(1)->spent_nanos, kOneEpsilon);
}

TEST(AgentClient,
     KeepsReportsPendingOnPermanentTransportErrorsWithoutRetrying) {
  SeededGenerator gen(8);
  Harness h(gen);
  auto agent = MakeAgent(gen);
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon))};
  h.service->upload_failures = {
      grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "who?")};
  const CycleResult result = h.client->RunOnce(*agent);
  EXPECT_THAT(result.upload_status,
              StatusIs(absl::StatusCode::kUnauthenticated));
  EXPECT_EQ(h.service->upload_attempts.size(), 1u);
  EXPECT_TRUE(h.sleeps.empty());
  EXPECT_EQ(agent->PendingReports().size(), 1u);
}

TEST(AgentClient, SettlesFinalAcksAndKeepsTransientOnes) {
  SeededGenerator gen(9);
  Harness h(gen);
  auto agent = MakeAgent(gen);
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon / 4)),
                      Wire(IncomeTask(2, kOneEpsilon / 4, /*study=*/2)),
                      Wire(IncomeTask(3, kOneEpsilon / 4, /*study=*/3))};
  h.service->ack_code = [](const v1::Report& r) {
    return r.task_id() == 1   ? 0
           : r.task_id() == 2 ? 9 /*FAILED_PRECONDITION*/
                              : 14;
  };
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_OK(result.upload_status);
  EXPECT_EQ(result.reports_accepted, 1);
  ASSERT_EQ(result.rejections.size(), 1u);
  EXPECT_THAT(result.rejections[0],
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_EQ(agent->PendingReports().size(), 1u);
  EXPECT_EQ(agent->PendingReports()[0].task_id, 3u);
  // Next cycle: only the transient one goes out again, identical.
  const std::string resent = h.service->upload_attempts[0][2];
  h.service->tasks.clear();
  h.service->ack_code = [](const v1::Report&) { return 0; };
  ASSERT_OK(h.client->RunOnce(*agent).upload_status);
  ASSERT_EQ(h.service->upload_attempts.size(), 2u);
  EXPECT_EQ(h.service->upload_attempts[1], std::vector<std::string>{resent});
  EXPECT_TRUE(agent->PendingReports().empty());
}

TEST(AgentClient, BatchesLargeUploadsAndMatchesAcksInOrder) {
  SeededGenerator gen(10);
  Harness h(gen, {.max_reports_per_batch = 400, .max_batch_bytes = 4096});
  std::vector<TaskReport> reports;
  for (uint64_t i = 1; i <= 1000; ++i) {
    TaskReport report{.task_id = i,
                      .payload = ScalarReport{static_cast<int64_t>(i)}};
    std::memcpy(report.report_id.data(), &i, sizeof(i));
    reports.push_back(report);
  }
  h.service->ack_code = [](const v1::Report& r) {
    return r.task_id() % 2 == 0 ? 0 : 6;
  };
  auto acks = h.client->Upload(reports);
  ASSERT_OK(acks);
  ASSERT_EQ(acks->size(), 1000u);
  for (size_t i = 0; i < acks->size(); ++i) {
    EXPECT_EQ((*acks)[i].ok(), (i + 1) % 2 == 0) << i;
  }
  int total = 0;
  for (int size : h.service->batch_sizes) {
    EXPECT_LE(size, 400);
    total += size;
  }
  EXPECT_EQ(total, 1000);
  EXPECT_GT(h.service->batch_sizes.size(), 3u);  // the byte limit bites first
  for (size_t i = 0; i < h.service->sent_bytes.size(); ++i) {
    EXPECT_LE(h.service->sent_bytes[i].size(), 4096u);
  }
}

TEST(AgentClient, KeepsReportsPendingWhenAcksDoNotMatchTheUpload) {
  SeededGenerator gen(11);
  Harness h(gen);
  auto agent = MakeAgent(gen);
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon / 2)),
                      Wire(IncomeTask(2, kOneEpsilon / 2, /*study=*/2))};
  h.service->ack_mismatch = FakeAgentService::AckMismatch::kWrongId;
  EXPECT_THAT(h.client->RunOnce(*agent).upload_status,
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(agent->PendingReports().size(), 2u);
  h.service->ack_mismatch = FakeAgentService::AckMismatch::kMissing;
  EXPECT_THAT(h.client->RunOnce(*agent).upload_status,
              StatusIs(absl::StatusCode::kInternal));
  EXPECT_EQ(agent->PendingReports().size(), 2u);
  h.service->ack_mismatch = FakeAgentService::AckMismatch::kNone;
  ASSERT_OK(h.client->RunOnce(*agent).upload_status);
  EXPECT_TRUE(agent->PendingReports().empty());
  auto nothing = h.client->Upload({});
  ASSERT_OK(nothing);
  EXPECT_TRUE(nothing->empty());
}

// Invariant 8: reports wait for a slot drawn in [W/2, W] after the poll,
// not for the end of their computation; no reports, no wait.
TEST(AgentClient, SendsReportsInASlotAfterThePoll) {
  SeededGenerator gen(21);
  Harness h(gen, {.send_window = absl::Seconds(10)}, /*send_slot=*/true);
  auto agent = MakeAgent(gen);
  ASSERT_OK(h.client->RunOnce(*agent).upload_status);
  EXPECT_TRUE(h.sleeps.empty());  // no task, nothing to send
  h.service->tasks = {Wire(IncomeTask(1, kOneEpsilon / 2))};
  const CycleResult result = h.client->RunOnce(*agent);
  ASSERT_OK(result.upload_status);
  EXPECT_EQ(result.reports_accepted, 1);
  ASSERT_EQ(h.sleeps.size(), 1u);
  // The slot is at least W/2 after the poll; the answer took far less than
  // the 1 s of slack this leaves.
  EXPECT_GE(h.sleeps[0], absl::Seconds(4));
  EXPECT_LE(h.sleeps[0], absl::Seconds(10));
}

TEST(AgentClient, EnrollsAndAuthenticatesLaterCalls) {
  SeededGenerator gen(12);
  Harness h(gen);
  h.client->set_credential({});
  EXPECT_THAT(h.client->Enroll("wrong"),
              StatusIs(absl::StatusCode::kPermissionDenied));
  auto credential = h.client->Enroll("let-me-in");
  ASSERT_OK(credential);
  EXPECT_EQ(credential->agent_id, 77u);
  EXPECT_EQ(credential->bearer_token, "secret-token");
  ASSERT_OK(h.client->GetTasks());
  const auto& metadata = h.service->sent_metadata.back();
  ASSERT_EQ(metadata.count("authorization"), 1u);
  EXPECT_EQ(metadata.find("authorization")->second, "Bearer secret-token");
  v1::GetTasksRequest request;
  ASSERT_TRUE(request.ParseFromString(h.service->sent_bytes.back()));
  EXPECT_EQ(request.agent_id(), 77u);
}

TEST(AgentClient, ValidatesItsOptions) {
  SeededGenerator gen(13);
  auto stub = std::make_shared<FakeAgentService>();
  for (const AgentClientOptions& options :
       {AgentClientOptions{.max_reports_per_batch = 0},
        AgentClientOptions{.max_reports_per_batch = 1001},
        AgentClientOptions{.max_batch_bytes = 0},
        AgentClientOptions{.max_attempts = 0},
        AgentClientOptions{.backoff = {.initial_delay = absl::ZeroDuration()}},
        AgentClientOptions{.rpc_timeout = absl::ZeroDuration()}}) {
    EXPECT_THAT(AgentClient::Create(options, stub, gen),
                StatusIs(absl::StatusCode::kInvalidArgument));
  }
  EXPECT_THAT(AgentClient::Create({}, nullptr, gen),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace ldp
