// The C ABI (client/agent_c/ldp_agent.h) on a shuffled study: a shuffled
// task is refused until the app says it has a shuffler, and refused when its
// ticket names another agent; once accepted it is charged ε0, never appears
// in ldp_agent_next_upload, and ldp_agent_next_shuffled_upload hands the
// app a SubmitRequest whose payload the server's key opens, the same bytes
// on every try (a reopened handle too) until the shuffler's acks settle it.
#include <string>
#include <vector>

#include "client/agent_c/ldp_agent.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "tests/client/agent_c/app_storage.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"

namespace ldp {
namespace {

constexpr uint64_t kAppAgentId = 77;
constexpr int64_t kAppHalf = testing::kHalfEpsilonNanos;

const auto& AsBytes = testing::AppBytes;

class LdpAgentCShuffleTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void TearDown() override { ldp_agent_close(agent_); }

  void Reopen() {
    ldp_agent_close(agent_);
    agent_ = nullptr;
    ldp_agent_options options{};
    options.record_json = R"({"color": "c2"})";
    options.insecure_simulation = 1;  // a test: repeatable coins
    options.simulation_seed = 11;
    const ldp_storage callbacks = storage_.callbacks();
    ldp_status status{};
    ASSERT_EQ(ldp_agent_open(&options, &callbacks, &agent_, &status), LDP_OK)
        << status.message;
  }

  // Answers one poll; {answered, refused}.
  std::pair<int, int> Answer(const std::vector<v1::Task>& tasks) {
    const std::string poll = testing::PollBytes(tasks);
    int answered = -1, refused = -1;
    ldp_status status{};
    EXPECT_EQ(ldp_agent_answer_poll(agent_, AsBytes(poll), poll.size(),
                                    &answered, &refused, &status),
              LDP_OK)
        << status.message;
    return {answered, refused};
  }

  int64_t TotalSpent() {
    int64_t total = -1;
    EXPECT_EQ(ldp_agent_spent(agent_, 1, &total, nullptr, nullptr), LDP_OK);
    return total;
  }

  // The bytes of the next request from `next` (ldp_agent_next_upload for
  // kAppAgentId, or ldp_agent_next_shuffled_upload).
  std::string NextUpload(bool shuffled) {
    ldp_buffer out{};
    ldp_status status{};
    const int code =
        shuffled ? ldp_agent_next_shuffled_upload(agent_, &out, &status)
                 : ldp_agent_next_upload(agent_, kAppAgentId, &out, &status);
    EXPECT_EQ(code, LDP_OK) << status.message;
    std::string bytes(reinterpret_cast<const char*>(out.data), out.size);
    ldp_buffer_free(&out);
    return bytes;
  }

  // Records the shuffler's acks (one code per submission) for `request`.
  int RecordShuffled(const std::string& request, std::vector<int> codes,
                     int* accepted = nullptr, int* rejected = nullptr) {
    v1::SubmitResponse response;
    for (int code : codes) response.add_acks()->set_code(code);
    const std::string bytes = response.SerializeAsString();
    return ldp_agent_record_shuffled_upload(
        agent_, AsBytes(request), request.size(), AsBytes(bytes), bytes.size(),
        accepted, rejected, &status_);
  }

  v1::Task ShuffledTask(uint64_t ticket_agent = kAppAgentId) {
    return testing::ShuffledFor(testing::ColorTask(1, 1001, 3), ticket_agent,
                                keys_);
  }

  testing::AppStorage storage_;  // always durable
  ldp_agent* agent_ = nullptr;
  ldp_status status_{};
  testing::ShuffleKeys keys_ = testing::NewShuffleKeys();
};

TEST_F(LdpAgentCShuffleTest, RefusesShuffledTasksUntilTheAppHasAShuffler) {
  EXPECT_EQ(Answer({ShuffledTask()}), std::make_pair(0, 1));
  EXPECT_EQ(TotalSpent(), 0);
  EXPECT_EQ(NextUpload(false), "");
  EXPECT_EQ(NextUpload(true), "");
  EXPECT_EQ(ldp_agent_use_shuffler(agent_, 0, &status_), LDP_INVALID_ARGUMENT);
  // A ticket for another agent is refused too, at no cost.
  ASSERT_EQ(ldp_agent_use_shuffler(agent_, kAppAgentId + 1, &status_), LDP_OK);
  EXPECT_EQ(Answer({ShuffledTask()}), std::make_pair(0, 1));
  EXPECT_EQ(TotalSpent(), 0);
  EXPECT_EQ(NextUpload(true), "");
}

TEST_F(LdpAgentCShuffleTest, SealsForTheShufflerAndKeepsItFromTheServer) {
  ASSERT_EQ(ldp_agent_use_shuffler(agent_, kAppAgentId, &status_), LDP_OK);
  EXPECT_EQ(Answer({ShuffledTask(), testing::ColorTask(2, 2001, 5)}),
            std::make_pair(2, 0));
  EXPECT_EQ(TotalSpent(), 2 * kAppHalf);
  v1::UploadReportsRequest to_server;
  ASSERT_TRUE(to_server.ParseFromString(NextUpload(false)));
  ASSERT_EQ(to_server.reports_size(), 1);
  EXPECT_EQ(to_server.reports(0).task_id(), 2001u);
  const std::string request = NextUpload(true);
  v1::SubmitRequest to_shuffler;
  ASSERT_TRUE(to_shuffler.ParseFromString(request));
  ASSERT_EQ(to_shuffler.submissions_size(), 1);
  absl::StatusOr<v1::Report> opened =
      testing::OpenSubmission(keys_, to_shuffler.submissions(0));
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->agent_id(), 0u);
  EXPECT_EQ(opened->task_id(), testing::TestShuffledTaskId());
  EXPECT_EQ(opened->report_id().size(), 16u);
  EXPECT_TRUE(opened->has_item());
}

TEST_F(LdpAgentCShuffleTest, ResendsTheSameBytesUntilTheShufflerSettles) {
  ASSERT_EQ(ldp_agent_use_shuffler(agent_, kAppAgentId, &status_), LDP_OK);
  EXPECT_EQ(Answer({ShuffledTask()}), std::make_pair(1, 0));
  const std::string request = NextUpload(true);
  ASSERT_FALSE(request.empty());
  // Acks that do not answer the request settle nothing.
  EXPECT_EQ(RecordShuffled(request, {0, 0}), LDP_INTERNAL);
  int accepted = -1, rejected = -1;
  EXPECT_EQ(RecordShuffled(request, {14}, &accepted, &rejected), LDP_OK);
  EXPECT_EQ(std::make_pair(accepted, rejected), std::make_pair(0, 0));
  Reopen();  // no ldp_agent_use_shuffler: what is pending still goes out
  EXPECT_EQ(NextUpload(true), request);
  EXPECT_EQ(NextUpload(false), "");
  EXPECT_EQ(RecordShuffled(request, {6}, &accepted, &rejected), LDP_OK);
  EXPECT_EQ(std::make_pair(accepted, rejected), std::make_pair(1, 0));
  EXPECT_EQ(NextUpload(true), "");
  EXPECT_EQ(RecordShuffled(request, {0}), LDP_NOT_FOUND);
  Reopen();
  EXPECT_EQ(NextUpload(true), "");
  EXPECT_EQ(TotalSpent(), kAppHalf);
}

}  // namespace
}  // namespace ldp
