// Loopback addresses; see the header.
#include "common/base/host_address.h"

#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace ldp {

bool IsLoopback(absl::string_view host) {
  host = absl::StripPrefix(absl::StripSuffix(host, "]"), "[");
  return host == "localhost" || host == "::1" || absl::StartsWith(host, "127.");
}

}  // namespace ldp
