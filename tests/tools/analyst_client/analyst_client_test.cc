// AnalystClient against an in-process AnalystService: the token travels as
// a bearer header on every call, a gRPC error comes back as the same
// absl::Status, and each call has its deadline (CreateStudy its own).
#include "tools/analyst_client/analyst_client.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace ldp {
namespace {

class FakeAnalystService final : public v1::AnalystService::Service {
 public:
  grpc::Status GetStudy(grpc::ServerContext* context,
                        const v1::GetStudyRequest* request,
                        v1::Study* study) override {
    if (Authorization(*context) != "Bearer secret") {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong token");
    }
    if (request->study_id() != 7) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such study");
    }
    study->set_study_id(7);
    return grpc::Status::OK;
  }

  grpc::Status GetEstimates(grpc::ServerContext*,
                            const v1::GetEstimatesRequest*,
                            v1::GetEstimatesResponse* response) override {
    // Held until the test ends, so it outlasts any deadline however slow
    // the machine.
    released_.WaitForNotificationWithTimeout(absl::Seconds(60));
    response->set_round_id(1);
    return grpc::Status::OK;
  }

  void Release() { released_.Notify(); }

  grpc::Status CreateStudy(grpc::ServerContext*, const v1::CreateStudyRequest*,
                           v1::Study* study) override {
    absl::SleepFor(absl::Milliseconds(500));
    study->set_study_id(8);
    return grpc::Status::OK;
  }

 private:
  absl::Notification released_;

  static std::string Authorization(const grpc::ServerContext& context) {
    const auto it = context.client_metadata().find("authorization");
    if (it == context.client_metadata().end()) return "";
    return std::string(it->second.data(), it->second.size());
  }
};

class AnalystClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    service_.Release();
    server_->Shutdown();
  }

  // A call's deadline is `timeout`: generous unless a test is about it, so
  // a loaded machine does not miss it.
  std::unique_ptr<AnalystClient> Client(
      std::string token, absl::Duration timeout = absl::Seconds(30)) const {
    return AnalystClient::Connect(
        {.server = "127.0.0.1:" + std::to_string(port_),
         .bearer_token = std::move(token),
         .timeout = timeout,
         .create_study_timeout = absl::Seconds(30)});
  }

  FakeAnalystService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_F(AnalystClientTest, SendsTheBearerTokenAndReturnsTheResponse) {
  v1::GetStudyRequest request;
  request.set_study_id(7);
  absl::StatusOr<v1::Study> study = Client("secret")->GetStudy(request);
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->study_id(), 7u);
  EXPECT_EQ(Client("other")->GetStudy(request).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(AnalystClientTest, ReturnsTheServersStatusAsAbslStatus) {
  v1::GetStudyRequest request;
  request.set_study_id(9);
  const absl::Status status = Client("secret")->GetStudy(request).status();
  EXPECT_EQ(status, absl::NotFoundError("no such study"));
}

TEST_F(AnalystClientTest, EveryCallHasADeadlineAndCreateStudyItsOwn) {
  // The fake's GetEstimates never answers while the test runs; its
  // CreateStudy answers after 500 ms, past the 100 ms of other calls.
  const std::unique_ptr<AnalystClient> client =
      Client("secret", absl::Milliseconds(100));
  EXPECT_EQ(client->GetEstimates(v1::GetEstimatesRequest()).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  absl::StatusOr<v1::Study> created =
      client->CreateStudy(v1::CreateStudyRequest());
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->study_id(), 8u);
}

}  // namespace
}  // namespace ldp
