// The TLS flags of every client program (ldp-agent, ldp, ldp-loadtest),
// defined once so their names, defaults and help text cannot drift apart:
// --tls_ca_file, --tls_cert_file and --tls_key_file.
//
// Flags live only in executables (docs/ARCHITECTURE.md, "A new flag"), so
// this is its own small library that only the client mains link; libraries
// take the typed ClientTlsFiles instead. ldp-server's TLS flags are the
// server side of the handshake (its own certificate, and the CA it checks
// clients against) and stay in server/main.cc.
#ifndef LDP_CLIENT_TLS_FLAGS_TLS_FLAGS_H_
#define LDP_CLIENT_TLS_FLAGS_TLS_FLAGS_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "client/agent_client/agent_client.h"
#include "grpcpp/security/credentials.h"

namespace ldp {

// The three flags as the struct ChannelCredentialsFromFiles takes.
ClientTlsFiles TlsFilesFromFlags();

// ChannelCredentialsFromFiles(TlsFilesFromFlags()): plaintext without
// files, TLS otherwise; its errors name the flag at fault.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
ChannelCredentialsFromFlags();

// ShowOnlyFlagsFrom (common/base/flags_usage.h) for a main that takes these
// flags: --help lists the flags defined in files whose path contains
// `main_file_part`, and the TLS flags of this file. Call before
// ParseCommandLine.
void ShowOnlyFlagsFromWithTls(std::string_view main_file_part);

}  // namespace ldp

#endif  // LDP_CLIENT_TLS_FLAGS_TLS_FLAGS_H_
