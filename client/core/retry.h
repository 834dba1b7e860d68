// Which failures are worth retrying, and how long to wait between tries.
//
// Retrying is always safe for an agent: every report carries a report_id
// fixed when it was created and is resent byte for byte, so the server
// dedupes it and charges the budget at most once (DESIGN invariant 5).
// Waiting grows exponentially with jitter, so thousands of agents that lost
// the server at the same moment do not all return at the same moment.
#ifndef LDP_CLIENT_CORE_RETRY_H_
#define LDP_CLIENT_CORE_RETRY_H_

#include "absl/random/bit_gen_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace ldp {

// UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, RESOURCE_EXHAUSTED, CANCELLED,
// INTERNAL and UNKNOWN may succeed on a later try; every other code is the
// server's final word.
bool IsTransient(absl::StatusCode code);

struct BackoffOptions {
  absl::Duration initial_delay = absl::Milliseconds(100);
  absl::Duration max_delay = absl::Seconds(30);
  double multiplier = 2.0;
};

// Delays d_k = min(max, initial · multiplier^k) scaled by a uniform factor
// in [1/2, 1] ("equal jitter"). Not privacy-critical, but it draws from the
// agent's generator anyway so no other RNG is needed.
class Backoff {
 public:
  // InvalidArgument unless 0 < initial_delay ≤ max_delay (both finite) and
  // multiplier ≥ 1.
  static absl::StatusOr<Backoff> Create(const BackoffOptions& options);

  absl::Duration NextDelay(absl::BitGenRef gen);
  void Reset() { attempt_ = 0; }

 private:
  explicit Backoff(const BackoffOptions& options) : options_(options) {}

  BackoffOptions options_;
  int attempt_ = 0;
};

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_RETRY_H_
