// The Prometheus /metrics endpoint of a real ldp-server: scraped over HTTP
// before and after an agent's uploads, its report counters move by
// exactly the accepted and rejected reports, by outcome, and the gauges
// and histograms follow. The scrape is a plain HTTP/1.0 GET
// on a socket: the client side of the test needs no HTTP library.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/integration/color_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

// GET /metrics; the body, or "" on any failure (the test then fails on
// missing samples).
std::string Scrape(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) ==
      0) {
    const std::string request =
        "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n";
    if (write(fd, request.data(), request.size()) ==
        static_cast<ssize_t>(request.size())) {
      char buffer[4096];
      ssize_t n;
      while ((n = read(fd, buffer, sizeof(buffer))) > 0)
        response.append(buffer, n);
    }
  }
  close(fd);
  const size_t body = response.find("\r\n\r\n");
  return body == std::string::npos ? "" : response.substr(body + 4);
}

// Sample name with labels (as printed) → value.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(space + 1), &value)) {
      out[std::string(line.substr(0, space))] = value;
    }
  }
  return out;
}

double Get(const std::map<std::string, double>& samples,
           const std::string& name) {
  const auto it = samples.find(name);
  return it == samples.end() ? 0 : it->second;
}

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest()
      : port_file_(
            absl::StrCat(::testing::TempDir(), "/metrics_port_", getpid())),
        server_({"--metrics_listen=127.0.0.1:0",
                 absl::StrCat("--metrics_port_file=", port_file_)}) {}
  ~MetricsTest() override { unlink(port_file_.c_str()); }

  void SetUp() override {
    ASSERT_OK(server_.Start());
    std::ifstream(port_file_) >> metrics_port_;
    ASSERT_GT(metrics_port_, 0) << "no port in " << port_file_;
    stub_ = v1::AgentService::NewStub(server_.NewChannel());
  }

  v1::UploadReportsResponse Upload(const std::string& token,
                                   const std::vector<v1::Report>& reports) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    v1::UploadReportsResponse response;
    auto writer = stub_->UploadReports(&context, &response);
    v1::UploadReportsRequest batch;
    for (const auto& r : reports) *batch.add_reports() = r;
    writer->Write(batch);
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::string port_file_;
  ServerProcess server_;
  int metrics_port_ = 0;
  std::unique_ptr<v1::AgentService::Stub> stub_;
};

TEST_F(MetricsTest, CountersMoveWithAcceptedAndRejectedReports) {
  AnalystClient analyst(server_);
  ASSERT_OK(analyst.CreateStudy(ColorStudy("metrics")));

  // Enroll one agent and fetch its task.
  grpc::ClientContext enroll_context;
  v1::EnrollResponse enrolled;
  ASSERT_TRUE(
      stub_->Enroll(&enroll_context, v1::EnrollRequest(), &enrolled).ok());
  const std::string token = enrolled.credential().bearer_token();
  grpc::ClientContext tasks_context;
  tasks_context.AddMetadata("authorization", "Bearer " + token);
  v1::GetTasksRequest tasks_request;
  tasks_request.set_agent_id(enrolled.agent_id());
  v1::GetTasksResponse tasks;
  ASSERT_TRUE(stub_->GetTasks(&tasks_context, tasks_request, &tasks).ok());
  ASSERT_EQ(tasks.tasks_size(), 1);

  const std::map<std::string, double> before = Samples(Scrape(metrics_port_));
  ASSERT_TRUE(before.count("ldp_agents_enrolled")) << "no metrics scraped";
  EXPECT_EQ(Get(before, "ldp_studies{state=\"active\"}"), 1);
  EXPECT_EQ(Get(before, "ldp_rounds{state=\"open\"}"), 1);
  EXPECT_EQ(Get(before, "ldp_agents_enrolled"), 1);
  EXPECT_EQ(Get(before, "ldp_enrollments_total{outcome=\"ok\"}"), 1);

  auto report = [&](uint32_t item, char id) {
    v1::Report r;
    r.set_protocol_version(1);
    r.set_task_id(tasks.tasks(0).task_id());
    r.set_agent_id(enrolled.agent_id());
    r.set_report_id(std::string(16, id));
    r.mutable_item()->set_item(item);
    return r;
  };
  // Accepted; an item outside [0, 4): invalid; then another report for
  // the same task: already exists; then the first again: an identical
  // retry, acknowledged OK but charged once.
  const v1::UploadReportsResponse acks =
      Upload(token, {report(2, 'a'), report(99, 'b')});
  ASSERT_EQ(acks.acks_size(), 2);
  EXPECT_EQ(acks.acks(0).code(), 0);
  EXPECT_EQ(acks.acks(1).code(),
            static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  const v1::UploadReportsResponse more =
      Upload(token, {report(1, 'c'), report(2, 'a')});
  ASSERT_EQ(more.acks_size(), 2);
  EXPECT_EQ(more.acks(0).code(),
            static_cast<int>(grpc::StatusCode::ALREADY_EXISTS));
  EXPECT_EQ(more.acks(1).code(), 0);

  const std::map<std::string, double> after = Samples(Scrape(metrics_port_));
  auto moved = [&](const std::string& name) {
    return Get(after, name) - Get(before, name);
  };
  EXPECT_EQ(moved("ldp_reports_total{outcome=\"ok\"}"), 2);
  EXPECT_EQ(moved("ldp_reports_total{outcome=\"invalid_argument\"}"), 1);
  EXPECT_EQ(moved("ldp_reports_total{outcome=\"already_exists\"}"), 1);
  EXPECT_EQ(moved("ldp_reports_total{outcome=\"failed_precondition\"}"), 0);
  // One report stored, charged ε = 1 once.
  EXPECT_EQ(moved("ldp_reports_stored"), 1);
  EXPECT_NEAR(moved("ldp_epsilon_charged_total"), 1.0, 1e-9);
  // Two upload calls timed; the commits that stored them timed too.
  EXPECT_EQ(moved("ldp_upload_latency_seconds_count"), 2);
  EXPECT_EQ(Get(after, "ldp_upload_latency_seconds_bucket{le=\"+Inf\"}"),
            Get(after, "ldp_upload_latency_seconds_count"));
  EXPECT_GE(moved("ldp_store_commit_seconds_count"), 1);
  EXPECT_GE(moved("ldp_store_commits_total"), 1);
}

// A wrong enrollment token is counted as refused.
TEST(Metrics, RefusedEnrollmentsAreCounted) {
  const std::string token_file =
      absl::StrCat(::testing::TempDir(), "/enroll_", getpid());
  const std::string port_file =
      absl::StrCat(::testing::TempDir(), "/metrics_port2_", getpid());
  std::ofstream(token_file) << "a-sufficiently-long-enrollment-token\n";
  ServerProcess server({absl::StrCat("--enrollment_token_file=", token_file),
                        "--metrics_listen=127.0.0.1:0",
                        absl::StrCat("--metrics_port_file=", port_file)});
  ASSERT_OK(server.Start());
  int port = 0;
  std::ifstream(port_file) >> port;
  ASSERT_GT(port, 0);
  auto stub = v1::AgentService::NewStub(server.NewChannel());
  grpc::ClientContext context;
  v1::EnrollRequest request;
  request.set_enrollment_token("wrong");
  v1::EnrollResponse response;
  EXPECT_EQ(stub->Enroll(&context, request, &response).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  const std::map<std::string, double> samples = Samples(Scrape(port));
  EXPECT_EQ(Get(samples, "ldp_enrollments_total{outcome=\"refused\"}"), 1);
  EXPECT_EQ(Get(samples, "ldp_enrollments_total{outcome=\"ok\"}"), 0);
  unlink(token_file.c_str());
  unlink(port_file.c_str());
}

}  // namespace
}  // namespace ldp::testing
