// AgentState ↔ text; see the header.
#include "client/core/agent_state.h"

#include <algorithm>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "client/core/payload_text.h"
#include "common/base/status_macros.h"

namespace ldp {
namespace {

constexpr absl::string_view kHeaderV1 = "ldp-agent-state 1";
constexpr absl::string_view kHeader = kAgentStateHeader;

absl::Status LineError(int line, absl::string_view problem) {
  return absl::DataLossError(
      absl::StrCat("agent state line ", line, ": ", problem));
}

// Non-negative integers; `infinite` (if given) spells kNever/kUnlimitedNanos.
absl::StatusOr<int64_t> ParseNumber(absl::string_view text, int line,
                                    absl::string_view infinite = "") {
  if (!infinite.empty() && text == infinite) return kNever;
  int64_t value = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != text.npos ||
      !absl::SimpleAtoi(text, &value)) {
    return LineError(line, absl::StrCat("bad number '", text, "'"));
  }
  return value;
}

absl::StatusOr<uint64_t> ParseId(absl::string_view text, int line) {
  uint64_t value = 0;
  if (text.empty() || text.find_first_not_of("0123456789") != text.npos ||
      !absl::SimpleAtoi(text, &value)) {
    return LineError(line, absl::StrCat("bad id '", text, "'"));
  }
  return value;
}

bool IsHex(absl::string_view text) {
  return !text.empty() &&
         text.find_first_not_of("0123456789abcdef") == text.npos;
}

absl::StatusOr<ReportId> ParseReportId(absl::string_view hex, int line) {
  ReportId id{};
  if (hex.size() != 2 * id.size() || !IsHex(hex)) {
    return LineError(line, "report id must be 32 lowercase hex digits");
  }
  const std::string bytes = absl::HexStringToBytes(hex);
  std::copy(bytes.begin(), bytes.end(), id.begin());
  return id;
}

// Parses one file; `v1` files lack times, caps and the lifetime line.
class StateParser {
 public:
  explicit StateParser(bool v1) : v1_(v1) {}

  absl::Status Line(absl::string_view text, int line) {
    f_ = absl::StrSplit(text, ' ');
    line_ = line;
    const absl::string_view kind = f_[0];
    if (kind == "study") return Study();
    if (kind == "memo") return Memo();
    if (kind == "report") return Report();
    if (!v1_ && kind == "caps") return Caps();
    if (!v1_ && kind == "lifetime") return Lifetime();
    if (!v1_ && kind == "spend") return Spend();
    if (!v1_ && kind == "prr") return Permanent();
    return LineError(line, absl::StrCat("unknown entry '", kind, "'"));
  }

  absl::StatusOr<AgentState> Finish() {
    if (v1_) {
      for (const auto& [id, budget] : state_.studies) {
        state_.lifetime_spent_nanos += budget.spent_nanos;
      }
    } else if (!seen_lifetime_ || !seen_caps_) {
      return absl::DataLossError("agent state lacks its caps or lifetime line");
    }
    return std::move(state_);
  }

 private:
  absl::Status Fields(size_t v1, size_t v2, absl::string_view what) {
    if (f_.size() != (v1_ ? v1 : v2)) return LineError(line_, what);
    return absl::OkStatus();
  }

  absl::Status Caps() {
    RETURN_IF_ERROR(Fields(0, 4, "caps needs 3 numbers"));
    if (seen_caps_) return LineError(line_, "caps listed twice");
    seen_caps_ = true;
    ASSIGN_OR_RETURN(state_.caps.lifetime_nanos,
                     ParseNumber(f_[1], line_, "unlimited"));
    ASSIGN_OR_RETURN(state_.caps.period_nanos,
                     ParseNumber(f_[2], line_, "unlimited"));
    ASSIGN_OR_RETURN(state_.caps.period_seconds, ParseNumber(f_[3], line_));
    if (state_.caps.period_seconds <= 0) {
      return LineError(line_, "the period must be positive");
    }
    return absl::OkStatus();
  }

  absl::Status Lifetime() {
    RETURN_IF_ERROR(Fields(0, 2, "lifetime needs 1 number"));
    if (seen_lifetime_) return LineError(line_, "lifetime listed twice");
    seen_lifetime_ = true;
    ASSIGN_OR_RETURN(state_.lifetime_spent_nanos, ParseNumber(f_[1], line_));
    return absl::OkStatus();
  }

  absl::Status Spend() {
    RETURN_IF_ERROR(Fields(0, 3, "spend needs 2 numbers"));
    SpendEntry spend;
    ASSIGN_OR_RETURN(spend.at, ParseNumber(f_[1], line_));
    ASSIGN_OR_RETURN(spend.nanos, ParseNumber(f_[2], line_));
    if (!state_.spends.empty() && spend.at < state_.spends.back().at) {
      return LineError(line_, "spend entries out of order");
    }
    state_.spends.push_back(spend);
    return absl::OkStatus();
  }

  absl::Status Study() {
    RETURN_IF_ERROR(Fields(4, 5, "study needs its numbers"));
    ASSIGN_OR_RETURN(const uint64_t id, ParseId(f_[1], line_));
    StudyBudget budget;
    ASSIGN_OR_RETURN(budget.cap_nanos, ParseNumber(f_[2], line_));
    ASSIGN_OR_RETURN(budget.spent_nanos, ParseNumber(f_[3], line_));
    if (!v1_) {
      ASSIGN_OR_RETURN(budget.last_used, ParseNumber(f_[4], line_));
    }
    if (budget.spent_nanos > budget.cap_nanos) {
      return LineError(line_, "spent exceeds the cap");
    }
    if (!state_.studies.emplace(id, budget).second) {
      return LineError(line_, "study listed twice");
    }
    return absl::OkStatus();
  }

  absl::Status Memo() {
    RETURN_IF_ERROR(Fields(3, 4, "memo needs a hex key and a payload"));
    if (!IsHex(f_[1])) return LineError(line_, "memo needs a hex key");
    MemoEntry entry;
    if (!v1_) {
      ASSIGN_OR_RETURN(entry.created, ParseNumber(f_[2], line_));
    }
    ASSIGN_OR_RETURN(entry.payload, PayloadFromText(f_.back()));
    if (!state_.memo.emplace(std::string(f_[1]), std::move(entry)).second) {
      return LineError(line_, "memo key listed twice");
    }
    return absl::OkStatus();
  }

  absl::Status Permanent() {
    RETURN_IF_ERROR(Fields(0, 5, "prr needs key, created, charged, payload"));
    if (!IsHex(f_[1])) return LineError(line_, "prr needs a hex key");
    PermanentResponse entry;
    ASSIGN_OR_RETURN(entry.created, ParseNumber(f_[2], line_));
    ASSIGN_OR_RETURN(entry.charged_nanos, ParseNumber(f_[3], line_));
    ASSIGN_OR_RETURN(entry.payload, PayloadFromText(f_[4]));
    if (!state_.permanent.emplace(std::string(f_[1]), std::move(entry))
             .second) {
      return LineError(line_, "prr key listed twice");
    }
    return absl::OkStatus();
  }

  absl::Status Report() {
    // A version 2 line may end with a pending shuffled report's sealed bytes.
    const bool has_sealed = !v1_ && f_.size() == 7;
    RETURN_IF_ERROR(Fields(5, has_sealed ? 7 : 6, "report needs its fields"));
    if (f_[3] != "pending" && f_[3] != "settled") {
      return LineError(line_, "report must be pending or settled");
    }
    StoredReport stored;
    ASSIGN_OR_RETURN(stored.report.task_id, ParseId(f_[1], line_));
    ASSIGN_OR_RETURN(stored.report.report_id, ParseReportId(f_[2], line_));
    stored.settled = f_[3] == "settled";
    if (!v1_) {
      ASSIGN_OR_RETURN(stored.expires, ParseNumber(f_[4], line_, "never"));
    }
    ASSIGN_OR_RETURN(stored.report.payload, PayloadFromText(f_[v1_ ? 4 : 5]));
    if (has_sealed) {
      if (!IsHex(f_[6]) || f_[6].size() % 2 != 0) {
        return LineError(line_,
                         "a report's sealed bytes must be lowercase hex");
      }
      stored.sealed = absl::HexStringToBytes(f_[6]);
    }
    const uint64_t task_id = stored.report.task_id;
    if (!state_.reports.emplace(task_id, std::move(stored)).second) {
      return LineError(line_, "task listed twice");
    }
    return absl::OkStatus();
  }

  const bool v1_;
  bool seen_caps_ = false;
  bool seen_lifetime_ = false;
  std::vector<absl::string_view> f_;
  int line_ = 0;
  AgentState state_;
};

}  // namespace

int64_t AgentState::SpentSince(int64_t since) const {
  int64_t total = 0;
  for (const SpendEntry& spend : spends) {
    if (spend.at > since) total += spend.nanos;
  }
  return total;
}

bool operator==(const MemoEntry& a, const MemoEntry& b) {
  return a.created == b.created && a.payload == b.payload;
}

bool operator==(const PermanentResponse& a, const PermanentResponse& b) {
  return a.created == b.created && a.charged_nanos == b.charged_nanos &&
         a.payload == b.payload;
}

bool operator==(const StoredReport& a, const StoredReport& b) {
  return a.settled == b.settled && a.expires == b.expires &&
         a.sealed == b.sealed && a.report.task_id == b.report.task_id &&
         a.report.report_id == b.report.report_id &&
         a.report.payload == b.report.payload;
}

bool operator==(const AgentState& a, const AgentState& b) {
  return a.caps == b.caps && a.lifetime_spent_nanos == b.lifetime_spent_nanos &&
         a.spends == b.spends && a.studies == b.studies && a.memo == b.memo &&
         a.permanent == b.permanent && a.reports == b.reports;
}

absl::StatusOr<AgentState> ParseAgentState(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.empty() || (lines[0] != kHeader && lines[0] != kHeaderV1)) {
    return absl::DataLossError(
        absl::StrCat("agent state must start with '", kHeader, "'"));
  }
  // A complete file is "...\nend\n": the split ends with "end", "".
  if (lines.size() < 3 || lines.back() != "" ||
      lines[lines.size() - 2] != "end") {
    return absl::DataLossError("agent state is truncated (no final 'end')");
  }
  StateParser parser(/*v1=*/lines[0] == kHeaderV1);
  for (size_t i = 1; i + 2 < lines.size(); ++i) {
    RETURN_IF_ERROR(parser.Line(lines[i], static_cast<int>(i + 1)));
  }
  return parser.Finish();
}

}  // namespace ldp
