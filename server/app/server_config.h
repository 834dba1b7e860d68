// What ldp-server runs with, as one typed value.
//
// main.cc turns flags into a ServerConfig and nothing below it reads a
// flag, so the server's set-up can be tested with plain values, and every
// rule about which settings go together (TLS or loopback, a client CA for
// client certificates, positive limits) is checked in one place before
// anything starts.
#ifndef LDP_SERVER_APP_SERVER_CONFIG_H_
#define LDP_SERVER_APP_SERVER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/base/host_address.h"  // IsLoopback, which the config rules use
#include "server/grpc/rate_limiter.h"
#include "server/grpc/tls_credentials.h"
#include "server/telemetry/event_log.h"

namespace ldp {

struct ServerConfig {
  // Where to listen. port 0 picks a free one, written to port_file if set.
  std::string listen = "127.0.0.1";
  int port = 50051;
  std::string port_file{};
  // A SQLite path, or a postgresql:// URL shared by replicas.
  std::string db = "ldp.db";
  // A plaintext health-only listener: -1 = none, 0 = any free port.
  int health_port = -1;
  std::string health_port_file{};
  // NOT_SERVING for this long before shutting down on a signal.
  absl::Duration drain = absl::Seconds(5);
  // PostgreSQL only: how often other replicas' writes are read.
  absl::Duration follow_interval = absl::Milliseconds(250);
  // Empty: <db>.analyst_token, created if missing (SQLite only).
  std::string analyst_token_file{};
  // A token any number of agents may enroll with, and tokens with quotas;
  // neither = open enrollment.
  std::string enrollment_token_file{};
  std::string enrollment_tokens_file{};
  ServerTlsFiles tls{};
  bool require_client_cert = false;
  bool allow_insecure = false;
  RateLimit agent_limit{.per_second = 20, .burst = 100};
  RateLimit enroll_limit_per_peer{.per_second = 10000, .burst = 10000};
  // Empty: next to the database (see StrategyCacheDir).
  std::string strategy_cache_dir{};
  int64_t max_queued_writes = 100'000;  // 0 = no bound
  bool relay_service = false;
  LogLevel log_level = LogLevel::kInfo;
  // HOST:PORT for Prometheus' /metrics; empty = none.
  std::string metrics_listen{};
  std::string metrics_port_file{};
  int max_message_bytes = 4 << 20;
  // Shuffled studies: the keyring file (server/keys/); empty = beside a
  // SQLite database, <db>.shuffle_keys. Rotated once at start if asked.
  std::string shuffle_key_file{};
  bool rotate_shuffle_key = false;
  // Client-certificate common names of the shufflers that may deliver
  // batches; empty = ShuffledIngestService is not served.
  std::vector<std::string> trusted_shufflers{};
};

// The keyring's path (shuffle_key_file, or its default beside a SQLite
// database); empty for PostgreSQL without a file.
std::string ShuffleKeyFile(const ServerConfig& config);

// OK, or the first rule the settings break, naming the flags involved:
// INVALID_ARGUMENT for an impossible value, FAILED_PRECONDITION for
// plaintext on a non-loopback address without allow_insecure.
absl::Status ValidateServerConfig(const ServerConfig& config);

// The database as it may be printed and logged: a URL without its password.
std::string PrintableDb(const std::string& db);

// config.strategy_cache_dir, or its default beside the database.
std::string StrategyCacheDir(const ServerConfig& config);

}  // namespace ldp

#endif  // LDP_SERVER_APP_SERVER_CONFIG_H_
