// Start-up, serving and shutdown of ldp-server; see the header.
#include "server/app/server_runner.h"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/base/clock.h"
#include "common/base/status_macros.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/grpcpp.h"
#include "server/app/health_listener.h"
#include "server/app/server_tokens.h"
#include "server/core/aggregator.h"
#include "server/core/round_closer.h"
#include "server/grpc/agent_service.h"
#include "server/grpc/analyst_service.h"
#include "server/grpc/rate_limiter.h"
#include "server/grpc/relay_service.h"
#include "server/grpc/shuffle_tickets.h"
#include "server/grpc/shuffled_ingest_service.h"
#include "server/grpc/tls_credentials.h"
#include "server/keys/shuffle_keyring.h"
#include "server/metrics/metrics_endpoint.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/sharded/sharded_store.h"
#include "server/store/sqlite/sqlite_store.h"
#include "server/telemetry/event_log.h"

namespace ldp {
namespace {

void WritePortFile(const std::string& path, int port) {
  if (!path.empty()) std::ofstream(path) << port << "\n";
}

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& db) {
  if (std::vector<std::string> urls = SplitShardUrls(db); urls.size() > 1) {
    ASSIGN_OR_RETURN(std::unique_ptr<ShardedStore> store,
                     ShardedStore::Open({.urls = std::move(urls)}));
    return std::unique_ptr<Store>(std::move(store));
  }
  if (IsPostgresUrl(db)) {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = db}));
    return std::unique_ptr<Store>(std::move(store));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                   SqliteStore::Open({.path = db}));
  return std::unique_ptr<Store>(std::move(store));
}

absl::StatusOr<std::unique_ptr<Aggregator>> StartAggregator(
    const ServerConfig& config, EventLog& event_log) {
  AggregatorOptions options;
  ASSIGN_OR_RETURN(options.analyst_token, AnalystToken(config));
  ASSIGN_OR_RETURN(options.enrollment_token, EnrollmentToken(config));
  ASSIGN_OR_RETURN(options.enrollment_quotas, EnrollmentQuotas(config));
  options.clock = RealClock::Get();
  options.max_queued_writes = config.max_queued_writes;
  options.strategy_planner.cache_dir = StrategyCacheDir(config);
  options.event_log = &event_log;
  options.follow_interval = config.follow_interval;
  ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenStore(config.db));
  return Aggregator::Create(options, std::move(store));
}

absl::StatusOr<std::unique_ptr<MetricsExposer>> StartMetrics(
    const ServerConfig& config, Aggregator* aggregator) {
  const std::string& address = config.metrics_listen;
  if (address.empty()) return nullptr;
  ASSIGN_OR_RETURN(std::unique_ptr<MetricsExposer> metrics,
                   StartMetricsEndpoint(address, aggregator));
  WritePortFile(config.metrics_port_file, metrics->port());
  std::printf("ldp-server: metrics on http://%s:%d/metrics\n",
              address.substr(0, address.rfind(':')).c_str(), metrics->port());
  return metrics;
}

// The shuffle keyring (rotated first if asked), with the ticket key's
// public half written beside it for shufflers; null when the server has no
// keyring file (PostgreSQL without --shuffle_key_file).
absl::StatusOr<std::unique_ptr<ShuffleKeyring>> LoadShuffleKeys(
    const ServerConfig& config) {
  const std::string path = ShuffleKeyFile(config);
  if (path.empty()) return nullptr;
  const absl::Time now = RealClock::Get()->Now();
  ASSIGN_OR_RETURN(std::unique_ptr<ShuffleKeyring> keys,
                   config.rotate_shuffle_key
                       ? ShuffleKeyring::Rotate(path, now)
                       : ShuffleKeyring::LoadOrCreate(path, now));
  const std::string public_file = path + ".ticket_key";
  FILE* file = std::fopen(public_file.c_str(), "w");
  if (file == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write the ticket key to ", public_file));
  }
  std::fprintf(file, "%s\n", keys->ticket_public_key_hex().c_str());
  std::fclose(file);
  return keys;
}

// The ldp.v1 services; they must outlive the gRPC server that serves them.
struct Services {
  Services(Aggregator* aggregator, const ServerConfig& config,
           RateLimiter* agent_limiter, RateLimiter* enroll_limiter,
           std::unique_ptr<ShuffleKeyring> shuffle_keys)
      : keys(std::move(shuffle_keys)),
        tickets(keys == nullptr ? nullptr
                                : std::make_unique<ShuffleTicketIssuer>(*keys)),
        agent(aggregator,
              {.agent_limiter = agent_limiter,
               .enroll_limiter = enroll_limiter,
               .require_client_certificate = config.require_client_cert,
               .shuffle_tickets = tickets.get()}),
        relay(aggregator,
              {.enroll_limiter = enroll_limiter,
               .require_client_certificate = config.require_client_cert,
               .shuffle_tickets = tickets.get()}),
        analyst(aggregator),
        shuffled(aggregator, keys.get(),
                 {.trusted_shufflers = config.trusted_shufflers}) {}

  std::unique_ptr<ShuffleKeyring> keys;
  std::unique_ptr<ShuffleTicketIssuer> tickets;
  AgentServiceImpl agent;
  RelayServiceImpl relay;
  AnalystServiceImpl analyst;
  ShuffledIngestServiceImpl shuffled;
};

absl::StatusOr<std::unique_ptr<grpc::Server>> StartGrpc(
    const ServerConfig& config,
    const std::shared_ptr<grpc::ServerCredentials>& credentials,
    Services& services, int& port) {
  grpc::EnableDefaultHealthCheckService(true);
  // Reflection on the main port is deliberate: it describes only the public
  // contract of proto/ (for grpcurl). The health listener drops it.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  RefusePortSharing(builder);  // a port in use fails the start, below
  builder.AddListeningPort(absl::StrCat(config.listen, ":", config.port),
                           credentials, &port);
  builder.RegisterService(&services.agent);
  builder.RegisterService(&services.analyst);
  if (config.relay_service) builder.RegisterService(&services.relay);
  if (!config.trusted_shufflers.empty()) {
    if (services.keys == nullptr) {
      return absl::InvalidArgumentError(
          "--trusted_shufflers needs shuffle keys: give --shuffle_key_file");
    }
    builder.RegisterService(&services.shuffled);
  }
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", config.listen, ":", config.port,
        " (in use, or not a local address?",
        config.tls.cert_file.empty()
            ? ")"
            : " Or --tls_key_file is not the key of --tls_cert_file; gRPC's "
              "log above says which)"));
  }
  MarkServing(*server, HealthServiceNames(config.relay_service));
  return server;
}

absl::StatusOr<std::unique_ptr<HealthListener>> StartHealth(
    const ServerConfig& config) {
  if (config.health_port < 0) return nullptr;
  ASSIGN_OR_RETURN(
      std::unique_ptr<HealthListener> health,
      StartHealthListener(config.listen, config.health_port,
                          HealthServiceNames(config.relay_service)));
  WritePortFile(config.health_port_file, health->port);
  std::printf("ldp-server: grpc.health.v1 (plaintext) on port %d\n",
              health->port);
  return health;
}

void Announce(const ServerConfig& config, int port, int metrics_port,
              EventLog& event_log) {
  const bool tls = !config.tls.cert_file.empty();
  std::printf("ldp-server: listening on %s:%d (%s), database %s\n",
              config.listen.c_str(), port,
              !tls ? "plaintext"
                   : (config.require_client_cert
                          ? "TLS, agents need client certificates"
                          : "TLS"),
              PrintableDb(config.db).c_str());
  std::fflush(stdout);
  event_log.Write(LogLevel::kInfo, "server_started",
                  {{"listen", absl::StrCat(config.listen, ":", port)},
                   {"db", PrintableDb(config.db)},
                   {"tls", tls ? "yes" : "no"},
                   {"metrics_port", absl::StrCat(metrics_port)}});
}

// Blocks until a shutdown signal, and says so.
void AwaitSignal(const ServerConfig& config, const sigset_t& signals,
                 EventLog& event_log) {
  int received = 0;
  sigwait(&signals, &received);
  std::printf(
      "ldp-server: signal %d, draining for %lld s (health "
      "NOT_SERVING; signal again to stop now), then shutting down\n",
      received, static_cast<long long>(absl::ToInt64Seconds(config.drain)));
  std::fflush(stdout);
  event_log.Write(LogLevel::kInfo, "server_stopping",
                  {{"signal", absl::StrCat(received)}});
}

}  // namespace

absl::Status RunServer(const ServerConfig& config, const sigset_t& signals) {
  RETURN_IF_ERROR(ValidateServerConfig(config));
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   ServerCredentialsFromFiles(config.tls));
  ASSIGN_OR_RETURN(std::unique_ptr<RateLimiter> agent_limiter,
                   RateLimiter::Create(RealClock::Get(), config.agent_limit));
  ASSIGN_OR_RETURN(
      std::unique_ptr<RateLimiter> enroll_limiter,
      RateLimiter::Create(RealClock::Get(), config.enroll_limit_per_peer));
  LineEventLog event_log(config.log_level, RealClock::Get());
  ASSIGN_OR_RETURN(std::unique_ptr<Aggregator> aggregator,
                   StartAggregator(config, event_log));
  ASSIGN_OR_RETURN(std::unique_ptr<MetricsExposer> metrics,
                   StartMetrics(config, aggregator.get()));
  ASSIGN_OR_RETURN(std::unique_ptr<ShuffleKeyring> shuffle_keys,
                   LoadShuffleKeys(config));
  Services services(aggregator.get(), config, agent_limiter.get(),
                    enroll_limiter.get(), std::move(shuffle_keys));
  int port = 0;
  ASSIGN_OR_RETURN(std::unique_ptr<grpc::Server> server,
                   StartGrpc(config, credentials, services, port));
  ASSIGN_OR_RETURN(std::unique_ptr<HealthListener> health, StartHealth(config));
  WritePortFile(config.port_file, port);
  Announce(config, port, metrics == nullptr ? 0 : metrics->port(), event_log);
  // Rounds close at their deadline even when no analyst is watching.
  auto closer =
      std::make_unique<RoundCloser>(aggregator.get(), absl::Seconds(1));
  AwaitSignal(config, signals, event_log);
  DrainAndShutdown(*server, health == nullptr ? nullptr : health->server.get(),
                   signals, config.drain);
  closer.reset();
  return absl::OkStatus();
}

}  // namespace ldp
