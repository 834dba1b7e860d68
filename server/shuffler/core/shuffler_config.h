// What the shuffler core runs with, as one typed value: ldp-shuffler's
// main turns flags into it, tests write it directly, and nothing in the
// libraries reads a flag.
#ifndef LDP_SERVER_SHUFFLER_CORE_SHUFFLER_CONFIG_H_
#define LDP_SERVER_SHUFFLER_CORE_SHUFFLER_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/base/clock.h"
#include "server/telemetry/event_log.h"

namespace ldp {

struct ShufflerConfig {
  // The SQLite file (created if missing, resumed if present).
  std::string db_path{};
  // The server's Ed25519 ticket public key, 32 raw bytes.
  std::string ticket_public_key{};
  // No batch smaller than max(ticket.min_batch, this) is ever released.
  uint64_t min_batch_floor = 100;
  // A batch key's release threshold is min + U{0..ceil(min * this)}.
  double extra_max_fraction = 0.1;
  // The shuffler stops taking a round's reports this long before the
  // ticket's deadline and releases what reaches the minimum, so that the
  // last batch arrives while the server still accepts it.
  absl::Duration deadline_margin = absl::Seconds(30);
  // Deadlines and the refusal of late submissions read this clock.
  const Clock* clock = RealClock::Get();
  // Release, delivery and drop events; null = none. Never an agent id.
  EventLog* event_log = nullptr;
  // With true, a thread sweeps deadlines and delivers the outbox until the
  // Shuffler is destroyed; with false the owner calls SweepDeadlines and
  // DeliverOldest itself (tests do, step by step).
  bool run_sender = true;
  // The sender's pacing, in real time: how often deadlines are swept when
  // idle, and the backoff between failed deliveries (doubling up to max).
  absl::Duration sweep_interval = absl::Seconds(1);
  absl::Duration retry_initial_backoff = absl::Seconds(1);
  absl::Duration retry_max_backoff = absl::Minutes(1);
};

// OK, or INVALID_ARGUMENT naming the first impossible setting.
absl::Status ValidateShufflerConfig(const ShufflerConfig& config);

}  // namespace ldp

#endif  // LDP_SERVER_SHUFFLER_CORE_SHUFFLER_CONFIG_H_
