// The shuffle model from outside: the real ldp-server and the real
// ldp-shuffler over mutual TLS, agents that speak the wire protocol (poll
// the server, seal, submit to the shuffler), and the analyst API.
//   - what reaches the server is counted, and its database holds no agent
//     id or time beside a shuffled report;
//   - the order reports reach the server is independent of the order the
//     agents sent them (Spearman's rank correlation, with a fake server
//     peer that records the delivered order);
//   - a second report from one agent for one task is refused;
//   - a batch below the minimum, or from a caller who is not a trusted
//     shuffler, is refused by the server;
//   - SIGKILLs of the shuffler lose no acknowledged report and count none
//     twice.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/synchronization/mutex.h"
#include "common/base/status_macros.h"
#include "common/crypto/ed25519.h"
#include "common/tasks/task_mechanism.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "proto/convert/report_convert.h"
#include "proto/convert/task_convert.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/shuffle_service.grpc.pb.h"
#include "proto/sealing/sealed_report.h"
#include "tests/integration/child_process.h"
#include "tests/integration/server_process.h"
#include "tests/integration/shuffler_process.h"
#include "tests/testing/sqlite_query.h"
#include "tests/testing/status_matchers.h"

#ifndef LDP_SOURCE_DIR
#error "LDP_SOURCE_DIR must name the repository (for deploy/make_test_certs.sh)"
#endif

namespace ldp::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kMinBatch = 100;

constexpr char kStudyText[] = R"pb(
  display_name: "shuffled colors"
  epsilon_cap_nanos: 10000000000
  mode: NONINTERACTIVE
  round_duration_seconds: 3600
  schema {
    fields { name: "color" categorical_field { categories: [ "r", "g", "b", "y" ] } }
  }
  questions {
    question_id: "colors"
    histogram { encoding { field { field: "color" } } }
    randomizer { grr {} }
  }
  shuffle { target_epsilon: 1 delta: 1e-6 min_batch: 100 }
)pb";

// Spearman's ρ of a permutation: position i went to `to[i]`.
double Spearman(const std::vector<int>& to) {
  const double n = static_cast<double>(to.size());
  double d2 = 0;
  for (size_t i = 0; i < to.size(); ++i) {
    const double d = static_cast<double>(to[i]) - static_cast<double>(i);
    d2 += d * d;
  }
  return 1 - 6 * d2 / (n * (n * n - 1));
}

// An agent as the wire contract describes it: polls the server, answers
// the shuffled task, seals the report and hands it to the shuffler.
class WireAgent {
 public:
  WireAgent(std::shared_ptr<grpc::Channel> server,
            std::shared_ptr<grpc::Channel> shuffler)
      : server_(v1::AgentService::NewStub(server)),
        shuffler_(v1::ShufflerService::NewStub(shuffler)) {}

  // Enrolls, polls and prepares one sealed submission for `color`.
  absl::StatusOr<v1::ShuffleSubmission> Prepare(int color, uint64_t seed) {
    v1::EnrollResponse enrolled;
    {
      grpc::ClientContext context;
      grpc::Status s =
          server_->Enroll(&context, v1::EnrollRequest(), &enrolled);
      if (!s.ok()) return absl::UnavailableError(s.error_message());
    }
    v1::GetTasksResponse tasks;
    {
      grpc::ClientContext context;
      context.AddMetadata("authorization",
                          "Bearer " + enrolled.credential().bearer_token());
      v1::GetTasksRequest request;
      request.set_agent_id(enrolled.agent_id());
      grpc::Status s = server_->GetTasks(&context, request, &tasks);
      if (!s.ok()) return absl::UnavailableError(s.error_message());
    }
    if (tasks.tasks_size() != 1 || !tasks.tasks(0).has_shuffle()) {
      return absl::InternalError("expected one shuffled task");
    }
    return Seal(tasks.tasks(0), color, seed);
  }

  absl::StatusOr<v1::SubmitAck> Submit(const v1::ShuffleSubmission& s) {
    v1::SubmitRequest request;
    *request.add_submissions() = s;
    v1::SubmitResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    grpc::Status status = shuffler_->Submit(&context, request, &response);
    if (!status.ok()) return absl::UnavailableError(status.error_message());
    return response.acks(0);
  }

  static absl::StatusOr<v1::ShuffleSubmission> Seal(const v1::Task& task,
                                                    int color, uint64_t seed) {
    ASSIGN_OR_RETURN(const TaskEnvelope envelope, TaskFromProto(task));
    ASSIGN_OR_RETURN(auto mechanism, TaskMechanism::Create(envelope.task));
    std::mt19937_64 gen(seed);
    const std::vector<std::string> colors = {"r", "g", "b", "y"};
    TaskReport report{
        .payload = mechanism->Randomize(
            Record{.values = {{"color", colors[color % 4]}}}, gen)};
    for (uint8_t& byte : report.report_id) byte = static_cast<uint8_t>(gen());
    v1::ShuffleTicket ticket;
    ticket.ParseFromString(task.shuffle().ticket().ticket());
    v1::Report plain;
    ReportToProto(report, 0, &plain);
    plain.set_task_id(ticket.shuffled_task_id());
    v1::ShuffleSubmission submission;
    *submission.mutable_ticket() = task.shuffle().ticket();
    ASSIGN_OR_RETURN(*submission.mutable_sealed(),
                     SealReport(plain, task.shuffle()));
    return submission;
  }

 private:
  std::unique_ptr<v1::AgentService::Stub> server_;
  std::unique_ptr<v1::ShufflerService::Stub> shuffler_;
};

// Test certificates, made once per binary (deploy/make_test_certs.sh).
class Pki {
 public:
  static const std::string& Dir() {
    static const std::string* dir = [] {
      char pattern[] = "/tmp/ldp-shuffle-certs-XXXXXX";
      auto* d = new std::string(mkdtemp(pattern));
      const std::string command =
          std::string("bash " LDP_SOURCE_DIR "/deploy/make_test_certs.sh ") +
          *d + " >/dev/null";
      EXPECT_EQ(std::system(command.c_str()), 0) << command;
      return d;
    }();
    return *dir;
  }
  static std::string File(const std::string& name) {
    return Dir() + "/" + name;
  }
};

// The real server (TLS, trusting the shuffler certificate's name) and the
// real shuffler in front of it, with one shuffled study.
class ShuffledStudyTest : public ::testing::Test {
 protected:
  ShuffledStudyTest()
      : server_({"--tls_cert_file=" + Pki::File("server.pem"),
                 "--tls_key_file=" + Pki::File("server.key"),
                 "--tls_client_ca_file=" + Pki::File("ca.pem"),
                 "--trusted_shufflers=ldp-shuffler"}) {}

  void SetUp() override {
    server_.set_channel_tls({.ca_file = Pki::File("ca.pem")});
    ASSERT_OK(server_.Start());
    shuffler_ = std::make_unique<ShufflerProcess>(std::vector<std::string>{
        "--server=" + server_.address(), "--server_ca=" + Pki::File("ca.pem"),
        "--client_cert=" + Pki::File("shuffler.pem"),
        "--client_key=" + Pki::File("shuffler.key"),
        "--ticket_key_file=" + server_.directory() +
            "/ldp.db.shuffle_keys.ticket_key",
        "--deadline_margin_seconds=0"});
    ASSERT_OK(shuffler_->Start());
    v1::StudySpec spec;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(kStudyText, &spec));
    AnalystClient analyst(server_);
    absl::StatusOr<v1::Study> study = analyst.CreateStudy(spec);
    ASSERT_OK(study);
    study_id_ = study->study_id();
  }

  // `n` agents' sealed submissions, prepared concurrently.
  std::vector<v1::ShuffleSubmission> Prepare(int n) {
    std::vector<v1::ShuffleSubmission> prepared(n);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        WireAgent agent(server_.NewChannel(), shuffler_->NewChannel());
        for (int i = t; i < n; i += 4) {
          absl::StatusOr<v1::ShuffleSubmission> s = agent.Prepare(i, 100 + i);
          EXPECT_OK(s);
          if (s.ok()) prepared[i] = *std::move(s);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    return prepared;
  }

  // The server's report count for the study, waited for until it reaches
  // at least `at_least` (or 30 s pass).
  int64_t ServerReports(int64_t at_least) {
    AnalystClient analyst(server_);
    int64_t n = -1;
    for (int i = 0; i < 300; ++i) {
      absl::StatusOr<v1::Study> study = analyst.GetStudy(study_id_);
      if (study.ok()) n = static_cast<int64_t>(study->status().num_reports());
      if (n >= at_least) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return n;
  }

  std::string ServerDb() const { return server_.directory() + "/ldp.db"; }

  ServerProcess server_;
  std::unique_ptr<ShufflerProcess> shuffler_;
  uint64_t study_id_ = 0;
};

TEST_F(ShuffledStudyTest, TheServerCountsBatchesAndKeepsNoAgentBesideThem) {
  WireAgent agent(server_.NewChannel(), shuffler_->NewChannel());
  std::vector<v1::ShuffleSubmission> prepared = Prepare(130);
  for (const v1::ShuffleSubmission& s : prepared) {
    absl::StatusOr<v1::SubmitAck> ack = agent.Submit(s);
    ASSERT_OK(ack);
    EXPECT_EQ(ack->code(), 0) << ack->message();
  }
  // The threshold is 100 plus at most 10: one batch, the rest held.
  const int64_t counted = ServerReports(kMinBatch);
  EXPECT_GE(counted, kMinBatch);
  EXPECT_LE(counted, kMinBatch + 10);
  AnalystClient analyst(server_);
  absl::StatusOr<v1::GetEstimatesResponse> estimates =
      analyst.GetEstimates(study_id_);
  ASSERT_OK(estimates);
  const v1::ShuffledGuarantee& g = estimates->estimates(0).shuffled();
  EXPECT_EQ(g.num_batches(), 1u);
  EXPECT_EQ(static_cast<int64_t>(g.smallest_batch()), counted);
  EXPECT_LE(g.central_epsilon(), 1.0);
  EXPECT_GT(g.local_epsilon(), 1.0);
  // Nothing ties a report to an agent or a time on the server.
  EXPECT_EQ(QuerySqliteInt(ServerDb(), "SELECT count(*) FROM shuffled_reports"),
            counted);
  EXPECT_EQ(QuerySqliteInt(ServerDb(), "SELECT count(*) FROM reports"), 0);
  EXPECT_EQ(QuerySqliteInt(ServerDb(), "SELECT count(*) FROM ledger"), 0);
  EXPECT_EQ(
      QuerySqliteInt(ServerDb(),
                     "SELECT count(*) FROM pragma_table_info('shuffled_"
                     "reports') WHERE name NOT IN ('round_id', 'question', "
                     "'report_id', 'payload')"),
      0);
  const std::string log = ReadFileOrEmpty(server_.directory() + "/server.log");
  for (const v1::ShuffleSubmission& s : prepared) {
    v1::ShuffleTicket ticket;
    ticket.ParseFromString(s.ticket().ticket());
    EXPECT_THAT(log, ::testing::Not(HasSubstr(
                         absl::StrCat("agent_id=", ticket.agent_id(), " "))));
  }
}

TEST_F(ShuffledStudyTest, ASecondReportForOneTaskIsRefused) {
  WireAgent agent(server_.NewChannel(), shuffler_->NewChannel());
  std::vector<v1::ShuffleSubmission> prepared = Prepare(1);
  ASSERT_EQ(agent.Submit(prepared[0])->code(), 0);
  EXPECT_EQ(agent.Submit(prepared[0])->code(), 0);  // an identical retry
  v1::ShuffleSubmission second = prepared[0];
  second.mutable_sealed()->mutable_ciphertext()->back() ^= 1;
  absl::StatusOr<v1::SubmitAck> ack = agent.Submit(second);
  ASSERT_OK(ack);
  EXPECT_EQ(ack->code(), static_cast<int>(absl::StatusCode::kAlreadyExists));
}

// Delivers `payloads` straight to the server as the caller `cert` names.
grpc::Status Deliver(const ServerProcess& server, const std::string& cert,
                     const v1::ShuffledBatchHeader& header,
                     const std::vector<v1::SealedPayload>& payloads,
                     v1::DeliverBatchResponse* response) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      server.NewChannel({.ca_file = Pki::File("ca.pem"),
                         .cert_file = Pki::File(cert + ".pem"),
                         .key_file = Pki::File(cert + ".key")});
  EXPECT_OK(channel);
  auto stub = v1::ShuffledIngestService::NewStub(*channel);
  grpc::ClientContext context;
  auto stream = stub->DeliverBatch(&context, response);
  v1::DeliverBatchRequest request;
  *request.mutable_header() = header;
  for (const v1::SealedPayload& p : payloads) *request.add_payloads() = p;
  stream->Write(request);
  stream->WritesDone();
  return stream->Finish();
}

v1::ShuffledBatchHeader HeaderOf(const v1::ShuffleSubmission& s, int n) {
  v1::ShuffleTicket t;
  t.ParseFromString(s.ticket().ticket());
  v1::ShuffledBatchHeader h;
  h.set_batch_id(std::string(16, static_cast<char>(n)));
  h.set_study_id(t.study_id());
  h.set_round_id(t.round_id());
  h.set_shuffled_task_id(t.shuffled_task_id());
  h.set_key_id(t.key_id());
  h.set_question_digest(t.question_digest());
  h.set_num_reports(n);
  return h;
}

TEST_F(ShuffledStudyTest, TheServerRefusesSmallBatchesAndUntrustedCallers) {
  std::vector<v1::ShuffleSubmission> prepared = Prepare(kMinBatch + 1);
  std::vector<v1::SealedPayload> payloads;
  for (const auto& s : prepared) payloads.push_back(s.sealed());
  v1::DeliverBatchResponse response;
  std::vector<v1::SealedPayload> few(payloads.begin(), payloads.begin() + 50);
  grpc::Status small =
      Deliver(server_, "shuffler", HeaderOf(prepared[0], 50), few, &response);
  EXPECT_EQ(small.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(small.error_message(), HasSubstr("min_batch"));
  grpc::Status agent = Deliver(server_, "client", HeaderOf(prepared[0], 101),
                               payloads, &response);
  EXPECT_EQ(agent.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(ServerReports(0), 0);
  // A tampered payload is dropped and said so; the rest count.
  payloads[7].mutable_ciphertext()->front() ^= 1;
  grpc::Status ok = Deliver(server_, "shuffler", HeaderOf(prepared[0], 101),
                            payloads, &response);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(response.accepted(), 100u);
  EXPECT_EQ(response.not_opened(), 1u);
  EXPECT_THAT(response.first_error(), HasSubstr("does not open"));
  EXPECT_EQ(ServerReports(100), 100);
}

TEST_F(ShuffledStudyTest, KillingTheShufflerLosesAndDoublesNothing) {
  std::vector<v1::ShuffleSubmission> prepared = Prepare(3 * kMinBatch);
  std::set<int> acked;
  std::atomic<bool> done{false};
  std::thread killer([&] {
    for (int round = 0; !done.load() && round < 12; ++round) {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
      shuffler_->Kill();
      EXPECT_OK(shuffler_->Start());
    }
  });
  // Each agent retries until its report is acknowledged: OK (stored, or an
  // identical retry) or ALREADY_EXISTS (an earlier attempt was stored and
  // already released).
  for (int i = 0; i < static_cast<int>(prepared.size()); ++i) {
    for (int attempt = 0; attempt < 200 && !acked.count(i); ++attempt) {
      WireAgent agent(server_.NewChannel(), shuffler_->NewChannel());
      absl::StatusOr<v1::SubmitAck> ack = agent.Submit(prepared[i]);
      if (ack.ok() &&
          (ack->code() == 0 ||
           ack->code() == static_cast<int>(absl::StatusCode::kAlreadyExists))) {
        acked.insert(i);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  done = true;
  killer.join();
  ASSERT_EQ(acked.size(), prepared.size());
  // Every report was acknowledged; the shuffler released whole batches of
  // at least 100 and holds the rest. Once its outbox is empty, the server
  // holds exactly what it released: nothing lost, nothing twice.
  const std::string shuffler_db = shuffler_->directory() + "/data/shuffler.db";
  int64_t counted = 0, held = 0, outbox = 0;
  for (int i = 0; i < 300; ++i) {
    outbox =
        QuerySqliteInt(shuffler_db, "SELECT count(*) FROM outbox_payloads");
    held = QuerySqliteInt(shuffler_db, "SELECT count(*) FROM pending");
    counted = ServerReports(0);
    if (outbox == 0 && counted + held == 3 * kMinBatch) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(outbox, 0);
  EXPECT_GE(counted, 2 * kMinBatch);
  EXPECT_EQ(counted + held, 3 * kMinBatch) << shuffler_->Log();
  EXPECT_EQ(QuerySqliteInt(ServerDb(), "SELECT count(*) FROM shuffled_reports"),
            counted);
}

// A fake server peer in the test process: records every delivered batch.
class RecordingIngest final : public v1::ShuffledIngestService::Service {
 public:
  grpc::Status DeliverBatch(grpc::ServerContext*,
                            grpc::ServerReader<v1::DeliverBatchRequest>* reader,
                            v1::DeliverBatchResponse* response) override {
    std::vector<std::string> order;
    v1::DeliverBatchRequest message;
    while (reader->Read(&message)) {
      for (const auto& p : message.payloads()) order.push_back(p.ciphertext());
    }
    response->set_accepted(order.size());
    absl::MutexLock lock(&mutex_);
    batches_.push_back(std::move(order));
    return grpc::Status::OK;
  }
  std::vector<std::vector<std::string>> batches() {
    absl::MutexLock lock(&mutex_);
    return batches_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<std::vector<std::string>> batches_;
};

TEST(ShufflerOrderTest, DeliveredOrderIsIndependentOfSubmissionOrder) {
  constexpr int kN = 1000;
  RecordingIngest ingest;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&ingest);
  std::unique_ptr<grpc::Server> fake = builder.BuildAndStart();
  absl::StatusOr<Ed25519KeyPair> tickets = GenerateEd25519KeyPair();
  absl::StatusOr<HpkeKeyPair> hpke = GenerateHpkeKeyPair();
  ASSERT_OK(tickets);
  ASSERT_OK(hpke);
  char pattern[] = "/tmp/ldp-order-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::ofstream(dir + "/ticket_key")
      << absl::BytesToHexString(absl::string_view(
             reinterpret_cast<const char*>(tickets->public_key.data()), 32));
  ShufflerProcess shuffler({"--server=127.0.0.1:" + std::to_string(port),
                            "--insecure_server_channel_for_testing",
                            "--ticket_key_file=" + dir + "/ticket_key",
                            "--min_batch_floor=1000", "--extra_max_fraction=0",
                            "--deadline_margin_seconds=0"});
  ASSERT_OK(shuffler.Start());
  v1::ShuffleTicket ticket;
  ticket.set_study_id(1);
  ticket.set_round_id(1);
  ticket.set_shuffled_task_id(ShuffledTaskId(1, 0));
  ticket.set_key_id(HpkeKeyId(HpkeKeyBytes(hpke->public_key)));
  ticket.set_question_digest(std::string(32, 'q'));
  ticket.set_min_batch(kN);
  ticket.mutable_deadline()->set_seconds(
      absl::ToUnixSeconds(absl::Now() + absl::Hours(1)));
  v1::ShuffleParams params;
  params.set_hpke_public_key(std::string(HpkeKeyBytes(hpke->public_key)));
  auto stub = v1::ShufflerService::NewStub(shuffler.NewChannel());
  std::vector<std::string> sent;
  for (int i = 0; i < kN; i += 50) {  // in order, 50 per call
    v1::SubmitRequest request;
    for (int j = i; j < i + 50; ++j) {
      ticket.set_agent_id(j + 1);
      v1::ShuffleSubmission* s = request.add_submissions();
      *s->mutable_ticket() = *SignTicket(ticket, *tickets);
      *params.mutable_ticket() = s->ticket();
      v1::Report report;
      report.set_protocol_version(1);
      report.set_task_id(ticket.shuffled_task_id());
      report.set_report_id(std::string(16, static_cast<char>(j)));
      report.mutable_item()->set_item(j % 4);
      *s->mutable_sealed() = *SealReport(report, params);
      sent.push_back(s->sealed().ciphertext());
    }
    grpc::ClientContext context;
    v1::SubmitResponse response;
    ASSERT_TRUE(stub->Submit(&context, request, &response).ok());
    for (const auto& ack : response.acks()) ASSERT_EQ(ack.code(), 0);
  }
  for (int i = 0; i < 300 && ingest.batches().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::vector<std::vector<std::string>> batches = ingest.batches();
  ASSERT_EQ(batches.size(), 1u) << shuffler.Log();
  ASSERT_EQ(batches[0].size(), static_cast<size_t>(kN));
  std::map<std::string, int> position;
  for (int j = 0; j < kN; ++j) position[batches[0][j]] = j;
  std::vector<int> to;
  for (const std::string& c : sent) to.push_back(position.at(c));
  // Under independence ρ has mean 0 and standard deviation 1/√(n − 1).
  const double rho = Spearman(to);
  EXPECT_LT(std::abs(rho), 5 / std::sqrt(kN - 1.0)) << "rho = " << rho;
  fake->Shutdown();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ldp::testing
