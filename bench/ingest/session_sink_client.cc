// The session sink's client; see the header.
#include "bench/ingest/session_sink_client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace ldp::bench {
namespace {

// AgentClient's default per-call deadline: the sink's calls carry one, as
// the agent's do (the server arms a timer for each).
constexpr std::chrono::seconds kCallTimeout{30};

class Session;

// A header value must be printable: the token is base64url text.
std::string TokenText(int size) {
  std::string text(static_cast<size_t>(size), 'A');
  for (int i = 0; i < size; ++i)
    text[i] = static_cast<char>('A' + (i * 7) % 26);
  return text;
}

// What the sessions share: stubs, the fixed messages, the count of sessions
// started and running, and the first failure.
class Driver {
 public:
  Driver(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
         const SessionRun& run);

  // Starts the first `in_flight` sessions and waits for the last to end.
  absl::Status Run();
  // A session's last callback: records how it went, then starts the next
  // session, or notes that one fewer runs.
  void Ended(Session* session, const absl::Status& status);

  SessionSink::Stub& stub(int64_t index) {
    return *stubs_[static_cast<size_t>(index) % stubs_.size()];
  }
  std::unique_ptr<grpc::ClientContext> Context(bool with_token) const;
  const SessionRun& run() const { return run_; }
  const Blob& poll_request() const { return poll_request_; }
  const Batch& report() const { return report_; }

 private:
  // Starts session `index` if there is one left; false if not.
  bool StartNext();

  const SessionRun run_;
  std::vector<std::unique_ptr<SessionSink::Stub>> stubs_;
  const std::string authorization_;
  Blob poll_request_;
  Batch report_;
  std::atomic<int64_t> next_{0};
  std::atomic<int64_t> running_{0};
  absl::Notification all_ended_;
  absl::Mutex mutex_;
  int64_t failed_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Status first_failure_ ABSL_GUARDED_BY(mutex_);
};

// One session; it is also its upload stream's reactor. Driver::Ended
// deletes it.
class Session final : public grpc::ClientWriteReactor<Batch> {
 public:
  Session(Driver& driver, int64_t index) : driver_(driver), index_(index) {}

  void Start() {
    context_ = driver_.Context(false);
    driver_.stub(index_).async()->Enroll(
        context_.get(), &enroll_request_, &answer_,
        [this](const grpc::Status& status) { OnEnrolled(status); });
  }

  void OnDone(const grpc::Status& status) override {
    absl::Status outcome = Check("Upload", status, 0);
    if (outcome.ok() && ack_.reports() != 1) {
      outcome = absl::InternalError(
          absl::StrFormat("Upload acked %d reports, not 1", ack_.reports()));
    }
    driver_.Ended(this, outcome);
  }

 private:
  void OnEnrolled(const grpc::Status& status) {
    const absl::Status outcome =
        Check("Enroll", status, driver_.run().sizes.credential_bytes);
    if (!outcome.ok()) return driver_.Ended(this, outcome);
    context_ = driver_.Context(true);
    driver_.stub(index_).async()->Poll(
        context_.get(), &driver_.poll_request(), &answer_,
        [this](const grpc::Status& status) { OnPolled(status); });
  }

  void OnPolled(const grpc::Status& status) {
    const absl::Status outcome =
        Check("Poll", status, driver_.run().sizes.tasks_bytes);
    if (!outcome.ok()) return driver_.Ended(this, outcome);
    context_ = driver_.Context(true);
    driver_.stub(index_).async()->Upload(context_.get(), &ack_, this);
    StartWriteLast(&driver_.report(), grpc::WriteOptions());
    StartCall();
  }

  // The call's status, and for unary calls the answer's size (0: none).
  absl::Status Check(const char* call, const grpc::Status& status,
                     int answer_bytes) {
    if (!status.ok()) {
      return absl::UnavailableError(
          absl::StrCat(call, " failed: ", status.error_message(),
                       " (gRPC code ", status.error_code(), ")"));
    }
    if (answer_bytes > 0 &&
        answer_.data().size() != static_cast<size_t>(answer_bytes)) {
      return absl::InternalError(absl::StrFormat("%s answered %d bytes, not %d",
                                                 call, answer_.data().size(),
                                                 answer_bytes));
    }
    return absl::OkStatus();
  }

  Driver& driver_;
  const int64_t index_;
  std::unique_ptr<grpc::ClientContext> context_;  // the call in progress
  Blob enroll_request_;                           // empty, as the agent's is
  Blob answer_;
  Ack ack_;
};

Driver::Driver(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
               const SessionRun& run)
    : run_(run),
      authorization_(
          absl::StrCat("Bearer ", TokenText(run.sizes.token_bytes))) {
  for (const auto& channel : channels)
    stubs_.push_back(SessionSink::NewStub(channel));
  poll_request_.set_data(Filler(2, 4));  // GetTasksRequest: the agent id
  report_.add_reports(Filler(run.sizes.report_bytes, 5));
}

std::unique_ptr<grpc::ClientContext> Driver::Context(bool with_token) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  if (with_token) context->AddMetadata("authorization", authorization_);
  return context;
}

bool Driver::StartNext() {
  const int64_t index = next_.fetch_add(1, std::memory_order_relaxed);
  if (index >= run_.sessions) return false;
  (new Session(*this, index))->Start();
  return true;
}

void Driver::Ended(Session* session, const absl::Status& status) {
  delete session;
  if (!status.ok()) {
    absl::MutexLock lock(&mutex_);
    if (failed_++ == 0) first_failure_ = status;
  }
  if (!StartNext() && running_.fetch_sub(1) == 1) all_ended_.Notify();
}

absl::Status Driver::Run() {
  const int64_t first = std::min<int64_t>(run_.in_flight, run_.sessions);
  running_ = first;  // before any starts: the first to end must see them all
  for (int64_t i = 0; i < first; ++i) StartNext();
  all_ended_.WaitForNotification();
  absl::MutexLock lock(&mutex_);
  if (failed_ == 0) return absl::OkStatus();
  return absl::Status(
      first_failure_.code(),
      absl::StrFormat("%d of %d sessions failed; the first: %s", failed_,
                      run_.sessions, first_failure_.message()));
}

}  // namespace

absl::Status RunSessions(
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const SessionRun& run) {
  if (channels.empty() || run.sessions < 1 || run.in_flight < 1) {
    return absl::InvalidArgumentError(
        "RunSessions needs channels, sessions and in_flight");
  }
  Driver driver(channels, run);
  return driver.Run();
}

}  // namespace ldp::bench
