// The state file's lines, each written by one function that either appends
// or counts; see the header.
#include "client/core/state_lines.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "client/core/payload_text.h"

namespace ldp {
namespace {

// A line's pieces, appended to `out`, or only counted when `out` is null.
class LineText {
 public:
  explicit LineText(std::string* out) : out_(out) {}

  LineText& operator<<(absl::string_view text) {
    size_ += static_cast<int64_t>(text.size());
    if (out_ != nullptr) out_->append(text.data(), text.size());
    return *this;
  }
  LineText& operator<<(uint64_t value) {
    if (out_ != nullptr) {
      const size_t before = out_->size();
      absl::StrAppend(out_, value);
      size_ += static_cast<int64_t>(out_->size() - before);
      return *this;
    }
    do {
      ++size_;
      value /= 10;
    } while (value != 0);
    return *this;
  }
  LineText& operator<<(int64_t value) {
    if (value >= 0) return *this << static_cast<uint64_t>(value);
    *this << "-";
    return *this << (~static_cast<uint64_t>(value) + 1);
  }
  // Bytes as lowercase hex, two digits each.
  LineText& Hex(absl::string_view bytes) {
    if (out_ != nullptr) return *this << absl::BytesToHexString(bytes);
    size_ += 2 * static_cast<int64_t>(bytes.size());
    return *this;
  }
  // kNever (or kUnlimitedNanos, the same value) is written as a word.
  LineText& Number(int64_t value, absl::string_view infinite) {
    return value == kNever ? *this << infinite : *this << value;
  }
  int64_t size() const { return size_; }

 private:
  std::string* out_;
  int64_t size_ = 0;
};

void Study(uint64_t id, const StudyBudget& budget, LineText& w) {
  w << "study " << id << " " << budget.cap_nanos << " " << budget.spent_nanos
    << " " << budget.last_used << "\n";
}

void Spend(const SpendEntry& spend, LineText& w) {
  w << "spend " << spend.at << " " << spend.nanos << "\n";
}

void Memo(const std::string& key, const MemoEntry& entry,
          absl::string_view payload_text, LineText& w) {
  w << "memo " << key << " " << entry.created << " " << payload_text << "\n";
}

void Permanent(const std::string& key, const PermanentResponse& entry,
               absl::string_view payload_text, LineText& w) {
  w << "prr " << key << " " << entry.created << " " << entry.charged_nanos
    << " " << payload_text << "\n";
}

void Report(const StoredReport& stored, absl::string_view payload_text,
            LineText& w) {
  const auto& id = stored.report.report_id;
  w << "report " << stored.report.task_id << " ";
  w.Hex(absl::string_view(reinterpret_cast<const char*>(id.data()), id.size()));
  w << (stored.settled ? " settled " : " pending ");
  w.Number(stored.expires, "never") << " " << payload_text;
  if (!stored.sealed.empty()) {
    w << " ";
    w.Hex(stored.sealed);
  }
  w << "\n";
}

void Caps(const AgentCaps& caps, LineText& w) {
  w << "caps ";
  w.Number(caps.lifetime_nanos, "unlimited") << " ";
  w.Number(caps.period_nanos, "unlimited")
      << " " << caps.period_seconds << "\n";
}

// Writes (or counts) the whole file.
void State(const AgentState& state, LineText& w) {
  w << kAgentStateHeader << "\n";
  Caps(state.caps, w);
  w << "lifetime " << state.lifetime_spent_nanos << "\n";
  for (const SpendEntry& spend : state.spends) Spend(spend, w);
  for (const auto& [id, budget] : state.studies) Study(id, budget, w);
  for (const auto& [key, entry] : state.memo) {
    Memo(key, entry, PayloadToText(entry.payload), w);
  }
  for (const auto& [key, entry] : state.permanent) {
    Permanent(key, entry, PayloadToText(entry.payload), w);
  }
  for (const auto& [task_id, stored] : state.reports) {
    Report(stored, PayloadToText(stored.report.payload), w);
  }
  w << "end\n";
}

// A line as text, from its writer.
template <typename Write>
std::string Text(Write write) {
  std::string out;
  LineText w(&out);
  write(w);
  return out;
}

// A line's length, from its writer.
template <typename Write>
int64_t Size(Write write) {
  LineText w(nullptr);
  write(w);
  return w.size();
}

}  // namespace

std::string StudyLine(uint64_t id, const StudyBudget& budget) {
  return Text([&](LineText& w) { Study(id, budget, w); });
}
std::string SpendLine(const SpendEntry& spend) {
  return Text([&](LineText& w) { Spend(spend, w); });
}
std::string MemoLine(const std::string& key, const MemoEntry& entry) {
  return Text(
      [&](LineText& w) { Memo(key, entry, PayloadToText(entry.payload), w); });
}
std::string PermanentLine(const std::string& key,
                          const PermanentResponse& entry) {
  return Text([&](LineText& w) {
    Permanent(key, entry, PayloadToText(entry.payload), w);
  });
}
std::string ReportLine(const StoredReport& stored) {
  return Text([&](LineText& w) {
    Report(stored, PayloadToText(stored.report.payload), w);
  });
}
std::string SerializeAgentState(const AgentState& state) {
  return Text([&](LineText& w) { State(state, w); });
}

int64_t StudyLineSize(uint64_t id, const StudyBudget& budget) {
  return Size([&](LineText& w) { Study(id, budget, w); });
}
int64_t SpendLineSize(const SpendEntry& spend) {
  return Size([&](LineText& w) { Spend(spend, w); });
}
int64_t MemoLineSize(const std::string& key, const MemoEntry& entry,
                     absl::string_view payload_text) {
  return Size([&](LineText& w) { Memo(key, entry, payload_text, w); });
}
int64_t PermanentLineSize(const std::string& key,
                          const PermanentResponse& entry,
                          absl::string_view payload_text) {
  return Size([&](LineText& w) { Permanent(key, entry, payload_text, w); });
}
int64_t ReportLineSize(const StoredReport& stored,
                       absl::string_view payload_text) {
  return Size([&](LineText& w) { Report(stored, payload_text, w); });
}
int64_t SerializedSize(const AgentState& state) {
  return Size([&](LineText& w) { State(state, w); });
}

}  // namespace ldp
