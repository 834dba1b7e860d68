// The live study page's poller against an in-process AnalystService: what
// it shows, how little it asks of the server (estimates only when a round's
// reports changed), the reports-over-time series on an injected clock, and
// a server that goes away.
#include "tools/study_page/study_page_poller.h"

#include <atomic>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// One study (id 9) with one round (id 1) whose single question has
// `reports` reports; ListStudies fails while `down`, and lists nothing while
// not `listed`.
class PollerFakeAnalyst final : public v1::AnalystService::Service {
 public:
  grpc::Status ListStudies(grpc::ServerContext*,
                           const v1::ListStudiesRequest* request,
                           v1::ListStudiesResponse* response) override {
    if (down.load())
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "server gone");
    page_size.store(static_cast<int>(request->page_size()));
    if (!listed.load()) return grpc::Status::OK;
    v1::Study* study = response->add_studies();
    study->set_study_id(9);
    study->mutable_spec()->set_display_name("poller study");
    study->mutable_spec()->set_quorum(100);
    study->mutable_status()->set_num_reports(reports.load());
    study->mutable_status()->add_round_ids(1);
    return grpc::Status::OK;
  }
  grpc::Status GetRound(grpc::ServerContext*,
                        const v1::GetRoundRequest* request,
                        v1::Round* round) override {
    round->set_study_id(request->study_id());
    round->set_round_id(request->round_id());
    round->set_state(v1::ROUND_OPEN);
    v1::QuestionProgress* p = round->add_progress();
    p->set_question_id("q");
    p->set_num_reports(reports.load());
    return grpc::Status::OK;
  }
  grpc::Status GetEstimates(grpc::ServerContext*,
                            const v1::GetEstimatesRequest*,
                            v1::GetEstimatesResponse* response) override {
    ++estimate_calls;
    response->set_round_id(1);
    v1::QuestionEstimate* q = response->add_estimates();
    q->set_question_id("q");
    q->mutable_scalar()->set_value(reports.load() / 1000.0);
    return grpc::Status::OK;
  }

  std::atomic<uint64_t> reports{0};
  std::atomic<bool> down{false};
  std::atomic<bool> listed{true};
  std::atomic<int> estimate_calls{0};
  std::atomic<int> page_size{0};
};

class StudyPagePollerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    analyst_ =
        AnalystClient::Connect({.server = "127.0.0.1:" + std::to_string(port),
                                .timeout = absl::Seconds(10)});
    poller_ = std::make_unique<StudyPagePoller>(
        *analyst_, clock_,
        StudyPagePollerOptions{.max_studies = 7,
                               .interval = absl::Milliseconds(100)});
  }
  void TearDown() override {
    poller_.reset();
    server_->Shutdown();
  }

  PollerFakeAnalyst service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<AnalystClient> analyst_;
  FakeClock clock_;
  std::unique_ptr<StudyPagePoller> poller_;
};

TEST_F(StudyPagePollerTest, ShowsWhatItPolled) {
  EXPECT_THAT(poller_->Fragment(), HasSubstr("Waiting"));
  service_.reports = 40;
  ASSERT_OK(poller_->PollOnce());
  const std::string html = poller_->Fragment();
  EXPECT_THAT(html, HasSubstr("poller study"));
  EXPECT_THAT(html, HasSubstr("data-field=\"reports\">40<"));
  EXPECT_THAT(html, HasSubstr("data-field=\"estimate\">0.04<"));
  EXPECT_EQ(service_.page_size.load(), 7);
}

TEST_F(StudyPagePollerTest, AsksForEstimatesOnlyWhenReportsChanged) {
  ASSERT_OK(poller_->PollOnce());
  EXPECT_EQ(service_.estimate_calls.load(),
            0);  // no report yet, nothing to ask
  service_.reports = 10;
  ASSERT_OK(poller_->PollOnce());
  ASSERT_OK(poller_->PollOnce());
  EXPECT_EQ(service_.estimate_calls.load(), 1);
  EXPECT_THAT(poller_->Fragment(), HasSubstr("data-field=\"estimate\">0.01<"));
  service_.reports = 20;
  ASSERT_OK(poller_->PollOnce());
  EXPECT_EQ(service_.estimate_calls.load(), 2);
  EXPECT_THAT(poller_->Fragment(), HasSubstr("data-field=\"estimate\">0.02<"));
}

TEST_F(StudyPagePollerTest, KeepsTheRoundsProgressOnTheInjectedClock) {
  for (const uint64_t reports : {0, 30, 90}) {
    service_.reports = reports;
    ASSERT_OK(poller_->PollOnce());
    clock_.Advance(absl::Seconds(5));
  }
  // Three points over 10 s, against the quorum of 100.
  EXPECT_THAT(poller_->Fragment(), HasSubstr("over 10 s of polls"));
  EXPECT_THAT(poller_->Fragment(), HasSubstr(">quorum</text>"));
}

TEST_F(StudyPagePollerTest, ForgetsTheProgressOfStudiesNoLongerShown) {
  service_.reports = 10;
  ASSERT_OK(poller_->PollOnce());
  clock_.Advance(absl::Seconds(7));
  ASSERT_OK(poller_->PollOnce());
  EXPECT_THAT(poller_->Fragment(), HasSubstr("over 7 s of polls"));
  service_.listed = false;  // e.g. pushed out of the newest max_studies
  ASSERT_OK(poller_->PollOnce());
  EXPECT_THAT(poller_->Fragment(), Not(HasSubstr("poller study")));
  service_.listed = true;
  clock_.Advance(absl::Seconds(7));
  ASSERT_OK(poller_->PollOnce());
  EXPECT_THAT(poller_->Fragment(), HasSubstr("over 0 s of polls"));
}

TEST_F(StudyPagePollerTest, AServerThatGoesAwayShowsAndTheLastStudiesStay) {
  service_.reports = 5;
  ASSERT_OK(poller_->PollOnce());
  service_.down = true;
  EXPECT_FALSE(poller_->PollOnce().ok());
  const std::string html = poller_->Fragment();
  EXPECT_THAT(html,
              HasSubstr("The last poll of the server failed: UNAVAILABLE"));
  EXPECT_THAT(html, HasSubstr("poller study"));
}

TEST_F(StudyPagePollerTest, PollsOnItsOwnThreadUntilStopped) {
  service_.reports = 3;
  poller_->Start();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (poller_->Fragment().find("poller study") == std::string::npos &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  poller_->Stop();
  EXPECT_THAT(poller_->Fragment(), HasSubstr("poller study"));
}

}  // namespace
}  // namespace ldp
