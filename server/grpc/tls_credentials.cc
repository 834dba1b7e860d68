// TLS server credentials; see the header.
#include "server/grpc/tls_credentials.h"

#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"
#include "grpcpp/security/server_credentials.h"

namespace ldp {

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>>
ServerCredentialsFromFiles(const ServerTlsFiles& files) {
  if (!files.tls()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca_file needs --tls_cert_file and --tls_key_file");
    }
    return grpc::InsecureServerCredentials();
  }
  if (files.cert_file.empty() || files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "give both --tls_cert_file and --tls_key_file, or neither");
  }
  absl::StatusOr<std::string> cert =
      ReadPemFile(files.cert_file, "--tls_cert_file");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key =
      ReadPemFile(files.key_file, "--tls_key_file");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back(
      {.private_key = *std::move(key), .cert_chain = *std::move(cert)});
  if (!files.client_ca_file.empty()) {
    absl::StatusOr<std::string> ca =
        ReadPemFile(files.client_ca_file, "--tls_client_ca_file");
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
    options.client_certificate_request =
        GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
}

}  // namespace ldp
