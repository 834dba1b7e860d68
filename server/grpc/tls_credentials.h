// The server's transport credentials from PEM files: TLS with gRPC's
// OpenSSL-backed SSL credentials, optionally asking agents for client
// certificates (mutual TLS).
//
// Why client certificates are requested but not demanded by the handshake:
// one port serves both services, and an analyst's tool need not carry a
// device certificate. With a client CA, every certificate a client does
// present must chain to it (a rogue one fails the handshake), and the agent
// service then refuses callers without one when configured to
// (AgentServiceOptions::require_client_certificate).
#ifndef LDP_SERVER_GRPC_TLS_CREDENTIALS_H_
#define LDP_SERVER_GRPC_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"

namespace ldp {

struct ServerTlsFiles {
  // Both or neither: the server's certificate chain and private key (PEM).
  std::string cert_file{};
  std::string key_file{};
  // Optional: CA certificate(s) (PEM) that client certificates must chain
  // to; needs cert_file and key_file.
  std::string client_ca_file{};

  bool tls() const { return !cert_file.empty() || !key_file.empty(); }
};

// Insecure credentials when no file is named; SSL credentials otherwise.
// InvalidArgument for an incomplete set, NotFound/PermissionDenied (naming
// the file) for one that cannot be read, InvalidArgument for one that is not
// PEM.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>>
ServerCredentialsFromFiles(const ServerTlsFiles& files);

}  // namespace ldp

#endif  // LDP_SERVER_GRPC_TLS_CREDENTIALS_H_
