// call_status.h: FinishWith answers a unary call with every absl code and
// its message unchanged; SetAck fills a report's ack; Throttle and
// ThrottlePeer refuse over the limit with RESOURCE_EXHAUSTED, a message
// naming the key and the "retry-after-ms" trailer, on a fake clock.
//
// Why: these are the only places the adapters turn a status into what an
// agent reads, and an agent's retry logic keys off the code and the
// trailer; a code shifted in the mapping or a missing trailer would turn
// a "wait and retry" into a permanent failure.
#include "server/grpc/call_status.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/grpc/rate_limiter.h"
#include "tests/server/grpc/context_probe.h"
#include "tests/testing/fake_clock.h"

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

// GetBudget answers FinishWith(the code named by study_id, "status <code>").
class FinishWithService final : public v1::AgentService::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetBudget(grpc::CallbackServerContext* context,
                                      const v1::GetBudgetRequest* request,
                                      v1::GetBudgetResponse*) override {
    const auto code = static_cast<absl::StatusCode>(request->study_id());
    return FinishWith(
        context,
        absl::Status(code, absl::StrCat("status ", request->study_id())));
  }
};

TEST(CallStatusFinishWithTest, EveryCodeAndMessageReachesTheClient) {
  FinishWithService service;
  ContextProbeServer server("127.0.0.1:0", &service);
  ASSERT_TRUE(server.started());
  const auto stub = v1::AgentService::NewStub(server.NewChannel());
  for (uint64_t code = 0; code <= 16; ++code) {
    SCOPED_TRACE(code);
    grpc::ClientContext context;
    v1::GetBudgetRequest request;
    request.set_study_id(code);
    v1::GetBudgetResponse response;
    const grpc::Status status = stub->GetBudget(&context, request, &response);
    EXPECT_EQ(static_cast<uint64_t>(status.error_code()), code);
    EXPECT_EQ(status.error_message(),
              code == 0 ? "" : absl::StrCat("status ", code));
  }
}

TEST(CallStatusSetAckTest, AckCarriesTheCodeAndMessage) {
  v1::ReportAck ack;
  ack.set_report_id("id");
  SetAck(absl::FailedPreconditionError("round 3 is closed"), &ack);
  EXPECT_EQ(ack.code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(ack.message(), "round 3 is closed");
  EXPECT_EQ(ack.report_id(), "id");
  SetAck(absl::OkStatus(), &ack);
  EXPECT_EQ(ack.code(), 0);
  EXPECT_EQ(ack.message(), "");
}

// A limiter of two calls per second (burst 2) on a fake clock, and the
// probe server to throttle calls with it.
class CallStatusThrottleTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.started()); }
  // Throttles each call by Throttle(limiter, key, "agent <key>").
  void ThrottleBy(RateLimiter* limiter, const std::string& key) {
    server_.Set([limiter, key](grpc::CallbackServerContext& context) {
      return ProbeAnswer(
          Throttle(limiter, key, absl::StrCat("agent ", key), &context));
    });
  }
  FakeClock clock_;
  std::unique_ptr<RateLimiter> limiter_ =
      *RateLimiter::Create(&clock_, {.per_second = 2, .burst = 2});
  ContextProbeServer server_{"127.0.0.1:0"};
};

TEST_F(CallStatusThrottleTest, NoLimiterNeverRefusesNorHints) {
  ThrottleBy(nullptr, "9");
  for (int i = 0; i < 5; ++i) {
    grpc::ClientContext context;
    EXPECT_TRUE(server_.Call(context, "").ok());
    EXPECT_EQ(TrailerOf(context, "retry-after-ms"), "");
  }
}

TEST_F(CallStatusThrottleTest, OverTheBurstIsResourceExhaustedWithAHint) {
  ThrottleBy(limiter_.get(), "9");
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    EXPECT_TRUE(server_.Call(context, "").ok());
    EXPECT_EQ(TrailerOf(context, "retry-after-ms"), "");
  }
  grpc::ClientContext refused;
  const grpc::Status status = server_.Call(refused, "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("agent 9 is over its rate limit of 2 calls/s"));
  EXPECT_THAT(status.error_message(), HasSubstr("retry in 0.5 s"));
  EXPECT_EQ(TrailerOf(refused, "retry-after-ms"), "500");

  clock_.Advance(absl::Milliseconds(500));
  grpc::ClientContext refilled;
  EXPECT_TRUE(server_.Call(refilled, "").ok());
}

TEST_F(CallStatusThrottleTest, EachKeyHasItsOwnBucket) {
  ThrottleBy(limiter_.get(), "9");
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    ASSERT_TRUE(server_.Call(context, "").ok());
  }
  ThrottleBy(limiter_.get(), "10");
  grpc::ClientContext other;
  EXPECT_TRUE(server_.Call(other, "").ok());
}

TEST_F(CallStatusThrottleTest, PeerLimitIsSharedByConnectionsFromOneAddress) {
  RateLimiter* limiter = limiter_.get();
  server_.Set([limiter](grpc::CallbackServerContext& context) {
    return ProbeAnswer(ThrottlePeer(limiter, &context));
  });
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    ASSERT_TRUE(server_.Call(context, "").ok());  // a new connection each
  }
  grpc::ClientContext refused;
  const grpc::Status status = server_.Call(refused, "");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("peer ipv4:127.0.0.1 is over"));
  EXPECT_EQ(TrailerOf(refused, "retry-after-ms"), "500");
}

TEST_F(CallStatusThrottleTest, NoPeerLimiterNeverRefuses) {
  server_.Set([](grpc::CallbackServerContext& context) {
    return ProbeAnswer(ThrottlePeer(nullptr, &context));
  });
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext context;
    EXPECT_TRUE(server_.Call(context, "").ok());
  }
}

}  // namespace
}  // namespace ldp::testing
