// ldp-server's life from a ServerConfig: the store and aggregator, the gRPC
// services on their port, health and metrics listeners, the round closer,
// and the drain when a shutdown signal comes.
//
// Everything the binary does apart from reading flags, so that main.cc is
// only the flags' translation and the order of start-up can be read top to
// bottom in one function.
#ifndef LDP_SERVER_APP_SERVER_RUNNER_H_
#define LDP_SERVER_APP_SERVER_RUNNER_H_

#include <signal.h>

#include "absl/status/status.h"
#include "server/app/server_config.h"

namespace ldp {

// Starts the server and blocks until one of `signals` (blocked in every
// thread by the caller) arrives, then drains and shuts down. An error
// means the server did not start; it says which setting to fix.
absl::Status RunServer(const ServerConfig& config, const sigset_t& signals);

}  // namespace ldp

#endif  // LDP_SERVER_APP_SERVER_RUNNER_H_
