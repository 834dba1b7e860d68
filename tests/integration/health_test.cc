// grpc.health.v1 on a real ldp-server, on the main port and on the probes'
// plaintext --health_port:
// - the health port serves health and nothing else (no reflection, no
//   ldp.v1), while the main port keeps reflection;
// - health answers SERVING for "" and for each ldp.v1 service served, and
//   NOT_FOUND for any other name;
// - from SIGTERM on, both ports answer NOT_SERVING for every name while
//   calls are still served (the drain), and the process then exits 0;
// - a second server cannot take either port of a running one.
// Debian ships neither the health nor the reflection proto headers, so the
// calls are generic and the few message bytes are written by hand.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/integration/server_process.h"
#include "tests/testing/status_matchers.h"

namespace ldp::testing {
namespace {

constexpr char kHealthCheck[] = "/grpc.health.v1.Health/Check";
constexpr char kReflection[] =
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
constexpr char kAgentService[] = "ldp.v1.AgentService";
constexpr char kAnalystService[] = "ldp.v1.AnalystService";
constexpr char kRelayService[] = "ldp.v1.RelayService";

struct Reply {
  grpc::Status status;
  std::string bytes;  // the response message, if OK
};

// One unary call with raw message bytes. A bidi-streaming method (server
// reflection) answers it too: one request, then half-close.
Reply Call(const std::shared_ptr<grpc::Channel>& channel,
           const std::string& method, const std::string& request_bytes) {
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  auto call = stub.PrepareUnaryCall(&context, method, request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  Reply reply;
  call->Finish(&response, &reply.status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!queue.Next(&tag, &ok) || !ok) {
    reply.status =
        grpc::Status(grpc::StatusCode::INTERNAL, "completion queue failed");
  } else if (reply.status.ok()) {
    grpc::Slice out;
    if (response.DumpToSingleSlice(&out).ok()) {
      reply.bytes.assign(reinterpret_cast<const char*>(out.begin()),
                         out.size());
    }
  }
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  return reply;
}

// A length-delimited field with a short (< 128 bytes) value.
std::string StringField(int number, absl::string_view value) {
  return absl::StrCat(std::string(1, static_cast<char>(number << 3 | 2)),
                      std::string(1, static_cast<char>(value.size())), value);
}

// Health/Check(service) as "OK SERVING", "OK NOT_SERVING" or, for a failed
// call, its status code's name ("NOT_FOUND"), so expectations read plainly.
// HealthCheckRequest {service = 1}; HealthCheckResponse {status = 1}, with
// SERVING = 1 and NOT_SERVING = 2 (0, UNKNOWN, is the empty message).
std::string Health(const std::shared_ptr<grpc::Channel>& channel,
                   absl::string_view service) {
  const Reply reply = Call(channel, kHealthCheck, StringField(1, service));
  switch (reply.status.error_code()) {
    case grpc::StatusCode::OK:
      break;
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    default:
      return absl::StrCat("status ", reply.status.error_code(), ": ",
                          reply.status.error_message());
  }
  if (reply.bytes == std::string("\x08\x01", 2)) return "OK SERVING";
  if (reply.bytes == std::string("\x08\x02", 2)) return "OK NOT_SERVING";
  return absl::StrCat("OK with unexpected bytes of size ", reply.bytes.size());
}

// ServerReflectionRequest {file_containing_symbol = 4}.
Reply ReflectSymbol(const std::shared_ptr<grpc::Channel>& channel,
                    absl::string_view symbol) {
  return Call(channel, kReflection, StringField(4, symbol));
}

// An ldp-server with the probes' listener on a free port (--health_port=0;
// the port is read from --health_port_file, written before the server's
// own port file, so it is there once Start returns).
class HealthServer {
 public:
  explicit HealthServer(std::vector<std::string> flags = {})
      : port_file_(absl::StrCat(
            ::testing::TempDir(), "/health_port_", getpid(), "_",
            ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        server_(WithHealthFlags(std::move(flags), port_file_)) {}

  absl::Status Start() {
    if (absl::Status started = server_.Start(); !started.ok()) return started;
    int port = 0;
    std::ifstream(port_file_) >> port;
    if (port <= 0) return absl::InternalError("no port in --health_port_file");
    health_port_ = port;
    health_channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                          grpc::InsecureChannelCredentials());
    return absl::OkStatus();
  }

  ServerProcess& process() { return server_; }
  std::shared_ptr<grpc::Channel> main_channel() const {
    return server_.NewChannel();
  }
  const std::shared_ptr<grpc::Channel>& health_channel() const {
    return health_channel_;
  }
  int health_port() const { return health_port_; }

 private:
  static std::vector<std::string> WithHealthFlags(
      std::vector<std::string> flags, const std::string& port_file) {
    flags.push_back("--health_port=0");
    flags.push_back("--health_port_file=" + port_file);
    return flags;
  }

  std::string port_file_;
  ServerProcess server_;
  std::shared_ptr<grpc::Channel> health_channel_;
  int health_port_ = 0;
};

// gRPC would let a second process bind a port in use (SO_REUSEPORT) and the
// kernel would then split new connections between the two servers: agents
// of one deployment would silently report to another's database. So a
// second ldp-server on either port of a running one must fail to start,
// and the first keeps serving.
TEST(Listeners, ASecondServerCannotTakeEitherPortOfARunningOne) {
  HealthServer first;
  ASSERT_OK(first.Start());
  const std::string address = first.process().address();
  const std::string main_port = address.substr(address.rfind(':') + 1);

  ServerProcess same_main_port({"--port=" + main_port});
  const absl::Status main_status = same_main_port.Start();
  EXPECT_FALSE(main_status.ok());
  EXPECT_NE(
      main_status.message().find("cannot listen on 127.0.0.1:" + main_port),
      std::string::npos)
      << main_status;

  ServerProcess same_health_port(
      {absl::StrCat("--health_port=", first.health_port())});
  const absl::Status health_status = same_health_port.Start();
  EXPECT_FALSE(health_status.ok());
  EXPECT_NE(health_status.message().find("for --health_port (in use?)"),
            std::string::npos)
      << health_status;

  EXPECT_EQ(Health(first.main_channel(), kAgentService), "OK SERVING");
  EXPECT_EQ(Health(first.health_channel(), ""), "OK SERVING");
}

TEST(Health, HealthPortServesHealthOnly) {
  HealthServer server;
  ASSERT_OK(server.Start());
  // The main port keeps reflection (deliberately: it serves the public
  // contract of proto/), which shows the reflection call itself is sound.
  const Reply main = ReflectSymbol(server.main_channel(), kAgentService);
  ASSERT_TRUE(main.status.ok()) << main.status.error_message();
  EXPECT_NE(main.bytes.find("AgentService"), std::string::npos);

  const Reply probe = ReflectSymbol(server.health_channel(), kAgentService);
  EXPECT_EQ(probe.status.error_code(), grpc::StatusCode::UNIMPLEMENTED)
      << probe.status.error_message();
  EXPECT_EQ(probe.bytes, "");
  EXPECT_EQ(
      Call(server.health_channel(), "/ldp.v1.AnalystService/ListStudies", "")
          .status.error_code(),
      grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(Health(server.health_channel(), ""), "OK SERVING");
}

TEST(Health, AnswersForEachServiceOnBothPorts) {
  HealthServer server;
  ASSERT_OK(server.Start());
  for (const auto& channel : {server.main_channel(), server.health_channel()}) {
    EXPECT_EQ(Health(channel, ""), "OK SERVING");
    EXPECT_EQ(Health(channel, kAgentService), "OK SERVING");
    EXPECT_EQ(Health(channel, kAnalystService), "OK SERVING");
    // Not served without --relay_service, so not known to health either.
    EXPECT_EQ(Health(channel, kRelayService), "NOT_FOUND");
    EXPECT_EQ(Health(channel, "ldp.v1.NoSuchService"), "NOT_FOUND");
  }
}

TEST(Health, AnswersForRelayServiceWhenServed) {
  HealthServer server({"--relay_service"});
  ASSERT_OK(server.Start());
  for (const auto& channel : {server.main_channel(), server.health_channel()}) {
    EXPECT_EQ(Health(channel, kRelayService), "OK SERVING");
  }
}

// Polls Health(channel, "") until it is NOT_SERVING or `timeout` passes;
// what it answered last.
std::string AwaitNotServing(const std::shared_ptr<grpc::Channel>& channel,
                            std::chrono::seconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  std::string answer = Health(channel, "");
  while (answer != "OK NOT_SERVING" && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    answer = Health(channel, "");
  }
  return answer;
}

TEST(Health, SigtermDrainsWithNotServingThenExitsZero) {
  // A drain far longer than the test, ended by a second SIGTERM: what is
  // observed during it cannot race its end.
  HealthServer server({"--drain_seconds=600", "--relay_service"});
  ASSERT_OK(server.Start());
  AnalystClient analyst(server.process());
  const auto main_channel = server.main_channel();
  EXPECT_EQ(Health(main_channel, kAgentService), "OK SERVING");

  server.process().SendSignal(SIGTERM);
  EXPECT_EQ(AwaitNotServing(main_channel, std::chrono::seconds(30)),
            "OK NOT_SERVING");
  for (const auto& channel : {main_channel, server.health_channel()}) {
    EXPECT_EQ(Health(channel, ""), "OK NOT_SERVING");
    EXPECT_EQ(Health(channel, kAgentService), "OK NOT_SERVING");
    EXPECT_EQ(Health(channel, kAnalystService), "OK NOT_SERVING");
    EXPECT_EQ(Health(channel, kRelayService), "OK NOT_SERVING");
    EXPECT_EQ(Health(channel, "ldp.v1.NoSuchService"), "NOT_FOUND");
  }
  // Draining is not refusing: calls are still answered on their merits.
  EXPECT_THAT(analyst.GetStudy(424242), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(server.process()
                .WaitForExit(std::chrono::milliseconds(200))
                .status()
                .code(),
            absl::StatusCode::kDeadlineExceeded);

  server.process().SendSignal(SIGTERM);  // ends the drain
  absl::StatusOr<int> exit =
      server.process().WaitForExit(std::chrono::seconds(60));
  ASSERT_OK(exit);
  ASSERT_TRUE(WIFEXITED(*exit)) << "wait status " << *exit;
  EXPECT_EQ(WEXITSTATUS(*exit), 0);
}

TEST(Health, DrainEndsByItselfAndExitsZero) {
  HealthServer server({"--drain_seconds=1"});
  ASSERT_OK(server.Start());
  server.process().SendSignal(SIGTERM);
  absl::StatusOr<int> exit =
      server.process().WaitForExit(std::chrono::seconds(60));
  ASSERT_OK(exit);
  ASSERT_TRUE(WIFEXITED(*exit)) << "wait status " << *exit;
  EXPECT_EQ(WEXITSTATUS(*exit), 0);
}

}  // namespace
}  // namespace ldp::testing
