// Transport and identity against a real ldp-server: TLS with certificates
// made at test time by deploy/make_test_certs.sh (the openssl command);
// plaintext clients cannot talk to a TLS server; with mutual TLS required,
// agents need a certificate from the configured CA; an agent credential on
// the analyst API is PERMISSION_DENIED; a plaintext server will not listen
// beyond loopback unless told to; limits from the command line answer
// RESOURCE_EXHAUSTED (rate, enrollment quota across a restart, size).
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/integration/agent_runner.h"
#include "tests/integration/mean_study.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

#ifndef LDP_SOURCE_DIR
#error "LDP_SOURCE_DIR must name the repository (for deploy/make_test_certs.sh)"
#endif

namespace ldp::testing {
namespace {

v1::StudySpec Spec() { return MeanStudySpec("tls", 1, "duchi"); }

// Test certificates, made once per test binary.
class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char pattern[] = "/tmp/ldp-certs-XXXXXX";
    dir_ = new std::string(mkdtemp(pattern));
    for (const char* sub : {"good", "rogue"}) {
      const std::string command =
          std::string("bash " LDP_SOURCE_DIR "/deploy/make_test_certs.sh ") +
          *dir_ + "/" + sub + " >/dev/null";
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
    }
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    std::filesystem::remove_all(*dir_, ignored);
    delete dir_;
  }

  static std::string File(const std::string& name, const char* pki = "good") {
    return *dir_ + "/" + pki + "/" + name;
  }
  static std::vector<std::string> TlsFlags() {
    return {"--tls_cert_file=" + File("server.pem"),
            "--tls_key_file=" + File("server.key")};
  }
  static std::vector<std::string> MtlsFlags() {
    std::vector<std::string> flags = TlsFlags();
    flags.push_back("--tls_client_ca_file=" + File("ca.pem"));
    flags.push_back("--require_client_cert");
    return flags;
  }
  static ClientTlsFiles ServerOnly() { return {.ca_file = File("ca.pem")}; }
  static ClientTlsFiles WithClientCert(const char* pki = "good") {
    return {.ca_file = File("ca.pem"),
            .cert_file = File("client.pem", pki),
            .key_file = File("client.key", pki)};
  }

  // One Enroll call over `channel` (a fresh context, short deadline).
  static grpc::Status Enroll(const std::shared_ptr<grpc::Channel>& channel,
                             const std::string& enrollment_token = "",
                             v1::EnrollResponse* response = nullptr) {
    auto stub = v1::AgentService::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    v1::EnrollRequest request;
    request.set_enrollment_token(enrollment_token);
    v1::EnrollResponse ignored;
    return stub->Enroll(&context, request,
                        response != nullptr ? response : &ignored);
  }

  static grpc::Status GetTasks(const std::shared_ptr<grpc::Channel>& channel,
                               const std::string& bearer,
                               grpc::ClientContext* context) {
    auto stub = v1::AgentService::NewStub(channel);
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(5));
    context->AddMetadata("authorization", "Bearer " + bearer);
    v1::GetTasksResponse response;
    return stub->GetTasks(context, v1::GetTasksRequest(), &response);
  }

  static std::string* dir_;
};

std::string* TlsTest::dir_ = nullptr;

Record RecordWithX(double x) {
  Record r;
  r.values["x"] = x;
  return r;
}

TEST_F(TlsTest, AnAgentSessionWorksOverTls) {
  ServerProcess server(TlsFlags());
  server.set_channel_tls(ServerOnly());
  ASSERT_OK(server.Start());
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(Spec());
  ASSERT_OK(study);
  const auto outcomes =
      RunAgents(server, {RecordWithX(0.25), RecordWithX(0.75)}, 1);
  for (const AgentOutcome& outcome : outcomes) {
    EXPECT_GT(outcome.agent_id, 0u);
    EXPECT_EQ(outcome.accepted, 1);
  }
  auto status = analyst.GetStudy(study->study_id());
  ASSERT_OK(status);
  EXPECT_EQ(status->status().num_reports(), 2u);
}

TEST_F(TlsTest, APlaintextClientCannotTalkToATlsServer) {
  ServerProcess server(TlsFlags());
  ASSERT_OK(server.Start());
  auto plaintext = server.NewChannel(ClientTlsFiles{});
  ASSERT_OK(plaintext);
  EXPECT_EQ(Enroll(*plaintext).error_code(), grpc::StatusCode::UNAVAILABLE);
  // A client that trusts another CA refuses the server's certificate.
  auto wrong_ca = server.NewChannel({.ca_file = File("ca.pem", "rogue")});
  ASSERT_OK(wrong_ca);
  EXPECT_EQ(Enroll(*wrong_ca).error_code(), grpc::StatusCode::UNAVAILABLE);
  auto good = server.NewChannel(ServerOnly());
  ASSERT_OK(good);
  EXPECT_TRUE(Enroll(*good).ok());
}

TEST_F(TlsTest, MutualTlsAdmitsOnlyAgentsWithACertificateFromTheCa) {
  ServerProcess server(MtlsFlags());
  server.set_channel_tls(ServerOnly());  // the analyst needs no certificate
  ASSERT_OK(server.Start());

  auto no_cert = server.NewChannel(ServerOnly());
  ASSERT_OK(no_cert);
  const grpc::Status refused = Enroll(*no_cert);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(refused.error_message().find("client certificate"),
            std::string::npos);

  // A certificate from another CA fails the handshake itself.
  auto rogue = server.NewChannel(WithClientCert("rogue"));
  ASSERT_OK(rogue);
  EXPECT_EQ(Enroll(*rogue).error_code(), grpc::StatusCode::UNAVAILABLE);

  auto with_cert = server.NewChannel(WithClientCert());
  ASSERT_OK(with_cert);
  v1::EnrollResponse enrolled;
  ASSERT_TRUE(Enroll(*with_cert, "", &enrolled).ok());
  // The same valid bearer token without the certificate is refused.
  grpc::ClientContext without, with;
  EXPECT_EQ(GetTasks(*no_cert, enrolled.credential().bearer_token(), &without)
                .error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(
      GetTasks(*with_cert, enrolled.credential().bearer_token(), &with).ok());

  // A whole agent session with a certificate; the analyst reads the result.
  AnalystClient analyst(server);
  auto study = analyst.CreateStudy(Spec());
  ASSERT_OK(study);
  server.set_channel_tls(WithClientCert());
  const auto outcomes = RunAgents(server, {RecordWithX(0.5)}, 1);
  EXPECT_EQ(outcomes[0].accepted, 1);
}

TEST_F(TlsTest, AnAgentCredentialCannotCallTheAnalystApi) {
  ServerProcess server(TlsFlags());
  server.set_channel_tls(ServerOnly());
  ASSERT_OK(server.Start());
  v1::EnrollResponse enrolled;
  ASSERT_TRUE(Enroll(server.NewChannel(), "", &enrolled).ok());
  auto analyst = v1::AnalystService::NewStub(server.NewChannel());
  auto call = [&](const std::string& token) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    context.AddMetadata("authorization", "Bearer " + token);
    v1::CreateStudyRequest request;
    *request.mutable_spec() = Spec();
    v1::Study response;
    return analyst->CreateStudy(&context, request, &response).error_code();
  };
  EXPECT_EQ(call(enrolled.credential().bearer_token()),
            grpc::StatusCode::PERMISSION_DENIED);
  // A forged agent token (right shape, wrong secret) is just unknown.
  std::string forged = enrolled.credential().bearer_token();
  forged.back() = forged.back() == '0' ? '1' : '0';
  EXPECT_EQ(call(forged), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(call("not-a-token"), grpc::StatusCode::UNAUTHENTICATED);
  AnalystClient real(server);
  auto studies = real.CreateStudy(Spec());
  EXPECT_OK(studies);
}

TEST_F(TlsTest, APlaintextServerStaysOnLoopbackUnlessAllowed) {
  ServerProcess refused({"--listen=0.0.0.0"});
  const absl::Status status = refused.Start();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("--allow_insecure"), std::string::npos)
      << status;
  ServerProcess allowed({"--listen=0.0.0.0", "--allow_insecure"});
  EXPECT_OK(allowed.Start());
}

TEST_F(TlsTest, UnreadableTlsFilesAreNamed) {
  ServerProcess missing({"--tls_cert_file=/nonexistent/server.pem",
                         "--tls_key_file=" + File("server.key")});
  const absl::Status status = missing.Start();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("--tls_cert_file /nonexistent/server.pem"),
            std::string::npos)
      << status;
  ServerProcess half({"--tls_cert_file=" + File("server.pem")});
  EXPECT_FALSE(half.Start().ok());
  EXPECT_EQ(ChannelCredentialsFromFiles({.ca_file = "/nonexistent/ca.pem"})
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST_F(TlsTest, RateLimitsAnswerResourceExhaustedWithARetryHint) {
  // Refill rates so slow (one token per 100 s) that the test's own pace
  // cannot matter.
  ServerProcess server({"--agent_rate_per_second=0.01", "--agent_burst=2",
                        "--enroll_rate_per_peer=0.01",
                        "--enroll_burst_per_peer=3"});
  ASSERT_OK(server.Start());
  auto channel = server.NewChannel();
  v1::EnrollResponse first, second;
  ASSERT_TRUE(Enroll(channel, "", &first).ok());
  ASSERT_TRUE(Enroll(channel, "", &second).ok());
  ASSERT_TRUE(Enroll(channel, "").ok());
  // The fourth enrollment from this address is over the burst of 3.
  EXPECT_EQ(Enroll(channel, "").error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);

  const std::string bearer = first.credential().bearer_token();
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    EXPECT_TRUE(GetTasks(channel, bearer, &context).ok()) << i;
  }
  grpc::ClientContext limited;
  const grpc::Status status = GetTasks(channel, bearer, &limited);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(status.error_message().find("retry in"), std::string::npos);
  const auto& trailers = limited.GetServerTrailingMetadata();
  auto hint = trailers.find("retry-after-ms");
  ASSERT_NE(hint, trailers.end());
  const int retry_ms =
      std::stoi(std::string(hint->second.data(), hint->second.size()));
  EXPECT_GT(retry_ms, 0);
  EXPECT_LE(retry_ms, 100'000);
  // Another agent has its own bucket.
  grpc::ClientContext other;
  EXPECT_TRUE(
      GetTasks(channel, second.credential().bearer_token(), &other).ok());
}

TEST_F(TlsTest, AnEnrollmentQuotaHoldsAcrossARestart) {
  const std::string tokens = *dir_ + "/tokens";
  std::ofstream(tokens) << "# device batch 1\nbatch-one-0123456789 2\n";
  ServerProcess quota({"--enrollment_tokens_file=" + tokens});
  ASSERT_OK(quota.Start());
  EXPECT_EQ(Enroll(quota.NewChannel(), "wrong-token-0123456789").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(Enroll(quota.NewChannel(), "batch-one-0123456789").ok());
  quota.Kill();
  ASSERT_OK(quota.Start());
  EXPECT_TRUE(Enroll(quota.NewChannel(), "batch-one-0123456789").ok());
  EXPECT_EQ(Enroll(quota.NewChannel(), "batch-one-0123456789").error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST_F(TlsTest, OversizedMessagesAreRefused) {
  ServerProcess server({"--max_message_bytes=65536"});
  ASSERT_OK(server.Start());
  auto stub = v1::AgentService::NewStub(server.NewChannel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  v1::EnrollRequest request;
  request.set_enrollment_token(std::string(70'000, 'x'));
  v1::EnrollResponse response;
  EXPECT_EQ(stub->Enroll(&context, request, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace ldp::testing
