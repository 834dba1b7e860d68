// What ldp-shuffler runs with, as one typed value, and the rules between
// its settings.
//
// Why apart from shuffler_main.cc: main only reads flags; the rules
// (mutual TLS to the server, plaintext only on loopback, a key file that
// holds a key) are checked here, in one place, before anything starts.
#ifndef LDP_SERVER_SHUFFLER_SHUFFLER_PROGRAM_CONFIG_H_
#define LDP_SERVER_SHUFFLER_SHUFFLER_PROGRAM_CONFIG_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/shuffler/grpc/grpc_batch_sink.h"
#include "server/telemetry/event_log.h"

namespace ldp {

struct ShufflerProgramConfig {
  // host:port for agents; port 0 picks a free one, written to port_file.
  std::string listen = "127.0.0.1:50061";
  std::string port_file{};
  // Holds shuffler.db; created (mode 0700) if missing.
  std::string data_dir{};
  // The server's Ed25519 ticket public key: 64 hex characters.
  std::string ticket_key_file{};
  // The aggregator's ShuffledIngestService, over mutual TLS.
  ServerChannelOptions server{};
  // This listener's TLS; without both, plaintext (loopback only unless
  // allow_insecure).
  std::string tls_cert_file{};
  std::string tls_key_file{};
  bool allow_insecure = false;
  uint64_t min_batch_floor = 100;
  double extra_max_fraction = 0.1;
  absl::Duration deadline_margin = absl::Seconds(30);
  // -1 = none; 0 = any free port. Health is plaintext gRPC health on the
  // listen host; metrics are HTTP on metrics_host.
  int health_port = -1;
  std::string health_port_file{};
  int metrics_port = -1;
  std::string metrics_host = "127.0.0.1";
  std::string metrics_port_file{};
  LogLevel log_level = LogLevel::kInfo;
  int max_message_bytes = 16 << 20;
};

// The host and port of "host:port" ("[::1]:50061" too). INVALID_ARGUMENT
// naming `flag` if it is not of that form.
absl::StatusOr<std::pair<std::string, int>> SplitHostPort(
    const std::string& address, const std::string& flag);

// OK, or the first rule the settings break, naming the flags involved:
// INVALID_ARGUMENT, or FAILED_PRECONDITION for plaintext on a non-loopback
// address without allow_insecure.
absl::Status ValidateShufflerProgramConfig(const ShufflerProgramConfig& config);

// The 32-byte key from a file of 64 hex characters (surrounding
// whitespace ignored).
absl::StatusOr<std::string> ReadTicketKeyFile(const std::string& path);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_SHUFFLER_PROGRAM_CONFIG_H_
