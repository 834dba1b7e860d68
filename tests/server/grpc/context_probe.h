// A gRPC server on loopback whose every method runs a test's probe on the
// call's server context, for the helpers that take one
// (server/grpc/auth_metadata.h, call_status.h): the probe reads the
// caller's metadata and peer, may add trailing metadata, and returns the
// call's status. The client calls any generated stub method; the generic
// service answers it.
//
// Why: a grpc::CallbackServerContext carries what these helpers read
// (client metadata, peer, auth context) only inside a real call, so they
// are tested inside one.
#ifndef LDP_TESTS_SERVER_GRPC_CONTEXT_PROBE_H_
#define LDP_TESTS_SERVER_GRPC_CONTEXT_PROBE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/ldp/v1/agent_service.grpc.pb.h"
#include "tests/server/grpc/trailers.h"

namespace ldp::testing {

using ContextProbe = std::function<grpc::Status(grpc::CallbackServerContext&)>;

// An absl::Status as the probe's answer (code and message kept).
inline grpc::Status ProbeAnswer(const absl::Status& status) {
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

class ContextProbeService final : public grpc::CallbackGenericService {
 public:
  void Set(ContextProbe probe) {
    absl::MutexLock lock(&mutex_);
    probe_ = std::move(probe);
  }

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    ContextProbe probe;
    {
      absl::MutexLock lock(&mutex_);
      probe = probe_;
    }
    return new Answer(
        probe ? probe(*context)
              : grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no probe set"));
  }

 private:
  // Finishes the call at once, without reading the request; an OK answer
  // carries an empty message (a unary client needs one), which parses as
  // any generated response.
  class Answer final : public grpc::ServerGenericBidiReactor {
   public:
    explicit Answer(const grpc::Status& status) {
      if (!status.ok()) {
        Finish(status);
        return;
      }
      grpc::Slice empty("");
      response_ = grpc::ByteBuffer(&empty, 1);
      StartWriteAndFinish(&response_, grpc::WriteOptions(), status);
    }
    void OnDone() override { delete this; }

   private:
    grpc::ByteBuffer response_;
  };

  absl::Mutex mutex_;
  ContextProbe probe_ ABSL_GUARDED_BY(mutex_);
};

// The probe server on `address` ("127.0.0.1:0", "[::1]:0"), and calls
// through it. `extra` (may be null) is another service to serve.
class ContextProbeServer {
 public:
  explicit ContextProbeServer(const std::string& address,
                              grpc::Service* extra = nullptr) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(),
                             &port_);
    builder.RegisterCallbackGenericService(&service_);
    if (extra != nullptr) builder.RegisterService(extra);
    server_ = builder.BuildAndStart();
    host_ = address.substr(0, address.rfind(':'));
  }
  ~ContextProbeServer() {
    if (server_ != nullptr) server_->Shutdown();
  }

  bool started() const { return server_ != nullptr && port_ != 0; }
  void Set(ContextProbe probe) { service_.Set(std::move(probe)); }

  // A channel on its own connection: each has its own client port.
  std::shared_ptr<grpc::Channel> NewChannel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(absl::StrCat(host_, ":", port_),
                                     grpc::InsecureChannelCredentials(), args);
  }

  // One call on `channel` (a new one if null), with `authorization`
  // metadata unless empty; `context` keeps the trailers.
  grpc::Status Call(grpc::ClientContext& context,
                    const std::string& authorization,
                    std::shared_ptr<grpc::Channel> channel = nullptr) const {
    if (!authorization.empty()) {
      context.AddMetadata("authorization", authorization);
    }
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    auto stub =
        v1::AgentService::NewStub(channel != nullptr ? channel : NewChannel());
    v1::GetBudgetResponse response;
    return stub->GetBudget(&context, v1::GetBudgetRequest(), &response);
  }

 private:
  ContextProbeService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string host_;
};

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_GRPC_CONTEXT_PROBE_H_
