// What every part of the aggregator core shares: its options, the store,
// the writer queues, the counters and the event log.
//
// Why a struct: the collaborators behind Aggregator (agent registry, report
// ingest, round lifecycle, program driver, restore, store follower) each
// need most of these; passing them one by one would repeat the same five
// arguments everywhere. The context owns nothing: Aggregator::Impl owns
// each piece and outlives every collaborator that holds the context.
#ifndef LDP_SERVER_CORE_AGGREGATOR_CONTEXT_H_
#define LDP_SERVER_CORE_AGGREGATOR_CONTEXT_H_

#include <initializer_list>
#include <string_view>

#include "absl/status/status.h"
#include "server/commit/commit_lanes.h"
#include "server/core/aggregator_options.h"
#include "server/store/store.h"
#include "server/telemetry/event_log.h"
#include "server/telemetry/server_stats.h"

namespace ldp {

struct AggregatorContext {
  const AggregatorOptions& options;
  Store& store;
  // Every durable write goes through one of its queues, on that queue's
  // writer thread.
  CommitLanes& lanes;
  ServerStats& stats;

  const Clock& clock() const { return *options.clock; }
  bool shared_store() const { return store.shared(); }
  // Writes an event if the options name an event log.
  void Log(LogLevel level, std::string_view event,
           std::initializer_list<LogField> fields) const {
    if (options.event_log != nullptr) {
      options.event_log->Write(level, event, fields);
    }
  }
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGGREGATOR_CONTEXT_H_
