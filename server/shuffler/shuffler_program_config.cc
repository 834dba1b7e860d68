// ldp-shuffler's configuration rules; see the header.
#include "server/shuffler/shuffler_program_config.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"
#include "common/base/host_address.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

absl::Status ValidateTransport(const ShufflerProgramConfig& config) {
  ASSIGN_OR_RETURN(const auto listen, SplitHostPort(config.listen, "--listen"));
  const bool tls =
      !config.tls_cert_file.empty() || !config.tls_key_file.empty();
  if (tls && (config.tls_cert_file.empty() || config.tls_key_file.empty())) {
    return absl::InvalidArgumentError(
        "give both --tls_cert and --tls_key, or neither");
  }
  if (!tls && !IsLoopback(listen.first) && !config.allow_insecure) {
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve agents in plaintext on ", config.listen,
        ": give --tls_cert and --tls_key, or --allow_insecure for a trusted "
        "private network"));
  }
  if (config.server.target.empty()) {
    return absl::InvalidArgumentError(
        "--server (host:port of the aggregator) is required");
  }
  RETURN_IF_ERROR(SplitHostPort(config.server.target, "--server").status());
  return ServerChannelCredentials(config.server).status();
}

absl::Status ValidateNumbers(const ShufflerProgramConfig& config) {
  if (config.deadline_margin < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--deadline_margin_seconds must be >= 0");
  }
  if (config.min_batch_floor < 1) {
    return absl::InvalidArgumentError("--min_batch_floor must be >= 1");
  }
  if (!(config.extra_max_fraction >= 0 && config.extra_max_fraction <= 1)) {
    return absl::InvalidArgumentError("--extra_max_fraction must be in [0, 1]");
  }
  if (config.health_port < -1 || config.health_port > 65535 ||
      config.metrics_port < -1 || config.metrics_port > 65535) {
    return absl::InvalidArgumentError(
        "--health_port and --metrics_port must be -1 (none), 0 (any free "
        "port) or a port number");
  }
  if (config.max_message_bytes < 1024) {
    return absl::InvalidArgumentError("--max_message_bytes must be >= 1024");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::pair<std::string, int>> SplitHostPort(
    const std::string& address, const std::string& flag) {
  const size_t colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " must be HOST:PORT (e.g. 127.0.0.1:50061), not \"",
                     address, "\""));
  }
  return std::make_pair(address.substr(0, colon), port);
}

absl::Status ValidateShufflerProgramConfig(
    const ShufflerProgramConfig& config) {
  if (config.data_dir.empty()) {
    return absl::InvalidArgumentError(
        "--data_dir is required (the shuffler's database lives there)");
  }
  if (config.ticket_key_file.empty()) {
    return absl::InvalidArgumentError(
        "--ticket_key_file is required (the server's ticket public key, 64 "
        "hex characters)");
  }
  RETURN_IF_ERROR(ValidateTransport(config));
  return ValidateNumbers(config);
}

absl::StatusOr<std::string> ReadTicketKeyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFileText(path, "--ticket_key_file"));
  const absl::string_view hex = absl::StripAsciiWhitespace(text);
  bool all_hex = hex.size() == 64;
  for (const char c : hex) {
    all_hex = all_hex && std::isxdigit(static_cast<unsigned char>(c)) != 0;
  }
  if (!all_hex) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ticket_key_file ", path,
        ": expected the server's Ed25519 ticket public key as 64 hex "
        "characters"));
  }
  return absl::HexStringToBytes(hex);
}

}  // namespace ldp
