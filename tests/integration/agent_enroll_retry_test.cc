// The real ldp-agent binary's enrollment survives a lost reply and its own
// crash: it saves the enrollment's request id in --state_dir before the
// first try and sends it on every try, in that run or the next, so the
// agent a server stored for a reply that never arrived is the one it gets.
//
// Why black box: the id must reach the disk before anything is sent and
// leave it once the credential is saved; only the binary does all of it.
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/base/file_text.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/integration/agent_process.h"
#include "tests/integration/server_process.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr char kRecord[] = R"({"x": 1})";

// The file's text, or "" if it cannot be read (absent).
std::string FileText(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileText(path, "test file");
  return text.ok() ? *text : "";
}

TEST(AgentEnrollRetry, ARestartedAgentGetsTheAgentItsLostReplyCarried) {
  AgentProcess agent;
  const std::string request_file = agent.state_dir() + "/enrollment_request";
  // No server yet (nothing listens on port 1): the agent saves its request
  // id, tries, and is killed while it waits to try again.
  ASSERT_OK(agent.Start("127.0.0.1:1", "", kRecord,
                        {"--once", "--rpc_timeout_seconds=1"}));
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (FileText(request_file).empty() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  agent.Stop(absl::Milliseconds(1));
  const std::string hex(
      absl::StripTrailingAsciiWhitespace(FileText(request_file)));
  ASSERT_EQ(hex.size(), 64u) << agent.Log();
  EXPECT_EQ(FileText(agent.state_dir() + "/credential"), "");

  // The server stores that enrollment, and its reply is lost: here the
  // test sends the agent's request itself and drops the answer.
  ServerProcess server;
  ASSERT_OK(server.Start());
  auto stub = v1::AgentService::NewStub(server.NewChannel());
  grpc::ClientContext context;
  v1::EnrollRequest request;
  request.set_request_id(absl::HexStringToBytes(hex));
  v1::EnrollResponse lost;
  ASSERT_TRUE(stub->Enroll(&context, request, &lost).ok());

  // The agent, started again, retries with its saved id and gets that
  // agent: one agent stored, and the id is gone from the disk.
  ASSERT_OK(agent.Start(server.address(), "", kRecord, {"--once"}));
  EXPECT_EQ(agent.Wait(absl::Seconds(60)), 0) << agent.Log();
  EXPECT_THAT(agent.Log(), ::testing::HasSubstr(absl::StrCat(
                               "enrolled as agent ", lost.agent_id())));
  EXPECT_THAT(FileText(agent.state_dir() + "/credential"),
              ::testing::HasSubstr(
                  absl::StrCat("agent_id ", lost.agent_id(), "\nbearer_token ",
                               lost.credential().bearer_token())));
  EXPECT_EQ(FileText(request_file), "");
  EXPECT_EQ(QuerySqliteInt(server.directory() + "/ldp.db",
                           "SELECT count(*) FROM agents"),
            1);
}

}  // namespace
}  // namespace ldp::testing
