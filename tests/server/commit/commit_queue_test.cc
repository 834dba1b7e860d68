#include "server/commit/commit_queue.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/status_matchers.h"

namespace ldp {
namespace {

using testing::StatusIs;

// Counts transactions; can hold the first one open until released, so tests
// can queue jobs behind it deterministically.
class FakeStore final : public Store {
 public:
  class NoWrites final : public StoreTransaction {
    absl::Status InsertAgent(const AgentRow&) override {
      return absl::OkStatus();
    }
    absl::StatusOr<uint64_t> InsertStudy(const StudyRow& row) override {
      return row.study_id;
    }
    absl::Status SetStudyState(uint64_t, StudyState) override {
      return absl::OkStatus();
    }
    absl::Status InsertRound(const RoundRow&) override {
      return absl::OkStatus();
    }
    absl::Status SetRoundState(uint64_t, RoundState) override {
      return absl::OkStatus();
    }
    absl::StatusOr<AppendResult> AppendReport(const ReportRow&) override {
      return AppendResult{};
    }
  };

  absl::Status Transact(
      absl::FunctionRef<absl::Status(StoreTransaction&)> body) override {
    if (hold_first_ && transactions_.fetch_add(1) == 0) {
      entered_.Notify();
      release_.WaitForNotification();
    } else if (!hold_first_) {
      transactions_.fetch_add(1);
    }
    NoWrites transaction;
    return body(transaction);
  }
  absl::Status ForEachAgent(
      absl::FunctionRef<absl::Status(const AgentRow&)>) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<StudyRow>> LoadStudies() override {
    return std::vector<StudyRow>{};
  }
  absl::StatusOr<std::vector<RoundRow>> LoadRounds() override {
    return std::vector<RoundRow>{};
  }
  absl::Status ForEachReport(
      absl::FunctionRef<absl::Status(const ReportRow&)>) override {
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<LedgerSummary>> SummarizeLedger() override {
    return std::vector<LedgerSummary>{};
  }
  absl::StatusOr<std::vector<LedgerEntry>> GetLedger(uint64_t,
                                                     uint64_t) override {
    return std::vector<LedgerEntry>{};
  }

  void HoldFirstTransaction() { hold_first_ = true; }
  void WaitUntilHeld() { entered_.WaitForNotification(); }
  void Release() { release_.Notify(); }
  int transactions() const { return transactions_.load(); }

 private:
  bool hold_first_ = false;
  std::atomic<int> transactions_{0};
  absl::Notification entered_;
  absl::Notification release_;
};

// Records the order of Apply and Finish calls into a shared log.
struct Log {
  absl::Mutex mutex;
  std::vector<int> finished;
  std::vector<absl::Status> statuses;
  // Every call of the jobs and of the group work, in order.
  std::vector<std::string> events;
  void Event(std::string event) {
    absl::MutexLock lock(&mutex);
    events.push_back(std::move(event));
  }
};

class RecordingJob final : public CommitJob {
 public:
  RecordingJob(Log* log, int id, int64_t writes = 1, bool fail = false,
               absl::StatusCode failure = absl::StatusCode::kInternal)
      : log_(log), id_(id), writes_(writes), fail_(fail), failure_(failure) {}
  int64_t NumWrites() const override { return writes_; }
  absl::Status Apply(StoreTransaction&) override {
    log_->Event(absl::StrCat("apply ", id_));
    return fail_ ? absl::Status(failure_, "disk on fire") : absl::OkStatus();
  }
  void Finish(const absl::Status& status) override {
    log_->Event(absl::StrCat("finish ", id_));
    absl::MutexLock lock(&log_->mutex);
    log_->finished.push_back(id_);
    log_->statuses.push_back(status);
  }

 private:
  Log* log_;
  int id_;
  int64_t writes_;
  bool fail_;
  absl::StatusCode failure_;
};

// Notifies when finished: a marker that everything before it committed.
class Signal final : public CommitJob {
 public:
  explicit Signal(absl::Notification* n) : n_(n) {}
  absl::Status Apply(StoreTransaction&) override { return absl::OkStatus(); }
  void Finish(const absl::Status&) override { n_->Notify(); }

 private:
  absl::Notification* n_;
};

TEST(CommitQueue, FinishesEveryJobOnceInSubmissionOrder) {
  FakeStore store;
  Log log;
  {
    CommitQueue queue(&store, 100);
    for (int i = 0; i < 500; ++i) {
      queue.Submit(std::make_unique<RecordingJob>(&log, i));
    }
  }  // the destructor drains the queue
  ASSERT_EQ(log.finished.size(), 500u);
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(log.finished[i], i);
    EXPECT_OK(log.statuses[i]);
  }
}

TEST(CommitQueue, JobsQueuedDuringACommitShareTheNextOne) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  CommitQueue queue(&store, 1000);
  queue.Submit(std::make_unique<RecordingJob>(&log, 0));
  store.WaitUntilHeld();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        queue.Submit(std::make_unique<RecordingJob>(&log, 1 + t * 50 + i));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  store.Release();
  absl::Notification last;
  queue.Submit(std::make_unique<Signal>(&last));
  last.WaitForNotification();
  // The held commit, then the 200 queued jobs together, then maybe the
  // signal on its own.
  EXPECT_LE(store.transactions(), 3);
  EXPECT_EQ(queue.stats().jobs, 202);
}

TEST(CommitQueue, BoundsTheWritesOfOneTransaction) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  {
    CommitQueue queue(&store, 7);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();
    for (int i = 1; i <= 10; ++i) {
      queue.Submit(std::make_unique<RecordingJob>(&log, i, /*writes=*/3));
    }
    store.Release();
  }
  // 3 + 3 + 3 reaches 7: groups of three jobs, then the last one alone.
  EXPECT_EQ(store.transactions(), 1 + 4);
  EXPECT_EQ(log.finished.size(), 11u);
}

// Backpressure: while a commit is held, writes queue up to the bound and
// TrySubmit refuses the rest, leaving the job with the caller; once the
// queue drains it accepts again. The queued count is what is waiting.
TEST(CommitQueue, TrySubmitRefusesBeyondTheQueueBound) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  {
    CommitQueue queue(&store, 100, nullptr, nullptr, /*max_queued_writes=*/10);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();  // job 0 is in the held commit, not queued
    EXPECT_EQ(queue.queued_writes(), 0);
    std::unique_ptr<CommitJob> job = std::make_unique<RecordingJob>(&log, 1, 6);
    EXPECT_OK(queue.TrySubmit(job));
    EXPECT_EQ(job, nullptr);
    job = std::make_unique<RecordingJob>(&log, 2, 4);
    EXPECT_OK(queue.TrySubmit(job));  // 6 + 4 = 10: at the bound
    EXPECT_EQ(queue.queued_writes(), 10);
    job = std::make_unique<RecordingJob>(&log, 3, 1);
    EXPECT_THAT(queue.TrySubmit(job),  // 11 > 10
                StatusIs(absl::StatusCode::kResourceExhausted));
    ASSERT_NE(job, nullptr);  // still the caller's
    store.Release();
    // Drained: a job larger than the whole bound still goes when the
    // queue is empty (it could never go otherwise).
    absl::Notification drained;
    queue.Submit(std::make_unique<Signal>(&drained));
    drained.WaitForNotification();
    EXPECT_EQ(queue.queued_writes(), 0);
    job = std::make_unique<RecordingJob>(&log, 4, 50);
    EXPECT_OK(queue.TrySubmit(job));
  }
  EXPECT_EQ(log.finished, (std::vector<int>{0, 1, 2, 4}));
}

// Records its calls; End fails while `fail_end` is set.
class RecordingGroupWork final : public CommitGroupWork {
 public:
  explicit RecordingGroupWork(Log* log) : log_(log) {}
  void Begin() override { log_->Event("begin"); }
  absl::Status End(StoreTransaction&) override {
    log_->Event("end");
    return fail_end ? absl::InternalError("no room for the sum")
                    : absl::OkStatus();
  }
  void Finish(const absl::Status& status) override {
    log_->Event(status.ok() ? "committed" : "failed");
  }
  std::atomic<bool> fail_end{false};

 private:
  Log* log_;
};

// Job 0 alone in a transaction held open until jobs 1 and 2 (failing if
// `fail_second`) queued behind it, all inside a RecordingGroupWork; the
// events.
std::vector<std::string> HeldGroupWithWork(bool fail_second) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  RecordingGroupWork work(&log);
  {
    CommitQueue queue(&store, 100);
    queue.set_group_work(&work);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();
    queue.Submit(std::make_unique<RecordingJob>(&log, 1));
    queue.Submit(std::make_unique<RecordingJob>(&log, 2, 1, fail_second));
    store.Release();
  }
  return log.events;
}

TEST(CommitQueue, GroupWorkWrapsEachTransactionOnce) {
  EXPECT_THAT(HeldGroupWithWork(/*fail_second=*/false),
              ::testing::ElementsAre("begin", "apply 0", "end", "committed",
                                     "finish 0",  //
                                     "begin", "apply 1", "apply 2", "end",
                                     "committed", "finish 1", "finish 2"));
}

TEST(CommitQueue, GroupWorkRunsAgainAroundEachIsolatedJob) {
  EXPECT_THAT(
      HeldGroupWithWork(/*fail_second=*/true),
      ::testing::ElementsAre(
          "begin", "apply 0", "end", "committed", "finish 0",
          // The group fails at job 2: End never runs, nothing is counted.
          "begin", "apply 1", "apply 2", "failed",
          // Then each job alone, inside the work again.
          "begin", "apply 1", "end", "committed", "finish 1",  //
          "begin", "apply 2", "failed", "finish 2"));
}

TEST(CommitQueue, AFailingGroupWorkFailsItsTransaction) {
  FakeStore store;
  Log log;
  RecordingGroupWork work(&log);
  work.fail_end = true;
  {
    CommitQueue queue(&store, 100);
    queue.set_group_work(&work);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
  }
  ASSERT_EQ(log.statuses.size(), 1u);
  EXPECT_EQ(log.statuses[0].code(), absl::StatusCode::kInternal);
  EXPECT_THAT(log.events, ::testing::ElementsAre("begin", "apply 0", "end",
                                                 "failed", "finish 0"));
}

TEST(CommitQueue, AFailingJobDoesNotFailItsGroup) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  {
    CommitQueue queue(&store, 100);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();
    queue.Submit(std::make_unique<RecordingJob>(&log, 1));
    queue.Submit(std::make_unique<RecordingJob>(&log, 2, 1, /*fail=*/true));
    queue.Submit(std::make_unique<RecordingJob>(&log, 3));
    store.Release();
  }
  ASSERT_EQ(log.finished, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_OK(log.statuses[0]);
  EXPECT_OK(log.statuses[1]);
  EXPECT_EQ(log.statuses[2].code(), absl::StatusCode::kInternal);
  EXPECT_OK(log.statuses[3]);
}

// An unavailable store fails every job of the group at once: running each
// alone would only wait out the same outage once per job.
TEST(CommitQueue, AnUnavailableStoreFailsTheGroupWithoutIsolating) {
  FakeStore store;
  store.HoldFirstTransaction();
  Log log;
  {
    CommitQueue queue(&store, 100);
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();
    queue.Submit(std::make_unique<RecordingJob>(&log, 1));
    queue.Submit(std::make_unique<RecordingJob>(
        &log, 2, 1, /*fail=*/true, absl::StatusCode::kUnavailable));
    queue.Submit(std::make_unique<RecordingJob>(&log, 3));
    store.Release();
  }
  ASSERT_EQ(log.finished, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(store.transactions(), 2);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(log.statuses[i].code(), absl::StatusCode::kUnavailable) << i;
  }
}

// A shard's lane whose commit has stalled refuses new work at once, with
// UNAVAILABLE, leaving the job with the caller; what was queued still
// waits for the commit.
TEST(CommitQueue, AStalledLaneRefusesNewWork) {
  FakeStore store;
  store.HoldFirstTransaction();
  FakeClock clock;
  Log log;
  {
    CommitQueue queue(&store, 100, &clock, nullptr, 0,
                      {.shard = 1, .refuse_after_stall = absl::Seconds(2)});
    queue.Submit(std::make_unique<RecordingJob>(&log, 0));
    store.WaitUntilHeld();
    std::unique_ptr<CommitJob> job = std::make_unique<RecordingJob>(&log, 1);
    EXPECT_OK(queue.TrySubmit(job));
    clock.Advance(absl::Seconds(3));
    job = std::make_unique<RecordingJob>(&log, 2);
    EXPECT_THAT(queue.TrySubmit(job),
                StatusIs(absl::StatusCode::kUnavailable,
                         ::testing::HasSubstr("shard 2")));
    ASSERT_NE(job, nullptr);
    store.Release();
    absl::Notification drained;
    queue.Submit(std::make_unique<Signal>(&drained));
    drained.WaitForNotification();
    EXPECT_OK(queue.TrySubmit(job));  // no commit in progress now
  }
  EXPECT_EQ(log.finished, (std::vector<int>{0, 1, 2}));
}

TEST(CommitQueue, JobsMaySubmitJobsFromFinish) {
  FakeStore store;
  Log log;
  class Chain final : public CommitJob {
   public:
    Chain(CommitQueue* queue, Log* log, int depth)
        : queue_(queue), log_(log), depth_(depth) {}
    absl::Status Apply(StoreTransaction&) override { return absl::OkStatus(); }
    void Finish(const absl::Status&) override {
      {
        absl::MutexLock lock(&log_->mutex);
        log_->finished.push_back(depth_);
      }
      if (depth_ > 0) {
        queue_->Submit(std::make_unique<Chain>(queue_, log_, depth_ - 1));
      }
    }

   private:
    CommitQueue* queue_;
    Log* log_;
    int depth_;
  };
  {
    CommitQueue queue(&store, 10);
    queue.Submit(std::make_unique<Chain>(&queue, &log, 5));
  }
  EXPECT_EQ(log.finished, (std::vector<int>{5, 4, 3, 2, 1, 0}));
}

TEST(CommitQueue, JobsSubmittedAfterStopAreRefused) {
  FakeStore store;
  Log log;
  CommitQueue queue(&store, 10);
  queue.Submit(std::make_unique<RecordingJob>(&log, 0));
  queue.Stop();
  queue.Stop();  // idempotent
  queue.Submit(std::make_unique<RecordingJob>(&log, 1));
  ASSERT_EQ(log.finished, (std::vector<int>{0, 1}));
  EXPECT_OK(log.statuses[0]);
  EXPECT_EQ(log.statuses[1].code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ldp
