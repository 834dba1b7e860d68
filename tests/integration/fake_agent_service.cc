// The scripted AgentService; see the header.
#include "tests/integration/fake_agent_service.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"

namespace ldp::testing {

void FakeAgentService::SetTaskScript(TaskScript script) {
  std::lock_guard lock(mutex_);
  script_ = std::move(script);
}

void FakeAgentService::SetClaimedCap(uint64_t cap_nanos) {
  std::lock_guard lock(mutex_);
  claimed_cap_ = cap_nanos;
}

std::optional<uint64_t> FakeAgentService::AgentIdFor(
    const std::string& enrollment_token) const {
  std::lock_guard lock(mutex_);
  const auto it = enrolled_.find(enrollment_token);
  if (it == enrolled_.end()) return std::nullopt;
  return it->second;
}

std::string FakeAgentService::EnrollmentTokenOf(uint64_t agent_id) const {
  std::lock_guard lock(mutex_);
  for (const auto& [token, id] : enrolled_) {
    if (id == agent_id) return token;
  }
  return "";
}

int FakeAgentService::Polls(uint64_t agent_id) const {
  std::lock_guard lock(mutex_);
  const auto it = polls_.find(agent_id);
  return it == polls_.end() ? 0 : it->second;
}

std::vector<v1::Report> FakeAgentService::Received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

int64_t FakeAgentService::NumReceived() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(received_.size());
}

bool FakeAgentService::WaitUntil(const std::function<bool()>& done,
                                 absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  while (true) {
    uint64_t seen = 0;
    {
      std::lock_guard lock(mutex_);
      seen = generation_;
    }
    if (done()) return true;  // without the lock: done() may call accessors
    const absl::Time now = absl::Now();
    if (now >= until) return false;
    // Wake on the next call answered, or after a while anyway (done() may
    // also depend on things outside this service).
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock,
                      absl::ToChronoNanoseconds(
                          std::min(until - now, absl::Milliseconds(100))),
                      [&] { return generation_ != seen; });
  }
}

void FakeAgentService::Notify() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  changed_.notify_all();
}

grpc::Status FakeAgentService::Authenticate(const grpc::ServerContext& context,
                                            uint64_t* agent_id) const {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "no credential");
  }
  absl::string_view value(it->second.data(), it->second.size());
  if (!absl::ConsumePrefix(&value, "Bearer ")) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "not a bearer token");
  }
  std::lock_guard lock(mutex_);
  const auto known = bearer_tokens_.find(std::string(value));
  if (known == bearer_tokens_.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token");
  }
  *agent_id = known->second;
  return grpc::Status::OK;
}

grpc::Status FakeAgentService::Enroll(grpc::ServerContext*,
                                      const v1::EnrollRequest* request,
                                      v1::EnrollResponse* response) {
  {
    std::lock_guard lock(mutex_);
    uint64_t& id = enrolled_[request->enrollment_token()];
    if (id == 0) id = next_agent_id_++;
    // A deterministic secret per agent: this fake guards nothing.
    const std::string token = absl::StrCat(id, ".", std::string(64, 'f'));
    bearer_tokens_[token] = id;
    response->set_agent_id(id);
    response->mutable_credential()->set_bearer_token(token);
  }
  Notify();
  return grpc::Status::OK;
}

grpc::Status FakeAgentService::GetTasks(grpc::ServerContext* context,
                                        const v1::GetTasksRequest* request,
                                        v1::GetTasksResponse* response) {
  uint64_t agent_id = 0;
  if (grpc::Status status = Authenticate(*context, &agent_id); !status.ok()) {
    return status;
  }
  if (request->agent_id() != agent_id) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "not your agent id");
  }
  TaskScript script;
  int poll = 0;
  {
    std::lock_guard lock(mutex_);
    script = script_;
    poll = polls_[agent_id];
  }
  if (script) {
    for (v1::Task& task : script(agent_id, poll)) {
      *response->add_tasks() = std::move(task);
    }
  }
  response->set_poll_after_seconds(0);
  {
    std::lock_guard lock(mutex_);
    ++polls_[agent_id];
  }
  Notify();
  return grpc::Status::OK;
}

grpc::Status FakeAgentService::UploadReports(
    grpc::ServerContext* context,
    grpc::ServerReader<v1::UploadReportsRequest>* reader,
    v1::UploadReportsResponse* response) {
  uint64_t agent_id = 0;
  if (grpc::Status status = Authenticate(*context, &agent_id); !status.ok()) {
    return status;
  }
  v1::UploadReportsRequest batch;
  while (reader->Read(&batch)) {
    std::lock_guard lock(mutex_);
    for (const v1::Report& report : batch.reports()) {
      received_.push_back(report);
      // Code 0: durable. (A report naming another agent is recorded too:
      // the tests check agent ids on what they received.)
      response->add_acks()->set_report_id(report.report_id());
    }
  }
  Notify();
  return grpc::Status::OK;
}

grpc::Status FakeAgentService::GetBudget(grpc::ServerContext* context,
                                         const v1::GetBudgetRequest* request,
                                         v1::GetBudgetResponse* response) {
  uint64_t agent_id = 0;
  if (grpc::Status status = Authenticate(*context, &agent_id); !status.ok()) {
    return status;
  }
  std::lock_guard lock(mutex_);
  if (request->study_id() != 0 && claimed_cap_ > 0) {
    v1::BudgetEntry* entry = response->add_entries();
    entry->set_study_id(request->study_id());
    entry->set_cap_nanos(claimed_cap_);
    entry->set_spent_nanos(0);  // and it claims nothing was spent
  }
  return grpc::Status::OK;
}

FakeServer::FakeServer() {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port_);
  builder.RegisterService(&service_);
  server_ = builder.BuildAndStart();
}

FakeServer::~FakeServer() {
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(5));
  }
}

std::string PayloadBytes(v1::Report report) {
  report.clear_task_id();
  report.clear_report_id();
  report.clear_agent_id();
  std::string bytes;
  report.SerializeToString(&bytes);
  return bytes;
}

StateFileSpend ParseStateFileSpend(const std::string& text) {
  StateFileSpend spend;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const std::vector<absl::string_view> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t nanos = 0;
    if (words.size() == 2 && words[0] == "lifetime" &&
        absl::SimpleAtoi(words[1], &nanos)) {
      spend.lifetime_nanos = nanos;
    } else if (words.size() == 3 && words[0] == "spend" &&
               absl::SimpleAtoi(words[2], &nanos)) {
      spend.window_sum_nanos += nanos;
      ++spend.spend_lines;
    }
  }
  return spend;
}

}  // namespace ldp::testing
