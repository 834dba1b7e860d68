// Reading a finished call's trailing metadata, for the adapters' tests:
// the services and the context probe both answer through trailers.
#ifndef LDP_TESTS_SERVER_GRPC_TRAILERS_H_
#define LDP_TESTS_SERVER_GRPC_TRAILERS_H_

#include <string>

#include "grpcpp/grpcpp.h"

namespace ldp::testing {

// The first value of trailing metadata `key`, or "" if there is none.
inline std::string TrailerOf(const grpc::ClientContext& context,
                             const std::string& key) {
  const auto& trailers = context.GetServerTrailingMetadata();
  const auto it = trailers.find(key);
  return it == trailers.end()
             ? ""
             : std::string(it->second.data(), it->second.size());
}

}  // namespace ldp::testing

#endif  // LDP_TESTS_SERVER_GRPC_TRAILERS_H_
