// gRPC health for ldp-server: which names it answers for, the optional
// plaintext health-only listener for probes that cannot speak TLS, and the
// drain on shutdown during which both say NOT_SERVING; and the rule that
// every listener refuses a port another process holds.
#ifndef LDP_SERVER_APP_HEALTH_LISTENER_H_
#define LDP_SERVER_APP_HEALTH_LISTENER_H_

#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"

namespace ldp {

// The names health answers for besides "": the ldp.v1 services served, so
// that a probe or balancer can ask about the one it routes to.
std::vector<std::string> HealthServiceNames(bool relay_service);

// gRPC's default health service starts out knowing only "" (SERVING);
// other names are NOT_FOUND until set.
void MarkServing(grpc::Server& server, const std::vector<std::string>& names);

// For every listener ldp-server opens. gRPC sets SO_REUSEPORT by default, so
// a second process given a port in use would start too, and the kernel
// would split agents' connections between two servers (and two databases)
// without a word. With this the second one fails to bind instead.
void RefusePortSharing(grpc::ServerBuilder& builder);

// The probes' own plaintext listener, and what must outlive it.
struct HealthListener {
  // Answers UNIMPLEMENTED to every method but health's (gRPC adds its
  // default health service at start); gRPC also refuses to build a server
  // with no service of its own.
  grpc::CallbackGenericService unimplemented;
  std::unique_ptr<grpc::Server> server;  // declared last: destroyed first
  int port = 0;
};

// Health only on `listen`:`port` (0 = any free port), so plaintext reveals
// nothing but the serving status of `names`. UNAVAILABLE if it cannot bind.
absl::StatusOr<std::unique_ptr<HealthListener>> StartHealthListener(
    const std::string& listen, int port, const std::vector<std::string>& names);

// Shutting down without a drain would set NOT_SERVING and refuse new calls
// in the same instant, so no probe could ever see NOT_SERVING. Instead health
// answers NOT_SERVING on every name and both ports while calls are still
// served, for `drain` or until one of `signals` arrives; only then does the
// server stop accepting calls (GOAWAY) and give in-flight ones 5 s.
void DrainAndShutdown(grpc::Server& server, grpc::Server* health_server,
                      const sigset_t& signals, absl::Duration drain);

}  // namespace ldp

#endif  // LDP_SERVER_APP_HEALTH_LISTENER_H_
