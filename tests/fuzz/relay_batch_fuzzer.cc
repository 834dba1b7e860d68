// libFuzzer target: RelayService's two batch calls (relay_service.proto) as
// the server handles them, one relay message carrying many agents' calls.
//
// The bytes are parsed both as a GetTasksBatchRequest and as a
// RelayUploadRequest (field 1 is each item's bearer token in both), and go
// through the steps server/grpc/relay_service.cc takes, against a real
// Aggregator (relay_fixture.h: SQLite on tmpfs, the fixture study open,
// four agents): the batch limit, AuthenticateAgent per item, then
// GetTasksMany for the polls; for the uploads, the report's agent against
// its token's, ReportFromProto, and UploadAgentReportsAsync for those
// admitted (the reactor's own glue, which needs a live gRPC call, is not
// compiled in). Tokens, and the round reports are for, are named by
// placeholder (relay_fixture.h): every input meets a round no report was
// stored in, and the same agents and tokens. Properties: nothing
// crashes; a token authenticates exactly the agent it was issued to, and
// any other is UNAUTHENTICATED with a reason; one poll answer per
// authenticated agent, holding at most max_tasks (or the default) of that
// agent's own tasks; a report ReportFromProto refuses is INVALID_ARGUMENT
// with a reason; one upload status per admitted report, each a documented
// code (OK, INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, ALREADY_EXISTS,
// FAILED_PRECONDITION) with a reason, OK only for a task of the report's
// own agent; no agent is charged over the study's cap; the same batch sent
// again is accepted exactly where it was before and charges nothing more.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "common/tasks/task_id.h"
#include "proto/convert/report_convert.h"
#include "proto/ldp/v1/relay_service.pb.h"
#include "tests/fuzz/fuzz_fixtures.h"
#include "tests/fuzz/relay_fixture.h"

namespace ldp::fuzz {
namespace {

constexpr int kDefaultMaxTasks = 64;  // AggregatorOptions::default_max_tasks

// Never destroyed (its writer thread may be running at exit); its store's
// directory goes at exit all the same.
RelayFixture& Fixture() {
  static RelayFixture* fixture = [] {
    auto* made = new RelayFixture();
    std::atexit([] { Fixture().RemoveStore(); });
    return made;
  }();
  return *fixture;
}

bool HasReason(const absl::Status& status) { return !status.message().empty(); }

// AuthenticateAgent, checked: the agent whose token it is, or a refusal.
absl::StatusOr<uint64_t> Authenticate(const std::string& token) {
  RelayFixture& fixture = Fixture();
  absl::StatusOr<uint64_t> agent =
      fixture.aggregator().AuthenticateAgent(token);
  int issued_to = 0;
  for (int i = 0; i < kRelayAgents; ++i) {
    if (token == fixture.token(i)) issued_to = i + 1;
  }
  if (!agent.ok()) {
    Check(agent.status().code() == absl::StatusCode::kUnauthenticated &&
              HasReason(agent.status()),
          "a refused token is not UNAUTHENTICATED with a reason");
    Check(issued_to == 0, "an issued token was refused");
    return agent;
  }
  Check(*agent == static_cast<uint64_t>(issued_to),
        "a token authenticated an agent it was not issued to");
  return agent;
}

bool IsAgentsTask(uint64_t agent, uint64_t task_id) {
  const std::vector<uint64_t>& tasks = Fixture().tasks(agent - 1);
  return std::find(tasks.begin(), tasks.end(), task_id) != tasks.end();
}

void FuzzPolls(const v1::GetTasksBatchRequest& request) {
  if (request.agents_size() > kRelayMaxPerCall) return;  // refused whole
  std::vector<Aggregator::TaskPoll> polls;
  std::vector<int> limits;
  for (const v1::AgentTasksRequest& call : request.agents()) {
    absl::StatusOr<uint64_t> agent =
        Authenticate(Fixture().Resolve(call.bearer_token()));
    if (!agent.ok()) continue;
    const int max_tasks =
        static_cast<int>(std::min<uint32_t>(call.max_tasks(), 1 << 16));
    polls.push_back({.agent_id = *agent, .max_tasks = max_tasks});
    limits.push_back(max_tasks == 0 ? kDefaultMaxTasks : max_tasks);
  }
  const auto answers = Fixture().aggregator().GetTasksMany(polls);
  Check(answers.size() == polls.size(), "not one poll answer per agent");
  for (size_t i = 0; i < answers.size(); ++i) {
    Check(answers[i].ok(), "an enrolled agent's poll failed");
    Check(static_cast<int>(answers[i]->size()) <= limits[i],
          "a poll answer holds more than max_tasks");
    for (const TaskAssignment& task : *answers[i]) {
      Check(task.question != nullptr && task.study != nullptr,
            "an assignment without its question");
      Check(IsAgentsTask(polls[i].agent_id, task.task_id),
            "an agent was assigned a task not its own");
    }
  }
}

struct Admitted {
  std::vector<AgentReport> reports;
};

// The reactor's per-item checks; the reports it would hand the aggregator.
Admitted Admit(const v1::RelayUploadRequest& request) {
  Admitted admitted;
  for (const v1::RelayedReport& item : request.reports()) {
    absl::StatusOr<uint64_t> agent =
        Authenticate(Fixture().Resolve(item.bearer_token()));
    if (!agent.ok() || item.report().agent_id() != *agent) continue;
    absl::StatusOr<TaskReport> report = ReportFromProto(item.report());
    if (!report.ok()) {
      Check(report.status().code() == absl::StatusCode::kInvalidArgument &&
                HasReason(report.status()),
            "a refused report is not INVALID_ARGUMENT with a reason");
      continue;
    }
    report->task_id = Fixture().MapTaskId(report->task_id);
    admitted.reports.push_back({.agent_id = *agent, .report = *report});
  }
  return admitted;
}

std::vector<absl::Status> Upload(std::vector<AgentReport> reports) {
  std::vector<absl::Status> statuses;
  absl::Notification done;
  Fixture().aggregator().UploadAgentReportsAsync(
      std::move(reports), [&](std::vector<absl::Status> result) {
        statuses = std::move(result);
        done.Notify();
      });
  done.WaitForNotification();
  return statuses;
}

bool Documented(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return true;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
      return HasReason(status);
    default:
      return false;
  }
}

// Each agent's spend in the study, checked against the cap.
std::vector<int64_t> Spent(const std::set<uint64_t>& agents) {
  std::vector<int64_t> spent;
  for (uint64_t agent : agents) {
    absl::StatusOr<std::vector<LedgerEntry>> ledger =
        Fixture().aggregator().GetBudget(agent);
    Check(ledger.ok(), "an enrolled agent has no ledger");
    int64_t total = 0;
    for (const LedgerEntry& entry : *ledger) {
      Check(entry.spent_nanos >= 0 && entry.spent_nanos <= entry.cap_nanos &&
                entry.cap_nanos <= Study().epsilon_cap_nanos,
            "an agent was charged over the study's cap");
      total += entry.spent_nanos;
    }
    spent.push_back(total);
  }
  return spent;
}

// True if the state changed (a report was stored).
bool FuzzUploads(const v1::RelayUploadRequest& request) {
  if (request.reports_size() == 0 ||
      request.reports_size() > kRelayMaxPerCall) {
    return false;  // the stream ends, or every ack is INVALID_ARGUMENT
  }
  const Admitted admitted = Admit(request);
  if (admitted.reports.empty()) return false;
  const std::vector<absl::Status> first = Upload(admitted.reports);
  Check(first.size() == admitted.reports.size(),
        "not one upload status per admitted report");
  std::set<uint64_t> charged;
  for (size_t i = 0; i < first.size(); ++i) {
    Check(Documented(first[i]), "an upload status is undocumented or bare");
    if (!first[i].ok()) continue;
    const AgentReport& r = admitted.reports[i];
    const TaskKey key = UnpackTaskId(r.report.task_id);
    Check(key.agent_id == r.agent_id &&
              key.round_id == Fixture().current_round() &&
              IsAgentsTask(r.agent_id, r.report.task_id),
          "a report was accepted for another agent's task");
    charged.insert(r.agent_id);
  }
  if (charged.empty()) return false;
  const std::vector<int64_t> spent = Spent(charged);
  // A relay retries a batch whose acks it lost: the same outcome, uncharged.
  const std::vector<absl::Status> again = Upload(admitted.reports);
  Check(again.size() == first.size(), "a retry got another number of acks");
  for (size_t i = 0; i < again.size(); ++i) {
    Check(again[i].ok() == first[i].ok(), "a retried batch was judged anew");
  }
  Check(Spent(charged) == spent, "a retried batch was charged again");
  return true;
}

}  // namespace
}  // namespace ldp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ldp::v1::GetTasksBatchRequest polls;
  if (polls.ParseFromArray(data, static_cast<int>(size))) {
    ldp::fuzz::FuzzPolls(polls);
  }
  ldp::v1::RelayUploadRequest uploads;
  if (uploads.ParseFromArray(data, static_cast<int>(size)) &&
      ldp::fuzz::FuzzUploads(uploads)) {
    ldp::fuzz::Fixture().NextRound();
  }
  return 0;
}
