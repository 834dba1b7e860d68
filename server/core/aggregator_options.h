// What an Aggregator is configured with: its clock, the analyst's and
// enrollment tokens, per-call limits, backpressure, strategy planning and
// how often it follows a shared store. The collaborators of server/core
// read these without the facade (aggregator.h).
#ifndef LDP_SERVER_CORE_AGGREGATOR_OPTIONS_H_
#define LDP_SERVER_CORE_AGGREGATOR_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/base/clock.h"
#include "common/workload/strategies/strategy_planner.h"
#include "server/telemetry/event_log.h"

namespace ldp {

// An enrollment token for one device batch. It admits at most `max_agents`
// agents in total; the count is kept in the store (each agent row names the
// token that admitted it), so a leaked or abused token mints a bounded
// number of agents even across restarts.
struct EnrollmentQuota {
  std::string token{};
  int64_t max_agents = 1;  // ≥ 1
};

struct AggregatorOptions {
  // Required; not owned, must outlive the aggregator.
  const Clock* clock = nullptr;
  // Required, ≥ 16 characters: the analyst credential (from server config).
  std::string analyst_token{};
  // If non-empty, Enroll accepts this token, any number of times.
  std::string enrollment_token{};
  // Further accepted tokens, each with a quota (distinct, non-empty, and
  // not `enrollment_token`). Enrollment is open iff both are empty.
  std::vector<EnrollmentQuota> enrollment_quotas{};
  // GetTasks returns at most this many tasks when asked for 0.
  int default_max_tasks = 64;
  // UploadReports accepts at most this many reports per call.
  int max_reports_per_call = 1000;
  // Writes per group commit, at most (bounds one transaction's latency).
  int max_writes_per_commit = 8192;
  // Backpressure: writes (reports, enrollments) waiting for a commit, at
  // most; beyond it uploads and enrollments are answered RESOURCE_EXHAUSTED
  // (retry with backoff) instead of queueing without limit. A queued report
  // holds ~0.5 KB, so the default bounds the queue near 50 MB. 0 = no bound.
  int64_t max_queued_writes = 100'000;
  // How workload questions' strategies are planned at CreateStudy (the
  // optimizers' cache directory and time limit); wire_sized_only is
  // always on.
  StrategyPlannerOptions strategy_planner{};
  // Structured events (studies created, rounds opened and closed, failed
  // commits, refused enrollments); not owned, may be null.
  EventLog* event_log = nullptr;
  // Shared stores (several servers on one database): how often this server
  // reads what the others wrote (studies, rounds, reports). Analyst calls
  // also catch up first, so their answers never lag; this bounds how stale
  // task lists and quorum checks can be. > 0.
  absl::Duration follow_interval = absl::Milliseconds(250);
};

}  // namespace ldp

#endif  // LDP_SERVER_CORE_AGGREGATOR_OPTIONS_H_
