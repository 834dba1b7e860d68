// The blocking drivers: --threads session workers, --streams bulk workers.
#include "tools/loadtest/loadtest_sessions.h"

#include <algorithm>
#include <functional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/types/span.h"
#include "client/agent_client/agent_client.h"
#include "client/agent_client/relay_client.h"
#include "client/agent_wire/shuffled_reports.h"
#include "client/core/agent.h"
#include "client/core/retry.h"
#include "common/base/status_macros.h"
#include "common/crypto/secure_random.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"
#include "tools/loadtest/loadtest_callback_sessions.h"
#include "tools/loadtest/loadtest_steps.h"

namespace ldp {
namespace {

// Submit calls to the shuffler carry up to --batch reports; a sealed report
// with its ticket is well under 1 KiB, and the shuffler takes 16 MiB.
constexpr int64_t kMaxSubmitBytes = 4 << 20;

// A shuffled study's sealed reports, to the agent's own shuffler.
void SubmitSealed(int64_t index, AgentClient& client, const Agent& agent,
                  const TaskBatch& batch, Shared& shared, Totals& totals) {
  const std::vector<SealedReport> sealed = agent.PendingSealed();
  if (sealed.empty()) return;
  const absl::Time start = absl::Now();
  auto acks = client.Submit(sealed);
  shared.ack_latency.Record(absl::Now() - start);
  if (!acks.ok()) {
    totals.upload_failures += static_cast<int64_t>(sealed.size());
    return totals.Error("submit", acks.status());
  }
  int64_t accepted = 0;
  for (size_t i = 0; i < sealed.size(); ++i) {
    accepted += TallySealed((*acks)[i], FindTask(batch, sealed[i].task_id),
                            index, shared, totals);
  }
  if (shared.timeline != nullptr)
    shared.timeline->Record(absl::Now(), accepted);
}

void RunSession(int64_t index, AgentClient& client, SecureRandom& random,
                Shared& shared, Totals& totals) {
  ++totals.sessions;
  // AgentClient draws the enrollment's request id and sends it on every
  // try, so its retries never enroll an agent twice.
  if (auto enrolled = client.Enroll(shared.config.enrollment_token);
      !enrolled.ok()) {
    ++totals.enroll_failures;
    return totals.Error("enroll", enrolled.status());
  }
  auto agent = MakeAgent(index, shared, random);
  auto batch = client.GetTasks();
  if (!agent.ok() || !batch.ok()) {
    ++totals.poll_failures;
    return totals.Error("poll", !agent.ok() ? agent.status() : batch.status());
  }
  AnswerTasks(**agent, *batch, shared.study_id, totals);
  SubmitSealed(index, client, **agent, *batch, shared, totals);
  const std::vector<TaskReport> pending = (*agent)->PendingReports();
  if (pending.empty()) return;
  const absl::Time start = absl::Now();
  auto acks = client.Upload(pending);
  shared.ack_latency.Record(absl::Now() - start);
  if (!acks.ok()) {
    ++totals.upload_failures;
    return totals.Error("upload", acks.status());
  }
  int64_t accepted_here = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    accepted_here +=
        Tally((*acks)[i], pending[i].payload, index, shared, totals);
  }
  if (shared.timeline != nullptr)
    shared.timeline->Record(absl::Now(), accepted_here);
}

void Worker(int worker, Shared& shared) {
  Totals totals(shared.population.domain_size());
  auto random = SecureRandom::Create();
  if (!random.ok()) {
    totals.Error("setup", random.status());
  } else {
    auto stub = shared.stubs[worker % shared.stubs.size()];
    for (int64_t i = shared.next_agent++; i < shared.population.num_agents();
         i = shared.next_agent++) {
      auto client = AgentClient::Create(
          {.max_attempts = shared.run.agent_attempts}, stub, **random);
      if (!client.ok()) {
        totals.Error("setup", client.status());
        break;
      }
      if (!shared.shuffler_stubs.empty()) {
        (*client)->set_shuffler(
            shared.shuffler_stubs[worker % shared.shuffler_stubs.size()]);
      }
      Pace(i, shared);
      RunSession(i, **client, **random, shared, totals);
      if (shared.progress != nullptr) shared.progress->Add(1);
    }
  }
  std::lock_guard<std::mutex> lock(shared.mutex);
  shared.totals.Merge(totals);
}

// One relay stream's share of --mode=bulk: claims --batch agents at a time,
// enrolls them in one call, polls their tasks in one call, lets each Agent
// answer, and uploads the reports --batch per message on its stream.
class BulkWorker {
 public:
  BulkWorker(int worker, Shared& shared)
      : shared_(shared),
        totals_(shared.population.domain_size()),
        relay_(shared.relay_stubs[worker % shared.relay_stubs.size()],
               absl::Seconds(60)),
        shuffler_(
            shared.shuffler_stubs.empty()
                ? nullptr
                : shared.shuffler_stubs[worker % shared.shuffler_stubs.size()]),
        batch_(shared.run.batch) {}

  void Run() {
    auto random = SecureRandom::Create();
    if (!random.ok()) return Merge(random.status());
    stream_ = relay_.OpenUploadStream();
    const int64_t n = shared_.population.num_agents();
    for (int64_t first = shared_.next_agent.fetch_add(batch_); first < n;
         first = shared_.next_agent.fetch_add(batch_)) {
      const int count = static_cast<int>(std::min<int64_t>(batch_, n - first));
      Pace(first, shared_);
      if (!RunBatch(first, count, **random)) break;
      if (shared_.progress != nullptr) shared_.progress->Add(count);
    }
    if (absl::Status closed = stream_->Close(); !closed.ok()) {
      totals_.Error("upload", closed);
    }
    Merge(absl::OkStatus());
  }

 private:
  void Merge(const absl::Status& setup) {
    if (!setup.ok()) totals_.Error("setup", setup);
    std::lock_guard<std::mutex> lock(shared_.mutex);
    shared_.totals.Merge(totals_);
  }

  // What one batch of agents answered: reports for the server, or a
  // shuffled study's sealed reports for the shuffler, each with its agent.
  struct Answered {
    std::vector<RelayedTaskReport> reports;
    std::vector<int64_t> owner;
    std::vector<SealedReport> sealed;
    std::vector<int64_t> sealed_owner;
    std::vector<const Task*> sealed_task;
  };

  // One request id for the batch, sent on every try: a retry after a lost
  // reply gets the agents the first try enrolled, not a second set.
  absl::StatusOr<std::vector<RelayedAgent>> EnrollBatch(int count,
                                                        SecureRandom& random) {
    const int attempts = shared_.run.agent_attempts;
    ASSIGN_OR_RETURN(const std::string request_id, NewEnrollmentRequestId());
    Backoff backoff = *Backoff::Create({});  // the defaults are valid
    absl::StatusOr<std::vector<RelayedAgent>> agents;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      if (attempt > 0) absl::SleepFor(backoff.NextDelay(random));
      agents = relay_.EnrollBatch(shared_.config.enrollment_token, count,
                                  request_id);
      if (agents.ok() || !IsTransient(agents.status().code())) break;
    }
    return agents;
  }

  // False when no later batch can do better (no relay API on the server).
  bool RunBatch(int64_t first, int count, SecureRandom& random) {
    totals_.sessions += count;
    auto agents = EnrollBatch(count, random);
    if (!agents.ok()) {
      totals_.enroll_failures += count;
      totals_.Error("enroll", agents.status());
      return !absl::IsUnimplemented(agents.status());
    }
    std::vector<const RelayedAgent*> polled;
    for (const RelayedAgent& agent : *agents) polled.push_back(&agent);
    auto batches = relay_.GetTasksBatch(polled, shuffler_ != nullptr);
    if (!batches.ok()) {
      totals_.poll_failures += count;
      totals_.Error("poll", batches.status());
      return true;
    }
    const Answered answered = Answer(first, *agents, *batches, random);
    for (size_t begin = 0; begin < answered.reports.size(); begin += batch_) {
      const size_t end = std::min(answered.reports.size(), begin + batch_);
      Upload(absl::MakeConstSpan(answered.reports).subspan(begin, end - begin),
             absl::MakeConstSpan(answered.owner).subspan(begin, end - begin));
    }
    if (!answered.sealed.empty()) SubmitAll(answered);
    return true;
  }

  // Each agent of the batch (agent `first` + k) answers its tasks.
  Answered Answer(int64_t first, const std::vector<RelayedAgent>& agents,
                  const std::vector<absl::StatusOr<TaskBatch>>& batches,
                  SecureRandom& random) {
    Answered out;
    for (size_t k = 0; k < agents.size(); ++k) {
      auto agent = MakeAgent(first + k, shared_, random);
      const absl::StatusOr<TaskBatch>& tasks = batches[k];
      if (!agent.ok() || !tasks.ok()) {
        ++totals_.poll_failures;
        totals_.Error("poll", !agent.ok() ? agent.status() : tasks.status());
        continue;
      }
      AnswerTasks(**agent, *tasks, shared_.study_id, totals_);
      for (TaskReport& report : (*agent)->PendingReports()) {
        out.reports.push_back(
            {.agent = &agents[k], .report = std::move(report)});
        out.owner.push_back(first + k);
      }
      for (SealedReport& sealed : (*agent)->PendingSealed()) {
        out.sealed_task.push_back(FindTask(*tasks, sealed.task_id));
        out.sealed.push_back(std::move(sealed));
        out.sealed_owner.push_back(first + k);
      }
    }
    return out;
  }

  // The sealed reports to the shuffler, --batch per Submit call.
  void SubmitAll(const Answered& answered) {
    auto requests = MakeSubmitBatches(
        answered.sealed,
        {.max_reports_per_batch = batch_, .max_batch_bytes = kMaxSubmitBytes});
    if (!requests.ok()) {
      totals_.upload_failures += static_cast<int64_t>(answered.sealed.size());
      return totals_.Error("submit", requests.status());
    }
    size_t at = 0;
    for (const v1::SubmitRequest& request : *requests) {
      SubmitOne(request, absl::MakeConstSpan(answered.sealed_owner).subspan(at),
                absl::MakeConstSpan(answered.sealed_task).subspan(at));
      at += static_cast<size_t>(request.submissions_size());
    }
  }

  // One Submit call; `owner` and `task` start at its first submission.
  void SubmitOne(const v1::SubmitRequest& request,
                 absl::Span<const int64_t> owner,
                 absl::Span<const Task* const> task) {
    const size_t n = static_cast<size_t>(request.submissions_size());
    // No bearer token: the shuffler is not the server's to know it.
    auto context = AgentCallContext("", absl::Seconds(60));
    v1::SubmitResponse response;
    const absl::Time start = absl::Now();
    const grpc::Status status =
        shuffler_->Submit(context.get(), request, &response);
    shared_.ack_latency.Record(absl::Now() - start);
    absl::StatusOr<std::vector<absl::Status>> acks =
        status.ok()
            ? SubmitAcksToStatuses(response, n)
            : absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                           status.error_message());
    if (!acks.ok()) {
      totals_.upload_failures += static_cast<int64_t>(n);
      return totals_.Error("submit", acks.status());
    }
    int64_t accepted = 0;
    for (size_t i = 0; i < n; ++i) {
      accepted += TallySealed((*acks)[i], task[i], owner[i], shared_, totals_);
    }
    if (shared_.timeline != nullptr)
      shared_.timeline->Record(absl::Now(), accepted);
  }

  void Upload(absl::Span<const RelayedTaskReport> chunk,
              absl::Span<const int64_t> owner) {
    const absl::Time start = absl::Now();
    auto acks = stream_->Send(chunk);
    shared_.ack_latency.Record(absl::Now() - start);
    if (!acks.ok()) {
      totals_.upload_failures += static_cast<int64_t>(chunk.size());
      totals_.Error("upload", acks.status());
      stream_ = relay_.OpenUploadStream();  // the old one is finished
      return;
    }
    int64_t accepted = 0;
    for (size_t i = 0; i < chunk.size(); ++i) {
      accepted += Tally((*acks)[i], chunk[i].report.payload, owner[i], shared_,
                        totals_);
    }
    if (shared_.timeline != nullptr)
      shared_.timeline->Record(absl::Now(), accepted);
  }

  Shared& shared_;
  Totals totals_;
  RelayClient relay_;
  // The shuffler's stub for a shuffled study; null otherwise.
  std::shared_ptr<v1::ShufflerService::StubInterface> shuffler_;
  const int batch_;
  std::unique_ptr<RelayClient::UploadStream> stream_;
};

}  // namespace

void MakeStubs(
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const std::shared_ptr<grpc::ChannelCredentials>& shuffler_credentials,
    Shared& shared) {
  const LoadtestRunOptions& run = shared.run;
  const int channels = run.bulk ? run.streams : run.channels;
  for (int c = 0; c < channels; ++c) {
    grpc::ChannelArguments arguments;
    // A distinct argument gives each channel its own connection.
    arguments.SetInt("ldp.loadtest_channel", c);
    // Sessions: no gRPC-level retries. The callback driver makes no retries
    // by design, AgentClient makes its own, and the retry filter's per-call
    // buffering was a tenth of the load test's CPU per session.
    if (!run.bulk) arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
    auto channel = grpc::CreateCustomChannel(
        run.servers[c % run.servers.size()], credentials, arguments);
    shared.stubs.push_back(v1::AgentService::NewStub(channel));
    shared.relay_stubs.push_back(v1::RelayService::NewStub(channel));
    shared.generic_stubs.push_back(
        std::make_shared<grpc::GenericStub>(channel));
    if (!run.shuffler.empty()) {
      shared.shuffler_stubs.push_back(
          v1::ShufflerService::NewStub(grpc::CreateCustomChannel(
              run.shuffler, shuffler_credentials, arguments)));
    }
  }
}

absl::Duration RunSessions(Shared& shared) {
  const absl::Time start = absl::Now();
  shared.start = start;
  const bool bulk = shared.run.bulk;
  if (!bulk && shared.run.in_flight > 0) {
    RunCallbackSessions(shared);
    return absl::Now() - start;
  }
  std::vector<std::thread> workers;
  if (bulk) {
    for (int w = 0; w < shared.run.streams; ++w) {
      workers.emplace_back([w, &shared] { BulkWorker(w, shared).Run(); });
    }
  }
  for (int w = 0; !bulk && w < shared.run.threads; ++w) {
    workers.emplace_back(Worker, w, std::ref(shared));
  }
  for (std::thread& worker : workers) worker.join();
  return absl::Now() - start;
}

}  // namespace ldp
