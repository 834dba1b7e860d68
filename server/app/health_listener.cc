// Health names, the probes' listener and the drain; see the header.
#include "server/app/health_listener.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "proto/ldp/v1/analyst_service.grpc.pb.h"
#include "proto/ldp/v1/relay_service.grpc.pb.h"

namespace ldp {
namespace {

// gRPC gives every ServerBuilder the plugins registered process-wide, so
// the reflection plugin meant for the main port would also come with the
// probes' listener and serve the ldp.v1 descriptors there, in plaintext.
// This option drops them from the one builder it is set on.
class WithoutBuilderPlugins : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    plugins->clear();
  }
};

}  // namespace

std::vector<std::string> HealthServiceNames(bool relay_service) {
  std::vector<std::string> names = {v1::AgentService::service_full_name(),
                                    v1::AnalystService::service_full_name()};
  if (relay_service) names.push_back(v1::RelayService::service_full_name());
  return names;
}

void MarkServing(grpc::Server& server, const std::vector<std::string>& names) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  for (const std::string& name : names) health->SetServingStatus(name, true);
}

void RefusePortSharing(grpc::ServerBuilder& builder) {
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

absl::StatusOr<std::unique_ptr<HealthListener>> StartHealthListener(
    const std::string& listen, int port,
    const std::vector<std::string>& names) {
  auto listener = std::make_unique<HealthListener>();
  grpc::ServerBuilder builder;
  builder.SetOption(std::make_unique<WithoutBuilderPlugins>());
  builder.RegisterCallbackGenericService(&listener->unimplemented);
  RefusePortSharing(builder);
  builder.AddListeningPort(absl::StrCat(listen, ":", port),
                           grpc::InsecureServerCredentials(), &listener->port);
  listener->server = builder.BuildAndStart();
  if (listener->server == nullptr || listener->port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen, ":",
                                               port,
                                               " for --health_port (in use?)"));
  }
  MarkServing(*listener->server, names);
  return listener;
}

void DrainAndShutdown(grpc::Server& server, grpc::Server* health_server,
                      const sigset_t& signals, absl::Duration drain) {
  server.GetHealthCheckService()->SetServingStatus(false);
  if (health_server != nullptr) {
    health_server->GetHealthCheckService()->SetServingStatus(false);
  }
  const absl::Time end = absl::Now() + drain;
  for (absl::Duration left = end - absl::Now(); left > absl::ZeroDuration();
       left = end - absl::Now()) {
    const timespec timeout = absl::ToTimespec(left);
    // A signal ends the drain; EAGAIN means the time is up, EINTR (some
    // other signal) just waits on.
    if (sigtimedwait(&signals, nullptr, &timeout) >= 0) break;
  }
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(5);
  server.Shutdown(deadline);
  // Last, so that probes keep seeing NOT_SERVING until the main port is shut.
  if (health_server != nullptr) health_server->Shutdown(deadline);
}

}  // namespace ldp
