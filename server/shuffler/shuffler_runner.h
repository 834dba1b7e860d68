// ldp-shuffler's start-up, serving and shutdown from a validated
// ShufflerProgramConfig: the core on its database, the delivery channel to
// the server, the agents' listener, and the optional health and metrics
// listeners.
#ifndef LDP_SERVER_SHUFFLER_SHUFFLER_RUNNER_H_
#define LDP_SERVER_SHUFFLER_SHUFFLER_RUNNER_H_

#include <signal.h>

#include "absl/status/status.h"
#include "server/shuffler/shuffler_program_config.h"

namespace ldp {

// Runs until one of `signals` (blocked in every thread) arrives; an error
// if the configuration is refused or a listener cannot start.
absl::Status RunShuffler(const ShufflerProgramConfig& config,
                         const sigset_t& signals);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_SHUFFLER_RUNNER_H_
