// ldp-server: the aggregator as a gRPC service on SQLite or PostgreSQL.
//
// Only the flags live here: each becomes a field of a ServerConfig
// (server/app/server_config.h, where the rules between them are checked),
// and server/app/server_runner.cc runs the server from it. Transport policy
// (TLS, optionally mutual, and plaintext only on loopback unless the
// operator insists) is in those rules, since bearer tokens travel in the
// clear without TLS.
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/synchronization/mutex.h"
#include "common/base/flags_usage.h"
#include "common/base/shutdown_signals.h"
#include "common/base/status_macros.h"
#include "server/app/server_config.h"
#include "server/app/server_runner.h"
#include "server/telemetry/event_log.h"

ABSL_FLAG(std::string, listen, "127.0.0.1",
          "Address to listen on (0.0.0.0 accepts remote agents; anything but "
          "loopback needs TLS or --allow_insecure).");
ABSL_FLAG(int, port, 50051,
          "TCP port; 0 picks a free one (see --port_file). A port another "
          "process listens on fails the start: the port is never shared.");
ABSL_FLAG(std::string, port_file, "",
          "If set, the chosen port is written here once the server listens.");
ABSL_FLAG(std::string, db, "ldp.db",
          "Where agents, studies, reports and the budget ledger live. A path: "
          "the embedded SQLite database (WAL), created if missing, resumed if "
          "present. A postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?PARAMS] "
          "URL (libpq syntax): PostgreSQL, which several ldp-server replicas "
          "may share (then --analyst_token_file is required, so that all "
          "replicas accept the same analyst). Several such URLs separated by "
          "spaces: one database per shard, agents spread over them by id, "
          "the first also holding studies and rounds; give every replica "
          "the same list in the same order (a database refuses to be "
          "another shard than it first was). Schema migrations are applied "
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
ABSL_FLAG(double, enroll_burst_per_peer, 10000, "Per-peer Enroll bucket size.");
ABSL_FLAG(
    std::string, strategy_cache_dir, "",
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

ABSL_FLAG(std::string, shuffle_key_file, "",
          "Shuffled studies: the file holding the server's sealing keys and "
          "ticket key (mode 0600, created at first start); empty = "
          "<db>.shuffle_keys beside a SQLite database. The ticket key's "
          "public half is written beside it as <file>.ticket_key, for "
          "ldp-shuffler --ticket_key_file.");
ABSL_FLAG(bool, rotate_shuffle_key, false,
          "Make a fresh sealing key at start; batches sealed to the previous "
          "key still open, those sealed to older ones no longer do. Rotate "
          "at most once per longest round.");
ABSL_FLAG(std::vector<std::string>, trusted_shufflers, {},
          "Comma-separated client-certificate common names of the shufflers "
          "allowed to deliver shuffled batches (ldp.v1.ShuffledIngestService, "
          "served only when set; needs --tls_client_ca_file).");

namespace ldp {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp-server: %s\n", status.ToString().c_str());
  return 1;
}

// The flags as one typed value; ValidateServerConfig judges them.
absl::StatusOr<ServerConfig> ConfigFromFlags() {
  ServerConfig config;
  config.listen = absl::GetFlag(FLAGS_listen);
  config.port = absl::GetFlag(FLAGS_port);
  config.port_file = absl::GetFlag(FLAGS_port_file);
  config.db = absl::GetFlag(FLAGS_db);
  config.health_port = absl::GetFlag(FLAGS_health_port);
  config.health_port_file = absl::GetFlag(FLAGS_health_port_file);
  config.drain = absl::Seconds(absl::GetFlag(FLAGS_drain_seconds));
  config.follow_interval =
      absl::Milliseconds(absl::GetFlag(FLAGS_follow_interval_ms));
  config.analyst_token_file = absl::GetFlag(FLAGS_analyst_token_file);
  config.enrollment_token_file = absl::GetFlag(FLAGS_enrollment_token_file);
  config.enrollment_tokens_file = absl::GetFlag(FLAGS_enrollment_tokens_file);
  config.tls = {.cert_file = absl::GetFlag(FLAGS_tls_cert_file),
                .key_file = absl::GetFlag(FLAGS_tls_key_file),
                .client_ca_file = absl::GetFlag(FLAGS_tls_client_ca_file)};
  config.require_client_cert = absl::GetFlag(FLAGS_require_client_cert);
  config.allow_insecure = absl::GetFlag(FLAGS_allow_insecure);
  config.agent_limit = {
      .per_second = absl::GetFlag(FLAGS_agent_rate_per_second),
      .burst = absl::GetFlag(FLAGS_agent_burst)};
  config.enroll_limit_per_peer = {
      .per_second = absl::GetFlag(FLAGS_enroll_rate_per_peer),
      .burst = absl::GetFlag(FLAGS_enroll_burst_per_peer)};
  config.strategy_cache_dir = absl::GetFlag(FLAGS_strategy_cache_dir);
  config.max_queued_writes = absl::GetFlag(FLAGS_max_queued_writes);
  config.relay_service = absl::GetFlag(FLAGS_relay_service);
  ASSIGN_OR_RETURN(config.log_level,
                   ParseLogLevel(absl::GetFlag(FLAGS_log_level)));
  config.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  config.metrics_port_file = absl::GetFlag(FLAGS_metrics_port_file);
  config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  config.shuffle_key_file = absl::GetFlag(FLAGS_shuffle_key_file);
  config.rotate_shuffle_key = absl::GetFlag(FLAGS_rotate_shuffle_key);
  config.trusted_shufflers = absl::GetFlag(FLAGS_trusted_shufflers);
  return config;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The LDP aggregator: collects locally randomized reports over gRPC, "
      "keeps every agent's privacy budget in its store, and serves "
      "estimates with confidence intervals.\n"
      "Usage: ldp-server [--listen=ADDR] [--port=N] "
      "[--db=PATH|'postgresql://URL [postgresql://URL...]'] "
      "[--tls_cert_file=PEM --tls_key_file=PEM [--tls_client_ca_file=PEM "
      "[--require_client_cert]]] [--analyst_token_file=PATH] "
      "[--enrollment_token_file=PATH] [--enrollment_tokens_file=PATH] "
      "[--strategy_cache_dir=DIR] [--metrics_listen=HOST:PORT]\n"
      "Without TLS files the server speaks plaintext and listens only on "
      "loopback unless --allow_insecure is given.");
  ldp::ShowOnlyFlagsFrom("server/main");
  // Main waits for the shutdown signals, whichever thread they reach.
  const sigset_t signals = ldp::BlockShutdownSignals();
  absl::ParseCommandLine(argc, argv);
  // Debian's Abseil checks every mutex acquisition for lock-order cycles
  // (about 1% of ingest time); the server's lock order is fixed by design.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::StatusOr<ldp::ServerConfig> config = ldp::ConfigFromFlags();
  if (!config.ok()) return ldp::Fail(config.status());
  const absl::Status run = ldp::RunServer(*config, signals);
  return run.ok() ? 0 : ldp::Fail(run);
}
