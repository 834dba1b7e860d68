// What the server asks one agent to do, as plain types (the service edges
// translate the wire `ldp.v1.Task` to and from this).
//
// A task names one question and one randomizer with its εₜ. The agent
// evaluates the question on its own sanitized record, randomizes the result
// and sends only the report (DESIGN invariant 1). The agent is authoritative
// for its budget: it checks that the randomizer's implemented ε does not
// exceed the εₜ it is charged and that εₜ fits its remaining budget before
// answering (invariant 4).
#ifndef LDP_COMMON_TASKS_TASK_H_
#define LDP_COMMON_TASKS_TASK_H_

#include <array>
#include <cstdint>
#include <string>
#include <variant>

#include "absl/strings/str_format.h"
#include "common/mechanisms/frequency/frequency_report.h"
#include "common/mechanisms/frequency_oracle_factory.h"
#include "common/mechanisms/real/real_mechanism.h"
#include "common/mechanisms/real/real_mechanism_factory.h"
#include "common/queries/domain_encoding.h"
#include "common/queries/query_expression.h"
#include "common/workload/specs/strategy_spec.h"
#include "common/workload/specs/workload_report.h"

namespace ldp {

// ε is charged and stored as an integer number of nano-ε, so budget sums and
// comparisons are exact; 1 ε = 1e9 nano-ε.
inline constexpr int64_t kNanosPerEpsilon = 1'000'000'000;

// nano-ε as an exact decimal ("1.000000001", "0.5", "2"), for messages that
// compare amounts: rounding could print "charges 1 but only 1 remains".
inline std::string EpsilonText(int64_t nanos) {
  const uint64_t magnitude = nanos < 0 ? 0 - static_cast<uint64_t>(nanos)
                                       : static_cast<uint64_t>(nanos);
  std::string text = absl::StrFormat("%s%d.%09d", nanos < 0 ? "-" : "",
                                     magnitude / kNanosPerEpsilon,
                                     magnitude % kNanosPerEpsilon);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

// A statistical query φ(record) ∈ [lo, hi], randomized as φ − (lo + hi)/2 by
// a mechanism whose bound is (hi − lo)/2.
struct StatisticalQueryTask {
  Query query;
  RealMechanismSpec mechanism;
};

// A histogram question: the record's item under `encoding`, randomized by a
// frequency oracle over [encoding.domain_size()).
struct HistogramTask {
  DomainEncoding encoding;
  FrequencyOracleSpec oracle;
};

// A workload question as one agent sees it: the record's item under
// `encoding`, randomized by a workload strategy over [encoding.domain_size()).
// The workload itself stays on the server: the agent needs only A.
struct WorkloadTask {
  DomainEncoding encoding;
  StrategySpec strategy;
};

struct Task {
  uint64_t study_id = 0;
  uint64_t round_id = 0;
  uint64_t task_id = 0;
  // εₜ, the amount the agent's budget is charged for answering.
  int64_t epsilon_nanos = 0;
  std::variant<StatisticalQueryTask, HistogramTask, WorkloadTask> question;
};

// What leaves the agent for one task: only the randomizer's output.
using ReportPayload =
    std::variant<FrequencyReport, ScalarReport, WorkloadReport>;

// A client-chosen idempotency key: a retry resends the same id and bytes.
using ReportId = std::array<uint8_t, 16>;

struct TaskReport {
  uint64_t task_id = 0;
  ReportId report_id{};
  ReportPayload payload;
};

}  // namespace ldp

#endif  // LDP_COMMON_TASKS_TASK_H_
