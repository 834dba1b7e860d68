// ldp-loadtest --mode=sessions --in_flight=N: every simulated agent makes
// the same three AgentService calls as under --threads (Enroll, GetTasks,
// one UploadReports stream), but on gRPC's callback API, N sessions at a
// time, so a session waiting on the server holds no thread.
//
// Why: with one blocked thread per session, thread switches in the kernel
// and gRPC's per-call completion queues were most of the load test's CPU
// (bench/reports/INGEST.md), and the load test shares the machine with the
// server it measures. The calls are made here rather than through AgentClient,
// which blocks: no retries (a failed call fails its session, counted as
// under --threads once AgentClient's retries are spent), and no send
// window (the blocking workers call AgentClient::Upload directly, which
// has none either). The Agent that answers is the same real Agent.
#ifndef LDP_TOOLS_LOADTEST_LOADTEST_CALLBACK_SESSIONS_H_
#define LDP_TOOLS_LOADTEST_LOADTEST_CALLBACK_SESSIONS_H_

#include "tools/loadtest/loadtest_sessions.h"

namespace ldp {

// Runs the sessions of agents shared.next_agent … num_agents − 1,
// shared.run.in_flight at once, and returns when all have ended; their
// counts are merged into shared.totals.
void RunCallbackSessions(Shared& shared);

}  // namespace ldp

#endif  // LDP_TOOLS_LOADTEST_LOADTEST_CALLBACK_SESSIONS_H_
