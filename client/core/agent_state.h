// Everything an agent must remember between runs, and its text file form.
//
// The agent, not the server, is the authority on how much of its privacy
// budget it has spent (DESIGN invariant 4), so this state is written
// durably before any report leaves the device. It holds:
//   - the caps in force: a lifetime cap and a cap per rolling period; only
//     the device's owner sets them (the server has no say in them);
//   - the lifetime spend, and every charge still inside the rolling period;
//   - per study: the cap the agent accepted and the nano-ε spent so far;
//   - the memo: earlier answers keyed by a canonical question fingerprint
//     (task_fingerprint.h), so a repeated question is answered with the same
//     payload at no cost, whatever ids the server gives it;
//   - the permanent responses of longitudinal questions, one per (question,
//     value), with how much of their ε∞ has been charged;
//   - every report not yet pruned, with its report_id, so a retry (even
//     after a restart) resends identical bytes, and whether it is settled.
// Times are Unix seconds; entries past their retention are pruned
// (agent.h). The file is line-oriented text so that a person can audit
// their budget:
//   ldp-agent-state 2
//   caps <lifetime_cap_nanos> <period_cap_nanos> <period_seconds>
//   lifetime <spent_nanos>
//   spend <unix_seconds> <nanos>
//   study <study_id> <cap_nanos> <spent_nanos> <last_used>
//   memo <fingerprint hex> <created> <payload>
//   prr <key hex> <created> <charged_nanos> <payload>
//   report <task_id> <report_id hex> pending|settled <expires> <payload>
//          [<sealed hex>]
//   end
// A report line ends with <sealed hex> only while a shuffled task's report
// is pending: the bytes its shuffler takes, sealed once and resent as they
// are (an agent built before shuffled studies refuses such a file as
// damaged rather than send the report to the server).
// Version 1 files (no caps, times or lifetime line) are read too: their
// lifetime spend is the sum of their studies' spend.
#ifndef LDP_CLIENT_CORE_AGENT_STATE_H_
#define LDP_CLIENT_CORE_AGENT_STATE_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/tasks/task.h"

namespace ldp {

// A cap that never binds (only ever set on the owner's explicit request).
inline constexpr int64_t kUnlimitedNanos = std::numeric_limits<int64_t>::max();
// "Never expires", for times.
inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct AgentCaps {
  int64_t lifetime_nanos = kUnlimitedNanos;
  int64_t period_nanos = kUnlimitedNanos;
  int64_t period_seconds = 24 * 3600;
  friend bool operator==(const AgentCaps&, const AgentCaps&) = default;
};

struct SpendEntry {
  int64_t at = 0;  // Unix seconds
  int64_t nanos = 0;
  friend bool operator==(const SpendEntry&, const SpendEntry&) = default;
};

struct StudyBudget {
  int64_t cap_nanos = 0;
  int64_t spent_nanos = 0;
  int64_t last_used = 0;
  friend bool operator==(const StudyBudget&, const StudyBudget&) = default;
};

struct MemoEntry {
  ReportPayload payload;
  int64_t created = 0;
};

// A longitudinal question's permanent response for one value, and how much
// of its ε∞ the agent has charged for reports drawn from it.
struct PermanentResponse {
  ReportPayload payload;  // FrequencyReport{BitVectorReport}
  int64_t created = 0;
  int64_t charged_nanos = 0;
};

struct StoredReport {
  TaskReport report;
  // True once the server acknowledged it or refused it for good; false
  // while it still has to be (re)sent.
  bool settled = false;
  // When it may be forgotten: its round's deadline, or the memo retention
  // for a round without one.
  int64_t expires = kNever;
  // A shuffled task's report as its shuffler takes it (ReportSealer in
  // agent.h), until it settles; empty for a report to the server.
  std::string sealed{};
};

struct AgentState {
  AgentCaps caps;
  int64_t lifetime_spent_nanos = 0;
  std::vector<SpendEntry> spends;  // oldest first
  std::map<uint64_t, StudyBudget> studies;
  std::map<std::string, MemoEntry> memo;               // fingerprint → answer
  std::map<std::string, PermanentResponse> permanent;  // (question, value)
  std::map<uint64_t, StoredReport> reports;            // task_id → report

  int64_t TotalSpentNanos() const { return lifetime_spent_nanos; }
  // The spend of charges made after `since` (Unix seconds).
  int64_t SpentSince(int64_t since) const;
};

bool operator==(const MemoEntry& a, const MemoEntry& b);
bool operator==(const PermanentResponse& a, const PermanentResponse& b);
bool operator==(const StoredReport& a, const StoredReport& b);
bool operator==(const AgentState& a, const AgentState& b);

// The file's first line. SerializeAgentState (state_lines.h) writes the
// file; ParseAgentState reads it.
inline constexpr absl::string_view kAgentStateHeader = "ldp-agent-state 2";

// DataLoss naming the line for anything malformed, inconsistent (spent
// above cap, negative amounts, duplicate keys) or truncated (no "end").
// A damaged file must stop the agent, never reset its budget.
absl::StatusOr<AgentState> ParseAgentState(absl::string_view text);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_AGENT_STATE_H_
