// ShufflerConfig's rules; see the header.
#include "server/shuffler/core/shuffler_config.h"

#include "absl/strings/str_cat.h"
#include "common/crypto/ed25519.h"

namespace ldp {

absl::Status ValidateShufflerConfig(const ShufflerConfig& config) {
  if (config.db_path.empty()) {
    return absl::InvalidArgumentError("the database path must not be empty");
  }
  if (config.ticket_public_key.size() != kEd25519KeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ticket public key must be ", kEd25519KeyBytes,
                     " bytes, not ", config.ticket_public_key.size()));
  }
  if (config.min_batch_floor < 1) {
    return absl::InvalidArgumentError("the minimum batch floor must be >= 1");
  }
  if (!(config.extra_max_fraction >= 0 && config.extra_max_fraction <= 1)) {
    return absl::InvalidArgumentError(
        "the extra threshold fraction must be in [0, 1]");
  }
  if (config.clock == nullptr) {
    return absl::InvalidArgumentError("the clock must not be null");
  }
  if (config.sweep_interval <= absl::ZeroDuration() ||
      config.deadline_margin < absl::ZeroDuration() ||
      config.retry_initial_backoff <= absl::ZeroDuration() ||
      config.retry_max_backoff < config.retry_initial_backoff) {
    return absl::InvalidArgumentError(
        "the sweep interval and retry backoffs must be positive, the "
        "maximum backoff at least the initial one, the deadline margin not "
        "negative");
  }
  return absl::OkStatus();
}

}  // namespace ldp
