// The abuse suites' fixture: a real ldp-server on loopback with two studies
// (a GRR color histogram and a piecewise mean), three raw agents (Carol has
// already reported honestly), raw AgentService stubs, and a Snapshot of
// everything an abuse attempt must leave alone: study counters, estimates
// and ledgers (GetStudy, GetEstimates, GetAgentBudget). Raw stubs, because
// the client library (rightly) refuses to send most of what is tested.
#ifndef LDP_TESTS_INTEGRATION_ABUSE_FIXTURE_H_
#define LDP_TESTS_INTEGRATION_ABUSE_FIXTURE_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "tests/integration/color_study.h"
#include "tests/integration/mean_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {

// The mean study, with its round shortened to `round_seconds` if > 0.
inline v1::StudySpec MeanSpec(int round_seconds = 0) {
  v1::StudySpec spec = MeanStudySpec("abuse-mean", 10, "piecewise");
  if (round_seconds > 0) spec.set_round_duration_seconds(round_seconds);
  return spec;
}

constexpr uint32_t kCategories = 4;

inline std::string Bearer(const std::string& token) {
  return "Bearer " + token;
}

// One enrolled agent, as the raw wire sees it.
struct RawAgent {
  uint64_t id = 0;
  std::string token;                   // "<id>.<64 hex>"
  std::map<uint64_t, v1::Task> tasks;  // by study id
};

// Everything an abuse attempt must leave alone, as comparable text.
struct Snapshot {
  std::vector<std::string> parts;
  bool operator==(const Snapshot&) const = default;
};

inline void PrintTo(const Snapshot& s, std::ostream* os) {
  for (const auto& p : s.parts) *os << p << "\n";
}

// Everything an abuse attempt must leave alone in `studies` and the
// ledgers of `agents`, as comparable text.
inline Snapshot TakeSnapshot(AnalystClient& analyst,
                             const std::vector<uint64_t>& studies,
                             const std::vector<const RawAgent*>& agents) {
  Snapshot s;
  for (uint64_t study : studies) {
    auto info = analyst.GetStudy(study);
    EXPECT_OK(info);
    if (info.ok()) s.parts.push_back(info->status().ShortDebugString());
    auto estimates = analyst.GetEstimates(study);
    EXPECT_OK(estimates);
    if (estimates.ok()) s.parts.push_back(estimates->ShortDebugString());
  }
  for (const RawAgent* agent : agents) {
    auto budget = analyst.GetAgentBudget(agent->id);
    EXPECT_OK(budget);
    if (budget.ok()) {
      s.parts.push_back(
          absl::StrCat("agent ", agent->id, ": ", budget->ShortDebugString()));
    }
  }
  return s;
}

// A well-formed report shell for `agent`'s task in `study`, with a report
// id drawn from `ids`.
inline v1::Report ReportShell(const RawAgent& agent, uint64_t study,
                              std::mt19937_64& ids) {
  v1::Report report;
  report.set_protocol_version(1);
  const auto it = agent.tasks.find(study);
  EXPECT_NE(it, agent.tasks.end())
      << "agent " << agent.id << " has no task in study " << study;
  if (it != agent.tasks.end()) report.set_task_id(it->second.task_id());
  report.set_agent_id(agent.id);
  std::string id(16, '\0');
  for (char& c : id) c = static_cast<char>(ids());
  report.set_report_id(id);
  return report;
}

struct UploadResult {
  grpc::Status status;
  v1::UploadReportsResponse response;
};

class AbuseTest : public ::testing::Test {
 protected:
  using StatusCode = ::absl::StatusCode;

  void SetUp() override {
    ASSERT_OK(server_.Start());
    analyst_ = std::make_unique<AnalystClient>(server_);
    agent_stub_ = v1::AgentService::NewStub(server_.NewChannel());
    analyst_stub_ = v1::AnalystService::NewStub(server_.NewChannel());
    auto histogram = analyst_->CreateStudy(ColorStudy("abuse-histogram"));
    ASSERT_OK(histogram);
    histogram_ = histogram->study_id();
    auto mean = analyst_->CreateStudy(MeanSpec());
    ASSERT_OK(mean);
    mean_ = mean->study_id();
    // Carol reports honestly first, so estimates and ledgers are not empty.
    for (RawAgent* agent : {&alice_, &bob_, &carol_}) {
      ASSERT_NO_FATAL_FAILURE(Enroll(*agent));
    }
    const UploadResult honest =
        Upload(Bearer(carol_.token), {Batch({ItemReport(carol_, histogram_, 2),
                                             ScalarReport(carol_, mean_, 5)})});
    ASSERT_TRUE(honest.status.ok()) << honest.status.error_message();
    ExpectAcks(honest, {StatusCode::kOk, StatusCode::kOk});
  }

  void Enroll(RawAgent& agent) {
    grpc::ClientContext context;
    v1::EnrollRequest request;
    v1::EnrollResponse response;
    const grpc::Status status =
        agent_stub_->Enroll(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    agent.id = response.agent_id();
    agent.token = response.credential().bearer_token();
    v1::GetTasksResponse tasks;
    ASSERT_TRUE(GetTasks(Bearer(agent.token), agent.id, &tasks).ok());
    for (const v1::Task& task : tasks.tasks())
      agent.tasks[task.study_id()] = task;
  }

  // `authorization` is the metadata value; "" sends none.
  template <typename Context>
  static void Authorize(Context& context, const std::string& authorization) {
    if (!authorization.empty())
      context.AddMetadata("authorization", authorization);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
  }

  grpc::Status GetTasks(const std::string& authorization, uint64_t agent_id,
                        v1::GetTasksResponse* response) {
    grpc::ClientContext context;
    Authorize(context, authorization);
    v1::GetTasksRequest request;
    request.set_agent_id(agent_id);
    return agent_stub_->GetTasks(&context, request, response);
  }

  grpc::Status GetBudget(const std::string& authorization, uint64_t agent_id) {
    grpc::ClientContext context;
    Authorize(context, authorization);
    v1::GetBudgetRequest request;
    request.set_agent_id(agent_id);
    v1::GetBudgetResponse response;
    return agent_stub_->GetBudget(&context, request, &response);
  }

  UploadResult Upload(const std::string& authorization,
                      const std::vector<v1::UploadReportsRequest>& batches) {
    grpc::ClientContext context;
    Authorize(context, authorization);
    UploadResult result;
    auto writer = agent_stub_->UploadReports(&context, &result.response);
    for (const auto& batch : batches) {
      if (!writer->Write(batch)) break;
    }
    writer->WritesDone();
    result.status = writer->Finish();
    return result;
  }

  static v1::UploadReportsRequest Batch(
      const std::vector<v1::Report>& reports) {
    v1::UploadReportsRequest batch;
    for (const auto& r : reports) *batch.add_reports() = r;
    return batch;
  }

  v1::Report Shell(const RawAgent& agent, uint64_t study) {
    return ReportShell(agent, study, report_ids_);
  }
  v1::Report ItemReport(const RawAgent& agent, uint64_t study, uint32_t item) {
    v1::Report report = Shell(agent, study);
    report.mutable_item()->set_item(item);
    return report;
  }
  v1::Report ScalarReport(const RawAgent& agent, uint64_t study,
                          int64_t level) {
    v1::Report report = Shell(agent, study);
    report.mutable_scalar()->set_level(level);
    return report;
  }

  Snapshot Take() {
    return TakeSnapshot(*analyst_, {histogram_, mean_},
                        {&alice_, &bob_, &carol_});
  }

  static void ExpectAcks(const UploadResult& result,
                         const std::vector<StatusCode>& codes) {
    ASSERT_TRUE(result.status.ok()) << result.status.error_message();
    ASSERT_EQ(result.response.acks_size(), static_cast<int>(codes.size()));
    for (size_t i = 0; i < codes.size(); ++i) {
      EXPECT_EQ(result.response.acks(i).code(), static_cast<int>(codes[i]))
          << "ack " << i << ": " << result.response.acks(i).message();
    }
  }

  ServerProcess server_;
  std::unique_ptr<AnalystClient> analyst_;
  std::unique_ptr<v1::AgentService::Stub> agent_stub_;
  std::unique_ptr<v1::AnalystService::Stub> analyst_stub_;
  uint64_t histogram_ = 0, mean_ = 0;
  RawAgent alice_, bob_, carol_;
  std::mt19937_64 report_ids_{2024};
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_INTEGRATION_ABUSE_FIXTURE_H_
