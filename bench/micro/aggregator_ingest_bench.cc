// Ingest throughput of the server core, in process, on a temporary SQLite
// database (WAL, synchronous=FULL): reports per second through
// Aggregator::UploadReports, durable before each call returns.
//
//   BM_UploadBatchOf1000: one caller, one agent's 1000 reports per call (a
//     study of 1000 questions with ε split across them), one commit each.
//   BM_UploadOneReportPerCall: T concurrent callers, each call one agent's
//     single report (the load test's shape); group commit batches them.
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "common/base/clock.h"
#include "common/crypto/secure_random.h"
#include "server/core/aggregator.h"
#include "server/store/sqlite/sqlite_store.h"

namespace ldp {
namespace {

RecordSchema Schema() {
  return *RecordSchema::Create(
      {FieldSpec::Real("x", -1, 1), FieldSpec::Int("bucket", 0, 63)});
}

Question Mean(std::string id, int64_t epsilon_nanos) {
  return {.id = std::move(id),
          .kind =
              StatisticalQueryQuestion{
                  .query = *Query::Create(expr::Field("x"), {-1, 1}, Schema()),
                  .mechanism = RealMechanismKind::kHybrid},
          .epsilon_nanos = epsilon_nanos};
}

Question Histogram() {
  return {
      .id = "buckets",
      .kind = HistogramQuestion{.encoding = *DomainEncoding::Create(
                                    FieldEncoding{.field = "bucket"}, Schema()),
                                .oracle = std::nullopt,
                                .post_processing = std::nullopt}};
}

// A fresh aggregator on a temporary database, with `agents` enrolled and
// each agent's answers to all its tasks prepared.
struct Setup {
  std::string dir;
  std::unique_ptr<Aggregator> aggregator;
  std::vector<uint64_t> agents;
  std::vector<std::vector<TaskReport>> reports;

  Setup(StudySpec spec, int num_agents) {
    std::string pattern = "/tmp/ldp_bench_XXXXXX";
    dir = mkdtemp(pattern.data());
    aggregator = *Aggregator::Create(
        {.clock = RealClock::Get(), .analyst_token = "bench-analyst-token"},
        *SqliteStore::Open({.path = dir + "/ldp.db"}));
    absl::StatusOr<StudyInfo> study = aggregator->CreateStudy(std::move(spec));
    if (!study.ok()) {
      fprintf(stderr, "CreateStudy: %s\n", study.status().ToString().c_str());
      abort();
    }
    Enroll(num_agents);
    Answer();
  }
  ~Setup() {
    aggregator.reset();
    std::filesystem::remove_all(dir);
  }

  void Enroll(int n) {
    agents.resize(n);
    absl::BlockingCounter pending(n);
    for (int i = 0; i < n; ++i) {
      aggregator->EnrollAsync("", [&, i](absl::StatusOr<Enrollment> e) {
        agents[i] = e->agent_id;
        pending.DecrementCount();
      });
    }
    pending.Wait();
  }

  void Answer() {
    auto random = *SecureRandom::Create();
    std::map<const Task*, std::shared_ptr<const TaskMechanism>> mechanisms;
    const Record record{.values = {{"x", 0.25}, {"bucket", int64_t{5}}}};
    for (uint64_t agent : agents) {
      std::vector<TaskReport>& out = reports.emplace_back();
      const std::vector<TaskAssignment> tasks =
          *aggregator->GetTasks(agent, 1000);
      for (const TaskAssignment& task : tasks) {
        auto& mechanism = mechanisms[task.question.get()];
        if (mechanism == nullptr)
          mechanism = *TaskMechanism::Create(task.MakeTask());
        TaskReport report{.task_id = task.task_id,
                          .payload = mechanism->Randomize(record, *random)};
        for (uint8_t& byte : report.report_id)
          byte = static_cast<uint8_t>((*random)());
        out.push_back(std::move(report));
      }
    }
  }
};

void BM_UploadBatchOf1000(benchmark::State& state) {
  constexpr int kQuestions = 1000;
  std::vector<Question> questions;
  for (int q = 0; q < kQuestions; ++q) {
    questions.push_back(Mean(absl::StrCat("q", q), 1'000'000));
  }
  const int num_calls = static_cast<int>(state.max_iterations);
  Setup setup({.display_name = "bench",
               .schema = Schema(),
               .epsilon_cap_nanos = 1'000'000'000,
               .questions = std::move(questions),
               .round_duration = absl::Hours(10)},
              num_calls);
  int call = 0;
  int64_t ok = 0;
  for (auto _ : state) {
    for (const absl::Status& s : setup.aggregator->UploadReports(
             setup.agents[call], std::move(setup.reports[call]))) {
      ok += s.ok();
    }
    ++call;
  }
  state.SetItemsProcessed(ok);
  state.counters["accepted"] = static_cast<double>(ok);
  state.counters["transactions"] =
      static_cast<double>(setup.aggregator->commit_stats().transactions);
}
BENCHMARK(BM_UploadBatchOf1000)
    ->Iterations(200)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

std::unique_ptr<Setup> shared_setup;

void BM_UploadOneReportPerCall(benchmark::State& state) {
  const int threads = state.threads();
  const int per_thread = static_cast<int>(state.max_iterations);
  if (state.thread_index() == 0) {
    shared_setup = std::make_unique<Setup>(
        StudySpec{.display_name = "bench",
                  .schema = Schema(),
                  .epsilon_cap_nanos = 1'000'000'000,
                  .questions = {Mean("mean", 0), Histogram()},
                  .round_duration = absl::Hours(10)},
        threads * per_thread);
  }
  int64_t ok = 0;
  int i = state.thread_index();
  for (auto _ : state) {
    for (const absl::Status& s : shared_setup->aggregator->UploadReports(
             shared_setup->agents[i], std::move(shared_setup->reports[i]))) {
      ok += s.ok();
    }
    i += threads;
  }
  state.SetItemsProcessed(ok);
  if (state.thread_index() == 0) {
    state.counters["transactions"] = static_cast<double>(
        shared_setup->aggregator->commit_stats().transactions);
  }
}
BENCHMARK(BM_UploadOneReportPerCall)
    ->Iterations(10'000)
    ->Threads(1)
    ->Threads(8)
    ->Threads(32)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The gRPC callback API's shape: one thread keeps `window` uploads of one
// report each in flight through UploadReportsAsync, never blocking on a
// commit; throughput is then bounded by the writer thread, not by fsync.
// Bounds the uploads in flight.
class Window {
 public:
  explicit Window(int limit) : limit_(limit) {}
  void Acquire() {
    absl::MutexLock lock(&mutex_);
    mutex_.Await(absl::Condition(this, &Window::HasRoom));
    ++in_flight_;
  }
  void Release() {
    absl::MutexLock lock(&mutex_);
    --in_flight_;
  }

 private:
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return in_flight_ < limit_;
  }
  absl::Mutex mutex_;
  int in_flight_ ABSL_GUARDED_BY(mutex_) = 0;
  const int limit_;
};

void BM_UploadAsyncInFlight(benchmark::State& state) {
  constexpr int kAgents = 200'000;
  Setup setup({.display_name = "bench",
               .schema = Schema(),
               .epsilon_cap_nanos = 1'000'000'000,
               .questions = {Mean("mean", 0), Histogram()},
               .round_duration = absl::Hours(10)},
              kAgents);
  const int64_t transactions_before =
      setup.aggregator->commit_stats().transactions;
  std::atomic<int64_t> ok{0};
  for (auto _ : state) {
    Window window(static_cast<int>(state.range(0)));
    absl::BlockingCounter all(kAgents);
    for (int i = 0; i < kAgents; ++i) {
      window.Acquire();
      setup.aggregator->UploadReportsAsync(
          setup.agents[i], std::move(setup.reports[i]),
          [&](std::vector<absl::Status> statuses) {
            for (const absl::Status& s : statuses) ok += s.ok();
            window.Release();
            all.DecrementCount();
          });
    }
    all.Wait();
  }
  state.SetItemsProcessed(ok.load());
  state.counters["transactions"] = static_cast<double>(
      setup.aggregator->commit_stats().transactions - transactions_before);
}
// Enrollment through EnrollAsync with 4096 in flight: a fresh secret, its
// SHA-256 and a durable agent row each.
void BM_EnrollAsyncInFlight(benchmark::State& state) {
  constexpr int kAgents = 100'000;
  Setup setup({.display_name = "bench",
               .schema = Schema(),
               .epsilon_cap_nanos = 1'000'000'000,
               .questions = {Mean("mean", 0)},
               .round_duration = absl::Hours(10)},
              0);
  for (auto _ : state) {
    Window window(4096);
    absl::BlockingCounter all(kAgents);
    for (int i = 0; i < kAgents; ++i) {
      window.Acquire();
      setup.aggregator->EnrollAsync("", [&](absl::StatusOr<Enrollment>) {
        window.Release();
        all.DecrementCount();
      });
    }
    all.Wait();
  }
  state.SetItemsProcessed(kAgents * state.iterations());
}
BENCHMARK(BM_EnrollAsyncInFlight)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_UploadAsyncInFlight)
    ->Arg(256)
    ->Arg(4096)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ldp

BENCHMARK_MAIN();
