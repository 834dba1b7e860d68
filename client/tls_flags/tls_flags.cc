#include "client/tls_flags/tls_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

ABSL_FLAG(std::string, tls_ca_file, "",
          "PEM CA certificate(s) the server's certificate must chain to; "
          "implies TLS. Without it, --tls_cert_file alone trusts the "
          "system's roots; with no --tls_* file at all the connection is "
          "plaintext (loopback and testing only).");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM client certificate (with --tls_key_file) for a server that "
          "asks for one (ldp-server --tls_client_ca_file); implies TLS. "
          "ldp-server's --require_client_cert demands one of agents, not of "
          "analysts.");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key of --tls_cert_file.");

namespace ldp {

ClientTlsFiles TlsFilesFromFlags() {
  return {.ca_file = absl::GetFlag(FLAGS_tls_ca_file),
          .cert_file = absl::GetFlag(FLAGS_tls_cert_file),
          .key_file = absl::GetFlag(FLAGS_tls_key_file)};
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ChannelCredentialsFromFlags() {
  return ChannelCredentialsFromFiles(TlsFilesFromFlags());
}

void ShowOnlyFlagsFromWithTls(std::string_view main_file_part) {
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags =
      [part = std::string(main_file_part)](absl::string_view path) {
        return absl::StrContains(path, part) ||
               absl::StrContains(path, "client/tls_flags");
      };
  absl::SetFlagsUsageConfig(usage);
}

}  // namespace ldp
