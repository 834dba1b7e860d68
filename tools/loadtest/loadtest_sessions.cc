// The blocking drivers: --threads session workers, --streams bulk workers.
#include "tools/loadtest/loadtest_sessions.h"

#include <algorithm>
#include <functional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "client/agent_client/agent_client.h"
#include "client/agent_client/relay_client.h"
#include "client/core/agent.h"
#include "common/crypto/secure_random.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"
#include "tools/loadtest/loadtest_callback_sessions.h"
#include "tools/loadtest/loadtest_steps.h"

namespace ldp {
namespace {

void RunSession(int64_t index, AgentClient& client, SecureRandom& random,
                Shared& shared, Totals& totals) {
  ++totals.sessions;
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
      auto client = AgentClient::Create({}, stub, **random);
      if (!client.ok()) {
        totals.Error("setup", client.status());
        break;
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

  // False when no later batch can do better (no relay API on the server).
  bool RunBatch(int64_t first, int count, SecureRandom& random) {
    totals_.sessions += count;
    auto agents = relay_.EnrollBatch(shared_.config.enrollment_token, count);
    if (!agents.ok()) {
      totals_.enroll_failures += count;
      totals_.Error("enroll", agents.status());
      return !absl::IsUnimplemented(agents.status());
    }
    std::vector<const RelayedAgent*> polled;
    for (const RelayedAgent& agent : *agents) polled.push_back(&agent);
    auto batches = relay_.GetTasksBatch(polled);
    if (!batches.ok()) {
      totals_.poll_failures += count;
      totals_.Error("poll", batches.status());
      return true;
    }
    std::vector<RelayedTaskReport> reports;
    std::vector<int64_t> owner;  // agent index of each report
    for (int k = 0; k < count; ++k) {
      auto agent = MakeAgent(first + k, shared_, random);
      const absl::StatusOr<TaskBatch>& tasks = (*batches)[k];
      if (!agent.ok() || !tasks.ok()) {
        ++totals_.poll_failures;
        totals_.Error("poll", !agent.ok() ? agent.status() : tasks.status());
        continue;
      }
      AnswerTasks(**agent, *tasks, shared_.study_id, totals_);
      for (TaskReport& report : (*agent)->PendingReports()) {
        reports.push_back(
            {.agent = &(*agents)[k], .report = std::move(report)});
        owner.push_back(first + k);
      }
    }
    for (size_t begin = 0; begin < reports.size(); begin += batch_) {
      const size_t end = std::min(reports.size(), begin + batch_);
      Upload(absl::MakeConstSpan(reports).subspan(begin, end - begin),
             absl::MakeConstSpan(owner).subspan(begin, end - begin));
    }
    return true;
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
  const int batch_;
  std::unique_ptr<RelayClient::UploadStream> stream_;
};

}  // namespace

void MakeStubs(const std::shared_ptr<grpc::ChannelCredentials>& credentials,
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
