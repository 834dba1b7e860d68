// ldp-shuffler's start-up, serving and shutdown; see the header.
#include "server/shuffler/shuffler_runner.h"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "common/crypto/secure_random.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "server/shuffler/core/shuffler.h"
#include "server/shuffler/grpc/shuffler_service.h"
#include "server/shuffler/shuffler_metrics.h"

namespace ldp {
namespace {

void WritePortFile(const std::string& path, int port) {
  if (!path.empty()) std::ofstream(path) << port << "\n";
}

absl::Status MakeDataDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "--data_dir ", dir, ": cannot create it: ", std::strerror(errno)));
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ListenerCredentials(
    const ShufflerProgramConfig& config) {
  if (config.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  ASSIGN_OR_RETURN(std::string cert,
                   ReadPemFile(config.tls_cert_file, "--tls_cert"));
  ASSIGN_OR_RETURN(std::string key,
                   ReadPemFile(config.tls_key_file, "--tls_key"));
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back(
      {.private_key = std::move(key), .cert_chain = std::move(cert)});
  return grpc::SslServerCredentials(options);
}

// Everything that must outlive the gRPC servers, destroyed in reverse.
struct Running {
  std::unique_ptr<SecureRandom> gen;
  std::unique_ptr<LineEventLog> event_log;
  std::unique_ptr<GrpcBatchSink> sink;
  std::unique_ptr<Shuffler> shuffler;
  std::unique_ptr<MetricsExposer> metrics;
  std::unique_ptr<ShufflerServiceImpl> service;
  grpc::CallbackGenericService health_only;  // the health port's filler
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<grpc::Server> health;
  int port = 0;
};

absl::Status StartCore(const ShufflerProgramConfig& config, Running& run) {
  RETURN_IF_ERROR(MakeDataDir(config.data_dir));
  ShufflerConfig core;
  core.db_path = config.data_dir + "/shuffler.db";
  ASSIGN_OR_RETURN(core.ticket_public_key,
                   ReadTicketKeyFile(config.ticket_key_file));
  core.min_batch_floor = config.min_batch_floor;
  core.extra_max_fraction = config.extra_max_fraction;
  core.deadline_margin = config.deadline_margin;
  core.clock = RealClock::Get();
  run.event_log =
      std::make_unique<LineEventLog>(config.log_level, RealClock::Get());
  core.event_log = run.event_log.get();
  ASSIGN_OR_RETURN(run.sink, GrpcBatchSink::Connect(config.server, {}));
  // Thresholds and permutations: unpredictable to anyone who saw arrivals.
  ASSIGN_OR_RETURN(run.gen, SecureRandom::Create());
  ASSIGN_OR_RETURN(run.shuffler,
                   Shuffler::Create(core, run.sink.get(), *run.gen));
  if (config.metrics_port >= 0) {
    ASSIGN_OR_RETURN(run.metrics,
                     StartShufflerMetrics(absl::StrCat(config.metrics_host, ":",
                                                       config.metrics_port),
                                          run.shuffler.get()));
    WritePortFile(config.metrics_port_file, run.metrics->port());
  }
  return absl::OkStatus();
}

absl::Status StartAgentServer(const ShufflerProgramConfig& config,
                              Running& run) {
  ASSIGN_OR_RETURN(const std::shared_ptr<grpc::ServerCredentials> credentials,
                   ListenerCredentials(config));
  grpc::EnableDefaultHealthCheckService(true);
  run.service = std::make_unique<ShufflerServiceImpl>(run.shuffler.get());
  grpc::ServerBuilder builder;
  // Without this a second process on the same port would start too and
  // the kernel would split agents between two databases.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(config.listen, credentials, &run.port);
  builder.RegisterService(run.service.get());
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  run.server = builder.BuildAndStart();
  if (run.server == nullptr || run.port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", config.listen,
        " (in use, not a local address, or --tls_key not the key of "
        "--tls_cert?)"));
  }
  run.server->GetHealthCheckService()->SetServingStatus(
      v1::ShufflerService::service_full_name(), true);
  WritePortFile(config.port_file, run.port);
  return absl::OkStatus();
}

// Plaintext and health only, for probes that cannot speak TLS: it reveals
// nothing but whether the shuffler serves.
absl::Status StartHealthServer(const ShufflerProgramConfig& config,
                               Running& run) {
  if (config.health_port < 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(const auto host, SplitHostPort(config.listen, "--listen"));
  grpc::ServerBuilder health;
  int health_port = 0;
  health.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  health.AddListeningPort(absl::StrCat(host.first, ":", config.health_port),
                          grpc::InsecureServerCredentials(), &health_port);
  health.RegisterCallbackGenericService(&run.health_only);
  run.health = health.BuildAndStart();
  if (run.health == nullptr || health_port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", host.first,
                                               ":", config.health_port,
                                               " for --health_port (in use?)"));
  }
  run.health->GetHealthCheckService()->SetServingStatus(
      v1::ShufflerService::service_full_name(), true);
  WritePortFile(config.health_port_file, health_port);
  return absl::OkStatus();
}

void Announce(const ShufflerProgramConfig& config, const Running& run) {
  std::printf(
      "ldp-shuffler: listening on %s (port %d, %s), database %s/shuffler.db, "
      "delivering to %s (%s)\n",
      config.listen.c_str(), run.port,
      config.tls_cert_file.empty() ? "plaintext" : "TLS",
      config.data_dir.c_str(), config.server.target.c_str(),
      config.server.insecure ? "plaintext, for testing" : "mutual TLS");
  std::fflush(stdout);
}

// Health says NOT_SERVING first, then calls in flight get 5 s.
void Shutdown(Running& run) {
  run.server->GetHealthCheckService()->SetServingStatus(false);
  if (run.health != nullptr) {
    run.health->GetHealthCheckService()->SetServingStatus(false);
  }
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(5);
  run.server->Shutdown(deadline);
  if (run.health != nullptr) run.health->Shutdown(deadline);
}

}  // namespace

absl::Status RunShuffler(const ShufflerProgramConfig& config,
                         const sigset_t& signals) {
  RETURN_IF_ERROR(ValidateShufflerProgramConfig(config));
  Running run;
  RETURN_IF_ERROR(StartCore(config, run));
  RETURN_IF_ERROR(StartAgentServer(config, run));
  RETURN_IF_ERROR(StartHealthServer(config, run));
  Announce(config, run);
  run.event_log->Write(LogLevel::kInfo, "shuffler_started",
                       {{"listen", config.listen},
                        {"port", absl::StrCat(run.port)},
                        {"server", config.server.target}});
  int received = 0;
  sigwait(&signals, &received);
  run.event_log->Write(LogLevel::kInfo, "shuffler_stopping",
                       {{"signal", absl::StrCat(received)}});
  Shutdown(run);
  return absl::OkStatus();
}

}  // namespace ldp
