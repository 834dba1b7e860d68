// docs/agent_c_example.c, the C ABI's complete example, compiled as C and
// run as a user would: a poll in, the upload request and the state file
// out; run twice on the same poll, it sends the very same reports and
// spends nothing more.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "tests/client/core/color_tasks.h"
#include "tests/testing/temp_directory.h"

namespace ldp {
namespace {

// The example's exit code and what it printed.
struct ExampleRun {
  int exit_code = -1;
  std::string out;
};

ExampleRun RunExample(const std::string& arguments) {
  const std::string command =
      std::string(LDP_AGENT_C_EXAMPLE) + " " + arguments + " 2>&1";
  ExampleRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) run.out += buffer;
  run.exit_code = pclose(pipe);
  return run;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(AgentCExample, AnswersAPollAndResendsTheSameReports) {
  testing::TempDirectory dir;
  const std::filesystem::path root(dir.path());
  const std::filesystem::path state = root / "state";
  const std::filesystem::path poll = root / "poll";
  const std::filesystem::path upload = root / "upload";
  std::ofstream(poll, std::ios::binary) << testing::PollBytes(
      {testing::ColorTask(1, 7, 3), testing::ColorTask(1, 8, 4)});
  const std::string arguments =
      state.string() + " " + poll.string() + " " + upload.string();

  const ExampleRun first = RunExample(arguments);
  ASSERT_EQ(first.exit_code, 0) << first.out;
  EXPECT_THAT(first.out, ::testing::HasSubstr("1.1.0 (ABI 1)"));
  EXPECT_THAT(first.out, ::testing::HasSubstr("answered 2, refused 0, upload"));
  EXPECT_THAT(first.out, ::testing::HasSubstr("spent 1000000000 nano-epsilon"));
  const std::string sent = ReadAll(upload);
  v1::UploadReportsRequest request;
  ASSERT_TRUE(request.ParseFromString(sent));
  ASSERT_EQ(request.reports_size(), 2);
  EXPECT_EQ(request.reports(0).task_id(), 7u);
  EXPECT_EQ(request.reports(1).task_id(), 8u);
  EXPECT_EQ(request.reports(0).agent_id(), 42u);
  EXPECT_TRUE(std::filesystem::exists(state));

  const ExampleRun second = RunExample(arguments);
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_THAT(second.out,
              ::testing::HasSubstr("spent 1000000000 nano-epsilon"));
  EXPECT_EQ(ReadAll(upload), sent);

  const ExampleRun usage = RunExample("");
  EXPECT_NE(usage.exit_code, 0);
  EXPECT_THAT(usage.out, ::testing::HasSubstr("usage:"));
}

}  // namespace
}  // namespace ldp
