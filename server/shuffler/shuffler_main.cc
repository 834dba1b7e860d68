// ldp-shuffler: the shuffle model's shuffler (DESIGN invariant 9), run by
// another operator than the aggregator. Agents submit sealed reports with
// the server's signed tickets; the shuffler holds them until a batch is
// large enough, drops who sent what and when, permutes, and delivers the
// batch to the server's ShuffledIngestService over mutual TLS.
//
// Only the flags live here: each becomes a field of a
// ShufflerProgramConfig (shuffler_program_config.h, where the rules
// between them are checked); shuffler_runner.cc runs from it.
#include <signal.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "common/base/flags_usage.h"
#include "common/base/shutdown_signals.h"
#include "common/base/status_macros.h"
#include "server/shuffler/shuffler_runner.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50061",
          "HOST:PORT agents submit to (ldp.v1.ShufflerService); port 0 picks "
          "a free one (see --port_file). Anything but loopback needs "
          "--tls_cert/--tls_key or --allow_insecure.");
ABSL_FLAG(std::string, port_file, "",
          "If set, the chosen --listen port is written here once listening.");
ABSL_FLAG(std::string, data_dir, "",
          "Required. Directory of the shuffler's database (shuffler.db, "
          "SQLite in WAL mode), created (mode 0700) if missing. Every "
          "acknowledged report is committed there; a restart resumes it.");
ABSL_FLAG(std::string, ticket_key_file, "",
          "Required. File holding the server's Ed25519 ticket public key as "
          "64 hex characters. Submissions whose ticket does not verify with "
          "it are refused (UNAUTHENTICATED).");
ABSL_FLAG(std::string, server, "",
          "Required. HOST:PORT of the aggregator (ldp-server) whose "
          "ShuffledIngestService receives the batches.");
ABSL_FLAG(std::string, server_ca, "",
          "CA certificate(s) (PEM) the server's certificate must chain to.");
ABSL_FLAG(std::string, client_cert, "",
          "This shuffler's client certificate chain (PEM), which the server "
          "trusts as a shuffler.");
ABSL_FLAG(std::string, client_key, "", "Private key (PEM) of --client_cert.");
ABSL_FLAG(bool, insecure_server_channel_for_testing, false,
          "Deliver to --server in plaintext, without certificates. Only for "
          "tests on one machine: the server cannot tell this shuffler from "
          "anyone else.");
ABSL_FLAG(std::string, tls_cert, "",
          "Certificate chain (PEM) for the agents' listener. With --tls_key, "
          "agents connect over TLS; without both, plaintext, on loopback "
          "only unless --allow_insecure.");
ABSL_FLAG(std::string, tls_key, "", "Private key (PEM) of --tls_cert.");
ABSL_FLAG(bool, allow_insecure, false,
          "Allow a plaintext agents' listener on a non-loopback --listen "
          "address: only for a trusted private network.");
ABSL_FLAG(uint64_t, min_batch_floor, 100,
          "No batch smaller than max(the ticket's min_batch, this) is ever "
          "released; a batch key below it at its deadline is deleted.");
ABSL_FLAG(double, extra_max_fraction, 0.1,
          "Each batch key's release threshold is min + a uniform draw from "
          "{0, ..., ceil(min * this)}, drawn once from a CSPRNG and stored, "
          "so a batch's size does not tell how many agents it needed. In "
          "[0, 1].");
ABSL_FLAG(int, deadline_margin_seconds, 30,
          "Stop taking a round's reports this long before its deadline and "
          "release what reached the minimum, so that the last batch reaches "
          "the server while the round is open (>= 0).");
ABSL_FLAG(int, health_port, -1,
          "If >= 0, a plaintext listener on --listen's host at this port (0 "
          "= any free one) serving only grpc.health.v1: SERVING for \"\" and "
          "ldp.v1.ShufflerService, NOT_SERVING from the shutdown signal on. "
          "-1 = none.");
ABSL_FLAG(std::string, health_port_file, "",
          "If set, the chosen --health_port is written here.");
ABSL_FLAG(int, metrics_port, -1,
          "If >= 0, Prometheus metrics at http://--metrics_host:PORT/metrics "
          "(0 = any free port; plain HTTP, no authentication). -1 = none.");
ABSL_FLAG(std::string, metrics_host, "127.0.0.1",
          "Address the metrics endpoint listens on.");
ABSL_FLAG(std::string, metrics_port_file, "",
          "If set, the chosen --metrics_port is written here.");
ABSL_FLAG(std::string, log_level, "info",
          "Structured events on stderr (logfmt) at this level and above: "
          "debug, info, warning or error. No event names an agent.");
ABSL_FLAG(int, max_message_bytes, 16 << 20,
          "Largest Submit request accepted (bytes); larger ones get "
          "RESOURCE_EXHAUSTED from gRPC.");

namespace ldp {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "ldp-shuffler: %s\n", status.ToString().c_str());
  return 1;
}

absl::StatusOr<ShufflerProgramConfig> ConfigFromFlags() {
  ShufflerProgramConfig config;
  config.listen = absl::GetFlag(FLAGS_listen);
  config.port_file = absl::GetFlag(FLAGS_port_file);
  config.data_dir = absl::GetFlag(FLAGS_data_dir);
  config.ticket_key_file = absl::GetFlag(FLAGS_ticket_key_file);
  config.server = {
      .target = absl::GetFlag(FLAGS_server),
      .ca_file = absl::GetFlag(FLAGS_server_ca),
      .client_cert_file = absl::GetFlag(FLAGS_client_cert),
      .client_key_file = absl::GetFlag(FLAGS_client_key),
      .insecure = absl::GetFlag(FLAGS_insecure_server_channel_for_testing)};
  config.tls_cert_file = absl::GetFlag(FLAGS_tls_cert);
  config.tls_key_file = absl::GetFlag(FLAGS_tls_key);
  config.allow_insecure = absl::GetFlag(FLAGS_allow_insecure);
  config.min_batch_floor = absl::GetFlag(FLAGS_min_batch_floor);
  config.extra_max_fraction = absl::GetFlag(FLAGS_extra_max_fraction);
  config.deadline_margin =
      absl::Seconds(absl::GetFlag(FLAGS_deadline_margin_seconds));
  config.health_port = absl::GetFlag(FLAGS_health_port);
  config.health_port_file = absl::GetFlag(FLAGS_health_port_file);
  config.metrics_port = absl::GetFlag(FLAGS_metrics_port);
  config.metrics_host = absl::GetFlag(FLAGS_metrics_host);
  config.metrics_port_file = absl::GetFlag(FLAGS_metrics_port_file);
  ASSIGN_OR_RETURN(config.log_level,
                   ParseLogLevel(absl::GetFlag(FLAGS_log_level)));
  config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  return config;
}

}  // namespace
}  // namespace ldp

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "The shuffler of the shuffle model: holds agents' sealed reports "
      "(admitted by the server's signed tickets, one per agent and task) "
      "until a batch reaches its randomized threshold, then drops who sent "
      "them and when, permutes them and delivers the batch to the "
      "aggregator over mutual TLS. It cannot read a report.\n"
      "Usage: ldp-shuffler --data_dir=DIR --ticket_key_file=HEX_FILE "
      "--server=HOST:PORT (--server_ca=PEM --client_cert=PEM "
      "--client_key=PEM | --insecure_server_channel_for_testing) "
      "[--listen=HOST:PORT] [--tls_cert=PEM --tls_key=PEM] "
      "[--min_batch_floor=N] [--extra_max_fraction=F] [--health_port=N] "
      "[--metrics_port=N]");
  ldp::ShowOnlyFlagsFrom("shuffler_main");
  // The runner waits for the shutdown signals, whichever thread they reach.
  const sigset_t signals = ldp::BlockShutdownSignals();
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<ldp::ShufflerProgramConfig> config = ldp::ConfigFromFlags();
  if (!config.ok()) return ldp::Fail(config.status());
  const absl::Status run = ldp::RunShuffler(*config, signals);
  return run.ok() ? 0 : ldp::Fail(run);
}
