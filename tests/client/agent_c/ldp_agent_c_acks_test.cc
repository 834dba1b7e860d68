// The C ABI's ack calls settle only what the library produced
// (ldp_agent_record_upload, ldp_agent_record_shuffled_upload): a request
// the app built or changed, one already settled, one with a report twice
// or with extra bytes, and a response acking reports the request does not
// hold are each refused with nothing settled and both counts 0, and the
// real request still settles afterwards.
#include <string>
#include <vector>

#include "client/agent_c/ldp_agent.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.pb.h"
#include "proto/ldp/v1/shuffle_service.pb.h"
#include "tests/client/agent_c/agent_c_session.h"
#include "tests/client/core/color_tasks.h"
#include "tests/client/core/shuffle_tasks.h"

namespace ldp::agent_c_acks_test {
namespace {

using ::testing::HasSubstr;

constexpr uint64_t kShuffleAgent = 61;

// What one record call returned.
struct Recorded {
  int code = -1;
  int accepted = -1;
  int rejected = -1;
  std::string message;
};

class AgentCAcksTest : public ::testing::Test {
 protected:
  // Answers tasks 1 and 2 of study 1 and takes the request for them.
  void SetUp() override {
    ASSERT_EQ(s_.Answer(testing::PollBytes(
                  {testing::ColorTask(1, 1, 3), testing::ColorTask(1, 2, 4)})),
              LDP_OK);
    request_ = s_.Next(false);
    ASSERT_TRUE(sent_.ParseFromString(request_));
    ASSERT_EQ(sent_.reports_size(), 2);
  }

  // Acks (code 0) for `request`'s reports.
  static std::string AcksFor(const v1::UploadReportsRequest& request) {
    v1::UploadReportsResponse acks;
    for (const v1::Report& r : request.reports()) {
      acks.add_acks()->set_report_id(r.report_id());
    }
    return acks.SerializeAsString();
  }

  Recorded Record(const std::string& request, const std::string& response,
                  bool shuffled = false) {
    Recorded r;
    const auto* req = testing::AppBytes(request);
    const auto* resp = testing::AppBytes(response);
    r.code = shuffled
                 ? ldp_agent_record_shuffled_upload(
                       s_.agent, req, request.size(), resp, response.size(),
                       &r.accepted, &r.rejected, &s_.status)
                 : ldp_agent_record_upload(s_.agent, req, request.size(), resp,
                                           response.size(), &r.accepted,
                                           &r.rejected, &s_.status);
    r.message = s_.status.message;
    return r;
  }

  // `request` with its acks: refused as `code`, nothing settled, counts 0.
  void ExpectRefused(const std::string& request, const std::string& response,
                     int code, const std::string& says) {
    const Recorded r = Record(request, response);
    EXPECT_EQ(r.code, code) << r.message;
    EXPECT_EQ(r.accepted, 0);
    EXPECT_EQ(r.rejected, 0);
    EXPECT_THAT(r.message, HasSubstr(says));
    ASSERT_EQ(s_.Reopen(), LDP_OK);
    EXPECT_EQ(s_.Next(false), request_);  // both still pending, unchanged
  }

  testing::AgentCSession s_;
  std::string request_;
  v1::UploadReportsRequest sent_;
};

TEST_F(AgentCAcksTest, AForgedReportForAPendingTaskSettlesNothing) {
  v1::UploadReportsRequest forged = sent_;
  forged.mutable_reports(0)->mutable_item()->set_item(
      forged.reports(0).item().item() ^ 1);
  ExpectRefused(forged.SerializeAsString(), AcksFor(forged), LDP_NOT_FOUND,
                "report 0 (task 1) differs from the report");
  v1::UploadReportsRequest other_id = sent_;
  other_id.mutable_reports(1)->set_report_id(std::string(16, 'x'));
  ExpectRefused(other_id.SerializeAsString(), AcksFor(other_id), LDP_NOT_FOUND,
                "report 1 (task 2) differs");
  v1::UploadReportsRequest other_agent = sent_;
  other_agent.mutable_reports(1)->set_agent_id(98);
  ExpectRefused(other_agent.SerializeAsString(), AcksFor(other_agent),
                LDP_NOT_FOUND, "report 1 (task 2) differs");
}

TEST_F(AgentCAcksTest, ReportsNeverAnsweredOrTwiceOrExtraBytesAreRefused) {
  v1::UploadReportsRequest unknown = sent_;
  unknown.mutable_reports(1)->set_task_id(77);
  ExpectRefused(unknown.SerializeAsString(), AcksFor(unknown), LDP_NOT_FOUND,
                "report 1 (task 77) is none of this agent's pending reports");
  v1::UploadReportsRequest twice = sent_;
  *twice.add_reports() = sent_.reports(0);
  ExpectRefused(twice.SerializeAsString(), AcksFor(twice), LDP_NOT_FOUND,
                "report 2 (task 1) appears twice");
  // An unknown field (99, varint 1) after the reports.
  const std::string extra = request_ + std::string("\x98\x06\x01", 3);
  ExpectRefused(extra, AcksFor(sent_), LDP_NOT_FOUND,
                "bytes ldp_agent_next_upload did not write");
}

TEST_F(AgentCAcksTest, AcksForReportsNotInTheRequestAreInternal) {
  v1::UploadReportsRequest first_only = sent_;
  first_only.mutable_reports()->RemoveLast();
  // Acks for both reports, though the request holds one.
  ExpectRefused(first_only.SerializeAsString(), AcksFor(sent_), LDP_INTERNAL,
                "acknowledged 2 reports of 1");
  v1::UploadReportsResponse swapped;
  swapped.add_acks()->set_report_id(sent_.reports(1).report_id());
  swapped.add_acks()->set_report_id(sent_.reports(0).report_id());
  ExpectRefused(request_, swapped.SerializeAsString(), LDP_INTERNAL,
                "another report at position 0");
}

TEST_F(AgentCAcksTest, TheRealRequestSettlesOnceAndNeverAgain) {
  const Recorded first = Record(request_, AcksFor(sent_));
  ASSERT_EQ(first.code, LDP_OK) << first.message;
  EXPECT_EQ(first.accepted, 2);
  EXPECT_EQ(first.rejected, 0);
  EXPECT_EQ(s_.Next(false), "");
  // The same request and acks again: settled already, so not pending.
  const Recorded again = Record(request_, AcksFor(sent_));
  EXPECT_EQ(again.code, LDP_NOT_FOUND);
  EXPECT_EQ(again.accepted, 0);
  EXPECT_THAT(again.message, HasSubstr("settled already"));
}

// A request the library never produced, its bytes or one submission
// changed, or a real submission beside a forged one: nothing settles,
// not even the real submission.
TEST_F(AgentCAcksTest, ShuffledAcksSettleOnlyTheLibrarysSubmissions) {
  const testing::ShuffleKeys keys = testing::NewShuffleKeys();
  ASSERT_EQ(ldp_agent_use_shuffler(s_.agent, kShuffleAgent, &s_.status),
            LDP_OK);
  ASSERT_EQ(s_.Answer(testing::PollBytes({testing::ShuffledFor(
                testing::ColorTask(2, 1001, 3), kShuffleAgent, keys)})),
            LDP_OK);
  const std::string real = s_.Next(true);
  v1::SubmitRequest sent;
  ASSERT_TRUE(sent.ParseFromString(real));
  ASSERT_EQ(sent.submissions_size(), 1);
  v1::SubmitRequest forged = sent;
  forged.mutable_submissions(0)
      ->mutable_sealed()
      ->mutable_ciphertext()
      ->back() ^= 1;
  v1::SubmitRequest beside = sent;
  *beside.add_submissions() = forged.submissions(0);
  v1::SubmitRequest twice = sent;
  *twice.add_submissions() = sent.submissions(0);
  v1::SubmitResponse ok1, ok2;
  ok1.add_acks();
  ok2.add_acks();
  ok2.add_acks();
  const std::vector<std::pair<std::string, std::string>> refused = {
      {forged.SerializeAsString(), ok1.SerializeAsString()},
      {beside.SerializeAsString(), ok2.SerializeAsString()},
      {twice.SerializeAsString(), ok2.SerializeAsString()},
      {real + std::string("\x98\x06\x01", 3), ok1.SerializeAsString()}};
  for (const auto& [request, response] : refused) {
    const Recorded r = Record(request, response, /*shuffled=*/true);
    EXPECT_EQ(r.code, LDP_NOT_FOUND) << r.message;
    EXPECT_EQ(r.accepted, 0);
    EXPECT_EQ(r.rejected, 0);
    EXPECT_THAT(r.message, HasSubstr("nothing was settled"));
    EXPECT_EQ(s_.Next(true), real);
  }
  const Recorded settled = Record(real, ok1.SerializeAsString(), true);
  EXPECT_EQ(settled.code, LDP_OK) << settled.message;
  EXPECT_EQ(settled.accepted, 1);
  EXPECT_EQ(s_.Next(true), "");
}

}  // namespace
}  // namespace ldp::agent_c_acks_test
