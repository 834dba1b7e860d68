// Connections for the baselines' clients; see the header.
#include "bench/ingest/loopback_channels.h"

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace ldp::bench {

absl::StatusOr<std::vector<std::shared_ptr<grpc::Channel>>> ConnectChannels(
    const std::string& address, int count) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int c = 0; c < count; ++c) {
    grpc::ChannelArguments arguments;
    // A distinct argument gives each channel its own connection.
    arguments.SetInt("ldp.sink_channel", c);
    channels.push_back(grpc::CreateCustomChannel(
        address, grpc::InsecureChannelCredentials(), arguments));
    if (!channels.back()->WaitForConnected(std::chrono::system_clock::now() +
                                           std::chrono::seconds(10))) {
      return absl::UnavailableError(
          absl::StrCat("cannot connect to ", address));
    }
  }
  return channels;
}

}  // namespace ldp::bench
