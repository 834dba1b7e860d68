// The ingest baselines' client connections (bench/reports/INGEST.md): one gRPC
// channel, so one TCP connection, per entry, each connected before the
// clock starts, as ldp-loadtest opens them.
#ifndef LDP_BENCH_INGEST_LOOPBACK_CHANNELS_H_
#define LDP_BENCH_INGEST_LOOPBACK_CHANNELS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"

namespace ldp::bench {

// `count` channels to `address`, each on its own connection and connected
// (or UNAVAILABLE after 10 s).
absl::StatusOr<std::vector<std::shared_ptr<grpc::Channel>>> ConnectChannels(
    const std::string& address, int count);

}  // namespace ldp::bench

#endif  // LDP_BENCH_INGEST_LOOPBACK_CHANNELS_H_
