// ldp-server: the aggregator as a gRPC service on its embedded SQLite store.
//
// Transport policy lives here: TLS (optionally mutual) from PEM files, and
// a plaintext server only on loopback unless the operator insists, since
// bearer tokens travel in the clear without TLS. Enrollment quotas, rate
// limits and the message size limit bound what one client can make the
// server do.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/file_text.h"
#include "common/flags_usage.h"
#include "common/secure_random.h"
#include "common/status_macros.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "server/aggregator.h"
#include "server/event_log.h"
#include "server/grpc/agent_service.h"
#include "server/grpc/relay_service.h"
#include "server/metrics/metrics_endpoint.h"
#include "server/grpc/analyst_service.h"
#include "server/grpc/tls_credentials.h"
#include "server/rate_limiter.h"
#include "server/round_closer.h"
#include "server/postgres_store.h"
#include "server/sqlite_store.h"

ABSL_FLAG(std::string, listen, "127.0.0.1",
          "Address to listen on (0.0.0.0 accepts remote agents; anything but "
          "loopback needs TLS or --allow_insecure).");
ABSL_FLAG(int, port, 50051, "TCP port; 0 picks a free one (see --port_file).");
ABSL_FLAG(std::string, port_file, "",
          "If set, the chosen port is written here once the server listens.");
ABSL_FLAG(std::string, db, "ldp.db",
          "Where agents, studies, reports and the budget ledger live. A path: "
          "the embedded SQLite database (WAL), created if missing, resumed if "
          "present. A postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS] "
          "URL (libpq syntax): PostgreSQL, which several ldp-server replicas "
          "may share (then --analyst_token_file is required, so that all "
          "replicas accept the same analyst). Schema migrations are applied "
          "at start-up either way.");
ABSL_FLAG(int, health_port, -1,
          "If >= 0, a second, plaintext listener on --listen at this port "
          "(0 = any free one) that serves only grpc.health.v1 (no "
          "reflection), for probes that cannot speak TLS (Kubernetes' native "
          "gRPC probe). It answers like the main port: SERVING for \"\" and "
          "each ldp.v1 service served, NOT_SERVING from the shutdown signal "
          "on (see --drain_seconds), NOT_FOUND for other names. -1 = none.");
ABSL_FLAG(std::string, health_port_file, "",
          "If set, the chosen --health_port is written here once it listens.");
ABSL_FLAG(int, drain_seconds, 5,
          "On SIGTERM or SIGINT: for this long, health answers NOT_SERVING "
          "on both ports while every call is still served, so balancers and "
          "probes move traffic away; then the server stops accepting calls "
          "and gives in-flight ones 5 s. A second signal ends the drain at "
          "once. 0 = no drain.");
ABSL_FLAG(int, follow_interval_ms, 250,
          "PostgreSQL only: how often this replica reads the studies, rounds "
          "and reports other replicas stored (analyst calls always catch up "
          "first).");
ABSL_FLAG(std::string, analyst_token_file, "",
          "File holding the analyst credential (>= 16 characters). If unset, "
          "<db>.analyst_token is used, and created with a fresh random token "
          "(mode 0600) if it does not exist.");
ABSL_FLAG(std::string, enrollment_token_file, "",
          "If set, agents may enroll with the token in this file (any number "
          "of them). Enrollment is open only if neither this nor "
          "--enrollment_tokens_file is set.");
ABSL_FLAG(std::string, enrollment_tokens_file, "",
          "Enrollment tokens with quotas, one per device batch: lines "
          "'TOKEN MAX_AGENTS' (token >= 16 characters, no spaces; '#' starts "
          "a comment). Each token admits at most MAX_AGENTS agents in total, "
          "counted in the database so restarts do not reset it; Enroll with "
          "a used-up token gets RESOURCE_EXHAUSTED.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "Server certificate chain (PEM). With --tls_key_file, every "
          "connection uses TLS. Without both, the server speaks plaintext and "
          "refuses to listen on anything but loopback unless "
          "--allow_insecure is given.");
ABSL_FLAG(std::string, tls_key_file, "",
          "Private key (PEM) of --tls_cert_file.");
ABSL_FLAG(std::string, tls_client_ca_file, "",
          "CA certificate(s) (PEM) for mutual TLS: clients are asked for a "
          "certificate, and one that does not chain to this CA fails the "
          "handshake. Needs --tls_cert_file and --tls_key_file.");
ABSL_FLAG(bool, require_client_cert, false,
          "With --tls_client_ca_file: agents (every AgentService call, "
          "Enroll included) must present a verified client certificate, "
          "else UNAUTHENTICATED. Analysts may connect without one.");
ABSL_FLAG(bool, allow_insecure, false,
          "Allow plaintext (no TLS) on a non-loopback --listen address. "
          "Bearer tokens then cross the network in the clear: only for a "
          "trusted private network.");
ABSL_FLAG(double, agent_rate_per_second, 20,
          "Per-agent rate limit: GetTasks, GetBudget and each UploadReports "
          "message take one token from a bucket refilled at this rate; over "
          "it, RESOURCE_EXHAUSTED with a 'retry-after-ms' trailer. 0 = "
          "unlimited.");
ABSL_FLAG(double, agent_burst, 100,
          "Per-agent bucket size: calls an idle agent may make at once.");
ABSL_FLAG(double, enroll_rate_per_peer, 10000,
          "Per-peer-address rate limit on Enroll (calls/s); over it, "
          "RESOURCE_EXHAUSTED with a retry hint. 0 = unlimited. The default "
          "lets a local load test through; lower it for public servers "
          "(quotas in --enrollment_tokens_file bound the total).");
ABSL_FLAG(double, enroll_burst_per_peer, 10000,
          "Per-peer Enroll bucket size.");
ABSL_FLAG(std::string, strategy_cache_dir, "",
          "Directory where optimized workload strategies are cached (an "
          "optimized strategy for N = 1024 takes minutes to plan the first "
          "time); created if missing. Empty = <db>.strategies/ (ldp.strategies/ "
          "with a PostgreSQL --db). Workload "
          "questions are planned at CreateStudy, so a study asking one may "
          "take that long to create (raise the analyst's call deadline).");
ABSL_FLAG(int64_t, max_queued_writes, 100'000,
          "Backpressure: reports and enrollments waiting for a commit, at "
          "most; beyond it they are answered RESOURCE_EXHAUSTED (agents retry "
          "with backoff) instead of queueing without limit (~0.5 KB each). "
          "0 = no bound.");
ABSL_FLAG(bool, relay_service, false,
          "Also serve ldp.v1.RelayService: one connection enrolls, polls and "
          "uploads for up to 1000 agents per call (an ingestion gateway, or "
          "ldp-loadtest --mode=bulk). Each item still carries its agent's "
          "own bearer token and passes every check, but the per-agent rate "
          "limit does not apply and --enroll_rate_per_peer counts calls, not "
          "agents: enable it only for relays you trust to pace themselves.");
ABSL_FLAG(std::string, log_level, "info",
          "Structured events on stderr (one logfmt line each: ts=... "
          "level=... event=... key=value...) at this level and above: "
          "debug, info, warning or error.");
ABSL_FLAG(std::string, metrics_listen, "",
          "HOST:PORT to serve Prometheus metrics on at /metrics (e.g. "
          "127.0.0.1:9464; port 0 picks a free one, see --metrics_port_file); "
          "empty = no metrics endpoint. Plain HTTP without authentication: "
          "keep it on loopback or a private network.");
ABSL_FLAG(std::string, metrics_port_file, "",
          "If set, the /metrics port is written here once it listens.");
ABSL_FLAG(int, max_message_bytes, 4 << 20,
          "Largest request message accepted (bytes); larger ones get "
          "RESOURCE_EXHAUSTED from gRPC before any parsing.");

namespace ldp {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp-server: %s\n", status.ToString().c_str());
  return 1;
}

absl::StatusOr<std::string> ReadToken(const std::string& path,
                                      std::string_view what) {
  ASSIGN_OR_RETURN(const std::string text, ReadFileText(path, what));
  return std::string(absl::StripAsciiWhitespace(text));
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

// --db as it may be printed and logged: without a URL's password.
std::string PrintableDb() {
  const std::string db = absl::GetFlag(FLAGS_db);
  return IsPostgresUrl(db) ? RedactPostgresUrl(db) : db;
}

absl::StatusOr<std::unique_ptr<Store>> OpenStore() {
  const std::string db = absl::GetFlag(FLAGS_db);
  if (IsPostgresUrl(db)) {
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresStore> store,
                     PostgresStore::Open({.url = db}));
    return std::unique_ptr<Store>(std::move(store));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store,
                   SqliteStore::Open({.path = db}));
  return std::unique_ptr<Store>(std::move(store));
}

absl::StatusOr<std::string> AnalystToken() {
  std::string path = absl::GetFlag(FLAGS_analyst_token_file);
  if (!path.empty()) return ReadToken(path, "--analyst_token_file");
  if (IsPostgresUrl(absl::GetFlag(FLAGS_db))) {
    return absl::InvalidArgumentError(
        "with a PostgreSQL --db, give --analyst_token_file (the same file, or "
        "a copy, on every replica), so that all replicas accept one analyst "
        "token");
  }
  path = absl::GetFlag(FLAGS_db) + ".analyst_token";
  if (access(path.c_str(), F_OK) == 0) return ReadToken(path, "analyst token");
  auto token = CreateToken(path);
  if (token.ok()) std::printf("ldp-server: analyst token written to %s\n", path.c_str());
  return token;
}

// "TOKEN MAX_AGENTS" lines; InvalidArgument naming the line otherwise.
absl::StatusOr<std::vector<EnrollmentQuota>> ReadEnrollmentQuotas(
    const std::string& path) {
  ASSIGN_OR_RETURN(const std::string file,
                   ReadFileText(path, "--enrollment_tokens_file"));
  std::vector<EnrollmentQuota> quotas;
  int number = 0;
  for (absl::string_view text : absl::StrSplit(file, '\n')) {
    ++number;
    text = text.substr(0, text.find('#'));
    std::vector<absl::string_view> fields =
        absl::StrSplit(text, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.empty()) continue;
    EnrollmentQuota quota{.token = std::string(fields[0])};
    if (fields.size() != 2 || !absl::SimpleAtoi(fields[1], &quota.max_agents) ||
        quota.max_agents < 1 || quota.token.size() < 16) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", number,
          ": expected 'TOKEN MAX_AGENTS' with a token of >= 16 characters "
          "and MAX_AGENTS >= 1"));
    }
    quotas.push_back(std::move(quota));
  }
  return quotas;
}

bool IsLoopback(absl::string_view host) {
  host = absl::StripPrefix(absl::StripSuffix(host, "]"), "[");
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> TransportCredentials() {
  const ServerTlsFiles files{.cert_file = absl::GetFlag(FLAGS_tls_cert_file),
                             .key_file = absl::GetFlag(FLAGS_tls_key_file),
                             .client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file)};
  if (absl::GetFlag(FLAGS_require_client_cert) && files.client_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "--require_client_cert needs --tls_client_ca_file (the CA that "
        "signs agent certificates)");
  }
  if (!files.tls() && !IsLoopback(absl::GetFlag(FLAGS_listen)) &&
      !absl::GetFlag(FLAGS_allow_insecure)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve plaintext on ", absl::GetFlag(FLAGS_listen),
        ": give --tls_cert_file and --tls_key_file, or --allow_insecure "
        "for a trusted private network"));
  }
  return ServerCredentialsFromFiles(files);
}

// gRPC gives every ServerBuilder the plugins registered process-wide, so
// the reflection plugin meant for the main port would also come with the
// probes' listener and serve the ldp.v1 descriptors there, in plaintext.
// This option drops them from the one builder it is set on.
class WithoutBuilderPlugins : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(
      std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->clear();
  }
};

// The names health answers for besides "": the ldp.v1 services served, so
// that a probe or balancer can ask about the one it routes to.
std::vector<std::string> HealthServiceNames() {
  std::vector<std::string> names = {v1::AgentService::service_full_name(),
                                    v1::AnalystService::service_full_name()};
  if (absl::GetFlag(FLAGS_relay_service)) {
    names.push_back(v1::RelayService::service_full_name());
  }
  return names;
}

// gRPC's default health service starts out knowing only "" (SERVING);
// other names are NOT_FOUND until set.
void MarkServing(grpc::Server& server, const std::vector<std::string>& names) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  for (const std::string& name : names) health->SetServingStatus(name, true);
}

// The probes' own plaintext listener, and what must outlive it.
struct HealthListener {
  // Answers UNIMPLEMENTED to every method but health's (gRPC adds its
  // default health service at start); gRPC also refuses to build a server
  // with no service of its own.
  grpc::CallbackGenericService unimplemented;
  std::unique_ptr<grpc::Server> server;  // declared last: destroyed first
};

// Health only, so plaintext reveals nothing but the serving status of the
// names above.
absl::StatusOr<std::unique_ptr<HealthListener>> StartHealthListener(
    int health_port, const std::vector<std::string>& names) {
  auto listener = std::make_unique<HealthListener>();
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<WithoutBuilderPlugins>());
  builder.RegisterCallbackGenericService(&listener->unimplemented);
  int bound = 0;
  builder.AddListeningPort(absl::StrCat(absl::GetFlag(FLAGS_listen), ":", health_port),
                           grpc::InsecureServerCredentials(), &bound);
  listener->server = builder.BuildAndStart();
  if (listener->server == nullptr || bound == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", absl::GetFlag(FLAGS_listen), ":", health_port,
        " for --health_port (in use?)"));
  }
  MarkServing(*listener->server, names);
  if (const std::string path = absl::GetFlag(FLAGS_health_port_file); !path.empty()) {
    std::ofstream(path) << bound << "\n";
  }
  std::printf("ldp-server: grpc.health.v1 (plaintext) on port %d\n", bound);
  return listener;
}

// Shutting down without a drain would set NOT_SERVING and refuse new calls
// in the same instant, so no probe could ever see NOT_SERVING. Instead health
// answers NOT_SERVING on every name and both ports while calls are still
// served, for --drain_seconds or until another signal; only then does the
// server stop accepting calls (GOAWAY) and give in-flight ones 5 s.
void DrainAndShutdown(grpc::Server& server, grpc::Server* health_server,
                      const sigset_t& signals) {
  server.GetHealthCheckService()->SetServingStatus(false);
  if (health_server != nullptr) {
    health_server->GetHealthCheckService()->SetServingStatus(false);
  }
  const absl::Time end = absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_drain_seconds));
  for (absl::Duration left = end - absl::Now(); left > absl::ZeroDuration();
       left = end - absl::Now()) {
    const timespec timeout = absl::ToTimespec(left);
    // A signal ends the drain; EAGAIN means the time is up, EINTR (some
    // other signal) just waits on.
    if (sigtimedwait(&signals, nullptr, &timeout) >= 0) break;
  }
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(5);
  server.Shutdown(deadline);
  // Last, so that probes keep seeing NOT_SERVING until the main port is shut.
  if (health_server != nullptr) health_server->Shutdown(deadline);
}

int Run() {
  auto credentials = TransportCredentials();
  if (!credentials.ok()) return Fail(credentials.status());
  if (absl::GetFlag(FLAGS_max_message_bytes) < 1024) {
    return Fail(absl::InvalidArgumentError("--max_message_bytes must be >= 1024"));
  }
  if (absl::GetFlag(FLAGS_drain_seconds) < 0) {
    return Fail(absl::InvalidArgumentError("--drain_seconds must be >= 0"));
  }
  if (absl::GetFlag(FLAGS_max_queued_writes) < 0) {
    return Fail(absl::InvalidArgumentError(
        "--max_queued_writes must be >= 0 (0 = no bound)"));
  }
  auto log_level = ParseLogLevel(absl::GetFlag(FLAGS_log_level));
  if (!log_level.ok()) return Fail(log_level.status());
  auto analyst_token = AnalystToken();
  if (!analyst_token.ok()) return Fail(analyst_token.status());
  std::string enrollment_token;
  if (const std::string path = absl::GetFlag(FLAGS_enrollment_token_file); !path.empty()) {
    auto token = ReadToken(path, "--enrollment_token_file");
    if (!token.ok()) return Fail(token.status());
    enrollment_token = *token;
  }
  std::vector<EnrollmentQuota> quotas;
  if (const std::string path = absl::GetFlag(FLAGS_enrollment_tokens_file); !path.empty()) {
    auto read = ReadEnrollmentQuotas(path);
    if (!read.ok()) return Fail(read.status());
    quotas = *std::move(read);
  }
  auto agent_limiter = RateLimiter::Create(
      RealClock::Get(), {.per_second = absl::GetFlag(FLAGS_agent_rate_per_second),
                         .burst = absl::GetFlag(FLAGS_agent_burst)});
  if (!agent_limiter.ok()) return Fail(agent_limiter.status());
  auto enroll_limiter = RateLimiter::Create(
      RealClock::Get(), {.per_second = absl::GetFlag(FLAGS_enroll_rate_per_peer),
                         .burst = absl::GetFlag(FLAGS_enroll_burst_per_peer)});
  if (!enroll_limiter.ok()) return Fail(enroll_limiter.status());

  LineEventLog event_log(*log_level, RealClock::Get());

  if (absl::GetFlag(FLAGS_follow_interval_ms) < 1) {
    return Fail(absl::InvalidArgumentError("--follow_interval_ms must be >= 1"));
  }
  auto store = OpenStore();
  if (!store.ok()) return Fail(store.status());
  ProtoStudySpecCodec codec;
  std::string strategy_cache_dir = absl::GetFlag(FLAGS_strategy_cache_dir);
  if (strategy_cache_dir.empty()) {
    strategy_cache_dir = IsPostgresUrl(absl::GetFlag(FLAGS_db))
                             ? std::string("ldp.strategies")
                             : absl::GetFlag(FLAGS_db) + ".strategies";
  }
  AggregatorOptions options;
  options.spec_codec = &codec;
  options.clock = RealClock::Get();
  options.analyst_token = *analyst_token;
  options.enrollment_token = enrollment_token;
  options.enrollment_quotas = std::move(quotas);
  options.max_queued_writes = absl::GetFlag(FLAGS_max_queued_writes);
  options.strategy_planner.cache_dir = std::move(strategy_cache_dir);
  options.event_log = &event_log;
  options.follow_interval = absl::Milliseconds(absl::GetFlag(FLAGS_follow_interval_ms));
  auto aggregator = Aggregator::Create(options, *std::move(store));
  if (!aggregator.ok()) return Fail(aggregator.status());

  std::unique_ptr<MetricsEndpoint> metrics;
  if (const std::string address = absl::GetFlag(FLAGS_metrics_listen); !address.empty()) {
    auto started = MetricsEndpoint::Start(address, aggregator->get());
    if (!started.ok()) return Fail(started.status());
    metrics = *std::move(started);
    if (const std::string path = absl::GetFlag(FLAGS_metrics_port_file); !path.empty()) {
      std::ofstream(path) << metrics->port() << "\n";
    }
    std::printf("ldp-server: metrics on http://%s:%d/metrics\n",
                std::string(address.substr(0, address.rfind(':'))).c_str(), metrics->port());
  }

  AgentServiceImpl agent_service(
      aggregator->get(),
      {.agent_limiter = agent_limiter->get(),
       .enroll_limiter = enroll_limiter->get(),
       .require_client_certificate = absl::GetFlag(FLAGS_require_client_cert)});
  RelayServiceImpl relay_service(
      aggregator->get(),
      {.enroll_limiter = enroll_limiter->get(),
       .require_client_certificate = absl::GetFlag(FLAGS_require_client_cert)});
  AnalystServiceImpl analyst_service(aggregator->get());
  grpc::EnableDefaultHealthCheckService(true);
  // Reflection on the main port is deliberate: it describes only the public
  // contract of proto/ (for grpcurl). The health listener drops it.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat(absl::GetFlag(FLAGS_listen), ":",
                                        absl::GetFlag(FLAGS_port)),
                           *credentials, &port);
  builder.RegisterService(&agent_service);
  builder.RegisterService(&analyst_service);
  if (absl::GetFlag(FLAGS_relay_service)) builder.RegisterService(&relay_service);
  builder.SetMaxReceiveMessageSize(absl::GetFlag(FLAGS_max_message_bytes));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return Fail(absl::UnavailableError(absl::StrCat(
        "cannot listen on ", absl::GetFlag(FLAGS_listen), ":",
        absl::GetFlag(FLAGS_port), " (in use, or not a local address?",
        absl::GetFlag(FLAGS_tls_cert_file).empty()
            ? ")"
            : " Or --tls_key_file is not the key of --tls_cert_file; gRPC's "
              "log above says which)")));
  }
  const std::vector<std::string> health_names = HealthServiceNames();
  MarkServing(*server, health_names);
  std::unique_ptr<HealthListener> health;
  if (const int health_port = absl::GetFlag(FLAGS_health_port); health_port >= 0) {
    auto started = StartHealthListener(health_port, health_names);
    if (!started.ok()) return Fail(started.status());
    health = *std::move(started);
  }
  if (const std::string path = absl::GetFlag(FLAGS_port_file); !path.empty()) {
    std::ofstream(path) << port << "\n";
  }
  std::printf("ldp-server: listening on %s:%d (%s), database %s\n",
              absl::GetFlag(FLAGS_listen).c_str(), port,
              absl::GetFlag(FLAGS_tls_cert_file).empty()
                  ? "plaintext"
                  : (absl::GetFlag(FLAGS_require_client_cert) ? "TLS, agents need client certificates"
                                                              : "TLS"),
              PrintableDb().c_str());
  std::fflush(stdout);
  event_log.Write(LogLevel::kInfo, "server_started",
                  {{"listen", absl::StrCat(absl::GetFlag(FLAGS_listen), ":", port)},
                   {"db", PrintableDb()},
                   {"tls", absl::GetFlag(FLAGS_tls_cert_file).empty() ? "no" : "yes"},
                   {"metrics_port", absl::StrCat(metrics == nullptr ? 0 : metrics->port())}});

  // Rounds close at their deadline even when no analyst is watching.
  auto closer =
      std::make_unique<RoundCloser>(aggregator->get(), absl::Seconds(1));

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  int received = 0;
  sigwait(&signals, &received);
  std::printf("ldp-server: signal %d, draining for %d s (health NOT_SERVING; "
              "signal again to stop now), then shutting down\n",
              received, absl::GetFlag(FLAGS_drain_seconds));
  std::fflush(stdout);
  event_log.Write(LogLevel::kInfo, "server_stopping", {{"signal", absl::StrCat(received)}});
  DrainAndShutdown(*server, health == nullptr ? nullptr : health->server.get(), signals);
  closer.reset();
  return 0;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The LDP aggregator: collects locally randomized reports over gRPC, "
      "keeps every agent's privacy budget in its store, and serves "
      "estimates with confidence intervals.\n"
      "Usage: ldp-server [--listen=ADDR] [--port=N] [--db=PATH|postgresql://URL] "
      "[--tls_cert_file=PEM --tls_key_file=PEM [--tls_client_ca_file=PEM "
      "[--require_client_cert]]] [--analyst_token_file=PATH] "
      "[--enrollment_token_file=PATH] [--enrollment_tokens_file=PATH] "
      "[--strategy_cache_dir=DIR] [--metrics_listen=HOST:PORT]\n"
      "Without TLS files the server speaks plaintext and listens only on "
      "loopback unless --allow_insecure is given.");
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
