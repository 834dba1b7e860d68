// The C ABI (client/agent_c/ldp_agent.h) through a hostile sequence:
// over-budget tasks, malformed bytes, storage callbacks that fail, acks that do
// not match, and a call made while another runs on the same handle. Each is
// refused with a status, and after each the agent is reopened from its
// storage and checked: nothing spent twice, nothing lost.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "client/agent_c/ldp_agent.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "tests/client/agent_c/app_storage.h"
#include "tests/client/core/color_tasks.h"

namespace ldp {
namespace {

constexpr int64_t kHalf = testing::kHalfEpsilonNanos;  // ε = 0.5
using testing::AppStorage;
using testing::ColorTask;
const auto& Poll = testing::PollBytes;
const auto& Bytes = testing::AppBytes;

ldp_agent_options Options() {
  ldp_agent_options options{};
  options.record_json = R"({"color": "green"})";
  options.insecure_simulation = 1;  // a test: repeatable coins
  options.simulation_seed = 7;
  return options;
}

class LdpAgentCTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void TearDown() override { ldp_agent_close(agent_); }

  // Closes the handle and opens a new one from what the storage holds.
  void Reopen() {
    ldp_agent_close(agent_);
    agent_ = nullptr;
    const ldp_agent_options options = Options();
    const ldp_storage callbacks = storage_.callbacks();
    ldp_status status{};
    ASSERT_EQ(ldp_agent_open(&options, &callbacks, &agent_, &status), LDP_OK)
        << status.message;
  }

  int Answer(const std::string& bytes, int* answered = nullptr,
             int* refused = nullptr) {
    return ldp_agent_answer_poll(agent_, Bytes(bytes), bytes.size(), answered,
                                 refused, &status_);
  }

  int64_t Spent(uint64_t study = 0) {
    int64_t total = -1, in_study = -1;
    EXPECT_EQ(ldp_agent_spent(agent_, study, &total, &in_study, nullptr),
              LDP_OK);
    return study == 0 ? total : in_study;
  }

  // The pending reports' task ids, from the next upload request.
  std::vector<uint64_t> PendingTasks(std::string* request = nullptr) {
    ldp_buffer out{};
    EXPECT_EQ(ldp_agent_next_upload(agent_, 99, &out, nullptr), LDP_OK);
    v1::UploadReportsRequest parsed;
    EXPECT_TRUE(parsed.ParseFromArray(out.data, static_cast<int>(out.size)));
    if (request != nullptr)
      request->assign(reinterpret_cast<char*>(out.data), out.size);
    ldp_buffer_free(&out);
    std::vector<uint64_t> ids;
    for (const v1::Report& r : parsed.reports()) {
      EXPECT_EQ(r.agent_id(), 99u);
      ids.push_back(r.task_id());
    }
    return ids;
  }

  AppStorage storage_;
  ldp_agent* agent_ = nullptr;
  ldp_status status_{};
};

TEST_F(LdpAgentCTest, VersionsAndNullArguments) {
  EXPECT_STREQ(ldp_agent_version(), "1.1.0");
  EXPECT_EQ(ldp_agent_abi_version(), LDP_AGENT_ABI_VERSION);
  ldp_status status{};
  EXPECT_EQ(
      ldp_agent_answer_poll(nullptr, nullptr, 0, nullptr, nullptr, &status),
      LDP_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(status.message),
              ::testing::HasSubstr("handle is null"));
  ldp_agent_options no_record{};
  const ldp_storage callbacks = storage_.callbacks();
  ldp_agent* other = nullptr;
  EXPECT_EQ(ldp_agent_open(&no_record, &callbacks, &other, &status),
            LDP_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  // A cap the owner got wrong is refused, not read as "no cap".
  ldp_agent_options negative = Options();
  negative.lifetime_cap_nanos = -1;
  EXPECT_EQ(ldp_agent_open(&negative, &callbacks, &other, &status),
            LDP_INVALID_ARGUMENT);
  EXPECT_EQ(other, nullptr);
  ldp_storage missing = callbacks;
  missing.sync = nullptr;
  const ldp_agent_options options = Options();
  EXPECT_EQ(ldp_agent_open(&options, &missing, &other, &status),
            LDP_INVALID_ARGUMENT);
  ldp_buffer empty{};
  ldp_buffer_free(&empty);
  ldp_buffer_free(nullptr);
}

// The study cap (1 ε by default) holds whatever the server sends; refusals
// are counted, not errors, and survive a reopen.
TEST_F(LdpAgentCTest, OverBudgetTasksAreRefusedAndNothingIsSpentTwice) {
  int answered = -1, refused = -1;
  ASSERT_EQ(Answer(Poll({ColorTask(1, 1, 3), ColorTask(1, 2, 4)}), &answered,
                   &refused),
            LDP_OK)
      << status_.message;
  EXPECT_EQ(answered, 2);
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(Spent(1), 2 * kHalf);
  ASSERT_EQ(Answer(Poll({ColorTask(1, 3, 5)}), &answered, &refused), LDP_OK);
  EXPECT_EQ(answered, 0);
  EXPECT_EQ(refused, 1);
  // The same tasks again: the very same reports, free.
  ASSERT_EQ(Answer(Poll({ColorTask(1, 1, 3), ColorTask(1, 2, 4)}), &answered,
                   &refused),
            LDP_OK);
  EXPECT_EQ(answered, 2);
  Reopen();
  EXPECT_EQ(Spent(), 2 * kHalf);
  EXPECT_EQ(PendingTasks(), (std::vector<uint64_t>{1, 2}));
}

TEST_F(LdpAgentCTest, MalformedBytesAreRefused) {
  EXPECT_EQ(Answer("not protobuf at all"), LDP_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(status_.message),
              ::testing::HasSubstr("GetTasksResponse"));
  // One unreadable task beside a good one: the good one is answered.
  std::string bytes = Poll({ColorTask(2, 4, 3)});
  const std::string garbage = "garbage";
  bytes += std::string(1, '\x0a') + static_cast<char>(garbage.size()) + garbage;
  int answered = -1, refused = -1;
  ASSERT_EQ(Answer(bytes, &answered, &refused), LDP_OK) << status_.message;
  EXPECT_EQ(answered, 1);
  EXPECT_EQ(refused, 1);
  // A task whose randomizer claims a different ε than it charges.
  v1::Task lying = ColorTask(2, 5, 4);
  lying.mutable_randomizer()->set_epsilon_nanos(4 * kHalf);
  ASSERT_EQ(Answer(Poll({lying}), &answered, &refused), LDP_OK);
  EXPECT_EQ(refused, 1);
  const std::string junk = "junk";
  EXPECT_EQ(
      ldp_agent_record_upload(agent_, Bytes(junk), junk.size(), Bytes(junk),
                              junk.size(), nullptr, nullptr, &status_),
      LDP_INVALID_ARGUMENT);
  Reopen();
  EXPECT_EQ(Spent(), kHalf);
  EXPECT_EQ(PendingTasks(), (std::vector<uint64_t>{4}));
}

// A failed write or sync answers nothing and spends nothing; the durable
// state is the one before the call. A failed or damaged load refuses to
// open.
TEST_F(LdpAgentCTest, StorageFailuresLoseNothingAndSpendNothing) {
  ASSERT_EQ(Answer(Poll({ColorTask(3, 1, 3)})), LDP_OK);
  const std::string durable = storage_.blob;
  for (bool* fail : {&storage_.fail_write, &storage_.fail_sync}) {
    *fail = true;
    EXPECT_EQ(Answer(Poll({ColorTask(4, 2, 3)})), LDP_UNAVAILABLE);
    EXPECT_THAT(std::string(status_.message),
                ::testing::HasSubstr("storage callback"));
    EXPECT_EQ(Spent(), kHalf);
    *fail = false;
    EXPECT_EQ(storage_.blob, durable);
    Reopen();
    EXPECT_EQ(Spent(), kHalf);
    EXPECT_EQ(PendingTasks(), (std::vector<uint64_t>{1}));
  }
  const ldp_agent_options options = Options();
  const ldp_storage callbacks = storage_.callbacks();
  ldp_agent* other = nullptr;
  storage_.fail_load = true;
  EXPECT_EQ(ldp_agent_open(&options, &callbacks, &other, &status_),
            LDP_UNAVAILABLE);
  storage_.fail_load = false;
  storage_.blob = "damaged";
  EXPECT_EQ(ldp_agent_open(&options, &callbacks, &other, &status_),
            LDP_DATA_LOSS);
  EXPECT_EQ(other, nullptr);
  storage_.blob = durable;
}

// Acks settle reports only when they answer exactly what was sent; a
// transient refusal keeps the report pending, byte for byte.
TEST_F(LdpAgentCTest, UploadsSettleOnlyOnMatchingAcks) {
  ASSERT_EQ(Answer(Poll({ColorTask(5, 1, 3), ColorTask(5, 2, 4)})), LDP_OK);
  std::string request;
  ASSERT_EQ(PendingTasks(&request), (std::vector<uint64_t>{1, 2}));
  v1::UploadReportsRequest sent;
  ASSERT_TRUE(sent.ParseFromString(request));
  v1::UploadReportsResponse acks;
  for (const v1::Report& r : sent.reports()) {
    acks.add_acks()->set_report_id(r.report_id());
  }
  v1::UploadReportsResponse short_acks = acks;
  short_acks.mutable_acks()->RemoveLast();
  const std::string short_bytes = short_acks.SerializeAsString();
  EXPECT_EQ(ldp_agent_record_upload(agent_, Bytes(request), request.size(),
                                    Bytes(short_bytes), short_bytes.size(),
                                    nullptr, nullptr, &status_),
            LDP_INTERNAL);
  Reopen();
  std::string again;
  EXPECT_EQ(PendingTasks(&again), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(again, request);           // resent byte for byte
  acks.mutable_acks(1)->set_code(14);  // UNAVAILABLE: transient
  const std::string ack_bytes = acks.SerializeAsString();
  int accepted = -1, rejected = -1;
  ASSERT_EQ(ldp_agent_record_upload(agent_, Bytes(request), request.size(),
                                    Bytes(ack_bytes), ack_bytes.size(),
                                    &accepted, &rejected, &status_),
            LDP_OK)
      << status_.message;
  EXPECT_EQ(accepted, 1);
  EXPECT_EQ(rejected, 0);
  Reopen();
  EXPECT_EQ(PendingTasks(), (std::vector<uint64_t>{2}));
}

// A call made while another holds the handle (here: held inside the
// storage write) is refused with ABORTED and changes nothing.
TEST_F(LdpAgentCTest, ConcurrentCallsOnOneHandleAreRefused) {
  absl::Notification in_write, release_write;
  storage_.in_write = &in_write;
  storage_.release_write = &release_write;
  std::atomic<int> first = -1;
  std::thread answering([&] {
    ldp_status status{};
    const std::string bytes = Poll({ColorTask(6, 1, 3)});
    first = ldp_agent_answer_poll(agent_, Bytes(bytes), bytes.size(), nullptr,
                                  nullptr, &status);
  });
  in_write.WaitForNotification();
  ldp_status status{};
  int64_t total = -1;
  EXPECT_EQ(ldp_agent_spent(agent_, 0, &total, nullptr, &status), LDP_ABORTED);
  EXPECT_EQ(total, -1);
  const std::string bytes = Poll({ColorTask(7, 1, 3)});
  EXPECT_EQ(ldp_agent_answer_poll(agent_, Bytes(bytes), bytes.size(), nullptr,
                                  nullptr, &status),
            LDP_ABORTED);
  ldp_buffer out{};
  EXPECT_EQ(ldp_agent_next_upload(agent_, 1, &out, &status), LDP_ABORTED);
  release_write.Notify();
  answering.join();
  storage_.in_write = nullptr;
  EXPECT_EQ(first, LDP_OK);
  Reopen();
  EXPECT_EQ(Spent(), kHalf);  // study 6 only; study 7 was refused
  EXPECT_EQ(PendingTasks(), (std::vector<uint64_t>{1}));
}

}  // namespace
}  // namespace ldp
