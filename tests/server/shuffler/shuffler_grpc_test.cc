// The shuffler's gRPC edge end to end, in process: agents' submissions
// through ShufflerService, the core with its sender thread, and one
// DeliverBatch stream to a fake ShuffledIngestService that records what
// the server would see.
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "server/shuffler/core/shuffler.h"
#include "server/shuffler/grpc/grpc_batch_sink.h"
#include "server/shuffler/grpc/shuffler_service.h"
#include "tests/server/shuffler/shuffler_test_support.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using ::ldp::shuffler_testing::AgentOf;
using ::ldp::shuffler_testing::TestShufflerConfig;
using ::ldp::shuffler_testing::TicketFactory;
using ::ldp::testing::StatusIs;

// Records each DeliverBatch stream, message by message; answers with
// `answer` (OK: every payload accepted).
class FakeIngestService final : public v1::ShuffledIngestService::Service {
 public:
  grpc::Status DeliverBatch(grpc::ServerContext* /*context*/,
                            grpc::ServerReader<v1::DeliverBatchRequest>* reader,
                            v1::DeliverBatchResponse* response) override {
    std::vector<v1::DeliverBatchRequest> stream;
    v1::DeliverBatchRequest message;
    while (reader->Read(&message)) stream.push_back(message);
    absl::MutexLock lock(&mutex_);
    streams_.push_back(stream);
    if (!answer_.ok()) return answer_;
    for (const v1::DeliverBatchRequest& m : stream) {
      response->set_accepted(response->accepted() + m.payloads_size());
    }
    return grpc::Status::OK;
  }
  std::vector<std::vector<v1::DeliverBatchRequest>> streams() const {
    absl::MutexLock lock(&mutex_);
    return streams_;
  }
  void Answer(grpc::Status answer) {
    absl::MutexLock lock(&mutex_);
    answer_ = std::move(answer);
  }

 private:
  mutable absl::Mutex mutex_;
  std::vector<std::vector<v1::DeliverBatchRequest>> streams_;
  grpc::Status answer_ = grpc::Status::OK;
};

std::unique_ptr<grpc::Server> StartInProcess(grpc::Service* service) {
  grpc::ServerBuilder builder;
  builder.RegisterService(service);
  return builder.BuildAndStart();
}

class ShufflerGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ingest_server_ = StartInProcess(&ingest_);
    ASSERT_NE(ingest_server_, nullptr);
    sink_ = std::make_unique<GrpcBatchSink>(
        ingest_server_->InProcessChannel(grpc::ChannelArguments()),
        GrpcBatchSinkOptions{.max_payloads_per_message = 4});
    ShufflerConfig config = TestShufflerConfig(dir_.path(), tickets_, &clock_);
    config.run_sender = true;
    config.sweep_interval = absl::Milliseconds(5);
    config.retry_initial_backoff = absl::Milliseconds(1);
    absl::StatusOr<std::unique_ptr<Shuffler>> shuffler =
        Shuffler::Create(config, sink_.get(), gen_);
    ASSERT_OK(shuffler);
    shuffler_ = *std::move(shuffler);
    service_ = std::make_unique<ShufflerServiceImpl>(shuffler_.get());
    shuffler_server_ = StartInProcess(service_.get());
    ASSERT_NE(shuffler_server_, nullptr);
    stub_ = v1::ShufflerService::NewStub(
        shuffler_server_->InProcessChannel(grpc::ChannelArguments()));
  }
  grpc::Status Submit(const v1::SubmitRequest& request,
                      v1::SubmitResponse* response) {
    grpc::ClientContext context;
    return stub_->Submit(&context, request, response);
  }

  ldp::testing::TempDirectory dir_;
  FakeClock clock_;
  TicketFactory tickets_{&clock_};
  std::mt19937_64 gen_{5};
  FakeIngestService ingest_;
  std::unique_ptr<grpc::Server> ingest_server_;
  std::unique_ptr<GrpcBatchSink> sink_;
  std::unique_ptr<Shuffler> shuffler_;
  std::unique_ptr<ShufflerServiceImpl> service_;
  std::unique_ptr<grpc::Server> shuffler_server_;
  std::unique_ptr<v1::ShufflerService::Stub> stub_;
};

TEST_F(ShufflerGrpcTest, DeliversOneStreamWithEverySubmittedPayload) {
  constexpr int kAgents = 10;
  v1::SubmitRequest request;
  for (int agent = 1; agent <= kAgents; ++agent) {
    *request.add_submissions() = tickets_.Submission(agent, 11, kAgents);
  }
  v1::SubmitResponse response;
  ASSERT_TRUE(Submit(request, &response).ok());
  ASSERT_EQ(response.acks_size(), kAgents);
  for (const v1::SubmitAck& ack : response.acks()) EXPECT_EQ(ack.code(), 0);
  // No bound on speed: wait (up to a generous minute) for the stream.
  for (int i = 0; i < 6000 && shuffler_->Stats().batches_delivered == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  const auto streams = ingest_.streams();
  ASSERT_EQ(streams.size(), 1u);
  const std::vector<v1::DeliverBatchRequest>& stream = streams[0];
  ASSERT_EQ(stream.size(), 3u);  // 4 + 4 + 2 payloads
  const v1::ShuffledBatchHeader& header = stream[0].header();
  EXPECT_EQ(header.batch_id().size(), 16u);
  EXPECT_EQ(header.num_reports(), static_cast<uint64_t>(kAgents));
  const v1::ShuffleTicket ticket = tickets_.Ticket(1, 11, kAgents);
  EXPECT_EQ(header.study_id(), ticket.study_id());
  EXPECT_EQ(header.round_id(), ticket.round_id());
  EXPECT_EQ(header.shuffled_task_id(), ticket.shuffled_task_id());
  EXPECT_EQ(header.key_id(), ticket.key_id());
  EXPECT_EQ(header.question_digest(), ticket.question_digest());
  std::multiset<uint64_t> agents;
  for (size_t m = 0; m < stream.size(); ++m) {
    EXPECT_EQ(stream[m].has_header(), m == 0);
    EXPECT_LE(stream[m].payloads_size(), 4);
    for (const v1::SealedPayload& p : stream[m].payloads()) {
      agents.insert(AgentOf(p));
    }
  }
  EXPECT_EQ(agents.size(), static_cast<size_t>(kAgents));
  EXPECT_EQ(std::set<uint64_t>(agents.begin(), agents.end()).size(),
            static_cast<size_t>(kAgents));
  EXPECT_EQ(shuffler_->Stats().server_accepted, static_cast<uint64_t>(kAgents));
}

TEST_F(ShufflerGrpcTest, AnswersEachSubmissionWithItsCode) {
  const TicketFactory impostor(&clock_);
  v1::SubmitRequest request;
  *request.add_submissions() = tickets_.Submission(1);
  *request.add_submissions() = impostor.Submission(2);
  *request.add_submissions() = tickets_.Submission(1, 11, 5, "other");
  v1::SubmitResponse response;
  ASSERT_TRUE(Submit(request, &response).ok());
  ASSERT_EQ(response.acks_size(), 3);
  EXPECT_EQ(response.acks(0).code(), 0);
  EXPECT_EQ(response.acks(1).code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_FALSE(response.acks(1).message().empty());
  EXPECT_EQ(response.acks(2).code(), grpc::StatusCode::ALREADY_EXISTS);
}

TEST_F(ShufflerGrpcTest, RefusesAnEmptyOrOversizedCall) {
  v1::SubmitResponse response;
  EXPECT_EQ(Submit(v1::SubmitRequest(), &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  v1::SubmitRequest oversized;
  const v1::ShuffleSubmission one = tickets_.Submission(1);
  for (int i = 0; i <= kMaxSubmissionsPerCall; ++i) {
    *oversized.add_submissions() = one;
  }
  EXPECT_EQ(Submit(oversized, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(shuffler_->Stats().pending_reports, 0u);
}

TEST_F(ShufflerGrpcTest, SinkReturnsTheServersRefusal) {
  ingest_.Answer(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "closed"));
  v1::ShuffledBatchHeader header;
  header.set_batch_id(std::string(16, 'b'));
  header.set_num_reports(1);
  const v1::SealedPayload payload = tickets_.Submission(1).sealed();
  EXPECT_THAT(sink_->Deliver(header, {payload}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(ServerChannelCredentialsTest, NeedsAllThreeFilesOrExplicitPlaintext) {
  EXPECT_THAT(ServerChannelCredentials({.target = "h:1"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ServerChannelCredentials(
                  {.target = "h:1", .ca_file = "ca.pem", .insecure = true}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_OK(ServerChannelCredentials({.target = "h:1", .insecure = true}));
  EXPECT_THAT(ServerChannelCredentials({.target = "h:1",
                                        .ca_file = "/nonexistent/ca.pem",
                                        .client_cert_file = "c.pem",
                                        .client_key_file = "k.pem"}),
              StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace ldp
