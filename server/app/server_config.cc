// ServerConfig's rules; see the header.
#include "server/app/server_config.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/store/postgres/postgres_store.h"
#include "server/store/sharded/sharded_store.h"

namespace ldp {
namespace {

absl::Status ValidateTransport(const ServerConfig& config) {
  if (config.require_client_cert && config.tls.client_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "--require_client_cert needs --tls_client_ca_file (the CA that "
        "signs agent certificates)");
  }
  if (!config.trusted_shufflers.empty() && config.tls.client_ca_file.empty()) {
    return absl::InvalidArgumentError(
        "--trusted_shufflers needs --tls_client_ca_file: shufflers are "
        "known by their client certificates, which must chain to it");
  }
  if (!config.tls.tls() && !IsLoopback(config.listen) &&
      !config.allow_insecure) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve plaintext on ", config.listen,
        ": give --tls_cert_file and --tls_key_file, or --allow_insecure "
        "for a trusted private network"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateServerConfig(const ServerConfig& config) {
  if (absl::Status transport = ValidateTransport(config); !transport.ok()) {
    return transport;
  }
  if (config.max_message_bytes < 1024) {
    return absl::InvalidArgumentError("--max_message_bytes must be >= 1024");
  }
  if (config.drain < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--drain_seconds must be >= 0");
  }
  if (config.max_queued_writes < 0) {
    return absl::InvalidArgumentError(
        "--max_queued_writes must be >= 0 (0 = no bound)");
  }
  if (config.follow_interval < absl::Milliseconds(1)) {
    return absl::InvalidArgumentError("--follow_interval_ms must be >= 1");
  }
  return absl::OkStatus();
}

std::string PrintableDb(const std::string& db) {
  if (!IsPostgresUrl(db)) return db;
  std::vector<std::string> urls = SplitShardUrls(db);
  for (std::string& url : urls) url = RedactPostgresUrl(url);
  return absl::StrJoin(urls, " ");
}

std::string StrategyCacheDir(const ServerConfig& config) {
  if (!config.strategy_cache_dir.empty()) return config.strategy_cache_dir;
  return IsPostgresUrl(config.db) ? std::string("ldp.strategies")
                                  : config.db + ".strategies";
}

std::string ShuffleKeyFile(const ServerConfig& config) {
  if (!config.shuffle_key_file.empty()) return config.shuffle_key_file;
  if (IsPostgresUrl(config.db)) return "";
  return config.db + ".shuffle_keys";
}

}  // namespace ldp
