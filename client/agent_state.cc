// AgentState ↔ text; see the header.
#include "client/agent_state.h"

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/payload_text.h"
#include "common/status_macros.h"

namespace ldp {
namespace {

constexpr absl::string_view kHeader = "ldp-agent-state 1";

absl::Status LineError(int line, absl::string_view problem) {
  return absl::DataLossError(
      absl::StrCat("agent state line ", line, ": ", problem));
}

template <typename Int>
absl::StatusOr<Int> ParseNumber(absl::string_view text, int line) {
  Int value{};
  if (text.empty() || text.find_first_not_of("0123456789") != text.npos ||
      !absl::SimpleAtoi(text, &value)) {
    return LineError(line, absl::StrCat("bad number '", text, "'"));
  }
  return value;
}

absl::StatusOr<ReportId> ParseReportId(absl::string_view hex, int line) {
  ReportId id{};
  if (hex.size() != 2 * id.size() ||
      hex.find_first_not_of("0123456789abcdef") != hex.npos) {
    return LineError(line, "report id must be 32 lowercase hex digits");
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  std::copy(bytes.begin(), bytes.end(), id.begin());
  return id;
}

absl::Status ParseStudy(const std::vector<absl::string_view>& f, int line,
                        AgentState& state) {
  if (f.size() != 4) return LineError(line, "study needs 3 numbers");
  ASSIGN_OR_RETURN(const uint64_t id, ParseNumber<uint64_t>(f[1], line));
  ASSIGN_OR_RETURN(const int64_t cap, ParseNumber<int64_t>(f[2], line));
  ASSIGN_OR_RETURN(const int64_t spent, ParseNumber<int64_t>(f[3], line));
  if (spent > cap) return LineError(line, "spent exceeds the cap");
  if (!state.studies.emplace(id, StudyBudget{cap, spent}).second) {
    return LineError(line, "study listed twice");
  }
  return absl::OkStatus();
}

absl::Status ParseMemo(const std::vector<absl::string_view>& f, int line,
                       AgentState& state) {
  if (f.size() != 3 || f[1].empty() ||
      f[1].find_first_not_of("0123456789abcdef") != f[1].npos) {
    return LineError(line, "memo needs a hex key and a payload");
  }
  ASSIGN_OR_RETURN(ReportPayload payload, PayloadFromText(f[2]));
  if (!state.memo.emplace(std::string(f[1]), std::move(payload)).second) {
    return LineError(line, "memo key listed twice");
  }
  return absl::OkStatus();
}

absl::Status ParseReport(const std::vector<absl::string_view>& f, int line,
                         AgentState& state) {
  if (f.size() != 5 || (f[3] != "pending" && f[3] != "settled")) {
    return LineError(line, "report needs task, id, pending|settled, payload");
  }
  StoredReport stored;
  ASSIGN_OR_RETURN(stored.report.task_id, ParseNumber<uint64_t>(f[1], line));
  ASSIGN_OR_RETURN(stored.report.report_id, ParseReportId(f[2], line));
  stored.settled = f[3] == "settled";
  ASSIGN_OR_RETURN(stored.report.payload, PayloadFromText(f[4]));
  const uint64_t task_id = stored.report.task_id;
  if (!state.reports.emplace(task_id, std::move(stored)).second) {
    return LineError(line, "task listed twice");
  }
  return absl::OkStatus();
}

absl::Status ParseLine(absl::string_view text, int line, AgentState& state) {
  const std::vector<absl::string_view> fields = absl::StrSplit(text, ' ');
  if (fields[0] == "study") return ParseStudy(fields, line, state);
  if (fields[0] == "memo") return ParseMemo(fields, line, state);
  if (fields[0] == "report") return ParseReport(fields, line, state);
  return LineError(line, absl::StrCat("unknown entry '", fields[0], "'"));
}

}  // namespace

int64_t AgentState::TotalSpentNanos() const {
  int64_t total = 0;
  for (const auto& [id, budget] : studies) total += budget.spent_nanos;
  return total;
}

bool operator==(const StoredReport& a, const StoredReport& b) {
  return a.settled == b.settled && a.report.task_id == b.report.task_id &&
         a.report.report_id == b.report.report_id &&
         a.report.payload == b.report.payload;
}

bool operator==(const AgentState& a, const AgentState& b) {
  return a.studies == b.studies && a.memo == b.memo && a.reports == b.reports;
}

std::string SerializeAgentState(const AgentState& state) {
  std::string out = absl::StrCat(kHeader, "\n");
  for (const auto& [id, budget] : state.studies) {
    absl::StrAppend(&out, "study ", id, " ", budget.cap_nanos, " ",
                    budget.spent_nanos, "\n");
  }
  for (const auto& [key, payload] : state.memo) {
    absl::StrAppend(&out, "memo ", key, " ", PayloadToText(payload), "\n");
  }
  for (const auto& [task_id, stored] : state.reports) {
    const auto& id = stored.report.report_id;
    absl::StrAppend(
        &out, "report ", task_id, " ",
        absl::BytesToHexString(absl::string_view(
            reinterpret_cast<const char*>(id.data()), id.size())),
        stored.settled ? " settled " : " pending ",
        PayloadToText(stored.report.payload), "\n");
  }
  absl::StrAppend(&out, "end\n");
  return out;
}

absl::StatusOr<AgentState> ParseAgentState(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.empty() || lines[0] != kHeader) {
    return absl::DataLossError(
        absl::StrCat("agent state must start with '", kHeader, "'"));
  }
  // A complete file is "...\nend\n": the split ends with "end", "".
  if (lines.size() < 3 || lines.back() != "" ||
      lines[lines.size() - 2] != "end") {
    return absl::DataLossError("agent state is truncated (no final 'end')");
  }
  AgentState state;
  for (size_t i = 1; i + 2 < lines.size(); ++i) {
    RETURN_IF_ERROR(ParseLine(lines[i], static_cast<int>(i + 1), state));
  }
  return state;
}

}  // namespace ldp
