// ldp-server: the aggregator as a gRPC service on its embedded SQLite store.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/flags_usage.h"
#include "common/secure_random.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/aggregator.h"
#include "server/grpc/agent_service.h"
#include "server/grpc/analyst_service.h"
#include "server/sqlite_store.h"

ABSL_FLAG(std::string, listen, "127.0.0.1",
          "Address to listen on (use 0.0.0.0 to accept remote agents).");
ABSL_FLAG(int, port, 50051, "TCP port; 0 picks a free one (see --port_file).");
ABSL_FLAG(std::string, port_file, "",
          "If set, the chosen port is written here once the server listens.");
ABSL_FLAG(std::string, db, "ldp.db",
          "SQLite database (WAL) holding agents, studies, reports and the "
          "budget ledger; created if missing, resumed if present.");
ABSL_FLAG(std::string, analyst_token_file, "",
          "File holding the analyst credential (>= 16 characters). If unset, "
          "<db>.analyst_token is used, and created with a fresh random token "
          "(mode 0600) if it does not exist.");
ABSL_FLAG(std::string, enrollment_token_file, "",
          "If set, agents must present the token in this file to enroll; "
          "otherwise enrollment is open.");

namespace ldp {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp-server: %s\n", status.ToString().c_str());
  return 1;
}

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(text.str()));
}

// A fresh 32-byte random token, hex encoded, written with mode 0600.
absl::StatusOr<std::string> CreateToken(const std::string& path) {
  auto random = SecureRandom::Create();
  if (!random.ok()) return random.status();
  std::string token;
  for (int i = 0; i < 4; ++i) absl::StrAppendFormat(&token, "%016x", (**random)());
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return absl::PermissionDeniedError(absl::StrCat("cannot create ", path));
  const std::string line = token + "\n";
  const bool ok = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                  fsync(fd) == 0;
  close(fd);
  if (!ok) return absl::InternalError(absl::StrCat("cannot write ", path));
  return token;
}

absl::StatusOr<std::string> AnalystToken() {
  std::string path = absl::GetFlag(FLAGS_analyst_token_file);
  if (!path.empty()) return ReadToken(path);
  path = absl::GetFlag(FLAGS_db) + ".analyst_token";
  if (access(path.c_str(), F_OK) == 0) return ReadToken(path);
  auto token = CreateToken(path);
  if (token.ok()) std::printf("ldp-server: analyst token written to %s\n", path.c_str());
  return token;
}

int Run() {
  auto analyst_token = AnalystToken();
  if (!analyst_token.ok()) return Fail(analyst_token.status());
  std::string enrollment_token;
  if (const std::string path = absl::GetFlag(FLAGS_enrollment_token_file); !path.empty()) {
    auto token = ReadToken(path);
    if (!token.ok()) return Fail(token.status());
    enrollment_token = *token;
  }
  auto store = SqliteStore::Open({.path = absl::GetFlag(FLAGS_db)});
  if (!store.ok()) return Fail(store.status());
  ProtoStudySpecCodec codec;
  auto aggregator = Aggregator::Create({.spec_codec = &codec,
                                        .clock = RealClock::Get(),
                                        .analyst_token = *analyst_token,
                                        .enrollment_token = enrollment_token},
                                       *std::move(store));
  if (!aggregator.ok()) return Fail(aggregator.status());

  AgentServiceImpl agent_service(aggregator->get());
  AnalystServiceImpl analyst_service(aggregator->get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat(absl::GetFlag(FLAGS_listen), ":",
                                        absl::GetFlag(FLAGS_port)),
                           grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&agent_service);
  builder.RegisterService(&analyst_service);
  builder.SetMaxReceiveMessageSize(16 << 20);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(absl::UnavailableError(absl::StrCat(
        "cannot listen on ", absl::GetFlag(FLAGS_listen), ":",
        absl::GetFlag(FLAGS_port), " (in use, or not a local address?)")));
  }
  if (const std::string path = absl::GetFlag(FLAGS_port_file); !path.empty()) {
    std::ofstream(path) << port << "\n";
  }
  std::printf("ldp-server: listening on %s:%d, database %s\n",
              absl::GetFlag(FLAGS_listen).c_str(), port,
              absl::GetFlag(FLAGS_db).c_str());
  std::fflush(stdout);

  // Rounds close at their deadline even when no analyst is watching.
  std::atomic<bool> stopping{false};
  std::thread closer([&] {
    while (!stopping.load()) {
      (*aggregator)->CloseExpiredRounds();
      for (int i = 0; i < 10 && !stopping.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  std::printf("ldp-server: signal %d, shutting down\n", received);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  stopping = true;
  closer.join();
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The LDP aggregator: collects locally randomized reports over gRPC, "
      "keeps every agent's privacy budget in its store, and serves "
      "estimates with confidence intervals.\n"
      "Usage: ldp-server [--listen=ADDR] [--port=N] [--db=PATH] "
      "[--analyst_token_file=PATH] [--enrollment_token_file=PATH]");
  ldp::ShowOnlyFlagsFrom("server/main");
  // Block the shutdown signals in every thread; main waits for them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  absl::ParseCommandLine(argc, argv);
  // Debian's Abseil checks every mutex acquisition for lock-order cycles
  // (about 1% of ingest time); the server's lock order is fixed by design.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return ldp::Run();
}
