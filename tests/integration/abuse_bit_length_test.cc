// Against a real ldp-server on loopback: a report's bit vector must have
// exactly its task's number of bits (types.proto BitVector.bit_length).
// For an OUE task with N = 8, bit vectors of 0, 1, 7, 9 or 64 bits, none
// with a bit at or past 8 set (so a check on whole 64-bit words would
// pass them), must each get INVALID_ARGUMENT and change nothing (study
// counters, estimates, ledgers compared before and after), while the exact
// 8-bit report is still acknowledged. The same holds for sketch lengths
// (count-mean sketch: m, Hadamard count-mean sketch: 1), and real agents
// (client library) send exactly these lengths end to end.
//
// Raw AgentService stubs send the forged reports, as in abuse_test.cc,
// because the client library never produces them; RawAgent and Snapshot are
// the abuse suites' (abuse_fixture.h), over this test's three studies.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "tests/integration/abuse_fixture.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

using ::absl::StatusCode;

constexpr uint32_t kColors = 8;          // OUE's N
constexpr uint32_t kSketchColumns = 10;  // CMS's m
constexpr uint32_t kHadamardColumns = 16;

// A one-question histogram study over eight colors; `randomizer` is the
// question's RandomizerSpec in text format.
v1::StudySpec ColorStudy(const std::string& name,
                         const std::string& randomizer) {
  const std::string text = absl::StrCat(R"pb(
    epsilon_cap_nanos: 1000000000
    mode: NONINTERACTIVE
    confidence: 0.95
    round_duration_seconds: 3600
    schema {
      fields {
        name: "color"
        categorical_field { categories: [ "a", "b", "c", "d", "e", "f", "g", "h" ] }
      }
    }
    questions {
      question_id: "colors"
      histogram { encoding { field { field: "color" } } }
      randomizer { )pb",
                                        randomizer, R"pb( }
    }
  )pb");
  v1::StudySpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec))
      << text;
  spec.set_display_name(name);
  return spec;
}

// `bit_length` bits with only bit 0 set (none when bit_length is 0): never a
// bit at or past any task's length, so only the length itself is wrong.
v1::BitVector LowBit(uint32_t bit_length) {
  v1::BitVector bits;
  bits.set_bit_length(bit_length);
  std::string packed((bit_length + 7) / 8, '\0');
  if (!packed.empty()) packed[0] = '\x01';
  bits.set_packed(packed);
  return bits;
}

class AbuseBitLengthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(server_.Start());
    analyst_ = std::make_unique<AnalystClient>(server_);
    agent_stub_ = v1::AgentService::NewStub(server_.NewChannel());
    ASSERT_NO_FATAL_FAILURE(Create(ColorStudy("oue-8", "oue {}"), &oue_));
    ASSERT_NO_FATAL_FAILURE(Create(
        ColorStudy("cms", absl::StrCat("count_mean_sketch { num_hashes: 2 "
                                       "num_columns: ",
                                       kSketchColumns, " }")),
        &cms_));
    ASSERT_NO_FATAL_FAILURE(
        Create(ColorStudy("hcms", absl::StrCat("hadamard_count_mean_sketch { "
                                               "num_hashes: 2 num_columns: ",
                                               kHadamardColumns, " }")),
               &hcms_));
    for (RawAgent* agent : {&bob_, &carol_}) {
      ASSERT_NO_FATAL_FAILURE(Enroll(*agent));
    }
    // Carol reports honestly first, so estimates and ledgers are not empty.
    for (const v1::Report& report :
         {Oue(carol_, kColors), Cms(carol_, kSketchColumns), Hcms(carol_, 1)}) {
      ASSERT_EQ(UploadOne(carol_, report), StatusCode::kOk);
    }
  }

  void Create(const v1::StudySpec& spec, uint64_t* study_id) {
    auto study = analyst_->CreateStudy(spec);
    ASSERT_OK(study);
    *study_id = study->study_id();
  }

  template <typename Context>
  static void Authorize(Context& context, const std::string& token) {
    context.AddMetadata("authorization", Bearer(token));
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
  }

  void Enroll(RawAgent& agent) {
    grpc::ClientContext enroll_context;
    v1::EnrollRequest request;
    v1::EnrollResponse response;
    const grpc::Status status =
        agent_stub_->Enroll(&enroll_context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    agent.id = response.agent_id();
    agent.token = response.credential().bearer_token();
    grpc::ClientContext context;
    Authorize(context, agent.token);
    v1::GetTasksRequest tasks_request;
    tasks_request.set_agent_id(agent.id);
    v1::GetTasksResponse tasks;
    ASSERT_TRUE(agent_stub_->GetTasks(&context, tasks_request, &tasks).ok());
    for (const v1::Task& task : tasks.tasks())
      agent.tasks[task.study_id()] = task;
    ASSERT_EQ(agent.tasks.size(), 3u) << "one task per study";
  }

  // The ack of `report` uploaded alone on its own stream; its message goes
  // to *message.
  StatusCode UploadOne(const RawAgent& agent, const v1::Report& report,
                       std::string* message = nullptr) {
    grpc::ClientContext context;
    Authorize(context, agent.token);
    v1::UploadReportsResponse response;
    auto writer = agent_stub_->UploadReports(&context, &response);
    v1::UploadReportsRequest batch;
    *batch.add_reports() = report;
    writer->Write(batch);
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (!status.ok() || response.acks_size() != 1) return StatusCode::kUnknown;
    if (message != nullptr) *message = response.acks(0).message();
    return static_cast<StatusCode>(response.acks(0).code());
  }

  v1::Report Shell(const RawAgent& agent, uint64_t study) {
    return ReportShell(agent, study, report_ids_);
  }
  v1::Report Oue(const RawAgent& agent, uint32_t bit_length) {
    v1::Report report = Shell(agent, oue_);
    *report.mutable_bit_vector() = LowBit(bit_length);
    return report;
  }
  v1::Report Cms(const RawAgent& agent, uint32_t bit_length) {
    v1::Report report = Shell(agent, cms_);
    report.mutable_sketch()->set_row(1);
    *report.mutable_sketch()->mutable_bits() = LowBit(bit_length);
    return report;
  }
  v1::Report Hcms(const RawAgent& agent, uint32_t bit_length) {
    v1::Report report = Shell(agent, hcms_);
    report.mutable_sketch()->set_row(1);
    report.mutable_sketch()->set_column(kHadamardColumns - 1);
    *report.mutable_sketch()->mutable_bits() = LowBit(bit_length);
    return report;
  }

  Snapshot Take() {
    return TakeSnapshot(*analyst_, {oue_, cms_, hcms_}, {&bob_, &carol_});
  }

  // Each report is refused with INVALID_ARGUMENT naming `expected` bits,
  // and nothing changes.
  void ExpectRefused(const std::vector<v1::Report>& reports,
                     const std::string& expected) {
    const Snapshot before = Take();
    for (const v1::Report& report : reports) {
      SCOPED_TRACE(report.ShortDebugString());
      std::string message;
      EXPECT_EQ(UploadOne(bob_, report, &message), StatusCode::kInvalidArgument)
          << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    EXPECT_EQ(Take(), before);
  }

  ServerProcess server_;
  std::unique_ptr<AnalystClient> analyst_;
  std::unique_ptr<v1::AgentService::Stub> agent_stub_;
  uint64_t oue_ = 0, cms_ = 0, hcms_ = 0;
  RawAgent bob_, carol_;
  std::mt19937_64 report_ids_{19};
};

TEST_F(AbuseBitLengthTest, OueReportsOfAnyOtherLengthAreInvalidArgument) {
  std::vector<v1::Report> wrong;
  for (uint32_t bit_length : {1u, 7u, 9u, 64u}) {
    wrong.push_back(Oue(bob_, bit_length));
  }
  ASSERT_NO_FATAL_FAILURE(
      ExpectRefused(wrong, "this task's reports have exactly 8"));
  ASSERT_NO_FATAL_FAILURE(ExpectRefused({Oue(bob_, 0)}, "bit_length is 0"));

  // None of it used up Bob's task: the exact 8-bit report is acknowledged
  // and counted.
  const Snapshot before = Take();
  EXPECT_EQ(UploadOne(bob_, Oue(bob_, kColors)), StatusCode::kOk);
  auto study = analyst_->GetStudy(oue_);
  ASSERT_OK(study);
  EXPECT_EQ(study->status().num_reports(), 2u);  // Carol's and Bob's
  EXPECT_NE(Take(), before);
}

TEST_F(AbuseBitLengthTest, SketchReportsOfAnyOtherLengthAreInvalidArgument) {
  std::vector<v1::Report> wrong_cms;
  for (uint32_t bit_length : {1u, 9u, 11u, 64u}) {
    wrong_cms.push_back(Cms(bob_, bit_length));
  }
  ASSERT_NO_FATAL_FAILURE(ExpectRefused(wrong_cms, "have exactly 10"));
  std::vector<v1::Report> wrong_hcms;
  for (uint32_t bit_length : {2u, 8u, 64u}) {
    wrong_hcms.push_back(Hcms(bob_, bit_length));
  }
  ASSERT_NO_FATAL_FAILURE(ExpectRefused(wrong_hcms, "have exactly 1"));
  ASSERT_NO_FATAL_FAILURE(
      ExpectRefused({Cms(bob_, 0), Hcms(bob_, 0)}, "bit_length is 0"));

  const Snapshot before = Take();
  EXPECT_EQ(UploadOne(bob_, Cms(bob_, kSketchColumns)), StatusCode::kOk);
  EXPECT_EQ(UploadOne(bob_, Hcms(bob_, 1)), StatusCode::kOk);
  EXPECT_NE(Take(), before);
}

// The client library's reports carry exactly N, m and 1 bits: every one is
// acknowledged (a whole-word length would now be refused for all three).
TEST_F(AbuseBitLengthTest, RealAgentsSendExactLengths) {
  std::vector<Record> records;
  for (int i = 0; i < 12; ++i) {
    Record record;
    record.values["color"] =
        std::string(1, static_cast<char>('a' + i % kColors));
    records.push_back(record);
  }
  int accepted = 0, refused = 0;
  for (const AgentOutcome& outcome :
       RunAgents(server_, records, /*threads=*/2)) {
    accepted += outcome.accepted;
    refused += outcome.refused;
  }
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(accepted, 3 * static_cast<int>(records.size()));  // one per study
  for (uint64_t study_id : {oue_, cms_, hcms_}) {
    auto study = analyst_->GetStudy(study_id);
    ASSERT_OK(study);
    EXPECT_EQ(study->status().num_reports(), 1 + records.size());  // + Carol
  }
}

}  // namespace
}  // namespace ldp::testing
