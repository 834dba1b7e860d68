// Sessions on gRPC's callback API; see the header.
#include "tools/loadtest/loadtest_callback_sessions.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "client/agent_client/agent_client.h"
#include "client/agent_wire/upload_batches.h"
#include "common/crypto/secure_random.h"
#include "proto/grpc_convert/byte_buffer.h"
#include "proto/grpc_convert/grpc_status.h"
#include "tools/loadtest/loadtest_steps.h"

namespace ldp {
namespace {

// Each call's deadline: AgentClient's default.
const absl::Duration kCallTimeout = AgentClientOptions{}.rpc_timeout;

// Admits at most `limit` sessions at once.
class Slots {
 public:
  explicit Slots(int limit) : free_(limit), limit_(limit) {}
  void Acquire() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(
        +[](int* free) { return *free > 0; }, &free_));
    --free_;
  }
  void Release() {
    absl::MutexLock lock(&mutex_);
    ++free_;
  }
  // Returns once every admitted session has released its slot.
  void WaitIdle() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &Slots::Idle));
  }

 private:
  bool Idle() const { return free_ == limit_; }

  absl::Mutex mutex_;
  int free_;
  const int limit_;
};

// One Totals per thread that runs sessions' callbacks (gRPC's, and the
// driver's), so that counting takes no lock; summed at the end. A thread
// runs one callback at a time, so its Totals has one user at a time.
class ThreadTotals {
 public:
  explicit ThreadTotals(uint32_t domain) : domain_(domain) {}

  Totals& Local() {
    thread_local std::pair<uint64_t, Totals*> cached{0, nullptr};
    if (cached.first == id_) return *cached.second;
    absl::MutexLock lock(&mutex_);
    auto& slot = by_thread_[std::this_thread::get_id()];
    if (slot == nullptr) slot = std::make_unique<Totals>(domain_);
    cached = {id_, slot.get()};
    return *slot;
  }
  // Once no callback runs any more.
  void MergeInto(Totals& totals) {
    absl::MutexLock lock(&mutex_);
    for (const auto& [thread, local] : by_thread_) totals.Merge(*local);
  }

 private:
  static inline std::atomic<uint64_t> next_id_{1};
  const uint64_t id_ = next_id_++;  // never reused, unlike an address
  const uint32_t domain_;
  absl::Mutex mutex_;
  absl::flat_hash_map<std::thread::id, std::unique_ptr<Totals>> by_thread_;
};

// The calling thread's coins (SecureRandom is not thread-safe), or why
// OpenSSL could not key them.
absl::StatusOr<SecureRandom*> ThreadRandom() {
  thread_local absl::StatusOr<std::unique_ptr<SecureRandom>> random =
      SecureRandom::Create();
  if (!random.ok()) return random.status();
  return random->get();
}

// One agent's session: Enroll, then GetTasks, then the upload stream (this
// object is that stream's reactor). It deletes itself when it ends.
class CallbackSession final
    : public grpc::ClientWriteReactor<v1::UploadReportsRequest> {
 public:
  CallbackSession(int64_t index, Shared& shared, ThreadTotals& totals,
                  Slots& slots)
      : index_(index),
        shared_(shared),
        totals_(totals),
        slots_(slots),
        channel_(static_cast<size_t>(index) % shared.stubs.size()) {}

  void Start() {
    ++totals_.Local().sessions;
    enroll_request_.set_enrollment_token(shared_.config.enrollment_token);
    // Named like every client's enrollment, so that the server's cost per
    // session is a real agent's. This driver makes no retries (see
    // MakeStubs); a failed Enroll ends the session.
    absl::StatusOr<std::string> request_id = NewEnrollmentRequestId();
    if (!request_id.ok()) {
      Totals& totals = totals_.Local();
      ++totals.enroll_failures;
      totals.Error("enroll", request_id.status());
      return End();
    }
    enroll_request_.set_request_id(*std::move(request_id));
    context_ = AgentCallContext("", kCallTimeout);
    shared_.stubs[channel_]->async()->Enroll(
        context_.get(), &enroll_request_, &enroll_response_,
        [this](const grpc::Status& status) { OnEnrolled(status); });
  }

  void OnWriteDone(bool ok) override {
    // A failed write ends the call; OnDone says why.
    if (ok && next_batch_ < batches_.size()) WriteNext();
  }

  void OnDone(const grpc::Status& status) override {
    shared_.ack_latency.Record(absl::Now() - upload_start_);
    Totals& totals = totals_.Local();
    absl::StatusOr<std::vector<absl::Status>> acks =
        status.ok()
            ? AcksToStatuses(acks_, pending_)
            : absl::StatusOr<std::vector<absl::Status>>(FromGrpcStatus(status));
    if (!acks.ok()) {
      ++totals.upload_failures;
      totals.Error("upload", acks.status());
      return End();
    }
    int64_t accepted = 0;
    for (size_t i = 0; i < pending_.size(); ++i) {
      accepted +=
          Tally((*acks)[i], pending_[i].payload, index_, shared_, totals);
    }
    if (shared_.timeline != nullptr) {
      shared_.timeline->Record(absl::Now(), accepted);
    }
    End();
  }

 private:
  void OnEnrolled(const grpc::Status& status) {
    absl::StatusOr<AgentCredential> enrolled =
        status.ok() ? CredentialFromEnrollment(enroll_response_)
                    : absl::StatusOr<AgentCredential>(FromGrpcStatus(status));
    if (!enrolled.ok()) {
      Totals& totals = totals_.Local();
      ++totals.enroll_failures;
      totals.Error("enroll", enrolled.status());
      return End();
    }
    credential_ = *std::move(enrolled);
    v1::GetTasksRequest request;
    request.set_agent_id(credential_.agent_id);
    poll_request_ = MessageToByteBuffer(request);
    context_ = AgentCallContext(credential_.bearer_token, kCallTimeout);
    shared_.generic_stubs[channel_]->UnaryCall(
        context_.get(), kGetTasksMethod, grpc::StubOptions(), &poll_request_,
        &poll_response_,
        [this](const grpc::Status& status) { OnPolled(status); });
  }

  // Answers the poll, then uploads what the agent has pending.
  void OnPolled(const grpc::Status& status) {
    Totals& totals = totals_.Local();
    absl::StatusOr<TaskBatch> batch =
        status.ok() ? DecodeTaskBatch(ByteBufferToString(poll_response_))
                    : absl::StatusOr<TaskBatch>(FromGrpcStatus(status));
    const absl::StatusOr<SecureRandom*> random = ThreadRandom();
    absl::StatusOr<std::unique_ptr<Agent>> agent =
        random.ok() ? MakeAgent(index_, shared_, **random)
                    : absl::StatusOr<std::unique_ptr<Agent>>(random.status());
    if (!batch.ok() || !agent.ok()) {
      ++totals.poll_failures;
      totals.Error("poll", !agent.ok() ? agent.status() : batch.status());
      return End();
    }
    AnswerTasks(**agent, *batch, shared_.study_id, totals);
    pending_ = (*agent)->PendingReports();
    if (pending_.empty()) return End();
    batches_ = MakeUploadBatches(pending_, credential_.agent_id, {});
    context_ = AgentCallContext(credential_.bearer_token, kCallTimeout);
    shared_.stubs[channel_]->async()->UploadReports(context_.get(), &acks_,
                                                    this);
    upload_start_ = absl::Now();
    WriteNext();
    StartCall();
  }

  // The last batch also closes the client's side of the stream.
  void WriteNext() {
    const v1::UploadReportsRequest* batch = &batches_[next_batch_++];
    if (next_batch_ == batches_.size()) {
      StartWriteLast(batch, grpc::WriteOptions());
    } else {
      StartWrite(batch);
    }
  }

  void End() {
    if (shared_.progress != nullptr) shared_.progress->Add(1);
    Slots& slots = slots_;
    delete this;
    slots.Release();  // last: the driver may return once all are released
  }

  const int64_t index_;
  Shared& shared_;
  ThreadTotals& totals_;
  Slots& slots_;
  const size_t channel_;
  std::unique_ptr<grpc::ClientContext> context_;  // the call in progress
  v1::EnrollRequest enroll_request_;
  v1::EnrollResponse enroll_response_;
  AgentCredential credential_;
  grpc::ByteBuffer poll_request_, poll_response_;
  std::vector<TaskReport> pending_;
  std::vector<v1::UploadReportsRequest> batches_;
  size_t next_batch_ = 0;
  v1::UploadReportsResponse acks_;
  absl::Time upload_start_;
};

}  // namespace

void RunCallbackSessions(Shared& shared) {
  ThreadTotals totals(shared.population.domain_size());
  Slots slots(shared.run.in_flight);
  const int64_t n = shared.population.num_agents();
  for (int64_t i = shared.next_agent++; i < n; i = shared.next_agent++) {
    slots.Acquire();
    Pace(i, shared);
    (new CallbackSession(i, shared, totals, slots))->Start();
  }
  slots.WaitIdle();
  std::lock_guard<std::mutex> lock(shared.mutex);
  totals.MergeInto(shared.totals);
}

}  // namespace ldp
