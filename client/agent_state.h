// Everything an agent must remember between runs, and its text file form.
//
// The agent, not the server, is the authority on how much of its privacy
// budget it has spent (DESIGN invariant 4), so this state is written
// durably before any report leaves the device. It holds:
//   - per study: the cap the agent accepted and the nano-ε spent so far;
//   - the memo: earlier answers keyed by a task fingerprint
//     (task_fingerprint.h), so a repeated identical question is answered
//     with the same payload at no cost;
//   - every report created, with its report_id, so a retry (even after a
//     restart) resends identical bytes, and whether the server settled it.
// The file is line-oriented text so that a person can audit their budget:
//   ldp-agent-state 1
//   study <study_id> <cap_nanos> <spent_nanos>
//   memo <fingerprint hex> <payload>
//   report <task_id> <report_id hex> pending|settled <payload>
//   end
#ifndef LDP_CLIENT_AGENT_STATE_H_
#define LDP_CLIENT_AGENT_STATE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/task.h"

namespace ldp {

struct StudyBudget {
  int64_t cap_nanos = 0;
  int64_t spent_nanos = 0;
  friend bool operator==(const StudyBudget&, const StudyBudget&) = default;
};

struct StoredReport {
  TaskReport report;
  // True once the server acknowledged it or refused it for good; false
  // while it still has to be (re)sent.
  bool settled = false;
};

struct AgentState {
  std::map<uint64_t, StudyBudget> studies;
  std::map<std::string, ReportPayload> memo;  // fingerprint → payload
  std::map<uint64_t, StoredReport> reports;   // task_id → report

  int64_t TotalSpentNanos() const;
};

bool operator==(const StoredReport& a, const StoredReport& b);
bool operator==(const AgentState& a, const AgentState& b);

std::string SerializeAgentState(const AgentState& state);

// DataLoss naming the line for anything malformed, inconsistent (spent
// above cap, negative amounts, duplicate keys) or truncated (no "end").
// A damaged file must stop the agent, never reset its budget.
absl::StatusOr<AgentState> ParseAgentState(absl::string_view text);

}  // namespace ldp

#endif  // LDP_CLIENT_AGENT_STATE_H_
