// The agent state file's lines (agent_state.h), written or only measured.
// Each line is defined once for both uses: the agent sizes its state on
// every answer, without writing it, and a size that drifted from what
// SerializeAgentState writes would let the file outgrow its cap.
#ifndef LDP_CLIENT_CORE_STATE_LINES_H_
#define LDP_CLIENT_CORE_STATE_LINES_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "client/core/agent_state.h"

namespace ldp {

// The whole file, the text every AgentStateStore keeps (ParseAgentState
// reads it back).
std::string SerializeAgentState(const AgentState& state);

// One entry's line, newline included: what SerializeAgentState writes for it.
std::string StudyLine(uint64_t id, const StudyBudget& budget);
std::string SpendLine(const SpendEntry& spend);
std::string MemoLine(const std::string& key, const MemoEntry& entry);
std::string PermanentLine(const std::string& key,
                          const PermanentResponse& entry);
std::string ReportLine(const StoredReport& stored);

// The same lines' lengths in bytes. Where a line holds a payload, the
// caller passes PayloadToText of it, so that one payload's text is worked
// out once for every line that holds it.
int64_t StudyLineSize(uint64_t id, const StudyBudget& budget);
int64_t SpendLineSize(const SpendEntry& spend);
int64_t MemoLineSize(const std::string& key, const MemoEntry& entry,
                     absl::string_view payload_text);
int64_t PermanentLineSize(const std::string& key,
                          const PermanentResponse& entry,
                          absl::string_view payload_text);
int64_t ReportLineSize(const StoredReport& stored,
                       absl::string_view payload_text);

// The whole file: SerializeAgentState(state).size(), without writing it.
int64_t SerializedSize(const AgentState& state);

}  // namespace ldp

#endif  // LDP_CLIENT_CORE_STATE_LINES_H_
